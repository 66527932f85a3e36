/* sort and argsort as NumPy's functions (with the array API's descending=) and
 * DeviceArray methods (d.sort() in place, d.argsort()): NumPy for host data
 * (myModule._reference), the GPU (va_sort) for device data and for large host
 * arrays or device='cuda'. */
#ifndef MYMODULE_SORT_H
#define MYMODULE_SORT_H

#include "common.h"

/* Adds sort and argsort to the module. */
int sort_init(PyObject *module);
/* DeviceArray.sort and argsort: their share of the type. */
TypePart sort_type_part(void);

#endif
