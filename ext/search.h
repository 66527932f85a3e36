/* searchsorted: NumPy's function for host data (myModule._reference), a binary
 * search per value on the GPU (va_searchsorted) when either array is on one; the
 * DeviceArray method. */
#ifndef MYMODULE_SEARCH_H
#define MYMODULE_SEARCH_H

#include "common.h"

/* Adds myModule.searchsorted. */
int search_init(PyObject *module);
/* DeviceArray.searchsorted: its share of the type. */
TypePart search_type_part(void);

#endif
