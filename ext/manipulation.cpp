/* Shape and type manipulation of DeviceArrays. Views share the memory (no GPU
 * work); reshape copies only when the strides cannot express the new shape,
 * as NumPy does; concatenate and stack copy each input into its place with
 * va_copy_convert (which also converts the dtype). */
#include <string.h>

#include "array_functions.h"
#include "checked.h"
#include "creation.h"
#include "manipulation.h"

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS
#define SELF ((DeviceArrayObject *)op)

static PyObject *tuple_of(int n, const int64_t *values)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t != NULL && i < n; ++i) {
        PyObject *v = PyLong_FromLongLong(values[i]);
        if (v == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

/* A GPU array for a module function's argument: DeviceArrays as they are,
 * other GPU arrays as views, host data uploaded (as asarray does). */
static DeviceArrayObject *gpu_operand(PyObject *obj, const char *what)
{
    if (DeviceArray_Check(obj)) {
        Py_INCREF(obj);
        return (DeviceArrayObject *)obj;
    }
    PyObject *gpu = interop_import(obj);
    if (gpu == NULL || gpu != Py_None) {
        return (DeviceArrayObject *)gpu;
    }
    Py_DECREF(gpu);
    PyArrayObject *host = host_array_like(obj, NULL);
    if (host == NULL) {
        return NULL;
    }
    DeviceArrayObject *result = NULL;
    if (require_cuda(what) == 0) {
        result = devicearray_from_host(host, 0, 0);
    }
    Py_DECREF(host);
    return result;
}

PyObject *on_gpu_operand(PyObject *obj, const char *what, ArrayStep step, void *context)
{
    PyObject *result = NULL, *imported = NULL, *trial = NULL;
    PyArrayObject *host = NULL;
    DeviceArrayObject *a = NULL;
    if (DeviceArray_Check(obj)) {
        return step((DeviceArrayObject *)obj, context, 0);
    }
    imported = interop_import(obj);
    if (imported == NULL) {
        return NULL;
    }
    if (imported != Py_None) {
        result = step((DeviceArrayObject *)imported, context, 0);
        Py_DECREF(imported);
        return result;
    }
    Py_DECREF(imported);
    host = host_array_like(obj, NULL);
    if (host == NULL) {
        return NULL;
    }
    {
        va_dtype dtype;
        int64_t shape[VA_MAX_NDIM], strides[VA_MAX_NDIM];
        int nd = PyArray_NDIM(host);
        for (int d = 0; d < nd; ++d) {
            shape[d] = PyArray_DIM(host, d);
        }
        if (va_dtype_from_descr(PyArray_DESCR(host), &dtype) < 0) {
            raise_unsupported_dtype((PyObject *)PyArray_DESCR(host));
            goto fail;
        }
        checked_c_strides(nd, shape, (int64_t)va_dtype_size(dtype), strides);
        a = devicearray_view(PyArray_DATA(host), 0, dtype, nd, shape, strides, NULL);
        if (a == NULL || (trial = step(a, context, 1)) == NULL) {
            goto fail;
        }
        Py_CLEAR(trial);
        Py_CLEAR(a);
    }
    if (require_cuda(what) < 0 || (a = devicearray_from_host(host, 0, 0)) == NULL) {
        goto fail;
    }
    result = step(a, context, 0);
fail:
    Py_XDECREF(a);
    Py_XDECREF(host);
    return result;
}

/* ---- reshape ---- */

int reshape_strides(int ndim, const int64_t *shape, const int64_t *strides, int64_t itemsize,
                    int new_ndim, const int64_t *new_shape, int64_t *new_strides)
{
    /* NumPy's _attempt_nocopy_reshape (C order): length-1 axes dropped, then
     * runs of old axes that step as one are split into the new axes. */
    int64_t olddims[VA_MAX_NDIM], oldstrides[VA_MAX_NDIM];
    int oldnd = 0;
    for (int d = 0; d < ndim; ++d) {
        if (shape[d] != 1) {
            olddims[oldnd] = shape[d];
            oldstrides[oldnd] = strides[d];
            ++oldnd;
        }
    }
    int oi = 0, oj = 1, ni = 0, nj = 1;
    while (ni < new_ndim && oi < oldnd) {
        int64_t np_ = new_shape[ni], op_ = olddims[oi];
        while (np_ != op_) {
            if (np_ < op_) {
                np_ *= new_shape[nj++];
            }
            else {
                op_ *= olddims[oj++];
            }
        }
        for (int ok = oi; ok < oj - 1; ++ok) {
            if (oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1]) {
                return 0;
            }
        }
        new_strides[nj - 1] = oldstrides[oj - 1];
        for (int nk = nj - 1; nk > ni; --nk) {
            new_strides[nk - 1] = new_strides[nk] * new_shape[nk];
        }
        ni = nj++;
        oi = oj++;
    }
    int64_t last = ni >= 1 ? new_strides[ni - 1] : itemsize;
    for (int nk = ni; nk < new_ndim; ++nk) {
        new_strides[nk] = last;
    }
    return 1;
}


/* `self` with a new shape (one -1 inferred): a view when the strides allow,
 * else a C-contiguous copy. force_copy 1 always copies, -1 refuses to. */
static PyObject *reshape_array(DeviceArrayObject *self, int ndim, int64_t *dims, int force_copy)
{
    int64_t size = array_size(self), known = 1, count = 0;
    int unknown = -1, zero = 0, overflow = 0;
    for (int d = 0; d < ndim; ++d) {
        if (dims[d] == -1) {
            if (unknown >= 0) {
                PyErr_SetString(PyExc_ValueError, "can only specify one unknown dimension");
                return NULL;
            }
            unknown = d;
        }
        else if (dims[d] == 0) {
            zero = 1;
        }
        else if (checked_mul(known, dims[d], &known)) {
            overflow = 1; /* more than any array holds: cannot match size */
        }
    }
    if (zero) {
        known = 0;
    }
    else if (overflow) {
        known = -1;
    }
    if (unknown >= 0 && known > 0 && size % known == 0) {
        dims[unknown] = size / known;
        known = size;
    }
    if (known != size || (unknown >= 0 && dims[unknown] == -1)) {
        PyObject *t = tuple_of(ndim, dims);
        if (t != NULL) {
            PyErr_Format(PyExc_ValueError, "cannot reshape array of size %lld into shape %S", (long long)size, t);
            Py_DECREF(t);
        }
        return NULL;
    }
    int64_t itemsize = (int64_t)va_dtype_size(self->dtype);
    /* an empty array takes any shape with a 0 in it, but not one whose other
     * dimensions overflow (NumPy: "array is too big") */
    if (checked_array_size(ndim, dims, itemsize, &count) < 0) {
        return NULL;
    }
    ViewGeometry g;
    g.offset = 0;
    g.ndim = ndim;
    memcpy(g.shape, dims, sizeof(int64_t) * ndim);
    if (force_copy != 1 &&
        (size == 0 ? (checked_c_strides(ndim, dims, itemsize, g.strides), 1)
                   : reshape_strides(self->ndim, self->shape, self->strides, itemsize, ndim, dims, g.strides))) {
        return (PyObject *)view_of(self, &g);
    }
    if (force_copy == -1) {
        PyErr_SetString(PyExc_ValueError, "Unable to avoid creating a copy while reshaping.");
        return NULL;
    }
    DeviceArrayObject *copy = devicearray_copy(self); /* C-contiguous, ours alone */
    if (copy == NULL) {
        return NULL;
    }
    copy->ndim = ndim;
    memcpy(copy->shape, dims, sizeof(int64_t) * ndim);
    checked_c_strides(ndim, dims, itemsize, copy->strides);
    return (PyObject *)copy;
}

static int parse_copy(PyObject *obj, int *copy)
{
    *copy = 0;
    if (obj == NULL || obj == Py_None) {
        return 0;
    }
    int truth = PyObject_IsTrue(obj);
    if (truth < 0) {
        return -1;
    }
    *copy = truth ? 1 : -1;
    return 0;
}

static PyObject *da_reshape(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"order", "copy"};
    PyObject *values[2] = {NULL, NULL};
    PyObject *shape_obj = NULL;
    int ndim = 0, copy = 0;
    int64_t dims[VA_MAX_NDIM];
    if (parse_arguments("reshape", args + nargs, 0, kwnames, names, 2, 0, 0, values) < 0) {
        return NULL;
    }
    if (nargs == 0) {
        PyErr_SetString(PyExc_TypeError, "reshape() takes exactly 1 argument (0 given)");
        return NULL;
    }
    if (nargs == 1) {
        shape_obj = args[0];
        Py_INCREF(shape_obj);
    }
    else {
        shape_obj = PyTuple_New(nargs);
        for (Py_ssize_t i = 0; shape_obj != NULL && i < nargs; ++i) {
            Py_INCREF(args[i]);
            PyTuple_SET_ITEM(shape_obj, i, args[i]);
        }
        if (shape_obj == NULL) {
            return NULL;
        }
    }
    PyObject *result = NULL;
    if (parse_shape(shape_obj, 1, &ndim, dims) == 0 && check_order_c(values[0], "reshape") == 0 &&
        parse_copy(values[1], &copy) == 0) {
        result = reshape_array(SELF, ndim, dims, copy);
    }
    Py_DECREF(shape_obj);
    return result;
}

typedef struct {
    int ndim;
    int64_t dims[VA_MAX_NDIM];
    int copy;
} ReshapeArgs;

static PyObject *reshape_step(DeviceArrayObject *a, void *context, int trial)
{
    const ReshapeArgs *r = (const ReshapeArgs *)context;
    int64_t dims[VA_MAX_NDIM];
    memcpy(dims, r->dims, sizeof(int64_t) * r->ndim);
    /* the placeholder is C-contiguous: a view always checks the shape, and no
     * copy of memory that is not on the GPU is ever asked for */
    return reshape_array(a, r->ndim, dims, trial && r->copy == 1 ? 0 : r->copy);
}

static PyObject *mm_reshape(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"a", "shape", "order", "copy"};
    PyObject *values[4];
    int ndim = 0, copy = 0;
    int64_t dims[VA_MAX_NDIM];
    if (parse_arguments("reshape", args, nargs, kwnames, names, 4, 2, 3, values) < 0 ||
        parse_shape(values[1], 1, &ndim, dims) < 0 || check_order_c(values[2], "reshape") < 0 ||
        parse_copy(values[3], &copy) < 0) {
        return NULL;
    }
    ReshapeArgs r = {ndim, {0}, copy};
    memcpy(r.dims, dims, sizeof(int64_t) * ndim);
    return on_gpu_operand(values[0], "reshape", reshape_step, &r);
}

static PyObject *ravel_array(DeviceArrayObject *a)
{
    int64_t n = -1;
    if (devicearray_is_c_contiguous(a)) {
        return reshape_array(a, 1, &n, 0);
    }
    return reshape_array(a, 1, &n, 1);
}

static PyObject *da_ravel(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"order"};
    PyObject *values[1];
    if (parse_arguments("ravel", args, nargs, kwnames, names, 1, 0, 1, values) < 0 ||
        check_order_c(values[0], "ravel") < 0) {
        return NULL;
    }
    return ravel_array(SELF);
}

static PyObject *da_flatten(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"order"};
    PyObject *values[1];
    int64_t n = -1;
    if (parse_arguments("flatten", args, nargs, kwnames, names, 1, 0, 1, values) < 0 ||
        check_order_c(values[0], "flatten") < 0) {
        return NULL;
    }
    return reshape_array(SELF, 1, &n, 1);
}

static PyObject *mm_ravel(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"a", "order"};
    PyObject *values[2];
    if (parse_arguments("ravel", args, nargs, kwnames, names, 2, 1, 2, values) < 0 ||
        check_order_c(values[1], "ravel") < 0) {
        return NULL;
    }
    DeviceArrayObject *a = gpu_operand(values[0], "ravel");
    if (a == NULL) {
        return NULL;
    }
    PyObject *result = ravel_array(a);
    Py_DECREF(a);
    return result;
}

/* ---- transpose, squeeze, expand_dims, broadcast_to ---- */

static PyObject *permute(DeviceArrayObject *a, PyObject *axes_obj)
{
    ViewGeometry g;
    g.offset = 0;
    g.ndim = a->ndim;
    int axes[VA_MAX_NDIM];
    if (axes_obj == NULL || axes_obj == Py_None) {
        for (int d = 0; d < a->ndim; ++d) {
            axes[d] = a->ndim - 1 - d;
        }
    }
    else {
        int n = 0;
        Py_ssize_t len = PySequence_Check(axes_obj) ? PySequence_Size(axes_obj) : 1;
        if (len < 0) {
            return NULL;
        }
        if (len != a->ndim) {
            PyErr_SetString(PyExc_ValueError, "axes don't match array");
            return NULL;
        }
        if (parse_axes(axes_obj, a->ndim, &n, axes) < 0) {
            if (PyErr_ExceptionMatches(PyExc_ValueError) && !PyErr_ExceptionMatches(PyExc_IndexError)) {
                PyErr_SetString(PyExc_ValueError, "repeated axis in transpose");
            }
            return NULL;
        }
    }
    for (int d = 0; d < a->ndim; ++d) {
        g.shape[d] = a->shape[axes[d]];
        g.strides[d] = a->strides[axes[d]];
    }
    return (PyObject *)view_of(a, &g);
}

static PyObject *da_transpose(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) {
        PyErr_SetString(PyExc_TypeError, "transpose() takes no keyword arguments");
        return NULL;
    }
    if (nargs == 0) {
        return permute(SELF, NULL);
    }
    if (nargs == 1) {
        return permute(SELF, args[0]);
    }
    PyObject *axes = PyTuple_New(nargs);
    if (axes == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; ++i) {
        Py_INCREF(args[i]);
        PyTuple_SET_ITEM(axes, i, args[i]);
    }
    PyObject *result = permute(SELF, axes);
    Py_DECREF(axes);
    return result;
}

static PyObject *get_T(PyObject *op, void *) { return permute(SELF, NULL); }

/* d.real and d.imag, as NumPy's: views of a complex array's two parts (its strides,
 * the imaginary part one component further on); of a real array, d.real is a view
 * of it and d.imag a new array of zeros of its dtype. */
static PyObject *part_of(DeviceArrayObject *self, int imaginary)
{
    if (dtype_kind(self->dtype) != 'c') {
        if (!imaginary) {
            DeviceArrayObject *same = devicearray_view(self->data, self->device, self->dtype, self->ndim,
                                                       self->shape, self->strides, (PyObject *)self);
            if (same != NULL) {
                same->readonly = self->readonly;
            }
            return (PyObject *)same;
        }
        DeviceArrayObject *zeros = devicearray_empty(self->device, self->dtype, self->ndim, self->shape, 0);
        if (zeros == NULL) {
            return NULL;
        }
        va_array view;
        unsigned char zero[16] = {0};
        devicearray_describe(zeros, &view);
        const va_status st = va_fill(self->device, &view, zero);
        if (st != VA_SUCCESS) {
            Py_DECREF(zeros);
            return raise_status(st);
        }
        return (PyObject *)zeros;
    }
    const va_dtype part = va_part_dtype(self->dtype);
    char *data = (char *)self->data + (imaginary ? va_dtype_size(part) : 0);
    DeviceArrayObject *view = devicearray_view(data, self->device, part, self->ndim, self->shape, self->strides,
                                               (PyObject *)self);
    if (view != NULL) {
        view->readonly = self->readonly;
    }
    return (PyObject *)view;
}

static PyObject *get_real(PyObject *op, void *) { return part_of(SELF, 0); }
static PyObject *get_imag(PyObject *op, void *) { return part_of(SELF, 1); }

static PyObject *permute_step(DeviceArrayObject *a, void *axes, int) { return permute(a, (PyObject *)axes); }

static PyObject *module_permute(const char *fname, int axes_required, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    static const char *const names[] = {"a", "axes"};
    PyObject *values[2];
    if (parse_arguments(fname, args, nargs, kwnames, names, 2, 1 + axes_required, 2, values) < 0) {
        return NULL;
    }
    return on_gpu_operand(values[0], fname, permute_step, values[1]);
}

static PyObject *mm_transpose(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return module_permute("transpose", 0, args, nargs, kwnames);
}

static PyObject *mm_permute_dims(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return module_permute("permute_dims", 1, args, nargs, kwnames);
}

static PyObject *squeeze_array(DeviceArrayObject *a, PyObject *axis_obj)
{
    int drop[VA_MAX_NDIM] = {0};
    if (axis_obj == NULL || axis_obj == Py_None) {
        for (int d = 0; d < a->ndim; ++d) {
            drop[d] = a->shape[d] == 1;
        }
    }
    else {
        int n = 0, axes[VA_MAX_NDIM];
        /* NumPy lets a 0-d array take axis 0 or -1 (nothing to squeeze) */
        if (parse_axes(axis_obj, a->ndim == 0 ? 1 : a->ndim, &n, axes) < 0) {
            return NULL;
        }
        for (int i = 0; i < n && a->ndim > 0; ++i) {
            if (a->shape[axes[i]] != 1) {
                PyErr_SetString(PyExc_ValueError,
                                "cannot select an axis to squeeze out which has size not equal to one");
                return NULL;
            }
            drop[axes[i]] = 1;
        }
    }
    ViewGeometry g;
    g.offset = 0;
    g.ndim = 0;
    for (int d = 0; d < a->ndim; ++d) {
        if (!drop[d]) {
            g.shape[g.ndim] = a->shape[d];
            g.strides[g.ndim] = a->strides[d];
            ++g.ndim;
        }
    }
    return (PyObject *)view_of(a, &g);
}

/* ---- the array functions of array_functions.def ---- */

PyObject *array_function_squeeze(DeviceArrayObject *a, const ArgValue *args)
{
    /* the axis stays an object: NumPy lets a 0-d array take axis 0 or -1 */
    return squeeze_array(a, args[1].given ? args[1].object : NULL);
}

PyObject *array_function_expand_dims(DeviceArrayObject *a, const ArgValue *args)
{
    const ArgValue &axis = args[1];
    int inserted[VA_MAX_NDIM] = {0};
    ViewGeometry g;
    g.offset = 0;
    g.ndim = a->ndim + axis.naxes;
    for (int i = 0; i < axis.naxes; ++i) {
        inserted[axis.axes[i]] = 1;
    }
    for (int d = 0, s = 0; d < g.ndim; ++d) {
        if (inserted[d]) {
            g.shape[d] = 1;
            g.strides[d] = 0;
        }
        else {
            g.shape[d] = a->shape[s];
            g.strides[d] = a->strides[s];
            ++s;
        }
    }
    return (PyObject *)view_of(a, &g);
}

PyObject *array_function_swapaxes(DeviceArrayObject *a, const ArgValue *args)
{
    ViewGeometry g;
    geometry_of(a, &g);
    const int i = args[1].axis, j = args[2].axis;
    g.offset = 0;
    g.shape[i] = a->shape[j];
    g.strides[i] = a->strides[j];
    g.shape[j] = a->shape[i];
    g.strides[j] = a->strides[i];
    return (PyObject *)view_of(a, &g);
}

PyObject *array_function_flip(DeviceArrayObject *a, const ArgValue *args)
{
    int flipped[VA_MAX_NDIM] = {0};
    for (int d = 0; d < a->ndim; ++d) {
        flipped[d] = !args[1].given;
    }
    for (int k = 0; args[1].given && k < args[1].naxes; ++k) {
        flipped[args[1].axes[k]] = 1;
    }
    ViewGeometry g;
    geometry_of(a, &g);
    for (int d = 0; d < a->ndim; ++d) {
        if (flipped[d] && g.shape[d] > 1) {
            /* the last element comes first; within the array's own extent */
            g.offset += (g.shape[d] - 1) * g.strides[d];
            g.strides[d] = -g.strides[d];
        }
    }
    return (PyObject *)view_of(a, &g);
}

PyObject *array_function_moveaxis(DeviceArrayObject *a, const ArgValue *args)
{
    const ArgValue &source = args[1], &destination = args[2];
    if (source.naxes != destination.naxes) {
        PyErr_SetString(PyExc_ValueError,
                        "`source` and `destination` arguments must have the same number of elements");
        return NULL;
    }
    /* the axes not moved keep their order in the places left free */
    int order[VA_MAX_NDIM], placed[VA_MAX_NDIM] = {0}, moved[VA_MAX_NDIM] = {0};
    for (int k = 0; k < source.naxes; ++k) {
        order[destination.axes[k]] = source.axes[k];
        placed[destination.axes[k]] = 1;
        moved[source.axes[k]] = 1;
    }
    for (int d = 0, next = 0; d < a->ndim; ++d) {
        if (placed[d]) {
            continue;
        }
        while (moved[next]) {
            ++next;
        }
        order[d] = next++;
    }
    ViewGeometry g;
    g.offset = 0;
    g.ndim = a->ndim;
    for (int d = 0; d < a->ndim; ++d) {
        g.shape[d] = a->shape[order[d]];
        g.strides[d] = a->strides[order[d]];
    }
    return (PyObject *)view_of(a, &g);
}

static PyObject *broadcast_step(DeviceArrayObject *a, void *context, int);

static PyObject *mm_broadcast_to(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"array", "shape", "subok"};
    PyObject *values[3];
    int ndim = 0;
    int64_t dims[VA_MAX_NDIM];
    if (parse_arguments("broadcast_to", args, nargs, kwnames, names, 3, 2, 3, values) < 0) {
        return NULL;
    }
    if (parse_shape(values[1], 0, &ndim, dims) < 0) {
        if (PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyErr_SetString(PyExc_ValueError, "all elements of broadcast shape must be non-negative");
        }
        return NULL;
    }
    ReshapeArgs r = {ndim, {0}, 0};
    memcpy(r.dims, dims, sizeof(int64_t) * ndim);
    return on_gpu_operand(values[0], "broadcast_to", broadcast_step, &r);
}

static PyObject *broadcast_step(DeviceArrayObject *a, void *context, int)
{
    const ReshapeArgs *r = (const ReshapeArgs *)context;
    const int ndim = r->ndim;
    const int64_t *dims = r->dims;
    PyObject *result = NULL;
    ViewGeometry g;
    g.offset = 0;
    g.ndim = ndim;
    int ok = a->ndim <= ndim;
    for (int d = 0; ok && d < ndim; ++d) {
        int s = d - (ndim - a->ndim);
        if (s < 0) {
            g.strides[d] = 0;
        }
        else if (a->shape[s] == dims[d]) {
            g.strides[d] = a->strides[s];
        }
        else if (a->shape[s] == 1) {
            g.strides[d] = 0;
        }
        else {
            ok = 0;
        }
        g.shape[d] = dims[d];
    }
    if (ok) {
        result = (PyObject *)view_of(a, &g);
        if (result != NULL) {
            /* NumPy's broadcast_to is read-only: its repeated elements share memory,
             * and a write through them (out=, d[...] =) would race with itself */
            ((DeviceArrayObject *)result)->readonly = 1;
        }
    }
    else {
        PyObject *from = tuple_of(a->ndim, a->shape), *to = tuple_of(ndim, dims);
        if (from != NULL && to != NULL) {
            PyErr_Format(PyExc_ValueError,
                         "operands could not be broadcast together with remapped shapes "
                         "[original->remapped]: %S and requested shape %S", from, to);
        }
        Py_XDECREF(from);
        Py_XDECREF(to);
    }
    return result;
}

/* ---- concatenate, stack ---- */

typedef struct {
    Py_ssize_t count;
    PyObject **items;   /* new references: DeviceArray or host ndarray */
    int device;
} Pieces;

static void pieces_clear(Pieces *p)
{
    for (Py_ssize_t i = 0; i < p->count; ++i) {
        Py_XDECREF(p->items[i]);
    }
    PyMem_Free(p->items);
    p->items = NULL;
    p->count = 0;
}

static void piece_shape(PyObject *item, int *ndim, const int64_t **shape, int64_t *host_dims)
{
    if (DeviceArray_Check(item)) {
        *ndim = ((DeviceArrayObject *)item)->ndim;
        *shape = ((DeviceArrayObject *)item)->shape;
        return;
    }
    PyArrayObject *h = (PyArrayObject *)item;
    *ndim = PyArray_NDIM(h);
    for (int d = 0; d < *ndim; ++d) {
        host_dims[d] = PyArray_DIM(h, d);
    }
    *shape = host_dims;
}

/* The inputs: GPU arrays kept (the first one's device is the result's), host
 * data as NumPy arrays uploaded later; nothing here calls CUDA. */
static int pieces_collect(PyObject *arrays, const char *fname, Pieces *p)
{
    memset(p, 0, sizeof(*p));
    PyObject *seq = PySequence_Fast(arrays, "expected a sequence of arrays");
    if (seq == NULL) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n == 0) {
        PyErr_Format(PyExc_ValueError, "need at least one array to %s", fname);
        Py_DECREF(seq);
        return -1;
    }
    p->items = (PyObject **)PyMem_Calloc((size_t)n, sizeof(PyObject *));
    if (p->items == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    p->count = n;
    int device_set = 0;
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject *obj = PySequence_Fast_GET_ITEM(seq, i);
        PyObject *gpu = NULL;
        if (DeviceArray_Check(obj)) {
            Py_INCREF(obj);
            gpu = obj;
        }
        else if ((gpu = interop_import(obj)) == NULL) {
            goto fail;
        }
        if (gpu != Py_None) {
            p->items[i] = gpu;
            if (!device_set) {
                p->device = ((DeviceArrayObject *)gpu)->device;
                device_set = 1;
            }
        }
        else {
            Py_DECREF(gpu);
            p->items[i] = (PyObject *)host_array_like(obj, NULL);
            if (p->items[i] == NULL) {
                goto fail;
            }
        }
    }
    Py_DECREF(seq);
    return 0;
fail:
    Py_DECREF(seq);
    pieces_clear(p);
    return -1;
}

static PyArray_Descr *piece_descr(PyObject *item)
{
    if (DeviceArray_Check(item)) {
        return descr_from_va(((DeviceArrayObject *)item)->dtype);
    }
    PyArray_Descr *d = PyArray_DESCR((PyArrayObject *)item);
    Py_INCREF(d);
    return d;
}

/* Every piece casts to `dtype` under `casting`: NumPy's TypeError otherwise. */
static int pieces_cast_check(Pieces *p, va_dtype dtype, NPY_CASTING casting)
{
    PyArray_Descr *to = descr_from_va(dtype);
    if (to == NULL) {
        return -1;
    }
    int st = 0;
    for (Py_ssize_t i = 0; i < p->count && st == 0; ++i) {
        PyArray_Descr *from = piece_descr(p->items[i]);
        if (from == NULL) {
            st = -1;
        }
        else if (!PyArray_CanCastTypeTo(from, to, casting)) {
            PyErr_Format(PyExc_TypeError, "Cannot cast array data from %R to %R according to the rule '%s'",
                         (PyObject *)from, (PyObject *)to,
                         casting == NPY_NO_CASTING ? "no" : casting == NPY_EQUIV_CASTING ? "equiv"
                         : casting == NPY_SAFE_CASTING ? "safe" : casting == NPY_SAME_KIND_CASTING ? "same_kind"
                         : "unsafe");
            st = -1;
        }
        Py_XDECREF(from);
    }
    Py_DECREF(to);
    return st;
}

/* The result dtype: NumPy's promotion of the inputs, or dtype= when every input
 * casts to it under `casting` (same_kind by default, as NumPy's). */
static int pieces_dtype(Pieces *p, PyObject *dtype_obj, PyObject *casting_obj, va_dtype *dtype)
{
    int given = 0;
    NPY_CASTING casting = NPY_SAME_KIND_CASTING;
    if (parse_dtype(dtype_obj, dtype, &given) < 0) {
        return -1;
    }
    if (casting_obj != NULL && !PyArray_CastingConverter(casting_obj, &casting)) {
        return -1;
    }
    if (given) {
        return pieces_cast_check(p, *dtype, casting);
    }
    PyArray_Descr **descrs = (PyArray_Descr **)PyMem_Calloc((size_t)p->count, sizeof(PyArray_Descr *));
    if (descrs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    int st = 0;
    for (Py_ssize_t i = 0; i < p->count && st == 0; ++i) {
        descrs[i] = piece_descr(p->items[i]);
        st = descrs[i] == NULL ? -1 : 0;
    }
    PyArray_Descr *common = st == 0 ? PyArray_ResultType(0, NULL, (npy_intp)p->count, descrs) : NULL;
    for (Py_ssize_t i = 0; i < p->count; ++i) {
        Py_XDECREF(descrs[i]);
    }
    PyMem_Free(descrs);
    if (common == NULL) {
        return -1;
    }
    st = va_dtype_from_descr(common, dtype);
    if (st < 0) {
        raise_unsupported_dtype((PyObject *)common);
    }
    Py_DECREF(common);
    /* casting= binds the promoted dtype too, as NumPy's ("no" refuses f8 + i4) */
    return st < 0 ? -1 : pieces_cast_check(p, *dtype, casting);
}

/* Copies piece i into `dst` (a view of the result of the piece's shape). */
static int piece_copy(Pieces *p, Py_ssize_t i, const va_array *dst, int flat)
{
    DeviceArrayObject *src = NULL;
    PyObject *item = p->items[i];
    if (DeviceArray_Check(item) && ((DeviceArrayObject *)item)->device == p->device) {
        Py_INCREF(item);
        src = (DeviceArrayObject *)item;
    }
    else if (DeviceArray_Check(item)) {
        src = devicearray_astype((DeviceArrayObject *)item, ((DeviceArrayObject *)item)->dtype, p->device);
    }
    else {
        src = devicearray_from_host((PyArrayObject *)item, p->device, 0);
    }
    if (src == NULL) {
        return -1;
    }
    va_array s;
    devicearray_describe(src, &s);
    va_array d = *dst;
    if (flat) { /* axis=None: the destination run described in the piece's own shape */
        d.ndim = s.ndim;
        int64_t stride = (int64_t)va_dtype_size(d.dtype);
        for (int k = s.ndim - 1; k >= 0; --k) {
            d.shape[k] = s.shape[k];
            d.strides[k] = stride;
            stride *= s.shape[k] > 0 ? s.shape[k] : 1;
        }
    }
    va_status st = va_copy_convert(p->device, &s, &d);
    Py_DECREF(src);
    if (st != VA_SUCCESS) {
        raise_status(st);
        return -1;
    }
    return 0;
}

static PyObject *join(const char *fname, int stack, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"arrays", "axis", "out", "dtype", "casting"};
    PyObject *values[5];
    Pieces p;
    va_dtype dtype;
    int flat = 0, axis = 0, ndim0 = 0;
    int64_t rshape[VA_MAX_NDIM], host_dims[VA_MAX_NDIM];
    const int64_t *shape0 = NULL;
    DeviceArrayObject *result = NULL;
    if (parse_arguments(fname, args, nargs, kwnames, names, 5, 1, 3, values) < 0) {
        return NULL;
    }
    if (values[2] != NULL && values[2] != Py_None) {
        PyErr_Format(PyExc_TypeError, "%s(): out= is not supported for GPU arrays", fname);
        return NULL;
    }
    if (pieces_collect(values[0], fname, &p) < 0) {
        return NULL;
    }
    if (pieces_dtype(&p, values[3], values[4], &dtype) < 0) {
        goto fail;
    }
    flat = !stack && values[1] == Py_None;
    {
        int64_t axis_value = 0;
        if (!flat && values[1] != NULL) {
            if (PyBool_Check(values[1]) || !PyIndex_Check(values[1])) {
                PyErr_Format(PyExc_TypeError, "'%.100s' object cannot be interpreted as an integer",
                             Py_TYPE(values[1])->tp_name);
                goto fail;
            }
            axis_value = PyNumber_AsSsize_t(values[1], PyExc_OverflowError);
            if (axis_value == -1 && PyErr_Occurred()) {
                goto fail;
            }
        }
        int64_t dims0[VA_MAX_NDIM];
        piece_shape(p.items[0], &ndim0, &shape0, dims0);
        memcpy(host_dims, shape0, sizeof(int64_t) * ndim0);
        shape0 = host_dims;
        if (flat) {
            int64_t total = 0;
            for (Py_ssize_t i = 0; i < p.count; ++i) {
                int nd;
                const int64_t *sh;
                int64_t tmp[VA_MAX_NDIM], n = 1;
                piece_shape(p.items[i], &nd, &sh, tmp);
                for (int d = 0; d < nd; ++d) {
                    n *= sh[d]; /* an existing array's count: fits */
                }
                if (checked_add(total, n, &total)) {
                    raise_too_big();
                    goto fail;
                }
            }
            ndim0 = 1;
            rshape[0] = total;
        }
        else {
            if (!stack && ndim0 == 0) {
                PyErr_SetString(PyExc_ValueError, "zero-dimensional arrays cannot be concatenated");
                goto fail;
            }
            if (normalize_axis(axis_value, stack ? ndim0 + 1 : ndim0, &axis) < 0) {
                goto fail;
            }
            for (Py_ssize_t i = 1; i < p.count; ++i) {
                int nd;
                const int64_t *sh;
                int64_t tmp[VA_MAX_NDIM];
                piece_shape(p.items[i], &nd, &sh, tmp);
                if (stack) {
                    int same = nd == ndim0;
                    for (int d = 0; same && d < nd; ++d) {
                        same = sh[d] == shape0[d];
                    }
                    if (!same) {
                        PyErr_SetString(PyExc_ValueError, "all input arrays must have the same shape");
                        goto fail;
                    }
                    continue;
                }
                if (nd != ndim0) {
                    PyErr_Format(PyExc_ValueError,
                                 "all the input arrays must have same number of dimensions, but the array at "
                                 "index 0 has %d dimension(s) and the array at index %zd has %d dimension(s)",
                                 ndim0, i, nd);
                    goto fail;
                }
                for (int d = 0; d < nd; ++d) {
                    if (d != axis && sh[d] != shape0[d]) {
                        PyErr_Format(PyExc_ValueError,
                                     "all the input array dimensions except for the concatenation axis must "
                                     "match exactly, but along dimension %d, the array at index 0 has size "
                                     "%lld and the array at index %zd has size %lld",
                                     d, (long long)shape0[d], i, (long long)sh[d]);
                        goto fail;
                    }
                }
            }
            if (stack) {
                if (ndim0 + 1 > VA_MAX_NDIM) {
                    PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported on the GPU", VA_MAX_NDIM);
                    goto fail;
                }
                for (int d = 0, s = 0; d <= ndim0; ++d) {
                    rshape[d] = d == axis ? (int64_t)p.count : shape0[s++];
                }
                ++ndim0;
            }
            else {
                memcpy(rshape, shape0, sizeof(int64_t) * ndim0);
                rshape[axis] = 0;
                for (Py_ssize_t i = 0; i < p.count; ++i) {
                    int nd;
                    const int64_t *sh;
                    int64_t tmp[VA_MAX_NDIM];
                    piece_shape(p.items[i], &nd, &sh, tmp);
                    if (checked_add(rshape[axis], sh[axis], &rshape[axis])) {
                        raise_too_big();
                        goto fail;
                    }
                }
            }
        }
    }
    {
        int64_t count = 0;
        if (checked_array_size(ndim0, rshape, (int64_t)va_dtype_size(dtype), &count) < 0 ||
            require_cuda(fname) < 0) {
            goto fail;
        }
    }
    result = devicearray_empty(p.device, dtype, ndim0, rshape, 0);
    if (result == NULL) {
        goto fail;
    }
    {
        va_array whole;
        devicearray_describe(result, &whole);
        int64_t position = 0; /* along axis (elements), or the flat start */
        for (Py_ssize_t i = 0; i < p.count; ++i) {
            int nd;
            const int64_t *sh;
            int64_t tmp[VA_MAX_NDIM], n = 1;
            piece_shape(p.items[i], &nd, &sh, tmp);
            va_array dst = whole;
            if (flat) {
                for (int d = 0; d < nd; ++d) {
                    n *= sh[d];
                }
                dst.data = (char *)whole.data + position * whole.strides[0];
                position += n;
            }
            else if (stack) {
                dst.data = (char *)whole.data + (int64_t)i * whole.strides[axis];
                dst.ndim = whole.ndim - 1;
                for (int d = 0, s = 0; d < whole.ndim; ++d) {
                    if (d != axis) {
                        dst.shape[s] = whole.shape[d];
                        dst.strides[s] = whole.strides[d];
                        ++s;
                    }
                }
            }
            else {
                dst.data = (char *)whole.data + position * whole.strides[axis];
                dst.shape[axis] = sh[axis];
                position += sh[axis];
            }
            if (piece_copy(&p, i, &dst, flat) < 0) {
                Py_CLEAR(result);
                goto fail;
            }
        }
    }
fail:
    pieces_clear(&p);
    return (PyObject *)result;
}

static PyObject *mm_concatenate(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return join("concatenate", 0, args, nargs, kwnames);
}

static PyObject *mm_stack(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return join("stack", 1, args, nargs, kwnames);
}

/* ---- astype, copy, fill ---- */

static PyObject *astype_array(DeviceArrayObject *a, PyObject *dtype_obj, PyObject *copy_obj, int device)
{
    va_dtype dtype;
    int given = 0, copy = 1;
    if (parse_dtype(dtype_obj, &dtype, &given) < 0) {
        return NULL;
    }
    if (!given) {
        PyErr_SetString(PyExc_TypeError, "astype() needs a dtype");
        return NULL;
    }
    if (copy_obj != NULL && (copy = PyObject_IsTrue(copy_obj)) < 0) {
        return NULL;
    }
    if (!copy && dtype == a->dtype && device == a->device) {
        Py_INCREF(a);
        return (PyObject *)a;
    }
    return (PyObject *)devicearray_astype(a, dtype, device);
}

static PyObject *da_astype(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dtype", "order", "casting", "subok", "copy"};
    PyObject *values[5];
    if (parse_arguments("astype", args, nargs, kwnames, names, 5, 1, 5, values) < 0 ||
        check_order_c(values[1], "astype") < 0) {
        return NULL;
    }
    return astype_array(SELF, values[0], values[4], SELF->device);
}

static PyObject *mm_astype(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"x", "dtype", "copy", "device"};
    PyObject *values[4];
    int device = 0;
    if (parse_arguments("astype", args, nargs, kwnames, names, 4, 2, 2, values) < 0) {
        return NULL;
    }
    {
        va_dtype checked;
        int given = 0;
        /* a bad dtype is an argument error: before the upload's device check */
        if (parse_dtype(values[1], &checked, &given) < 0) {
            return NULL;
        }
    }
    DeviceArrayObject *a = gpu_operand(values[0], "astype");
    if (a == NULL) {
        return NULL;
    }
    PyObject *result = NULL;
    if (values[3] == NULL || values[3] == Py_None) {
        device = a->device;
        result = astype_array(a, values[1], values[2], device);
    }
    else if (parse_gpu_index(values[3], &device) == 0) {
        result = astype_array(a, values[1], values[2], device);
    }
    Py_DECREF(a);
    return result;
}

static PyObject *da_copy(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"order"};
    PyObject *values[1];
    if (parse_arguments("copy", args, nargs, kwnames, names, 1, 0, 1, values) < 0 ||
        check_order_c(values[0], "copy") < 0) {
        return NULL;
    }
    return (PyObject *)devicearray_copy(SELF);
}

static PyObject *mm_copy(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"a", "order"};
    PyObject *values[2];
    if (parse_arguments("copy", args, nargs, kwnames, names, 2, 1, 2, values) < 0 ||
        check_order_c(values[1], "copy") < 0) {
        return NULL;
    }
    if (!DeviceArray_Check(values[0])) {
        /* host data: its upload is the copy */
        return (PyObject *)gpu_operand(values[0], "copy");
    }
    return (PyObject *)devicearray_copy((DeviceArrayObject *)values[0]);
}

static PyObject *da_fill(PyObject *op, PyObject *value)
{
    unsigned char packed[16];
    if (devicearray_check_assignable(SELF) < 0 || pack_scalar(value, SELF->dtype, packed) < 0) {
        return NULL;
    }
    va_array view;
    devicearray_describe(SELF, &view);
    va_status st = va_fill(SELF->device, &view, packed);
    if (st != VA_SUCCESS) {
        return raise_status(st);
    }
    Py_RETURN_NONE;
}

static PyMethodDef manipulation_methods[] = {
    {"reshape", FASTCALL(da_reshape),
     "reshape(*shape, order='C', copy=None)\n--\n\nnumpy.ndarray.reshape: a view when the strides allow, else a copy."},
    {"ravel", FASTCALL(da_ravel), "ravel(order='C')\n--\n\nA 1-d view when contiguous, else a copy."},
    {"flatten", FASTCALL(da_flatten), "flatten(order='C')\n--\n\nA 1-d copy."},
    {"transpose", FASTCALL(da_transpose), "transpose(*axes)\n--\n\nA view with the axes permuted (reversed by default)."},
    {"astype", FASTCALL(da_astype),
     "astype(dtype, order='K', casting='unsafe', subok=True, copy=True)\n--\n\nA converted copy on the same GPU."},
    {"copy", FASTCALL(da_copy), "copy(order='C')\n--\n\nA C-contiguous copy on the same GPU."},
    {"fill", da_fill, METH_O, "fill(value)\n--\n\nSet every element to a scalar (NumPy's casting)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef manipulation_getset[] = {
    {"T", get_T, NULL, "the transposed view", NULL},
    {"real", get_real, NULL, "the real part: a view (of a complex array's real parts, or of a real array)", NULL},
    {"imag", get_imag, NULL, "the imaginary part: a view of a complex array's, zeros of a real array's dtype",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef manipulation_functions[] = {
    {"reshape", FASTCALL(mm_reshape), "reshape(a, shape, order='C', copy=None)\n--\n\nnumpy.reshape for GPU arrays."},
    {"ravel", FASTCALL(mm_ravel), "ravel(a, order='C')\n--\n\nnumpy.ravel for GPU arrays."},
    {"transpose", FASTCALL(mm_transpose), "transpose(a, axes=None)\n--\n\nnumpy.transpose for GPU arrays (a view)."},
    {"permute_dims", FASTCALL(mm_permute_dims), "permute_dims(a, axes)\n--\n\nThe array API's transpose (a view)."},
    {"broadcast_to", FASTCALL(mm_broadcast_to),
     "broadcast_to(array, shape)\n--\n\nnumpy.broadcast_to for GPU arrays (a view with zero strides)."},
    {"concatenate", FASTCALL(mm_concatenate),
     "concatenate(arrays, axis=0, out=None, dtype=None, casting='same_kind')\n--\n\nnumpy.concatenate on the GPU "
     "of the first GPU input."},
    {"stack", FASTCALL(mm_stack),
     "stack(arrays, axis=0, out=None, dtype=None, casting='same_kind')\n--\n\nnumpy.stack on a GPU."},
    {"astype", FASTCALL(mm_astype), "astype(x, dtype, copy=True, device=None)\n--\n\nnumpy.astype for GPU arrays."},
    {"copy", FASTCALL(mm_copy), "copy(a, order='C')\n--\n\nA copy on the GPU."},
    {NULL, NULL, 0, NULL},
};

int manipulation_init(PyObject *module)
{
    return PyModule_AddFunctions(module, manipulation_functions);
}

TypePart manipulation_type_part(void)
{
    return TypePart{manipulation_methods, manipulation_getset};
}
