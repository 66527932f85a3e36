/* Views of DeviceArrays and the shared argument conversions of the array functions. */
#include <string.h>

#include "views.h"

void geometry_of(const DeviceArrayObject *array, ViewGeometry *geometry)
{
    geometry->offset = 0;
    geometry->ndim = array->ndim;
    for (int d = 0; d < array->ndim; ++d) {
        geometry->shape[d] = array->shape[d];
        geometry->strides[d] = array->strides[d];
    }
}

DeviceArrayObject *view_of(DeviceArrayObject *base, const ViewGeometry *geometry)
{
    /* The owner is the array that holds the memory (or the foreign owner's
     * DeviceArray), so chains of views stay one link long. */
    PyObject *owner = (PyObject *)base;
    if (base->allocation == NULL && base->owner != NULL && DeviceArray_Check(base->owner)) {
        owner = base->owner;
    }
    DeviceArrayObject *view = devicearray_view((char *)base->data + geometry->offset, base->device,
                                               base->dtype, geometry->ndim, geometry->shape,
                                               geometry->strides, owner);
    if (view != NULL) {
        view->managed = base->managed;
        /* a view of read-only memory is read-only too (NumPy's rule) */
        view->readonly = base->readonly;
    }
    return view;
}

int64_t array_size(const DeviceArrayObject *array)
{
    int64_t n = 1;
    for (int d = 0; d < array->ndim; ++d) {
        n *= array->shape[d];
    }
    return n;
}

int parse_dtype(PyObject *obj, va_dtype *dtype, int *given)
{
    *given = 0;
    if (obj == NULL || obj == Py_None) {
        return 0;
    }
    PyArray_Descr *descr = NULL;
    if (!PyArray_DescrConverter(obj, &descr)) {
        return -1;
    }
    int ok = va_dtype_from_descr(descr, dtype);
    if (ok < 0) {
        raise_unsupported_dtype((PyObject *)descr);
        Py_DECREF(descr);
        return -1;
    }
    Py_DECREF(descr);
    *given = 1;
    return 0;
}

int parse_gpu_index(PyObject *obj, int *device)
{
    /* The operations' reading of device= (parse_where), so that one spelling
     * means one GPU everywhere; only the CPU is no place for a DeviceArray. */
    *device = 0;
    Where where;
    if (parse_where(obj, &where) < 0) {
        return -1;
    }
    switch (where.kind) {
    case WHERE_CPU:
        PyErr_SetString(PyExc_ValueError,
                        "device='cpu': this function makes a DeviceArray, which lives on a GPU "
                        "(device='cuda', 'cuda:N', a GPU index N, or None)");
        return -1;
    case WHERE_AUTO:
    case WHERE_CUDA:
        *device = where.gpu < 0 ? 0 : where.gpu;
        return 0;
    }
    PyErr_SetString(PyExc_SystemError, "parse_gpu_index: unknown device kind");
    return -1;
}

int axis_index(PyObject *obj, int64_t *value)
{
    if (!PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "'%.100s' object cannot be interpreted as an integer", Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t v = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    *value = (int64_t)v;
    return 0;
}

int parse_one_axis(PyObject *obj, int ndim, int *axis)
{
    int64_t value = 0;
    return axis_index(obj, &value) < 0 ? -1 : normalize_axis(value, ndim, axis);
}

static int index_value(PyObject *obj, int64_t *out)
{
    if (PyBool_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "'%.100s' object cannot be interpreted as an integer",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t v = PyNumber_AsSsize_t(obj, PyExc_ValueError);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

int parse_shape(PyObject *obj, int allow_unknown, int *ndim, int64_t *dims)
{
    PyObject *seq = NULL;
    int result = -1;
    if (PyIndex_Check(obj) && !PyBool_Check(obj)) {
        *ndim = 1;
        if (index_value(obj, &dims[0]) < 0) {
            return -1;
        }
    }
    else {
        seq = PySequence_Fast(obj, "expected a sequence of integers or a single integer");
        if (seq == NULL) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "'%.100s' object cannot be interpreted as an integer",
                         Py_TYPE(obj)->tp_name);
            return -1;
        }
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        if (n > VA_MAX_NDIM) {
            PyErr_Format(PyExc_ValueError, "maximum supported dimension for an ndarray is currently %d, found %zd",
                         VA_MAX_NDIM, n);
            goto fail;
        }
        *ndim = (int)n;
        for (Py_ssize_t i = 0; i < n; ++i) {
            if (index_value(PySequence_Fast_GET_ITEM(seq, i), &dims[i]) < 0) {
                goto fail;
            }
        }
    }
    for (int d = 0; d < *ndim; ++d) {
        if (dims[d] < 0 && allow_unknown) {
            dims[d] = -1; /* NumPy's reshape takes any negative as the unknown one */
        }
        else if (dims[d] < 0) {
            PyErr_SetString(PyExc_ValueError, "negative dimensions are not allowed");
            goto fail;
        }
    }
    result = 0;
fail:
    Py_XDECREF(seq);
    return result;
}

int normalize_axis(int64_t axis, int ndim, int *out)
{
    if (axis < -ndim || axis >= ndim) {
        PyObject *exceptions = PyImport_ImportModule("numpy.exceptions");
        PyObject *axis_error = NULL, *exc = NULL;
        if (exceptions != NULL) {
            axis_error = PyObject_GetAttrString(exceptions, "AxisError");
        }
        if (axis_error != NULL) {
            exc = PyObject_CallFunction(axis_error, "Li", (long long)axis, ndim);
        }
        if (exc != NULL) {
            PyErr_SetObject(axis_error, exc);
        }
        Py_XDECREF(exc);
        Py_XDECREF(axis_error);
        Py_XDECREF(exceptions);
        return -1;
    }
    *out = (int)(axis < 0 ? axis + ndim : axis);
    return 0;
}

int parse_axes(PyObject *obj, int ndim, int *naxes, int *axes)
{
    int64_t values[VA_MAX_NDIM];
    int n = 0;
    if (PyTuple_Check(obj) || PyList_Check(obj)) {
        {
            /* each item as it is (negative axes count from the end) */
            Py_ssize_t len = PySequence_Size(obj);
            if (len < 0 || len > VA_MAX_NDIM) {
                PyErr_SetString(PyExc_ValueError, "too many axes");
                return -1;
            }
            n = (int)len;
            for (int i = 0; i < n; ++i) {
                PyObject *item = PySequence_GetItem(obj, i);
                if (item == NULL) {
                    return -1;
                }
                int st = index_value(item, &values[i]);
                Py_DECREF(item);
                if (st < 0) {
                    return -1;
                }
            }
        }
    }
    else {
        n = 1;
        if (index_value(obj, &values[0]) < 0) {
            return -1;
        }
    }
    for (int i = 0; i < n; ++i) {
        if (normalize_axis(values[i], ndim, &axes[i]) < 0) {
            return -1;
        }
        for (int j = 0; j < i; ++j) {
            if (axes[j] == axes[i]) {
                PyErr_SetString(PyExc_ValueError, "repeated axis");
                return -1;
            }
        }
    }
    *naxes = n;
    return 0;
}

int pack_scalar(PyObject *value, va_dtype dtype, void *out)
{
    memset(out, 0, 16);
    PyArray_Descr *descr = descr_from_va(dtype); /* stolen by PyArray_Zeros */
    if (descr == NULL) {
        return -1;
    }
    /* NumPy's own assignment of one element: the same casts and errors as
     * numpy_array[i] = value (a 0-d array's setitem). */
    PyArrayObject *cell = (PyArrayObject *)PyArray_Zeros(0, NULL, descr, 0);
    if (cell == NULL) {
        return -1;
    }
    int st = PyArray_SETITEM(cell, (char *)PyArray_DATA(cell), value);
    if (st == 0) {
        memcpy(out, PyArray_DATA(cell), va_dtype_size(dtype));
    }
    Py_DECREF(cell);
    return st < 0 ? -1 : 0;
}

int cast_scalar(PyObject *value, va_dtype dtype, void *out)
{
    memset(out, 0, 16);
    PyArray_Descr *descr = descr_from_va(dtype); /* stolen by PyArray_FromAny / CastToType */
    if (descr == NULL) {
        return -1;
    }
    PyArrayObject *cast = NULL;
    if (PyLong_Check(value) && !PyBool_Check(value)) {
        /* A Python int must fit the dtype (NumPy 2: OverflowError otherwise). */
        cast = (PyArrayObject *)PyArray_FromAny(value, descr, 0, 0,
                                                NPY_ARRAY_FORCECAST | NPY_ARRAY_CARRAY_RO, NULL);
    }
    else {
        /* Anything else as an array of its own dtype, then cast unsafely: what
         * numpy.full's copyto(casting='unsafe') does (inf into int32 is INT_MIN). */
        PyArrayObject *natural = (PyArrayObject *)PyArray_FromAny(value, NULL, 0, 0, 0, NULL);
        if (natural == NULL) {
            Py_DECREF(descr);
            return -1;
        }
        cast = (PyArrayObject *)PyArray_CastToType(natural, descr, 0);
        Py_DECREF(natural);
    }
    if (cast == NULL) {
        return -1;
    }
    int result = 1;
    if (PyArray_NDIM(cast) == 0) {
        memcpy(out, PyArray_DATA(cast), va_dtype_size(dtype));
        result = 0;
    }
    Py_DECREF(cast);
    return result;
}

int check_order_c(PyObject *order, const char *fname)
{
    if (order == NULL || order == Py_None) {
        return 0;
    }
    if (PyUnicode_Check(order) && PyUnicode_CompareWithASCIIString(order, "C") == 0) {
        return 0;
    }
    PyErr_Format(PyExc_ValueError, "%s(): only order='C' is supported for GPU arrays", fname);
    return -1;
}

PyObject *mm_normalize_axis(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"axis", "ndim", "allow_duplicates"};
    PyObject *values[3];
    int64_t ndim64 = 0;
    int naxes = 0, axes[VA_MAX_NDIM], allow = 0;
    if (parse_arguments("_normalize_axis", args, nargs, kwnames, names, 3, 2, 3, values) < 0 ||
        index_value(values[1], &ndim64) < 0 ||
        (values[2] != NULL && (allow = PyObject_IsTrue(values[2])) < 0)) {
        return NULL;
    }
    if (ndim64 < 0 || ndim64 > VA_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "ndim must be within [0, %d]", VA_MAX_NDIM);
        return NULL;
    }
    int ndim = (int)ndim64;
    int is_sequence = PyTuple_Check(values[0]) || PyList_Check(values[0]);
    if (!is_sequence) {
        int64_t axis = 0;
        int out = 0;
        if (index_value(values[0], &axis) < 0 || normalize_axis(axis, ndim, &out) < 0) {
            return NULL;
        }
        return PyLong_FromLong(out);
    }
    if (allow) {
        /* duplicates kept (np.size counts them; callers that allow them say so) */
        Py_ssize_t n = PySequence_Size(values[0]);
        if (n < 0) {
            return NULL;
        }
        PyObject *result = PyTuple_New(n);
        for (Py_ssize_t i = 0; result != NULL && i < n; ++i) {
            PyObject *item = PySequence_GetItem(values[0], i);
            int64_t axis = 0;
            int out = 0;
            PyObject *v = NULL;
            if (item != NULL && index_value(item, &axis) == 0 && normalize_axis(axis, ndim, &out) == 0) {
                v = PyLong_FromLong(out);
            }
            Py_XDECREF(item);
            if (v == NULL) {
                Py_CLEAR(result);
                break;
            }
            PyTuple_SET_ITEM(result, i, v);
        }
        return result;
    }
    if (parse_axes(values[0], ndim, &naxes, axes) < 0) {
        return NULL;
    }
    PyObject *result = PyTuple_New(naxes);
    for (int i = 0; result != NULL && i < naxes; ++i) {
        PyObject *v = PyLong_FromLong(axes[i]);
        if (v == NULL) {
            Py_CLEAR(result);
            break;
        }
        PyTuple_SET_ITEM(result, i, v);
    }
    return result;
}
