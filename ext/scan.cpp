/* cumsum, cumprod (NumPy) and cumulative_sum, cumulative_prod (the array API,
 * NumPy 2.1's functions of those names): NumPy's own functions for host data
 * (myModule._reference), va_cumulative on the GPU for device data, for large
 * host arrays and for device='cuda'. */
#include <string.h>

#include "hooks.h"
#include "scan.h"
#include "views.h"

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

typedef struct {
    const char *name;    /* "cumsum", "cumulative_prod", ... */
    va_scan kind;
    int array_api;       /* cumulative_*: axis required past 1-d, include_initial= */
    PyObject *axis;      /* borrowed, NULL or None: flattened (array API: the only axis) */
    PyObject *dtype;
    PyObject *out;
    int include_initial;
} ScanRequest;

/* NumPy's result dtype of a running sum or product: sum's (the op table's SUM
 * domain: bool and signed integers as int64, unsigned ones as uint64, floats as
 * themselves); VA_DTYPE_COUNT where sum has no loop. */
static va_dtype default_scan_dtype(va_dtype in)
{
    static va_op sum = -1;
    va_dtype compute, result;
    if (sum < 0 && va_op_find("sum", &sum) != VA_SUCCESS) {
        return VA_DTYPE_COUNT;
    }
    return va_op_dtypes(sum, 1, &in, NULL, &compute, &result) == VA_SUCCESS ? result : VA_DTYPE_COUNT;
}

/* A new DeviceArray holding the scan of `a` on its GPU, or `req->out` filled. */
static PyObject *scan_device(DeviceArrayObject *a, const ScanRequest *req)
{
    DeviceArrayObject *result = NULL, *target = NULL;
    PyObject *identity = NULL;
    va_array in_view, out_view;
    va_dtype dtype = VA_DTYPE_COUNT;
    int given = 0, axis = -1, ndim = 1;
    int64_t shape[VA_MAX_NDIM];
    va_status st;
    if (parse_dtype(req->dtype, &dtype, &given) < 0) {
        return NULL;
    }
    if (!given) {
        dtype = default_scan_dtype(a->dtype);
    }
    if (req->axis == NULL || req->axis == Py_None) {
        if (req->array_api && a->ndim > 1) {
            PyErr_Format(PyExc_ValueError, "axis must be specified in %s for more than one dimension", req->name);
            return NULL;
        }
        shape[0] = array_size(a);
    }
    else {
        if (parse_one_axis(req->axis, a->ndim, &axis) < 0) {
            return NULL;
        }
        ndim = a->ndim;
        memcpy(shape, a->shape, sizeof(int64_t) * (size_t)ndim);
    }
    const int scan_axis = axis < 0 ? 0 : axis;
    if (req->include_initial) {
        shape[scan_axis] += 1; /* a dimension of an existing array, plus one: no overflow */
    }
    if (req->out != NULL && req->out != Py_None) {
        if (!DeviceArray_Check(req->out)) {
            PyErr_Format(PyExc_TypeError, "%s: out must be a DeviceArray for data on a GPU", req->name);
            return NULL;
        }
        target = (DeviceArrayObject *)req->out;
        if (devicearray_check_writable(req->out, target) < 0) {
            return NULL;
        }
        if (target->ndim != ndim || memcmp(target->shape, shape, sizeof(int64_t) * (size_t)ndim) != 0) {
            PyErr_Format(PyExc_ValueError, "%s: out has the wrong shape", req->name);
            return NULL;
        }
        if (target->device != a->device) {
            PyErr_Format(PyExc_ValueError, "%s: out is on GPU %d, the data on GPU %d", req->name, target->device,
                         a->device);
            return NULL;
        }
        {
            PyArray_Descr *from = descr_from_va(dtype), *to = descr_from_va(target->dtype);
            int ok = from != NULL && to != NULL && PyArray_CanCastTypeTo(from, to, NPY_SAME_KIND_CASTING);
            Py_XDECREF(from);
            Py_XDECREF(to);
            if (!ok) {
                PyErr_Format(PyExc_TypeError, "%s: cannot cast the result from %s to %s with casting rule "
                             "'same_kind'", req->name, va_dtype_name(dtype), va_dtype_name(target->dtype));
                return NULL;
            }
        }
    }
    /* Computed in `dtype` (NumPy's loop), straight into out= when it has it. */
    if (target != NULL && target->dtype == dtype) {
        Py_INCREF(target);
        result = target;
    }
    else if ((result = devicearray_empty(a->device, dtype, ndim, shape, 0)) == NULL) {
        return NULL;
    }
    devicearray_describe(a, &in_view);
    devicearray_describe(result, &out_view);
    if (req->include_initial) {
        /* The identity in the first place along the axis, the scan after it. */
        unsigned char packed[16];
        va_array first = out_view;
        first.shape[scan_axis] = 1;
        if ((identity = PyLong_FromLong(req->kind == VA_SCAN_PROD ? 1 : 0)) == NULL ||
            pack_scalar(identity, dtype, packed) < 0) {
            goto fail;
        }
        if ((st = va_fill(a->device, &first, packed)) != VA_SUCCESS) {
            raise_status(st);
            goto fail;
        }
        out_view.data = (char *)out_view.data + out_view.strides[scan_axis];
        out_view.shape[scan_axis] -= 1;
    }
    Py_BEGIN_ALLOW_THREADS
    st = va_cumulative(a->device, req->kind, &in_view, axis, &out_view);
    Py_END_ALLOW_THREADS
    if (st != VA_SUCCESS) {
        raise_status(st);
        goto fail;
    }
    if (target != NULL && result != target) {
        va_array from, to;
        devicearray_describe(result, &from);
        devicearray_describe(target, &to);
        if ((st = va_copy_convert(a->device, &from, &to)) != VA_SUCCESS) {
            raise_status(st);
            goto fail;
        }
        Py_DECREF(result);
        Py_INCREF(target);
        result = target;
    }
    Py_XDECREF(identity);
    return (PyObject *)result;
fail:
    Py_XDECREF(identity);
    Py_XDECREF(result);
    return NULL;
}

/* NumPy's function of the same name (myModule._reference) with the keywords given. */
static PyObject *scan_cpu(const ScanRequest *req, PyObject *array)
{
    PyObject *fn = NULL, *args = NULL, *kwargs = NULL, *result = NULL;
    if ((fn = hook_attribute(HOOK_REFERENCE, req->name)) == NULL || (args = PyTuple_Pack(1, array)) == NULL ||
        (kwargs = PyDict_New()) == NULL) {
        goto fail;
    }
    if ((req->axis != NULL && PyDict_SetItemString(kwargs, "axis", req->axis) < 0) ||
        (req->dtype != NULL && PyDict_SetItemString(kwargs, "dtype", req->dtype) < 0) ||
        (req->out != NULL && PyDict_SetItemString(kwargs, "out", req->out) < 0) ||
        (req->array_api && PyDict_SetItemString(kwargs, "include_initial",
                                                req->include_initial ? Py_True : Py_False) < 0)) {
        goto fail;
    }
    result = PyObject_Call(fn, args, kwargs);
fail:
    Py_XDECREF(fn);
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    return result;
}

static PyObject *scan_values(ScanRequest *req, PyObject *a_obj, PyObject *device_obj)
{
    PyObject *result = NULL;
    Operand a;
    Where where;
    int host_axis = 0; /* checked only: the GPU path reads the axis again */
    memset(&a, 0, sizeof(a));
    if (parse_where(device_obj, &where) < 0 || operand_init(&a, a_obj) < 0) {
        goto done;
    }
    if (a.device != NULL) {
        if (where_check_data(where, a.device->device) < 0) {
            goto done;
        }
        result = scan_device(a.device, req);
        goto done;
    }
    if (a.host == NULL) {
        PyErr_Format(PyExc_TypeError, "%s() needs an array, got a scalar", req->name);
        goto done;
    }
    where = where_for_host_data(where, (int64_t)PyArray_SIZE(a.host), "sum");
    if (where == WHERE_CPU) {
        result = scan_cpu(req, (PyObject *)a.host);
        goto done;
    }
    if (req->out != NULL && req->out != Py_None && !PyArray_Check(req->out)) {
        PyErr_Format(PyExc_TypeError, "%s: out must be a numpy.ndarray for host data", req->name);
        goto done;
    }
    /* the axis is an argument error: before the GPU's availability is asked */
    if (req->axis != NULL && req->axis != Py_None && parse_one_axis(req->axis, PyArray_NDIM(a.host), &host_axis) < 0) {
        goto done;
    }
    if (require_cuda(req->name) == 0) {
        int gpus[WHERE_MAX_GPUS], ngpus = 0;
        DeviceArrayObject *dev = NULL;
        PyObject *scanned = NULL, *host = NULL, *user_out = req->out;
        if (where_devices(where, gpus, &ngpus) < 0 || (dev = operand_device_array(&a, a.dtype, gpus[0])) == NULL) {
            goto done;
        }
        req->out = NULL;
        scanned = scan_device(dev, req);
        req->out = user_out;
        Py_DECREF(dev);
        if (scanned == NULL || (host = devicearray_to_host((DeviceArrayObject *)scanned)) == NULL) {
            Py_XDECREF(scanned);
            goto done;
        }
        Py_DECREF(scanned);
        if (user_out != NULL && user_out != Py_None) {
            if (PyArray_CopyInto((PyArrayObject *)user_out, (PyArrayObject *)host) == 0) {
                Py_INCREF(user_out);
                result = user_out;
            }
            Py_DECREF(host);
        }
        else {
            result = host;
        }
    }
done:
    operand_clear(&a);
    return result;
}

/* cumsum/cumprod: a, axis, dtype, out, device. */
static PyObject *numpy_style(const char *name, va_scan kind, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    static const char *const names[] = {"a", "axis", "dtype", "out", "device"};
    PyObject *values[5] = {self, NULL, NULL, NULL, NULL};
    ScanRequest req;
    if (self == NULL ? parse_arguments(name, args, nargs, kwnames, names, 5, 1, 4, values) < 0
                     : parse_arguments(name, args, nargs, kwnames, names + 1, 3, 0, 3, values + 1) < 0) {
        return NULL;
    }
    memset(&req, 0, sizeof(req));
    req.name = name;
    req.kind = kind;
    req.axis = values[1];
    req.dtype = values[2];
    req.out = values[3];
    return scan_values(&req, values[0], values[4]);
}

/* cumulative_sum/cumulative_prod: x, axis, dtype, out, include_initial, device
 * (all but x keyword-only, as NumPy's and the standard's). */
static PyObject *array_api_style(const char *name, va_scan kind, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames)
{
    static const char *const names[] = {"x", "axis", "dtype", "out", "include_initial", "device"};
    PyObject *values[6];
    ScanRequest req;
    if (parse_arguments(name, args, nargs, kwnames, names, 6, 1, 1, values) < 0) {
        return NULL;
    }
    memset(&req, 0, sizeof(req));
    req.name = name;
    req.kind = kind;
    req.array_api = 1;
    req.axis = values[1];
    req.dtype = values[2];
    req.out = values[3];
    if (values[4] != NULL && (req.include_initial = PyObject_IsTrue(values[4])) < 0) {
        return NULL;
    }
    return scan_values(&req, values[0], values[5]);
}

static PyObject *mm_cumsum(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return numpy_style("cumsum", VA_SCAN_SUM, NULL, args, nargs, kwnames);
}

static PyObject *mm_cumprod(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return numpy_style("cumprod", VA_SCAN_PROD, NULL, args, nargs, kwnames);
}

static PyObject *mm_cumulative_sum(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return array_api_style("cumulative_sum", VA_SCAN_SUM, args, nargs, kwnames);
}

static PyObject *mm_cumulative_prod(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return array_api_style("cumulative_prod", VA_SCAN_PROD, args, nargs, kwnames);
}

static PyObject *da_cumsum(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return numpy_style("cumsum", VA_SCAN_SUM, self, args, nargs, kwnames);
}

static PyObject *da_cumprod(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return numpy_style("cumprod", VA_SCAN_PROD, self, args, nargs, kwnames);
}

static PyMethodDef scan_functions[] = {
    {"cumsum", FASTCALL(mm_cumsum),
     "cumsum(a, axis=None, dtype=None, out=None, *, device='auto')\n--\n\nnumpy.cumsum: running sums along "
     "the axis (None: over the flattened array), bool and integers as int64. Host data: NumPy's result, "
     "computed by NumPy or, for large arrays and device='cuda', on a GPU; data on a GPU: a DeviceArray "
     "(CUB's scan; float sums are within rounding of NumPy's left-to-right ones)."},
    {"cumprod", FASTCALL(mm_cumprod),
     "cumprod(a, axis=None, dtype=None, out=None, *, device='auto')\n--\n\nnumpy.cumprod: running products, "
     "as cumsum()."},
    {"cumulative_sum", FASTCALL(mm_cumulative_sum),
     "cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False, device='auto')\n--\n\n"
     "numpy.cumulative_sum (the array API's): axis may be left out only for 1-d input; include_initial=True "
     "puts a 0 first along the axis."},
    {"cumulative_prod", FASTCALL(mm_cumulative_prod),
     "cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False, device='auto')\n--\n\n"
     "numpy.cumulative_prod (the array API's): as cumulative_sum, with a 1 first for include_initial=True."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef scan_methods[] = {
    {"cumsum", FASTCALL(da_cumsum),
     "cumsum(axis=None, dtype=None, out=None)\n--\n\nAs myModule.cumsum(self, ...): a DeviceArray, queued "
     "without a wait."},
    {"cumprod", FASTCALL(da_cumprod),
     "cumprod(axis=None, dtype=None, out=None)\n--\n\nAs myModule.cumprod(self, ...)."},
    {NULL, NULL, 0, NULL},
};

int scan_init(PyObject *module)
{
    if (PyModule_AddFunctions(module, scan_functions) < 0) {
        return -1;
    }
    return 0;
}

TypePart scan_type_part(void)
{
    return TypePart{scan_methods, NULL};
}
