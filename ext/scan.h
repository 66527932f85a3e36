/* Cumulative sums and products: NumPy's cumsum/cumprod and the array API's
 * cumulative_sum/cumulative_prod (include_initial=), as module functions, and
 * d.cumsum()/d.cumprod() as DeviceArray methods. NumPy for small host data,
 * the GPU (va_cumulative) for device data, large host arrays and device='cuda'. */
#ifndef MYMODULE_SCAN_H
#define MYMODULE_SCAN_H

#include "common.h"

/* Adds the four functions to the module. */
int scan_init(PyObject *module);
/* DeviceArray.cumsum and cumprod: their share of the type. */
TypePart scan_type_part(void);

#endif
