/* Array arguments: what an object is (host array, Python scalar, GPU array)
 * and its dtype; promotion itself is the library's (va_op_dtypes). */
#include <string.h>

#include "common.h"

static int set_host_array(Operand *op, PyArrayObject *array)
{
    if (va_dtype_from_descr(PyArray_DESCR(array), &op->dtype) < 0) {
        raise_unsupported_dtype((PyObject *)PyArray_DESCR(array));
        Py_DECREF(array);
        return -1;
    }
    op->kind = KIND_ARRAY;
    op->host = array;
    return 0;
}

int operand_init(Operand *op, PyObject *obj)
{
    memset(op, 0, sizeof(*op));
    op->original = obj;
    if (PyArray_Check(obj)) {
        Py_INCREF(obj);
        return set_host_array(op, (PyArrayObject *)obj);
    }
    if (DeviceArray_Check(obj)) {
        Py_INCREF(obj);
        op->device = (DeviceArrayObject *)obj;
        op->kind = KIND_ARRAY;
        op->dtype = op->device->dtype;
        return 0;
    }
    if (PyBool_Check(obj)) {
        op->kind = KIND_WEAK_BOOL;
        return 0;
    }
    if (PyArray_IsScalar(obj, Generic)) {
        /* NumPy scalars keep their dtype (np.float32(1) is not a weak scalar). */
        PyArrayObject *array = (PyArrayObject *)PyArray_FromAny(obj, NULL, 0, 0, 0, NULL);
        if (array == NULL) {
            return -1;
        }
        return set_host_array(op, array);
    }
    if (PyLong_Check(obj)) {
        op->kind = KIND_WEAK_INT;
        return 0;
    }
    if (PyFloat_Check(obj)) {
        op->kind = KIND_WEAK_FLOAT;
        return 0;
    }
    if (PyComplex_Check(obj)) {
        op->kind = KIND_WEAK_COMPLEX;
        return 0;
    }
    PyObject *imported = interop_import(obj);
    if (imported == NULL) {
        return -1;
    }
    if (imported != Py_None) {
        op->device = (DeviceArrayObject *)imported;
        op->kind = KIND_ARRAY;
        op->dtype = op->device->dtype;
        return 0;
    }
    Py_DECREF(imported);
    if (obj == Py_None || PyUnicode_Check(obj) || PyBytes_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "expected an array of %s, got %.100s", supported_dtypes_or(),
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyArrayObject *array = (PyArrayObject *)PyArray_FromAny(obj, NULL, 0, 0, 0, NULL);
    if (array == NULL) {
        return -1;
    }
    return set_host_array(op, array);
}

void operand_clear(Operand *op)
{
    Py_CLEAR(op->host);
    Py_CLEAR(op->device);
}

va_weak operand_weak(const Operand *op)
{
    switch (op->kind) {
        case KIND_ARRAY: return VA_STRONG;
        case KIND_WEAK_BOOL: return VA_WEAK_BOOL;
        case KIND_WEAK_INT: return VA_WEAK_INT;
        case KIND_WEAK_FLOAT: return VA_WEAK_FLOAT;
        case KIND_WEAK_COMPLEX: return VA_WEAK_COMPLEX;
    }
    return VA_STRONG;
}

va_dtype operand_natural_dtype(const Operand *op)
{
    switch (op->kind) {
        case KIND_ARRAY: return op->dtype;
        case KIND_WEAK_BOOL: return VA_BOOL;
        case KIND_WEAK_INT: return VA_INT64;
        case KIND_WEAK_FLOAT: return VA_FLOAT64;
        case KIND_WEAK_COMPLEX: return VA_COMPLEX128;
    }
    return op->dtype;
}

PyArrayObject *operand_host_array(const Operand *op, va_dtype dtype)
{
    if (op->kind != KIND_ARRAY) {
        PyArray_Descr *descr = descr_from_va(dtype);
        if (descr == NULL) {
            return NULL;
        }
        return (PyArrayObject *)PyArray_FromAny(op->original, descr, 0, 0, 0, NULL);
    }
    if (op->host == NULL) {
        PyErr_SetString(PyExc_SystemError, "operand is not on the host");
        return NULL;
    }
    if (PyArray_ISALIGNED(op->host) && PyArray_ISNOTSWAPPED(op->host)) {
        Py_INCREF(op->host);
        return op->host;
    }
    PyArray_Descr *native = descr_from_va(op->dtype);
    if (native == NULL) {
        return NULL;
    }
    return (PyArrayObject *)PyArray_FromAny((PyObject *)op->host, native, 0, 0,
                                            NPY_ARRAY_ALIGNED, NULL);
}

DeviceArrayObject *operand_device_array(const Operand *op, va_dtype dtype, int device)
{
    if (op->device != NULL) {
        Py_INCREF(op->device);
        return op->device;
    }
    PyArrayObject *host = operand_host_array(op, op->kind == KIND_ARRAY ? op->dtype : dtype);
    if (host == NULL) {
        return NULL;
    }
    DeviceArrayObject *result = devicearray_from_host(host, device, 0);
    Py_DECREF(host);
    return result;
}
