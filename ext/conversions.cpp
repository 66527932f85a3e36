/* bool(d), int(d), float(d), complex(d), operator.index(d): NumPy's checks first (no GPU
 * call for an argument error), then the one element read back as a NumPy
 * scalar that does the conversion, so the results match NumPy's exactly. */
#include "conversions.h"
#include "views.h"

/* The array's single element as a NumPy scalar (new reference). */
static PyObject *read_element(DeviceArrayObject *self)
{
    unsigned char buffer[16];
    va_status st;
    Py_BEGIN_ALLOW_THREADS
    st = va_copy_to_host(self->device, buffer, self->data, va_dtype_size(self->dtype));
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
