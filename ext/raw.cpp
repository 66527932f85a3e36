/* A user's own kernel launched from Python: the library's half of the bargain
 * (docs/adding-a-kernel.md): memory, moving host data, dtype conversion, the
 * stream, error checking and interop; the kernel only computes. */
#include <string.h>

#include "creation.h"
#include "raw.h"
#include "shapes.h"

static va_dtype kernel_dtype(const va_op_info *info)
{
    for (int t = 0; t < VA_DTYPE_COUNT; ++t) {
        if (info->result[t] != VA_DTYPE_COUNT) {
            return (va_dtype)t;
        }
    }
    return VA_FLOAT64;
}

static int parse_launch_size(PyObject *value, const char *what, int64_t *out)
{
    *out = 0;
    if (value == NULL || value == Py_None) {
        return 0;
    }
    if (PyBool_Check(value) || !PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int or None", what);
        return -1;
    }
    long long v = PyLong_AsLongLong(value);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (v <= 0) {
        PyErr_Format(PyExc_ValueError, "%s must be positive", what);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

/* `obj` as a DeviceArray of `dtype` on `device` (a new reference), converting
 * with NumPy's same_kind rule. */
static DeviceArrayObject *on_device_as(const Operand *op, va_dtype dtype, int device, const char *name)
{
    PyArray_Descr *to = descr_from_va(dtype);
    PyArray_Descr *from = descr_from_va(operand_natural_dtype(op));
    int ok = to != NULL && from != NULL && PyArray_CanCastTypeTo(from, to, NPY_SAME_KIND_CASTING);
    DeviceArrayObject *result = NULL;
    if (to != NULL && from != NULL && !ok) {
        PyErr_Format(PyExc_TypeError, "%s() takes %s arrays; cannot cast %R to it (same_kind)", name,
                     va_dtype_name(dtype), (PyObject *)from);
    }
    Py_XDECREF(from);
    Py_XDECREF(to);
    if (!ok) {
        return NULL;
    }
    if (op->device != NULL) {
        if (op->device->dtype == dtype && op->device->device == device) {
            Py_INCREF(op->device);
            return op->device;
        }
        return devicearray_astype(op->device, dtype, device);
    }
    PyArrayObject *host = operand_host_array(op, dtype);
    if (host == NULL) {
        return NULL;
    }
    PyArrayObject *cast = (PyArrayObject *)PyArray_FromAny((PyObject *)host, descr_from_va(dtype), 0, 0,
                                                           NPY_ARRAY_FORCECAST | NPY_ARRAY_ALIGNED, NULL);
    Py_DECREF(host);
    if (cast == NULL) {
        return NULL;
    }
    result = devicearray_from_host(cast, device, 0);
    Py_DECREF(cast);
    return result;
}

PyObject *raw_objects(va_op op, PyObject *const *args, PyObject *out_obj, PyObject *grid_obj,
                      PyObject *block_obj)
{
    const va_op_info *info = va_op_get(op);
    const va_dtype dtype = kernel_dtype(info);
    Operand in[VA_MAX_INPUTS];
    DeviceArrayObject *dev[VA_MAX_INPUTS] = {NULL, NULL, NULL, NULL};
    DeviceArrayObject *out = NULL;
    PyObject *imported = NULL, *result = NULL;
    double params[VA_MAX_PARAMS] = {0, 0, 0, 0};
    va_array views[VA_MAX_INPUTS], vo;
    int64_t grid = 0, block = 0;
    int nin = 0, device = -1, any_device = 0, k;
    va_status st;
    memset(in, 0, sizeof(in));

    if (parse_launch_size(grid_obj, "grid", &grid) < 0 || parse_launch_size(block_obj, "block", &block) < 0) {
        return NULL;
    }
    if (block > 1024) {
        PyErr_SetString(PyExc_ValueError, "block must be at most 1024 threads");
        return NULL;
    }
    for (k = 0; k < info->nparams; ++k) {
        if (!PyLong_Check(args[k]) && !PyFloat_Check(args[k]) && !PyArray_IsScalar(args[k], Number)) {
            PyErr_Format(PyExc_TypeError, "%s(): parameter %d must be a real number", info->name, k + 1);
            return NULL;
        }
        params[k] = PyFloat_AsDouble(args[k]);
        if (params[k] == -1.0 && PyErr_Occurred()) {
            return NULL;
        }
    }
    for (k = 0; k < info->nin; ++k) {
        if (operand_init(&in[k], args[info->nparams + k]) < 0) {
            goto done;
        }
        nin = k + 1;
        if (in[k].device != NULL) {
            any_device = 1;
            if (device < 0) {
                device = in[k].device->device;
            }
        }
    }
    if (out_obj == Py_None) {
        out_obj = NULL;
    }
    if (out_obj != NULL && !PyArray_Check(out_obj)) {
        if (DeviceArray_Check(out_obj)) {
            Py_INCREF(out_obj);
            imported = out_obj;
        }
        else if ((imported = interop_import(out_obj)) == NULL) {
            goto done;
        }
        if (imported == Py_None) {
            PyErr_Format(PyExc_TypeError, "out must be a numpy.ndarray or a GPU array, not %.100s",
                         Py_TYPE(out_obj)->tp_name);
            goto done;
        }
        any_device = 1;
        if (device < 0) {
            device = ((DeviceArrayObject *)imported)->device;
        }
        if (devicearray_check_writable(out_obj, (DeviceArrayObject *)imported) < 0) {
            goto done;
        }
    }
    if (nin == 0 && out_obj == NULL) {
        PyErr_Format(PyExc_TypeError, "%s() has no array input: give out=", info->name);
        goto done;
    }
    if (device < 0) {
        device = 0;
    }
    if (require_cuda(info->name) < 0) {
        goto done;
    }
    for (k = 0; k < nin; ++k) {
        if ((dev[k] = on_device_as(&in[k], dtype, device, info->name)) == NULL) {
            goto done;
        }
    }
    if (imported != NULL) {
        out = (DeviceArrayObject *)imported;
        Py_INCREF(out);
        if (out->dtype != dtype) {
            PyErr_Format(PyExc_TypeError, "%s(): out must be %s", info->name, va_dtype_name(dtype));
            goto done;
        }
    }
    else if (out_obj != NULL) { /* a NumPy out: computed on the GPU, then copied into it */
        PyArrayObject *host_out = (PyArrayObject *)out_obj;
        int64_t dims[VA_MAX_NDIM];
        if (PyArray_NDIM(host_out) > VA_MAX_NDIM || PyArray_FailUnlessWriteable(host_out, "output array") < 0) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_ValueError, "out has too many dimensions");
            }
            goto done;
        }
        for (int d = 0; d < PyArray_NDIM(host_out); ++d) {
            dims[d] = PyArray_DIM(host_out, d);
        }
        out = devicearray_empty(device, dtype, PyArray_NDIM(host_out), dims, 0);
    }
    else {
        out = devicearray_empty(device, dtype, dev[0]->ndim, dev[0]->shape, 0);
    }
    if (out == NULL) {
        goto done;
    }
    for (k = 0; k < nin; ++k) {
        devicearray_describe(dev[k], &views[k]);
    }
    devicearray_describe(out, &vo);
    st = va_raw_launch(device, op, nin, views, params, &vo, grid, (int32_t)block);
    if (st != VA_SUCCESS) {
        raise_status(st);
        goto done;
    }
    if (imported != NULL) {
        if (out_obj != (PyObject *)out && interop_after_write(out_obj, device) < 0) {
            goto done;
        }
        Py_INCREF(out_obj);
        result = out_obj;
    }
    else if (out_obj != NULL) {
        PyObject *host = devicearray_to_host(out);
        if (host == NULL || PyArray_CopyInto((PyArrayObject *)out_obj, (PyArrayObject *)host) < 0) {
            Py_XDECREF(host);
            goto done;
        }
        Py_DECREF(host);
        Py_INCREF(out_obj);
        result = out_obj;
    }
    else if (any_device) {
        Py_INCREF(out);
        result = (PyObject *)out;
    }
    else {
        result = devicearray_to_host(out);
    }
done:
    for (k = 0; k < VA_MAX_INPUTS; ++k) {
        Py_XDECREF(dev[k]);
        if (k < nin) {
            operand_clear(&in[k]);
        }
    }
    Py_XDECREF(out);
    Py_XDECREF(imported);
    return result;
}
