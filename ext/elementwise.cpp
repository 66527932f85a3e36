/* add, subtract, multiply, divide: choosing where the work runs (NumPy on the
 * CPU, the GPU for host data, the GPU for device data) and carrying it out. */
#include <string.h>

#include "shapes.h"

static const char *const ufunc_names[4] = {"add", "subtract", "multiply", "true_divide"};
static PyObject *ufuncs[4] = {NULL, NULL, NULL, NULL};
static PyObject *out_kwnames = NULL;

static int load_ufuncs(void)
{
    if (ufuncs[0] != NULL) {
        return 0;
    }
    PyObject *numpy = PyImport_ImportModule("numpy");
    if (numpy == NULL) {
        return -1;
    }
    for (int i = 0; i < 4; ++i) {
        ufuncs[i] = PyObject_GetAttrString(numpy, ufunc_names[i]);
        if (ufuncs[i] == NULL) {
            Py_DECREF(numpy);
            return -1;
        }
    }
    Py_DECREF(numpy);
    out_kwnames = Py_BuildValue("(s)", "out");
    return out_kwnames == NULL ? -1 : 0;
}

static int check_out_cast(va_op op, va_dtype result, PyArray_Descr *out_descr)
{
    PyArray_Descr *from = descr_from_va(result);
    if (from == NULL) {
        return -1;
    }
    int ok = PyArray_CanCastTypeTo(from, out_descr, NPY_SAME_KIND_CASTING);
    if (!ok) {
        PyErr_Format(PyExc_TypeError,
                     "Cannot cast ufunc '%s' output from %R to %R with casting rule 'same_kind'",
                     ufunc_names[op], (PyObject *)from, (PyObject *)out_descr);
    }
    Py_DECREF(from);
    return ok ? 0 : -1;
}

/* ---- the CPU: NumPy's own loops, so values, dtypes and errors are NumPy's ---- */
static PyObject *binary_cpu(va_op op, const Operand *a, const Operand *b, PyObject *out)
{
    if (load_ufuncs() < 0) {
        return NULL;
    }
    PyObject *argv[3];
    argv[0] = a->host != NULL ? (PyObject *)a->host : a->original;
    argv[1] = b->host != NULL ? (PyObject *)b->host : b->original;
    if (out == NULL) {
        return PyObject_Vectorcall(ufuncs[op], argv, 2, NULL);
    }
    argv[2] = out;
    return PyObject_Vectorcall(ufuncs[op], argv, 2, out_kwnames);
}

/* ---- host data through the GPU ---- */
static int usable_directly(PyArrayObject *out, va_dtype dtype)
{
    va_dtype od;
    return va_dtype_from_descr(PyArray_DESCR(out), &od) == 0 && od == dtype &&
           PyArray_IS_C_CONTIGUOUS(out) && PyArray_ISALIGNED(out) && PyArray_ISNOTSWAPPED(out);
}

/* Whether the bytes two host arrays span meet (a conservative overlap test). */
static int host_ranges_overlap(PyArrayObject *x, PyArrayObject *y)
{
    if (PyArray_SIZE(x) == 0 || PyArray_SIZE(y) == 0) {
        return 0;
    }
    const char *lo[2], *hi[2];
    PyArrayObject *arrays[2] = {x, y};
    for (int k = 0; k < 2; ++k) {
        npy_intp low = 0, high = PyArray_ITEMSIZE(arrays[k]);
        for (int d = 0; d < PyArray_NDIM(arrays[k]); ++d) {
            npy_intp span = (PyArray_DIM(arrays[k], d) - 1) * PyArray_STRIDE(arrays[k], d);
            if (span < 0) low += span; else high += span;
        }
        lo[k] = PyArray_BYTES(arrays[k]) + low;
        hi[k] = PyArray_BYTES(arrays[k]) + high;
    }
    return lo[0] < hi[1] && lo[1] < hi[0];
}

/* A host input whose bytes span much more than its elements (a strided view) is
 * compacted before the upload. */
static PyArrayObject *compact_if_sparse(PyArrayObject *array)
{
    npy_intp span = PyArray_ITEMSIZE(array);
    for (int d = 0; d < PyArray_NDIM(array); ++d) {
        npy_intp s = PyArray_STRIDE(array, d);
        span += (PyArray_DIM(array, d) - 1) * (s < 0 ? -s : s);
    }
    if (PyArray_SIZE(array) == 0 || span <= 2 * PyArray_NBYTES(array) + 4096) {
        return array;
    }
    PyArrayObject *copy = (PyArrayObject *)PyArray_NewCopy(array, NPY_CORDER);
    Py_DECREF(array);
    return copy;
}

/* Returns the result, or NULL with an exception; *status the library's status
 * (so that device="auto" can fall back to the CPU when the GPU can't be used). */
static PyObject *binary_gpu_host(va_op op, const Operand *a, const Operand *b,
                                 PyArrayObject *out, va_dtype dtype, va_status *status)
{
    PyArrayObject *ha = NULL, *hb = NULL, *target = NULL;
    PyObject *result = NULL;
    Shape sa, sb, shape;
    va_array va, vb, vt;
    *status = VA_SUCCESS;

    ha = operand_host_array(a, dtype);
    hb = ha == NULL ? NULL : operand_host_array(b, dtype);
    if (hb == NULL) {
        goto fail;
    }
    if (shape_of_host(ha, &sa) < 0 || shape_of_host(hb, &sb) < 0 ||
        shape_broadcast(&sa, &sb, &shape) < 0) {
        goto fail;
    }
    if (out != NULL) {
        Shape so, joint;
        if (shape_of_host(out, &so) < 0 || shape_broadcast(&shape, &so, &joint) < 0) {
            goto fail;
        }
        if (!shape_equal(&joint, &so)) {
            PyErr_SetString(PyExc_ValueError, "non-broadcastable output operand");
            goto fail;
        }
        shape = so;
        if (check_out_cast(op, dtype, PyArray_DESCR(out)) < 0 ||
            PyArray_FailUnlessWriteable(out, "output array") < 0) {
            goto fail;
        }
    }
    /* Arguments are checked; only now does the want of a GPU matter. */
    if (require_cuda(ufunc_names[op]) < 0) {
        goto fail;
    }
    /* The GPU reads inputs and writes results chunk by chunk: an out that shares
     * memory with an input gets the result through a temporary. */
    if (out != NULL && usable_directly(out, dtype) && !host_ranges_overlap(out, ha) &&
        !host_ranges_overlap(out, hb)) {
        Py_INCREF(out);
        target = out;
    }
    else {
        target = pinned_array_empty(shape.ndim, shape.dims, dtype);
        if (target == NULL) {
            goto fail;
        }
    }
    ha = compact_if_sparse(ha);
    hb = ha == NULL ? hb : compact_if_sparse(hb);
    if (ha == NULL || hb == NULL) {
        goto fail;
    }
    {
        va_dtype da, db;
        va_dtype_from_descr(PyArray_DESCR(ha), &da);
        va_dtype_from_descr(PyArray_DESCR(hb), &db);
        view_of_host(&va, ha, da, &shape);
        view_of_host(&vb, hb, db, &shape);
        view_of_host(&vt, target, dtype, &shape);
    }
    Py_BEGIN_ALLOW_THREADS
    *status = va_binary_host(0, op, &va, &vb, &vt);
    Py_END_ALLOW_THREADS
    if (*status != VA_SUCCESS) {
        raise_status(*status);
        goto fail;
    }
    if (out != NULL && target != out) {
        if (PyArray_CopyInto(out, target) < 0) {
            goto fail;
        }
    }
    if (out != NULL) {
        Py_INCREF(out);
        result = (PyObject *)out;
    }
    else {
        Py_INCREF(target);
        result = PyArray_Return(target);
    }
fail:
    Py_XDECREF(ha);
    Py_XDECREF(hb);
    Py_XDECREF(target);
    return result;
}

/* ---- data on the GPU ---- */
static int ranges_overlap(const DeviceArrayObject *x, const DeviceArrayObject *y)
{
    va_array vx, vy;
    Shape sx, sy;
    shape_of_device(x, &sx);
    shape_of_device(y, &sy);
    view_of_device(&vx, x, &sx);
    view_of_device(&vy, y, &sy);
    int64_t lo_x = 0, hi_x = (int64_t)va_dtype_size(x->dtype), lo_y = 0,
            hi_y = (int64_t)va_dtype_size(y->dtype);
    for (int d = 0; d < vx.ndim; ++d) {
        int64_t span = (vx.shape[d] - 1) * vx.strides[d];
        if (span < 0) lo_x += span; else hi_x += span;
    }
    for (int d = 0; d < vy.ndim; ++d) {
        int64_t span = (vy.shape[d] - 1) * vy.strides[d];
        if (span < 0) lo_y += span; else hi_y += span;
    }
    const char *bx = (const char *)x->data, *by = (const char *)y->data;
    return bx + lo_x < by + hi_y && by + lo_y < bx + hi_x;
}

/* Writing into `out` while reading `in` is safe when they are the same view
 * (each element is read before it is written, by the same thread) or disjoint. */
static int safe_in_place(const DeviceArrayObject *out, const DeviceArrayObject *in)
{
    if (!ranges_overlap(out, in)) {
        return 1;
    }
    if (out->data != in->data || out->ndim != in->ndim || out->dtype != in->dtype) {
        return 0;
    }
    for (int d = 0; d < out->ndim; ++d) {
        if (out->shape[d] != in->shape[d] || out->strides[d] != in->strides[d]) {
            return 0;
        }
    }
    return 1;
}

static PyObject *binary_gpu_device(va_op op, const Operand *a, const Operand *b,
                                   PyObject *out_obj, DeviceArrayObject *out, va_dtype dtype)
{
    DeviceArrayObject *da = NULL, *db = NULL, *target = NULL;
    PyObject *result = NULL;
    Shape sa, sb, shape;
    va_array va, vb, vt;
    va_status st;
    int device = a->device != NULL ? a->device->device
                 : b->device != NULL ? b->device->device
                                     : out->device;
    if ((a->device != NULL && a->device->device != device) ||
        (b->device != NULL && b->device->device != device) ||
        (out != NULL && out->device != device)) {
        PyErr_SetString(PyExc_ValueError, "arrays on different GPUs: copy them to one device first");
        return NULL;
    }
    da = operand_device_array(a, dtype, device);
    db = da == NULL ? NULL : operand_device_array(b, dtype, device);
    if (db == NULL) {
        goto fail;
    }
    shape_of_device(da, &sa);
    shape_of_device(db, &sb);
    if (shape_broadcast(&sa, &sb, &shape) < 0) {
        goto fail;
    }
    if (out != NULL) {
        Shape so, joint;
        shape_of_device(out, &so);
        if (shape_broadcast(&shape, &so, &joint) < 0) {
            goto fail;
        }
        if (!shape_equal(&joint, &so)) {
            PyErr_SetString(PyExc_ValueError, "non-broadcastable output operand");
            goto fail;
        }
        shape = so;
        PyArray_Descr *od = descr_from_va(out->dtype);
        int cast_ok = od != NULL && check_out_cast(op, dtype, od) == 0;
        Py_XDECREF(od);
        if (!cast_ok) {
            goto fail;
        }
        if (out->dtype == dtype && safe_in_place(out, da) && safe_in_place(out, db)) {
            Py_INCREF(out);
            target = out;
        }
    }
    if (target == NULL) {
        target = devicearray_empty(device, dtype, shape.ndim, shape.dims, 0);
        if (target == NULL) {
            goto fail;
        }
    }
    view_of_device(&va, da, &shape);
    view_of_device(&vb, db, &shape);
    view_of_device(&vt, target, &shape);
    st = va_binary(device, op, &va, &vb, &vt);
    if (st != VA_SUCCESS) {
        raise_status(st);
        goto fail;
    }
    if (out != NULL && target != out) {
        va_array vo;
        view_of_device(&vo, out, &shape);
        st = va_copy_convert(device, &vt, &vo);
        if (st != VA_SUCCESS) {
            raise_status(st);
            goto fail;
        }
    }
    if (out != NULL) {
        if (out_obj != (PyObject *)out && interop_after_write(out_obj, device) < 0) {
            goto fail;
        }
        Py_INCREF(out_obj);
        result = out_obj;
    }
    else {
        Py_INCREF(target);
        result = (PyObject *)target;
    }
fail:
    Py_XDECREF(da);
    Py_XDECREF(db);
    Py_XDECREF(target);
    return result;
}

/* A host result of device work written into a NumPy `out`. */
static PyObject *device_result_to_host_out(PyObject *device_result, PyArrayObject *out)
{
    PyObject *host = devicearray_to_host((DeviceArrayObject *)device_result);
    Py_DECREF(device_result);
    if (host == NULL) {
        return NULL;
    }
    int rc = PyArray_CopyInto(out, (PyArrayObject *)host);
    Py_DECREF(host);
    if (rc < 0) {
        return NULL;
    }
    Py_INCREF(out);
    return (PyObject *)out;
}

PyObject *binary_objects(va_op op, PyObject *a_obj, PyObject *b_obj, PyObject *out_obj, Where where)
{
    Operand a, b;
    PyObject *result = NULL, *imported = NULL;
    PyArrayObject *host_out = NULL;
    DeviceArrayObject *device_out = NULL;
    va_dtype dtype;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));

    if (operand_init(&a, a_obj) < 0 || operand_init(&b, b_obj) < 0) {
        goto done;
    }
    if (out_obj == Py_None) {
        out_obj = NULL;
    }
    if (out_obj != NULL) {
        if (PyArray_Check(out_obj)) {
            va_dtype od;
            host_out = (PyArrayObject *)out_obj;
            if (va_dtype_from_descr(PyArray_DESCR(host_out), &od) < 0) {
                raise_unsupported_dtype((PyObject *)PyArray_DESCR(host_out));
                goto done;
            }
        }
        else if (DeviceArray_Check(out_obj)) {
            device_out = (DeviceArrayObject *)out_obj;
        }
        else {
            imported = interop_import(out_obj);
            if (imported == NULL) {
                goto done;
            }
            if (imported == Py_None) {
                PyErr_Format(PyExc_TypeError,
                             "out must be a numpy.ndarray or a GPU array, not %.100s",
                             Py_TYPE(out_obj)->tp_name);
                goto done;
            }
            device_out = (DeviceArrayObject *)imported;
        }
    }
    if (devicearray_check_writable(out_obj, device_out) < 0) goto done;
    dtype = operand_result_dtype(op, &a, &b);

    if (a.device != NULL || b.device != NULL || device_out != NULL) {
        if (where == WHERE_CPU) {
            PyErr_SetString(PyExc_ValueError,
                            "device='cpu' was asked for, but an array is on the GPU");
            goto done;
        }
        result = binary_gpu_device(op, &a, &b, out_obj, device_out, dtype);
        if (result != NULL && host_out != NULL) {
            result = device_result_to_host_out(result, host_out);
        }
        goto done;
    }
    if (where == WHERE_AUTO) {
        /* The GPU only where it wins, data transfers included; never an error for
         * the want of one. */
        int64_t na = a.host != NULL ? (int64_t)PyArray_SIZE(a.host) : 1;
        int64_t nb = b.host != NULL ? (int64_t)PyArray_SIZE(b.host) : 1;
        int64_t n = na > nb ? na : nb;
        if (n >= auto_threshold("binary") && va_cuda_available() == VA_SUCCESS) {
            va_status st;
            result = binary_gpu_host(op, &a, &b, host_out, dtype, &st);
            if (result == NULL &&
                (st == VA_ERROR_OUT_OF_MEMORY || st == VA_ERROR_NO_DEVICE)) {
                PyErr_Clear();
                result = binary_cpu(op, &a, &b, out_obj);
            }
            goto done;
        }
        where = WHERE_CPU;
    }
    if (where == WHERE_CPU) {
        result = binary_cpu(op, &a, &b, out_obj);
    }
    else {
        va_status st;
        result = binary_gpu_host(op, &a, &b, host_out, dtype, &st);
    }
done:
    operand_clear(&a);
    operand_clear(&b);
    Py_XDECREF(imported);
    return result;
}

PyObject *elementwise_call(va_op op, Where forced, int has_forced, const char *fname,
                           PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"a", "b", "out", "device"};
    PyObject *values[4];
    Where where = forced;
    if (parse_arguments(fname, args, nargs, kwnames, names, has_forced ? 3 : 4, 2, 3, values) < 0) {
        return NULL;
    }
    if (!has_forced && parse_where(values[3], &where) < 0) {
        return NULL;
    }
    return binary_objects(op, values[0], values[1], values[2], where);
}
