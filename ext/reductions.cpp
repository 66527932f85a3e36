/* sum and trace: NumPy on the CPU, the GPU for device arrays (and for large host
 * arrays when it wins); the result is a NumPy scalar either way. */
#include <string.h>

#include "shapes.h"

/* The NumPy scalar for a va_sum result of an array of `dtype`. */
static PyObject *sum_scalar(va_dtype dtype, const void *value)
{
    va_dtype result = (dtype == VA_INT32 || dtype == VA_INT64) ? VA_INT64 : dtype;
    PyArray_Descr *descr = descr_from_va(result);
    if (descr == NULL) {
        return NULL;
    }
    PyObject *scalar = PyArray_Scalar((void *)value, descr, NULL);
    Py_DECREF(descr);
    return scalar;
}

static PyObject *sum_device(DeviceArrayObject *array)
{
    va_array view;
    devicearray_describe(array, &view);
    union { int64_t i; double d; float f; } value;
    va_status st;
    Py_BEGIN_ALLOW_THREADS
    st = va_sum(array->device, &view, &value);
    Py_END_ALLOW_THREADS
    if (st != VA_SUCCESS) {
        return raise_status(st);
    }
    return sum_scalar(array->dtype, &value);
}

/* A host array summed by the GPU; *status for the caller's fallback. */
static PyObject *sum_gpu_host(PyArrayObject *array, va_dtype dtype, va_status *status)
{
    Shape shape;
    va_array view;
    union { int64_t i; double d; float f; } value;
    if (shape_of_host(array, &shape) < 0) {
        *status = VA_SUCCESS;
        return NULL;
    }
    view_of_host(&view, array, dtype, &shape);
    Py_BEGIN_ALLOW_THREADS
    *status = va_sum_host(0, &view, &value);
    Py_END_ALLOW_THREADS
    if (*status != VA_SUCCESS) {
        return raise_status(*status);
    }
    return sum_scalar(dtype, &value);
}

static PyObject *sum_cpu(PyArrayObject *array)
{
    return PyArray_Sum(array, NPY_RAVEL_AXIS, NPY_NOTYPE, NULL);
}

PyObject *mm_sum(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"a", "device"};
    PyObject *values[2];
    PyObject *result = NULL;
    PyArrayObject *host = NULL;
    Where where;
    Operand a;
    (void)module;
    memset(&a, 0, sizeof(a));
    if (parse_arguments("sum", args, nargs, kwnames, names, 2, 1, 1, values) < 0 ||
        parse_where(values[1], &where) < 0 || operand_init(&a, values[0]) < 0) {
        goto done;
    }
    if (a.device != NULL) {
        if (where == WHERE_CPU) {
            PyErr_SetString(PyExc_ValueError, "device='cpu' was asked for, but the array is on the GPU");
            goto done;
        }
        result = sum_device(a.device);
        goto done;
    }
    host = operand_host_array(&a, a.kind == KIND_WEAK_INT ? VA_INT64 : VA_FLOAT64);
    if (host == NULL) {
        goto done;
    }
    {
        va_dtype dtype;
        va_dtype_from_descr(PyArray_DESCR(host), &dtype);
        if (where == WHERE_AUTO) {
            if ((int64_t)PyArray_SIZE(host) >= auto_threshold("sum") &&
                va_cuda_available() == VA_SUCCESS) {
                va_status st;
                result = sum_gpu_host(host, dtype, &st);
                if (result == NULL && (st == VA_ERROR_OUT_OF_MEMORY || st == VA_ERROR_NO_DEVICE)) {
                    PyErr_Clear();
                    result = sum_cpu(host);
                }
                goto done;
            }
            where = WHERE_CPU;
        }
        if (where == WHERE_CPU) {
            result = sum_cpu(host);
        }
        else if (require_cuda("sum") == 0) {
            va_status st;
            result = sum_gpu_host(host, dtype, &st);
        }
    }
done:
    Py_XDECREF(host);
    operand_clear(&a);
    return result;
}

PyObject *mm_trace(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"a", "device"};
    PyObject *values[2];
    PyObject *result = NULL;
    PyArrayObject *host = NULL, *diagonal = NULL;
    Where where;
    Operand a;
    int ndim;
    (void)module;
    memset(&a, 0, sizeof(a));
    if (parse_arguments("trace", args, nargs, kwnames, names, 2, 1, 1, values) < 0 ||
        parse_where(values[1], &where) < 0 || operand_init(&a, values[0]) < 0) {
        goto done;
    }
    ndim = a.device != NULL ? a.device->ndim : a.host != NULL ? PyArray_NDIM(a.host) : 0;
    if (ndim != 2) {
        PyErr_Format(PyExc_ValueError, "trace needs a 2-d array, got %d dimension(s)", ndim);
        goto done;
    }
    if (a.device != NULL) {
        if (where == WHERE_CPU) {
            PyErr_SetString(PyExc_ValueError, "device='cpu' was asked for, but the array is on the GPU");
            goto done;
        }
        va_array view;
        union { int64_t i; double d; float f; } value;
        va_status st;
        devicearray_describe(a.device, &view);
        Py_BEGIN_ALLOW_THREADS
        st = va_trace(a.device->device, &view, &value);
        Py_END_ALLOW_THREADS
        result = st == VA_SUCCESS ? sum_scalar(a.dtype, &value) : raise_status(st);
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
        result = sum_gpu_host(diagonal, a.dtype, &st);
    }
done:
    Py_XDECREF(diagonal);
    Py_XDECREF(host);
    operand_clear(&a);
    return result;
}
