/* Reductions of the op table as NumPy's functions and DeviceArray methods, and
 * trace: NumPy's own functions for host data (the GPU for large host arrays when
 * it wins, or when asked for), the GPU for device arrays (reduce_device.cpp),
 * whose results stay there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <array>
#include <utility>

#include "elementwise.h"
#include "reductions.h"
#include "references.h"
#include "shapes.h"
#include "views.h"

typedef union {
    int64_t i;
    double d;
    float f;
    unsigned char b;
} Value;

static PyObject *scalar_of(va_dtype dtype, const Value *value)
{
    PyArray_Descr *descr = descr_from_va(dtype);
    if (descr == NULL) {
        return NULL;
    }
    PyObject *scalar = PyArray_Scalar((void *)value, descr, NULL);
    Py_DECREF(descr);
    return scalar;
}

static int result_dtype(va_op op, va_dtype in, va_dtype *result)
{
    va_dtype compute;
    if (va_op_dtypes(op, 1, &in, NULL, &compute, result) != VA_SUCCESS) {
        va_weak strong = VA_STRONG;
        raise_no_loop(op, 1, &in, &strong);
        return -1;
    }
    return 0;
}

/* NumPy's words for a reduction with no identity over nothing. */
static int check_not_empty(va_op op, int64_t n)
{
    const va_op_info *info = va_op_get(op);
    if (n == 0 && !info->has_identity) {
        PyErr_Format(PyExc_ValueError,
                     "zero-size array to reduction operation %s which has no identity", info->name);
        return -1;
    }
    return 0;
}

static PyObject *reduce_device(va_op op, DeviceArrayObject *array, const va_array *view, va_dtype result)
{
    Value value;
    va_status st;
    memset(&value, 0, sizeof(value));
    Py_BEGIN_ALLOW_THREADS
    st = va_reduce(array->device, op, view, &value);
    Py_END_ALLOW_THREADS
    if (st != VA_SUCCESS) {
        return raise_status(st);
    }
    return scalar_of(result, &value);
}

/* A host array reduced by the GPU; *status for the caller's fallback. */
static PyObject *reduce_gpu_host(va_op op, PyArrayObject *array, va_dtype dtype, va_dtype result,
                                 Where where, va_status *status)
{
    int gpus[WHERE_MAX_GPUS], ngpus = 0;
    Shape shape;
    va_array view;
    Value value;
    memset(&value, 0, sizeof(value));
    *status = VA_SUCCESS;
    if (shape_of_host(array, &shape) < 0 || where_devices(where, gpus, &ngpus) < 0) {
        return NULL;
    }
    view_of_host(&view, array, dtype, &shape);
    Py_BEGIN_ALLOW_THREADS
    *status = va_reduce_host_multi(gpus, ngpus, op, &view, &value);
    Py_END_ALLOW_THREADS
    if (*status != VA_SUCCESS) {
        return raise_status(*status);
    }
    return scalar_of(result, &value);
}

/* NumPy's own function on the array as the caller gave it (any layout, byte
 * order): its result bit for bit. */
/* The keyword names of a reduction, as NumPy's function has them: dtype for
 * the accumulating ones (sum, prod, mean), keepdims keyword-only for argmax's. */
typedef struct {
    const char *const *names;
    int nnames;
    int max_positional;
} ReduceSignature;

static ReduceSignature signature_of(const va_op_info *info)
{
    static const char *const with_dtype[] = {"a", "axis", "dtype", "out", "keepdims", "device"};
    static const char *const without_dtype[] = {"a", "axis", "out", "keepdims", "device"};
    ReduceSignature sig;
    if (info->domain == VA_DOMAIN_SUM || info->domain == VA_DOMAIN_MEAN) {
        sig.names = with_dtype;
        sig.nnames = 6;
        sig.max_positional = 5;
    }
    else {
        sig.names = without_dtype;
        sig.nnames = 5;
        sig.max_positional = info->domain == VA_DOMAIN_INDEX ? 3 : 4;
    }
    return sig;
}

/* NumPy's own function on the array as the caller gave it (any layout, byte
 * order), with the keywords the caller gave: its result bit for bit. */
static PyObject *reduce_cpu(va_op op, PyObject *array, const char *const *names, PyObject *const *values,
                            int nvalues)
{
    PyObject *fn = op_reference(op), *args = NULL, *kwargs = NULL, *result = NULL;
    if (fn == NULL) {
        return NULL;
    }
    args = PyTuple_Pack(1, array);
    kwargs = PyDict_New();
    if (args == NULL || kwargs == NULL) {
        goto fail;
    }
    for (int k = 0; k < nvalues; ++k) {
        if (values[k] != NULL && PyDict_SetItemString(kwargs, names[k], values[k]) < 0) {
            goto fail;
        }
    }
    result = PyObject_Call(fn, args, kwargs);
fail:
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    return result;
}

/* The arguments of a reduction of host data on the GPU (device="cuda"),
 * checked before the device check as NumPy checks them (../shared/SPEC.md):
 * no more dimensions than the GPU takes, axis= (AxisError, ValueError for a
 * repeated axis), an empty reduction without identity, and a NumPy out= that is
 * writable and has the result's number of dimensions. */
static int check_host_reduction(va_op op, PyArrayObject *host, const ReduceOptions *opt)
{
    const va_op_info *info = va_op_get(op);
    int ndim = PyArray_NDIM(host), naxes = 0, axes[VA_MAX_NDIM];
    int64_t count = 1;
    if (ndim > VA_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported on the GPU", VA_MAX_NDIM);
        return -1;
    }
    if (opt->axis == NULL || opt->axis == Py_None) {
        naxes = ndim;
        for (int d = 0; d < ndim; ++d) {
            axes[d] = d;
        }
    }
    else if (info->domain == VA_DOMAIN_INDEX && !PyIndex_Check(opt->axis)) {
        PyErr_Format(PyExc_TypeError, "'%.100s' object cannot be interpreted as an integer",
                     Py_TYPE(opt->axis)->tp_name);
        return -1;
    }
    else if (parse_axes(opt->axis, ndim, &naxes, axes) < 0) {
        return -1;
    }
    for (int k = 0; k < naxes; ++k) {
        count *= PyArray_DIM(host, axes[k]); /* a part of an existing array's size */
    }
    if (check_not_empty(op, count) < 0) {
        return -1;
    }
    if (opt->out != NULL && opt->out != Py_None) {
        if (!PyArray_Check(opt->out)) {
            PyErr_SetString(PyExc_TypeError, "out must be a numpy.ndarray for host data");
            return -1;
        }
        if (PyArray_FailUnlessWriteable((PyArrayObject *)opt->out, "output array") < 0) {
            return -1;
        }
        int expected = opt->keepdims ? ndim : ndim - naxes;
        if (info->domain == VA_DOMAIN_INDEX && (opt->axis == NULL || opt->axis == Py_None) && !opt->keepdims) {
            expected = 0;
        }
        if (PyArray_NDIM((PyArrayObject *)opt->out) != expected) {
            PyErr_Format(PyExc_ValueError, "output parameter for reduction operation %s has the wrong "
                         "number of dimensions: Found %d but expected %d", info->name,
                         PyArray_NDIM((PyArrayObject *)opt->out), expected);
            return -1;
        }
    }
    return 0;
}

/* A host array reduced through a DeviceArray on the first GPU `where` names:
 * NumPy's kinds of result (a scalar for a full reduction, the array written
 * into a NumPy out=). */
static PyObject *reduce_host_on_gpu(va_op op, const Operand *a, va_dtype dtype, ReduceOptions *opt, Where where)
{
    DeviceArrayObject *dev = NULL;
    PyObject *reduced = NULL, *host = NULL, *result = NULL, *user_out = opt->out;
    int gpus[WHERE_MAX_GPUS], ngpus = 0;
    if (where_devices(where, gpus, &ngpus) < 0) {
        return NULL;
    }
    if (user_out != NULL && user_out != Py_None && !PyArray_Check(user_out)) {
        PyErr_SetString(PyExc_TypeError, "out must be a numpy.ndarray for host data");
        return NULL;
    }
    if (user_out != NULL && user_out != Py_None && !PyArray_ISWRITEABLE((PyArrayObject *)user_out)) {
        PyErr_SetString(PyExc_ValueError, "output array is read-only");
        return NULL;
    }
    dev = operand_device_array(a, dtype, gpus[0]);
    if (dev == NULL) {
        return NULL;
    }
    {
        /* The NumPy out= is filled from a new device result: its dtype picks the
         * loop as a device out= would. */
        ReduceOptions device_opt = *opt;
        device_opt.out = NULL;
        va_dtype out_dtype;
        if (user_out != NULL && user_out != Py_None && !opt->dtype_given &&
            va_dtype_from_descr(PyArray_DESCR((PyArrayObject *)user_out), &out_dtype) == 0) {
            device_opt.dtype = reduction_dtype_for_out(op, dtype, out_dtype);
            device_opt.dtype_given = device_opt.dtype != VA_DTYPE_COUNT;
        }
        reduced = reduce_device_array(op, dev, &device_opt);
    }
    if (reduced == NULL) {
        goto fail;
    }
    host = devicearray_to_host((DeviceArrayObject *)reduced);
    if (host == NULL) {
        goto fail;
    }
    if (user_out != NULL && user_out != Py_None) {
        if (PyArray_NDIM((PyArrayObject *)user_out) != PyArray_NDIM((PyArrayObject *)host)) {
            PyErr_Format(PyExc_ValueError, "output parameter for reduction operation %s has the wrong "
                         "number of dimensions: Found %d but expected %d", va_op_get(op)->name,
                         PyArray_NDIM((PyArrayObject *)user_out), PyArray_NDIM((PyArrayObject *)host));
            goto fail;
        }
        if (PyArray_CopyInto((PyArrayObject *)user_out, (PyArrayObject *)host) < 0) {
            goto fail;
        }
        Py_INCREF(user_out);
        result = user_out;
        goto fail;
    }
    result = PyArray_Return((PyArrayObject *)host);
    host = NULL;
fail:
    Py_XDECREF(host);
    Py_XDECREF(reduced);
    Py_XDECREF(dev);
    return result;
}

/* values: a, axis, [dtype,] out, keepdims, device (NULL where not given). */
static PyObject *reduce_values(va_op op, const ReduceSignature *sig, PyObject *const *values)
{
    const va_op_info *info = va_op_get(op);
    PyObject *result = NULL;
    PyArrayObject *host = NULL;
    Operand a;
    ReduceOptions opt;
    Where where;
    va_dtype dtype, out_dtype;
    int has_dtype = sig->nnames == 6;
    PyObject *dtype_obj = has_dtype ? values[2] : NULL;
    PyObject *out_obj = values[has_dtype ? 3 : 2], *keepdims_obj = values[has_dtype ? 4 : 3];
    PyObject *device_obj = values[sig->nnames - 1];
    int plain;
    memset(&a, 0, sizeof(a));
    memset(&opt, 0, sizeof(opt));
    if (parse_where(device_obj, &where) < 0 || operand_init(&a, values[0]) < 0) {
        goto done;
    }
    opt.axis = values[1];
    opt.out = out_obj;
    if (keepdims_obj != NULL && (opt.keepdims = PyObject_IsTrue(keepdims_obj)) < 0) {
        goto done;
    }
    /* On the CPU NumPy reads dtype= and axis= itself (any dtype it knows). */
    if ((a.device != NULL || where == WHERE_CUDA) && parse_dtype(dtype_obj, &opt.dtype, &opt.dtype_given) < 0) {
        goto done;
    }
    if ((a.device != NULL || where == WHERE_CUDA) && info->domain == VA_DOMAIN_INDEX && opt.axis != NULL &&
        opt.axis != Py_None && !PyIndex_Check(opt.axis)) {
        PyErr_Format(PyExc_TypeError, "'%.100s' object cannot be interpreted as an integer",
                     Py_TYPE(opt.axis)->tp_name);
        goto done;
    }
    dtype = operand_natural_dtype(&a);
    if (result_dtype(op, opt.dtype_given ? opt.dtype : dtype, &out_dtype) < 0) {
        goto done;
    }
    if (a.device != NULL) {
        if (where_check_data(where, a.device->device) < 0) {
            goto done;
        }
        result = reduce_device_array(op, a.device, &opt);
        goto done;
    }
    /* Over every element with no other keyword: the pipelined host path can
     * take it (it finishes no averages and tracks no positions). */
    plain = (opt.axis == NULL || opt.axis == Py_None) && (dtype_obj == NULL || dtype_obj == Py_None) &&
            (out_obj == NULL || out_obj == Py_None) && !opt.keepdims &&
            (info->domain == VA_DOMAIN_SUM || info->domain == VA_DOMAIN_SAME);
    host = operand_host_array(&a, dtype);
    if (host == NULL) {
        goto done;
    }
    if (where == WHERE_AUTO && !op_has_reference(op)) {
        where = WHERE_CUDA; /* no CPU implementation to choose */
    }
    if (where == WHERE_AUTO) {
        if (plain && PyArray_NDIM(host) <= VA_MAX_NDIM &&
            where_for_host_data(where, (int64_t)PyArray_SIZE(host), "sum") == WHERE_CUDA) {
            va_status st;
            if (check_not_empty(op, (int64_t)PyArray_SIZE(host)) < 0) {
                goto done;
            }
            result = reduce_gpu_host(op, host, dtype, out_dtype, where, &st);
            if (result == NULL && (st == VA_ERROR_OUT_OF_MEMORY || st == VA_ERROR_NO_DEVICE)) {
                PyErr_Clear();
                result = reduce_cpu(op, a.host != NULL ? (PyObject *)a.host : values[0], sig->names + 1,
                                    values + 1, sig->nnames - 2);
            }
            goto done;
        }
        where = WHERE_CPU;
    }
    if (where == WHERE_CPU) {
        result = reduce_cpu(op, a.host != NULL ? (PyObject *)a.host : values[0], sig->names + 1, values + 1,
                            sig->nnames - 2);
    }
    else if (check_host_reduction(op, host, &opt) == 0 && require_cuda(info->name) == 0) {
        if (plain) {
            va_status st;
            if (check_not_empty(op, (int64_t)PyArray_SIZE(host)) == 0) {
                result = reduce_gpu_host(op, host, dtype, out_dtype, where, &st);
            }
        }
        else if (PyArray_NDIM(host) > VA_MAX_NDIM) {
            PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported on the GPU", VA_MAX_NDIM);
        }
        else {
            result = reduce_host_on_gpu(op, &a, dtype, &opt, where);
        }
    }
done:
    Py_XDECREF(host);
    operand_clear(&a);
    return result;
}

PyObject *reduction_call(va_op op, PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    const va_op_info *info = va_op_get(op);
    ReduceSignature sig = signature_of(info);
    PyObject *values[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    if (self == NULL) {
        if (parse_arguments(info->name, args, nargs, kwnames, sig.names, sig.nnames, 1, sig.max_positional,
                            values) < 0) {
            return NULL;
        }
    }
    else {
        values[0] = self;
        if (parse_arguments(info->name, args, nargs, kwnames, sig.names + 1, sig.nnames - 1, 0,
                            sig.max_positional - 1, values + 1) < 0) {
            return NULL;
        }
    }
    return reduce_values(op, &sig, values);
}

PyObject *reduction_objects(va_op op, PyObject *a_obj, Where where)
{
    const ReduceSignature sig = signature_of(va_op_get(op));
    PyObject *values[6] = {a_obj, NULL, NULL, NULL, NULL, NULL};
    PyObject *device = NULL, *result;
    if (where != WHERE_AUTO) {
        device = PyUnicode_FromString(where == WHERE_CPU ? "cpu" : "cuda");
        if (device == NULL) {
            return NULL;
        }
    }
    values[sig.nnames - 1] = device;
    result = reduce_values(op, &sig, values);
    Py_XDECREF(device);
    return result;
}

char *reduction_doc(const va_op_info *info)
{
    const ReduceSignature sig = signature_of(info);
    const char *args = sig.nnames == 6 ? "a, axis=None, dtype=None, out=None, keepdims=False, *, device='auto'"
                       : info->domain == VA_DOMAIN_INDEX ? "a, axis=None, out=None, *, keepdims=False, device='auto'"
                                                         : "a, axis=None, out=None, keepdims=False, *, device='auto'";
    size_t size = strlen(info->name) + strlen(args) + strlen(info->doc) + strlen(info->reference) + 600;
    char *doc = (char *)malloc(size);
    if (doc == NULL) {
        return NULL;
    }
    snprintf(doc, size,
             "%s(%s)\n--\n\n%s\n\nAs %s (axis: None, an int or a tuple of ints; keepdims; out=), "
             "computed on the CPU or a GPU: device='auto' | 'cpu' | 'cuda' for host data, which gives "
             "NumPy's result types. Data already on a GPU is reduced there into a DeviceArray (0-d for a "
             "full reduction), queued without waiting: float(r), int(r) or r.get() read it.",
             info->name, args, info->doc, info->reference);
    return doc;
}

/* ---- the methods: one C function per table index, as optable.cpp's ---- */
#define MAX_METHODS 256
typedef PyObject *(*MethodCall)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);
template <int I>
static PyObject *method_at(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return reduction_call(I, self, args, nargs, kwnames);
}
template <size_t... I>
static std::array<MethodCall, sizeof...(I)> method_entries(std::index_sequence<I...>)
{
    return {{&method_at<(int)I>...}};
}

TypePart reductions_type_part(int *ok)
{
    static const std::array<MethodCall, MAX_METHODS> calls = method_entries(std::make_index_sequence<MAX_METHODS>());
    static PyMethodDef defs[MAX_METHODS + 1];
    int n = 0;
    *ok = 0;
    for (va_op op = 0; op < va_op_count() && op < MAX_METHODS; ++op) {
        const va_op_info *info = va_op_get(op);
        if (info->kind != VA_KIND_REDUCTION) {
            continue;
        }
        const ReduceSignature sig = signature_of(info);
        const char *args = sig.nnames == 6 ? "$self, /, axis=None, dtype=None, out=None, keepdims=False"
                           : info->domain == VA_DOMAIN_INDEX ? "$self, /, axis=None, out=None, *, keepdims=False"
                                                             : "$self, /, axis=None, out=None, keepdims=False";
        size_t size = strlen(info->name) + strlen(args) + strlen(info->doc) + 200;
        char *doc = (char *)malloc(size);
        if (doc == NULL) {
            PyErr_NoMemory();
            return TypePart{NULL, NULL};
        }
        snprintf(doc, size, "%s(%s)\n--\n\n%s\n\nAs myModule.%s(self, ...): a DeviceArray, queued without a wait.",
                 info->name, args, info->doc, info->name);
        defs[n].ml_name = info->name;
        defs[n].ml_meth = (PyCFunction)(void (*)(void))calls[op];
        defs[n].ml_flags = METH_FASTCALL | METH_KEYWORDS;
        defs[n].ml_doc = doc;
        ++n;
    }
    defs[n].ml_name = NULL;
    *ok = 1;
    return TypePart{defs, NULL};
}

PyObject *mm_trace(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"a", "device"};
    static va_op sum = -1;
    PyObject *values[2];
    PyObject *result = NULL;
    PyArrayObject *host = NULL, *diagonal = NULL;
    Where where;
    Operand a;
    int ndim;
    va_dtype out_dtype;
    (void)module;
    memset(&a, 0, sizeof(a));
    if (sum < 0 && va_op_find("sum", &sum) != VA_SUCCESS) {
        PyErr_SetString(PyExc_SystemError, "the op table has no sum");
        return NULL;
    }
    if (parse_arguments("trace", args, nargs, kwnames, names, 2, 1, 1, values) < 0 ||
        parse_where(values[1], &where) < 0 || operand_init(&a, values[0]) < 0) {
        goto done;
    }
    ndim = a.device != NULL ? a.device->ndim : a.host != NULL ? PyArray_NDIM(a.host) : 0;
    if (ndim != 2) {
        PyErr_Format(PyExc_ValueError, "trace needs a 2-d array, got %d dimension(s)", ndim);
        goto done;
    }
    if (result_dtype(sum, a.dtype, &out_dtype) < 0) {
        goto done;
    }
    if (a.device != NULL) {
        va_array view, diag;
        if (where_check_data(where, a.device->device) < 0) {
            goto done;
        }
        devicearray_describe(a.device, &view);
        /* The main diagonal as a 1-d strided view, summed. */
        memset(&diag, 0, sizeof(diag));
        diag.data = view.data;
        diag.dtype = view.dtype;
        diag.ndim = 1;
        diag.shape[0] = view.shape[0] < view.shape[1] ? view.shape[0] : view.shape[1];
        diag.strides[0] = view.strides[0] + view.strides[1];
        result = reduce_device(sum, a.device, &diag, out_dtype);
        goto done;
    }
    /* Host data: only the diagonal matters, so the CPU wins unless the GPU is
     * asked for by name. */
    if (where != WHERE_CUDA) {
        result = PyArray_Trace(a.host, 0, 0, 1, NPY_NOTYPE, NULL);
        goto done;
    }
    if (require_cuda("trace") < 0) {
        goto done;
    }
    host = operand_host_array(&a, a.dtype);
    if (host == NULL) {
        goto done;
    }
    diagonal = (PyArrayObject *)PyArray_Diagonal(host, 0, 0, 1);
    if (diagonal == NULL) {
        goto done;
    }
    {
        va_status st;
        result = reduce_gpu_host(sum, diagonal, a.dtype, out_dtype, where, &st);
    }
done:
    Py_XDECREF(diagonal);
    Py_XDECREF(host);
    operand_clear(&a);
    return result;
}
