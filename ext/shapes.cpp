#include <string.h>

#include "shapes.h"

int shape_of_host(PyArrayObject *array, Shape *shape)
{
    int nd = PyArray_NDIM(array);
    if (nd > VA_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "arrays of more than %d dimensions are not supported on the GPU",
                     VA_MAX_NDIM);
        return -1;
    }
    shape->ndim = nd;
    for (int d = 0; d < nd; ++d) {
        shape->dims[d] = PyArray_DIM(array, d);
    }
    return 0;
}

void shape_of_device(const DeviceArrayObject *array, Shape *shape)
{
    shape->ndim = array->ndim;
    for (int d = 0; d < array->ndim; ++d) {
        shape->dims[d] = array->shape[d];
    }
}

static PyObject *shape_tuple(const Shape *s)
{
    PyObject *t = PyTuple_New(s->ndim);
    if (t == NULL) {
        return NULL;
    }
    for (int d = 0; d < s->ndim; ++d) {
        PyObject *v = PyLong_FromLongLong(s->dims[d]);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, d, v);
    }
    return t;
}

int shape_broadcast(const Shape *a, const Shape *b, Shape *result)
{
    int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
    Shape r;
    r.ndim = nd;
    for (int i = 0; i < nd; ++i) {
        int da = i - (nd - a->ndim), db = i - (nd - b->ndim);
        int64_t x = da >= 0 ? a->dims[da] : 1;
        int64_t y = db >= 0 ? b->dims[db] : 1;
        if (x != y && x != 1 && y != 1) {
            PyObject *ta = shape_tuple(a), *tb = shape_tuple(b);
            if (ta != NULL && tb != NULL) {
                PyErr_Format(PyExc_ValueError,
                             "operands could not be broadcast together with shapes %R %R", ta, tb);
            }
            Py_XDECREF(ta);
            Py_XDECREF(tb);
            return -1;
        }
        r.dims[i] = x == 1 ? y : x;
    }
    *result = r;
    return 0;
}

int shape_equal(const Shape *a, const Shape *b)
{
    if (a->ndim != b->ndim) {
        return 0;
    }
    for (int d = 0; d < a->ndim; ++d) {
        if (a->dims[d] != b->dims[d]) {
            return 0;
        }
    }
    return 1;
}

int64_t shape_size(const Shape *s)
{
    int64_t n = 1;
    for (int d = 0; d < s->ndim; ++d) {
        n *= s->dims[d];
    }
    return n;
}

void view_broadcast(va_array *view, void *data, va_dtype dtype, int ndim, const int64_t *dims,
                    const int64_t *strides, const Shape *target)
{
    view->data = data;
    view->dtype = dtype;
    view->ndim = target->ndim;
    int offset = target->ndim - ndim;
    for (int d = 0; d < target->ndim; ++d) {
        view->shape[d] = target->dims[d];
        int src = d - offset;
        view->strides[d] = (src < 0 || dims[src] == 1) ? 0 : strides[src];
    }
}

void view_of_host(va_array *view, PyArrayObject *array, va_dtype dtype, const Shape *target)
{
    int64_t dims[VA_MAX_NDIM], strides[VA_MAX_NDIM];
    int nd = PyArray_NDIM(array);
    for (int d = 0; d < nd && d < VA_MAX_NDIM; ++d) {
        dims[d] = PyArray_DIM(array, d);
        strides[d] = PyArray_STRIDE(array, d);
    }
    view_broadcast(view, PyArray_DATA(array), dtype, nd, dims, strides, target);
}

void view_of_device(va_array *view, const DeviceArrayObject *array, const Shape *target)
{
    view_broadcast(view, array->data, array->dtype, array->ndim, array->shape, array->strides,
                   target);
}
