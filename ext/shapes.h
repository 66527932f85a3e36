/* Broadcasting shapes and describing arrays to the C library. */
#ifndef MYMODULE_SHAPES_H
#define MYMODULE_SHAPES_H

#include "common.h"

typedef struct {
    int ndim;
    int64_t dims[VA_MAX_NDIM];
} Shape;

/* Shape of a host or device array. */
int shape_of_host(PyArrayObject *array, Shape *shape);
void shape_of_device(const DeviceArrayObject *array, Shape *shape);
/* result = broadcast(a, b); ValueError as NumPy words it when they don't fit. */
int shape_broadcast(const Shape *a, const Shape *b, Shape *result);
int shape_equal(const Shape *a, const Shape *b);
int64_t shape_size(const Shape *s);

/* A view of data (ndim, shape, byte strides) broadcast to `target`: missing
 * leading dimensions and length-1 dimensions get stride 0. */
void view_broadcast(va_array *view, void *data, va_dtype dtype, int ndim, const int64_t *dims,
                    const int64_t *strides, const Shape *target);
void view_of_host(va_array *view, PyArrayObject *array, va_dtype dtype, const Shape *target);
void view_of_device(va_array *view, const DeviceArrayObject *array, const Shape *target);

#endif
