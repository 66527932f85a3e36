/* Reductions over all elements, for any reduction of the op table, and trace:
 * NumPy's own functions on the CPU, the GPU for device arrays (and for large
 * host arrays when it wins); the result is a NumPy scalar either way. */
#include <string.h>

#include "elementwise.h"
#include "reductions.h"
#include "references.h"
#include "shapes.h"

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

static int64_t device_count_of(const DeviceArrayObject *a)
{
    int64_t n = 1;
    for (int d = 0; d < a->ndim; ++d) {
        n *= a->shape[d];
    }
    return n;
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
static PyObject *reduce_cpu(va_op op, PyObject *array)
{
    PyObject *fn = op_reference(op);
    if (fn == NULL) {
        return NULL;
    }
    return PyObject_CallOneArg(fn, array);
}

PyObject *reduction_objects(va_op op, PyObject *a_obj, Where where)
{
    PyObject *result = NULL;
    PyArrayObject *host = NULL;
    Operand a;
    va_dtype dtype, out_dtype;
    memset(&a, 0, sizeof(a));
    if (operand_init(&a, a_obj) < 0) {
        goto done;
    }
    dtype = operand_natural_dtype(&a);
    if (result_dtype(op, dtype, &out_dtype) < 0) {
        goto done;
    }
    if (a.device != NULL) {
        va_array view;
        if (where == WHERE_CPU) {
            PyErr_SetString(PyExc_ValueError, "device='cpu' was asked for, but the array is on the GPU");
            goto done;
        }
        if (where_check_data(where, a.device->device) < 0 ||
            check_not_empty(op, device_count_of(a.device)) < 0) {
            goto done;
        }
        devicearray_describe(a.device, &view);
        result = reduce_device(op, a.device, &view, out_dtype);
        goto done;
    }
    host = operand_host_array(&a, dtype);
    if (host == NULL) {
        goto done;
    }
    if (where == WHERE_AUTO) {
        if ((int64_t)PyArray_SIZE(host) >= auto_threshold("sum") && PyArray_NDIM(host) <= VA_MAX_NDIM &&
            va_cuda_available() == VA_SUCCESS) {
            va_status st;
            if (check_not_empty(op, (int64_t)PyArray_SIZE(host)) < 0) {
                goto done;
            }
            result = reduce_gpu_host(op, host, dtype, out_dtype, where, &st);
            if (result == NULL && (st == VA_ERROR_OUT_OF_MEMORY || st == VA_ERROR_NO_DEVICE)) {
                PyErr_Clear();
                result = reduce_cpu(op, a.host != NULL ? (PyObject *)a.host : a_obj);
            }
            goto done;
        }
        where = WHERE_CPU;
    }
    if (where == WHERE_CPU) {
        result = reduce_cpu(op, a.host != NULL ? (PyObject *)a.host : a_obj);
    }
    else if (check_not_empty(op, (int64_t)PyArray_SIZE(host)) == 0 &&
             require_cuda(va_op_get(op)->name) == 0) {
        va_status st;
        result = reduce_gpu_host(op, host, dtype, out_dtype, where, &st);
    }
done:
    Py_XDECREF(host);
    operand_clear(&a);
    return result;
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
        if (where == WHERE_CPU) {
            PyErr_SetString(PyExc_ValueError, "device='cpu' was asked for, but the array is on the GPU");
            goto done;
        }
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
