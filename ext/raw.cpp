/* A user's own kernel launched from Python: the library's half of the bargain
 * (docs/adding-a-kernel.md): memory, moving host data, dtype conversion, the
 * stream, error checking and interop; the kernel only computes. */
#include <string.h>

#include "checked.h"
#include "creation.h"
#include "raw.h"
#include "shapes.h"

/* The dtype the kernel computes in for these inputs: its one dtype, or for a
 * typed kernel the loop NumPy's promotion of the arrays picks in its domain
 * (parameters take no part). TypeError where it has none. */
static int compute_dtype(va_op op, const Operand *in, int nin, va_dtype *compute)
{
    const va_op_info *info = va_op_get(op);
    va_dtype dtypes[VA_MAX_PARAMS + VA_MAX_INPUTS];
    va_weak weak[VA_MAX_PARAMS + VA_MAX_INPUTS];
    char names[128] = "";
    size_t used = 0;
    for (int k = 0; k < info->nparams; ++k) {
        dtypes[k] = VA_FLOAT64;
        weak[k] = VA_WEAK_BOOL;
    }
    for (int k = 0; k < nin; ++k) {
        dtypes[info->nparams + k] = operand_natural_dtype(&in[k]);
        weak[info->nparams + k] = VA_STRONG;
        used += (size_t)snprintf(names + used, used < sizeof(names) ? sizeof(names) - used : 0, "%s%s",
                                 k ? ", " : "", va_dtype_name(dtypes[info->nparams + k]));
    }
    va_dtype result;
    if (va_op_dtypes(op, info->nparams + nin, dtypes, weak, compute, &result) != VA_SUCCESS) {
        PyErr_Format(PyExc_TypeError, "%s() has no loop for the input types (%s)", info->name, names);
        return -1;
    }
    return 0;
}

/* The integer values of the parameters: exact for Python ints (OverflowError
 * past int64, as NumPy's int64), truncated for floats (0 for NaN and inf). */
static int integer_params(const va_op_info *info, PyObject *const *args, const double *params, int64_t *iparams)
{
    for (int k = 0; k < info->nparams; ++k) {
        if (PyLong_Check(args[k])) {
            iparams[k] = PyLong_AsLongLong(args[k]);
            if (iparams[k] == -1 && PyErr_Occurred()) {
                return -1;
            }
        }
        else {
            const double v = params[k];
            iparams[k] = (v == v && v > -9.2e18 && v < 9.2e18) ? (int64_t)v : 0;
        }
    }
    return 0;
}

/* One positive int of a launch shape, at most `limit`: TypeError for non-ints,
 * ValueError out of range. */
static int parse_launch_int(PyObject *value, const char *what, int64_t limit, int64_t *out)
{
    if (PyBool_Check(value) || !PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int or a tuple of up to 3 ints, or None", what);
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

/* grid= and block=: None, an int, or a tuple of up to 3 ints (x, y, z), within
 * what every GPU of compute capability 3.0 and later allows: a grid of at most
 * 2**31 - 1 x 65535 x 65535 blocks, a block of at most 1024 x 1024 x 64 threads
 * and 1024 in all. Checked before any CUDA call. */
static int parse_launch_dims(PyObject *value, const char *what, const int64_t *limits, int64_t *dims)
{
    static const char *const axis_names[3] = {"x", "y", "z"};
    char label[32];
    dims[0] = dims[1] = dims[2] = 0;
    if (value == NULL || value == Py_None) {
        return 0;
    }
    if (!PyTuple_Check(value) && !PyList_Check(value)) {
        return parse_launch_int(value, what, limits[0], &dims[0]);
    }
    PyObject *items = PySequence_Tuple(value); /* a list's items, held: nothing can change them */
    if (items == NULL) {
        return -1;
    }
    int rc = 0;
    const Py_ssize_t n = PyTuple_GET_SIZE(items);
    if (n < 1 || n > 3) {
        PyErr_Format(PyExc_ValueError, "%s must have 1 to 3 dimensions, not %zd", what, n);
        rc = -1;
    }
    for (Py_ssize_t d = 0; rc == 0 && d < n; ++d) {
        snprintf(label, sizeof(label), "%s.%s", what, axis_names[d]);
        rc = parse_launch_int(PyTuple_GET_ITEM(items, d), label, limits[d], &dims[d]);
    }
    Py_DECREF(items);
    return rc;
}

/* shared_mem=: None or an int of bytes >= 0 (the device's limit is checked at launch). */
static int parse_shared_mem(PyObject *value, int64_t *bytes)
{
    *bytes = 0;
    if (value == NULL || value == Py_None) {
        return 0;
    }
    if (PyBool_Check(value) || !PyLong_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "shared_mem must be an int (bytes)");
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow != 0 || v < 0 || v > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "shared_mem must be between 0 and 2**31 - 1 bytes");
        return -1;
    }
    *bytes = (int64_t)v;
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

PyObject *raw_objects(va_op op, PyObject *const *args, const RawOptions *options)
{
    static const int64_t grid_limits[3] = {INT32_MAX, 65535, 65535};
    static const int64_t block_limits[3] = {1024, 1024, 64};
    const va_op_info *info = va_op_get(op);
    PyObject *out_obj = options->out;
    va_dtype dtype = VA_FLOAT64, compute = VA_FLOAT64;
    int dtype_given = 0, shape_given = 0;
    va_launch launch;
    int64_t iparams[VA_MAX_PARAMS] = {0, 0, 0, 0}, grid[3], blockdims[3];
    Operand in[VA_MAX_INPUTS];
    DeviceArrayObject *dev[VA_MAX_INPUTS] = {NULL, NULL, NULL, NULL};
    DeviceArrayObject *out = NULL, *target = NULL;
    PyObject *imported = NULL, *result = NULL;
    double params[VA_MAX_PARAMS] = {0, 0, 0, 0};
    va_array views[VA_MAX_INPUTS], vo;
    int64_t shape[VA_MAX_NDIM];
    int nin = 0, device = -1, any_device = 0, ndim = 0, k;
    va_status st;
    memset(in, 0, sizeof(in));

    /* Every argument is checked before the first CUDA call (../shared/SPEC.md). */
    memset(&launch, 0, sizeof(launch));
    if (parse_launch_dims(options->grid, "grid", grid_limits, grid) < 0 ||
        parse_launch_dims(options->block, "block", block_limits, blockdims) < 0 ||
        parse_shared_mem(options->shared_mem, &launch.shared_bytes) < 0 ||
        parse_dtype(options->dtype, &dtype, &dtype_given) < 0) {
        return NULL;
    }
    if ((blockdims[0] > 0 ? blockdims[0] : 256) * (blockdims[1] > 0 ? blockdims[1] : 1) *
            (blockdims[2] > 0 ? blockdims[2] : 1) > 1024) {
        PyErr_SetString(PyExc_ValueError, "a block has at most 1024 threads in all");
        return NULL;
    }
    for (int d = 0; d < 3; ++d) {
        launch.grid[d] = grid[d];
        launch.block[d] = (int32_t)blockdims[d];
    }
    if (options->shape != NULL && options->shape != Py_None) {
        if (parse_shape(options->shape, 0, &ndim, shape) < 0) {
            return NULL;
        }
        shape_given = 1;
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
    if (integer_params(info, args, params, iparams) < 0) {
        return NULL;
    }
    for (k = 0; k < info->nin; ++k) {
        if (operand_init(&in[k], args[info->nparams + k]) < 0) {
            goto done;
        }
        nin = k + 1;
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
    if (compute_dtype(op, in, nin, &compute) < 0) {
        goto done;
    }
    for (k = 0; k < nin; ++k) {
        if (check_input_cast(&in[k], compute, info->name) < 0) {
            goto done;
        }
    }
    if (!dtype_given) {
        dtype = compute;
    }
    if (nin > 0 && !shape_given) {
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
        if (nin == 0 && !shape_given) {
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
        if (nin == 0 && !shape_given) {
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
    if (nin == 0 && out_obj == NULL && !shape_given) {
        PyErr_Format(PyExc_TypeError, "%s() has no array input: give out= or shape=", info->name);
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
        if ((dev[k] = on_device_as(&in[k], compute, device)) == NULL) {
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
    st = va_raw_launch_shaped(device, op, nin, views, params, iparams, &vo, &launch);
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
