/* bool(d), int(d), float(d), complex(d), operator.index(d): NumPy's checks first (no GPU
 * call for an argument error), then the one element read back as a NumPy
 * scalar that does the conversion, so the results match NumPy's exactly. */
#include "conversions.h"
#include "views.h"

/* The element `offset` bytes past the array's first as a NumPy scalar (new reference). */
static PyObject *read_element_at(DeviceArrayObject *self, int64_t offset)
{
    unsigned char buffer[16];
    va_status st;
    const char *at = (const char *)self->data + offset;
    Py_BEGIN_ALLOW_THREADS
    st = va_copy_to_host(self->device, buffer, at, va_dtype_size(self->dtype));
    Py_END_ALLOW_THREADS
    if (st != VA_SUCCESS) {
        return raise_status(st);
    }
    PyArray_Descr *descr = descr_from_va(self->dtype);
    if (descr == NULL) {
        return NULL;
    }
    PyObject *scalar = PyArray_Scalar(buffer, descr, NULL);
    Py_DECREF(descr);
    return scalar;
}

/* The array's single element (the first of a size-1 array). */
static PyObject *read_element(DeviceArrayObject *self) { return read_element_at(self, 0); }

static int only_0d(DeviceArrayObject *self)
{
    if (self->ndim != 0) {
        PyErr_SetString(PyExc_TypeError, "only 0-dimensional arrays can be converted to Python scalars");
        return -1;
    }
    return 0;
}

static int nb_bool(PyObject *op)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    int64_t n = array_size(self);
    if (n == 0) {
        PyErr_SetString(PyExc_ValueError,
                        "The truth value of an empty array is ambiguous. Use `array.size > 0` to check "
                        "that an array is not empty.");
        return -1;
    }
    if (n > 1) {
        PyErr_SetString(PyExc_ValueError,
                        "The truth value of an array with more than one element is ambiguous. Use a.any() "
                        "or a.all()");
        return -1;
    }
    PyObject *scalar = read_element(self);
    if (scalar == NULL) {
        return -1;
    }
    int truth = PyObject_IsTrue(scalar);
    Py_DECREF(scalar);
    return truth;
}

/* The one element of a size-1 array read to the host, then `convert`ed as
 * Python converts a NumPy scalar. */
static PyObject *convert_single(PyObject *op, PyObject *(*convert)(PyObject *))
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    if (only_0d(self) < 0) {
        return NULL;
    }
    PyObject *scalar = read_element(self);
    if (scalar == NULL) {
        return NULL;
    }
    PyObject *result = convert(scalar);
    Py_DECREF(scalar);
    return result;
}

static PyObject *nb_int(PyObject *op) { return convert_single(op, PyNumber_Long); }
static PyObject *nb_float(PyObject *op) { return convert_single(op, PyNumber_Float); }

static PyObject *to_complex(PyObject *scalar) { return PyObject_CallOneArg((PyObject *)&PyComplex_Type, scalar); }

PyObject *devicearray_complex(PyObject *op, PyObject *) { return convert_single(op, to_complex); }

static PyObject *nb_index(PyObject *op)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    if (self->ndim != 0 || (dtype_kind(self->dtype) != 'i' && dtype_kind(self->dtype) != 'u')) {
        PyErr_SetString(PyExc_TypeError, "only integer scalar arrays can be converted to a scalar index");
        return NULL;
    }
    PyObject *scalar = read_element(self);
    if (scalar == NULL) {
        return NULL;
    }
    PyObject *result = PyNumber_Index(scalar);
    Py_DECREF(scalar);
    return result;
}

void conversions_fill_number(PyNumberMethods *number)
{
    number->nb_bool = nb_bool;
    number->nb_int = nb_int;
    number->nb_float = nb_float;
    number->nb_index = nb_index;
}

/* One index of item(): an integer (operator.index), never a bool, as NumPy's. */
static int item_index(PyObject *obj, Py_ssize_t *index)
{
    if (PyBool_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "an integer is required");
        return -1;
    }
    PyObject *as_int = PyNumber_Index(obj);
    if (as_int == NULL) {
        return -1;
    }
    /* A C long, as NumPy converts it (its OverflowError and message). */
    const long value = PyLong_AsLong(as_int);
    Py_DECREF(as_int);
    if (value == -1 && PyErr_Occurred()) {
        return -1;
    }
    *index = (Py_ssize_t)value;
    return 0;
}

/* The byte offset of item()'s element: no index (a size-1 array), a flat index in C
 * order, or one index per axis; NumPy's errors and messages. */
static int item_offset(DeviceArrayObject *self, PyObject *const *args, Py_ssize_t nargs, int64_t *offset)
{
    const int64_t size = array_size(self);
    Py_ssize_t i;
    *offset = 0;
    if (nargs == 0) {
        if (size != 1) {
            PyErr_SetString(PyExc_ValueError, "can only convert an array of size 1 to a Python scalar");
            return -1;
        }
        return 0;
    }
    /* One index per axis before a flat one: a 1-d array's one index names its axis. */
    if (nargs == self->ndim) {
        /* Every index converted before any is checked, as NumPy. */
        Py_ssize_t index[VA_MAX_NDIM];
        for (int d = 0; d < self->ndim; ++d) {
            if (item_index(args[d], &index[d]) < 0) {
                return -1;
            }
        }
        for (int d = 0; d < self->ndim; ++d) {
            const int64_t at = index[d] < 0 ? (int64_t)index[d] + self->shape[d] : (int64_t)index[d];
            if (at < 0 || at >= self->shape[d]) {
                PyErr_Format(PyExc_IndexError, "index %zd is out of bounds for axis %d with size %lld",
                             index[d], d, (long long)self->shape[d]);
                return -1;
            }
            *offset += at * self->strides[d];
        }
        return 0;
    }
    if (nargs != 1) {
        PyErr_SetString(PyExc_ValueError, "incorrect number of indices for array");
        return -1;
    }
    if (item_index(args[0], &i) < 0) {
        return -1;
    }
    int64_t flat = i < 0 ? (int64_t)i + size : (int64_t)i;
    if (flat < 0 || flat >= size) {
        PyErr_Format(PyExc_IndexError, "index %zd is out of bounds for size %lld", i, (long long)size);
        return -1;
    }
    for (int d = self->ndim - 1; d >= 0; --d) {
        *offset += (flat % self->shape[d]) * self->strides[d];
        flat /= self->shape[d];
    }
    return 0;
}

PyObject *devicearray_item(PyObject *op, PyObject *const *args, Py_ssize_t nargs)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    PyObject *indices = NULL, *scalar = NULL, *result = NULL;
    int64_t offset = 0;
    /* item((i, j)) is item(i, j); the tuple is held while its items are converted. */
    if (nargs == 1 && PyTuple_Check(args[0])) {
        indices = args[0];
        Py_INCREF(indices);
        args = &PyTuple_GET_ITEM(indices, 0);
        nargs = PyTuple_GET_SIZE(indices);
    }
    if (item_offset(self, args, nargs, &offset) < 0) {
        goto fail;
    }
    scalar = read_element_at(self, offset);
    if (scalar == NULL) {
        goto fail;
    }
    result = PyObject_CallMethod(scalar, "item", NULL);
fail:
    Py_XDECREF(scalar);
    Py_XDECREF(indices);
    return result;
}
