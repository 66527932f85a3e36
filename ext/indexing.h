/* NumPy indexing of DeviceArrays: basic keys give views, index arrays and
 * boolean masks give copies (gather) or scatter on assignment. */
#ifndef MYMODULE_INDEXING_H
#define MYMODULE_INDEXING_H

#include "views.h"

/* DeviceArray's mapping slots (len(), d[key], d[key] = value). */
extern PyMappingMethods devicearray_as_mapping;

/* Adds _view_meta and _index_plan (the index arithmetic, checkable without a GPU). */
int indexing_init(PyObject *module);

/* value (scalar, host array or GPU array) copied into the view `target` of
 * `base`, broadcast and cast as NumPy assigns. */
int assign_to_view(DeviceArrayObject *base, const ViewGeometry *target, PyObject *value);

#endif
