/* NumPy indexing of DeviceArrays: basic keys give views, index arrays and
 * boolean masks give copies (gather) or scatter on assignment. */
#ifndef MYMODULE_INDEXING_H
#define MYMODULE_INDEXING_H

#include "views.h"

/* DeviceArray's mapping slots (len(), d[key], d[key] = value). */
extern PyMappingMethods devicearray_as_mapping;

/* iter(d): views d[0], d[1], ... (TypeError for a 0-d array, as NumPy). */
PyObject *devicearray_iter(PyObject *self);

/* Adds _view_meta and _index_plan (the index arithmetic, checkable without a GPU). */
int indexing_init(PyObject *module);

/* value (scalar, host array or GPU array) copied into the view `target` of
 * `base`, broadcast and cast as NumPy assigns. */
int assign_to_view(DeviceArrayObject *base, const ViewGeometry *target, PyObject *value);

/* The strides of a value (vnd, vshape, vstrides) broadcast into the target
 * shape as NumPy assigns (leading length-1 dimensions dropped); ValueError
 * "could not broadcast input array from shape ... into shape ..." otherwise. */
int broadcast_value(int vnd, const int64_t *vshape, const int64_t *vstrides, int tnd,
                    const int64_t *tshape, int64_t *strides);

#endif
