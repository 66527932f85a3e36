/* DeviceArray views and the argument conversions the array functions share
 * (creation, indexing, manipulation). */
#ifndef MYMODULE_VIEWS_H
#define MYMODULE_VIEWS_H

#include "common.h"

/* Geometry of a view: byte offset from the base's data, shape, byte strides. */
typedef struct {
    int64_t offset;
    int ndim;
    int64_t shape[VA_MAX_NDIM];
    int64_t strides[VA_MAX_NDIM];
} ViewGeometry;

void geometry_of(const DeviceArrayObject *array, ViewGeometry *geometry);
/* A zero-copy view of `base` with `geometry`; keeps base's memory alive. */
DeviceArrayObject *view_of(DeviceArrayObject *base, const ViewGeometry *geometry);

int64_t array_size(const DeviceArrayObject *array);

/* dtype= : None leaves *given 0; TypeError for dtypes the GPU does not support. */
int parse_dtype(PyObject *obj, va_dtype *dtype, int *given);
/* device= of functions that make DeviceArrays: as operations read it (parse_where),
 * 'cpu' refused; None, 'auto' and 'cuda' are GPU 0. */
int parse_gpu_index(PyObject *obj, int *device);
/* A shape: an int or a sequence of ints (ValueError for negative dimensions
 * when `allow_unknown` is 0; when it is 1 any negative becomes -1, the unknown
 * dimension, as NumPy's reshape reads it). */
int parse_shape(PyObject *obj, int allow_unknown, int *ndim, int64_t *dims);
/* An axis in [-ndim, ndim) made non-negative; numpy.exceptions.AxisError otherwise. */
int normalize_axis(int64_t axis, int ndim, int *out);
/* An axis as an integer (by __index__), not yet checked against a shape:
 * TypeError for other kinds, OverflowError past 64 bits. */
int axis_index(PyObject *obj, int64_t *value);
/* One axis given as an object (an integer by __index__) for an array of `ndim`
 * dimensions: TypeError for other kinds, AxisError out of range. */
int parse_one_axis(PyObject *obj, int ndim, int *axis);
/* An axis argument (int or tuple of ints) as a list of distinct normalized axes;
 * ValueError "repeated axis" as NumPy. */
int parse_axes(PyObject *obj, int ndim, int *naxes, int *axes);
/* Python/NumPy scalar `value` as one element of `dtype` by NumPy's assignment
 * rules (int(1.5) == 1, NaN into an integer raises); `out` holds 16 bytes. */
int pack_scalar(PyObject *value, va_dtype dtype, void *out);
/* `value` cast to `dtype` as numpy.full casts its fill value (unsafe casting,
 * NaN into an integer gives what the host's cast gives): 0 and `out` set, 1 when
 * the value is not a scalar (nothing set), -1 with an error. */
int cast_scalar(PyObject *value, va_dtype dtype, void *out);
/* TypeError "...() takes ..." helpers are parse_arguments'; this one raises a
 * ValueError for NumPy's non-C orders that the GPU arrays do not offer. */
int check_order_c(PyObject *order, const char *fname);

/* _core._normalize_axis(axis, ndim, allow_duplicates=False): the one axis
 * converter, given to the Python code (array_api, dask, dispatch) so that it
 * normalises as the extension does: an int gives an int, a tuple or list a
 * tuple; numpy.exceptions.AxisError out of range, ValueError "repeated axis". */
PyObject *mm_normalize_axis(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

#endif
