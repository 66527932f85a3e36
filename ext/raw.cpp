/* A user's own kernel launched from Python: the library's half of the bargain
 * (docs/adding-a-kernel.md): memory, moving host data, dtype conversion, the
 * stream, error checking and interop; the kernel only computes. */
#include <string.h>

#include "checked.h"
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

/* grid= and block=: None, or a positive int within the device's limits (a
 * grid's x dimension at most 2**31 - 1 blocks, a block at most 1024 threads,
 * what every GPU of compute capability 3.0 and later allows). Checked before
 * any CUDA call: TypeError for non-ints, ValueError for values out of range. */
static int parse_launch_size(PyObject *value, const char *what, int64_t limit, int64_t *out)
{
    *out = 0;
    if (value == NULL || value == Py_None) {
        return 0;
    }
    if (PyBool_Check(value) || !PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int or None", what);
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow < 0 || (overflow == 0 && v <= 0)) {
        PyErr_Format(PyExc_ValueError, "%s must be positive", what);
        return -1;
    }
    if (overflow > 0 || v > limit) {
        PyErr_Format(PyExc_ValueError, "%s must be at most %lld", what, (long long)limit);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

/* The shape an operand has (a Python scalar is 0-d). */
static void operand_shape(const Operand *op, int *ndim, int64_t *dims)
{
    *ndim = 0;
    if (op->device != NULL) {
        *ndim = op->device->ndim;
        memcpy(dims, op->device->shape, sizeof(int64_t) * op->device->ndim);
    }
    else if (op->host != NULL) {
        *ndim = PyArray_NDIM(op->host) < VA_MAX_NDIM ? PyArray_NDIM(op->host) : VA_MAX_NDIM;
        for (int d = 0; d < *ndim; ++d) {
            dims[d] = PyArray_DIM(op->host, d);
        }
    }
}

/* TypeError unless the operand casts to the kernel's dtype by NumPy's same_kind rule. */
static int check_input_cast(const Operand *op, va_dtype dtype, const char *name)
{
    PyArray_Descr *to = descr_from_va(dtype);
    PyArray_Descr *from = descr_from_va(operand_natural_dtype(op));
    int ok = to != NULL && from != NULL && PyArray_CanCastTypeTo(from, to, NPY_SAME_KIND_CASTING);
    if (to != NULL && from != NULL && !ok) {
        PyErr_Format(PyExc_TypeError, "%s() takes %s arrays; cannot cast %R to it (same_kind)", name,
                     va_dtype_name(dtype), (PyObject *)from);
    }
    Py_XDECREF(from);
    Py_XDECREF(to);
    return ok ? 0 : -1;
}

/* ValueError unless `out` has exactly the output's shape (the kernel writes
 * the output's elements: a smaller out would be written past its end). */
static int check_out_shape(const char *name, int ndim, const int64_t *dims, int out_ndim, const int64_t *out_dims)
{
    int same = ndim == out_ndim;
    for (int d = 0; same && d < ndim; ++d) {
        same = dims[d] == out_dims[d];
    }
    if (same) {
        return 0;
    }
    PyObject *want = PyTuple_New(ndim), *got = PyTuple_New(out_ndim);
    for (int d = 0; want != NULL && d < ndim; ++d) {
        PyTuple_SET_ITEM(want, d, PyLong_FromLongLong(dims[d]));
    }
    for (int d = 0; got != NULL && d < out_ndim; ++d) {
        PyTuple_SET_ITEM(got, d, PyLong_FromLongLong(out_dims[d]));
    }
    if (want != NULL && got != NULL && !PyErr_Occurred()) {
        PyErr_Format(PyExc_ValueError, "%s(): out has shape %R, but the output has shape %R", name, got, want);
    }
    Py_XDECREF(want);
    Py_XDECREF(got);
    return -1;
}

/* Whether two device arrays share any byte (then the kernel, which may read
 * its input's neighbours, must write a temporary first: NumPy's rule for outputs
 * that overlap an input). */
static int arrays_overlap(const DeviceArrayObject *a, const DeviceArrayObject *b)
{
    int64_t alow = 0, ahigh = 0, blow = 0, bhigh = 0;
    if (a->device != b->device || array_size(a) == 0 || array_size(b) == 0 ||
        checked_view_extent(a->ndim, a->shape, a->strides, &alow, &ahigh) < 0 ||
        checked_view_extent(b->ndim, b->shape, b->strides, &blow, &bhigh) < 0) {
        PyErr_Clear(); /* extents of existing arrays fit: cannot fail */
        return 0;
    }
    uintptr_t a0 = (uintptr_t)a->data + (uintptr_t)alow, a1 = (uintptr_t)a->data + (uintptr_t)ahigh +
                                                               va_dtype_size(a->dtype);
    uintptr_t b0 = (uintptr_t)b->data + (uintptr_t)blow, b1 = (uintptr_t)b->data + (uintptr_t)bhigh +
                                                               va_dtype_size(b->dtype);
    return a0 < b1 && b0 < a1;
}

/* `obj` as a DeviceArray of `dtype` on `device` (a new reference); the cast was
 * checked against NumPy's same_kind rule before the device check. */
static DeviceArrayObject *on_device_as(const Operand *op, va_dtype dtype, int device)
{
    DeviceArrayObject *result = NULL;
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
    DeviceArrayObject *out = NULL, *target = NULL;
    PyObject *imported = NULL, *result = NULL;
    double params[VA_MAX_PARAMS] = {0, 0, 0, 0};
    va_array views[VA_MAX_INPUTS], vo;
    int64_t grid = 0, block = 0, shape[VA_MAX_NDIM];
    int nin = 0, device = -1, any_device = 0, ndim = 0, k;
    va_status st;
    memset(in, 0, sizeof(in));

    /* Every argument is checked before the first CUDA call (../shared/SPEC.md). */
    if (parse_launch_size(grid_obj, "grid", INT32_MAX, &grid) < 0 ||
        parse_launch_size(block_obj, "block", 1024, &block) < 0) {
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
        if (check_input_cast(&in[k], dtype, info->name) < 0) {
            goto done;
        }
        if (in[k].host != NULL && PyArray_NDIM(in[k].host) > VA_MAX_NDIM) {
            PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported on the GPU", VA_MAX_NDIM);
            goto done;
        }
        if (in[k].device != NULL) {
            any_device = 1;
            if (device < 0) {
                device = in[k].device->device;
            }
        }
    }
    if (nin > 0) {
        operand_shape(&in[0], &ndim, shape); /* the output's shape: the first array's */
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
        DeviceArrayObject *given = (DeviceArrayObject *)imported;
        any_device = 1;
        if (device < 0) {
            device = given->device;
        }
        if (devicearray_check_writable(out_obj, given) < 0) {
            goto done;
        }
        if (given->dtype != dtype) { /* written in place: no cast is possible */
            PyErr_Format(PyExc_TypeError, "%s(): out must be %s", info->name, va_dtype_name(dtype));
            goto done;
        }
        if (given->device != device) {
            PyErr_Format(PyExc_ValueError, "%s(): out is on GPU %d, the inputs on GPU %d", info->name,
                         given->device, device);
            goto done;
        }
        if (nin == 0) {
            ndim = given->ndim;
            memcpy(shape, given->shape, sizeof(int64_t) * given->ndim);
        }
        else if (check_out_shape(info->name, ndim, shape, given->ndim, given->shape) < 0) {
            goto done;
        }
    }
    else if (out_obj != NULL) { /* a NumPy out: computed on the GPU, then copied into it (same_kind) */
        PyArrayObject *host_out = (PyArrayObject *)out_obj;
        int64_t dims[VA_MAX_NDIM];
        if (PyArray_FailUnlessWriteable(host_out, "output array") < 0) {
            goto done;
        }
        if (PyArray_NDIM(host_out) > VA_MAX_NDIM) {
            PyErr_SetString(PyExc_ValueError, "out has too many dimensions");
            goto done;
        }
        for (int d = 0; d < PyArray_NDIM(host_out); ++d) {
            dims[d] = PyArray_DIM(host_out, d);
        }
        if (nin == 0) {
            ndim = PyArray_NDIM(host_out);
            memcpy(shape, dims, sizeof(int64_t) * ndim);
        }
        else if (check_out_shape(info->name, ndim, shape, PyArray_NDIM(host_out), dims) < 0) {
            goto done;
        }
        PyArray_Descr *from = descr_from_va(dtype);
        if (from == NULL) {
            goto done;
        }
        int ok = PyArray_CanCastTypeTo(from, PyArray_DESCR(host_out), NPY_SAME_KIND_CASTING);
        if (!ok) {
            PyErr_Format(PyExc_TypeError,
                         "Cannot cast %s() output from %R to %R with casting rule 'same_kind'", info->name,
                         (PyObject *)from, (PyObject *)PyArray_DESCR(host_out));
        }
        Py_DECREF(from);
        if (!ok) {
            goto done;
        }
    }
    if (nin == 0 && out_obj == NULL) {
        PyErr_Format(PyExc_TypeError, "%s() has no array input: give out=", info->name);
        goto done;
    }
    {
        int64_t count = 0;
        if (checked_array_size(ndim, shape, (int64_t)va_dtype_size(dtype), &count) < 0) {
            goto done;
        }
    }
    if (device < 0) {
        device = 0;
    }
    if (require_cuda(info->name) < 0) {
        goto done;
    }
    for (k = 0; k < nin; ++k) {
        if ((dev[k] = on_device_as(&in[k], dtype, device)) == NULL) {
            goto done;
        }
    }
    if (imported != NULL) {
        target = (DeviceArrayObject *)imported;
        int overlap = 0;
        for (k = 0; k < nin && !overlap; ++k) {
            overlap = arrays_overlap(target, dev[k]);
        }
        if (overlap) { /* the kernel writes a temporary, copied into out after */
            out = devicearray_empty(device, dtype, ndim, shape, 0);
        }
        else {
            out = target;
            Py_INCREF(out);
        }
    }
    else {
        out = devicearray_empty(device, dtype, ndim, shape, 0);
    }
    if (out == NULL) {
        goto done;
    }
    for (k = 0; k < nin; ++k) {
        devicearray_describe(dev[k], &views[k]);
    }
    devicearray_describe(out, &vo);
    st = va_raw_launch(device, op, nin, views, params, &vo, grid, (int32_t)block);
    if (st == VA_SUCCESS && target != NULL && out != target) {
        va_array vt;
        devicearray_describe(target, &vt);
        st = va_copy_convert(device, &vo, &vt);
    }
    if (st != VA_SUCCESS) {
        raise_status(st);
        goto done;
    }
    if (imported != NULL) {
        if (out_obj != imported && interop_after_write(out_obj, device) < 0) {
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
