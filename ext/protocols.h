/* NumPy's dispatch protocols on DeviceArray (__array_ufunc__, __array_function__):
 * C methods that call the package's Python implementations (myModule/_dispatch.py)
 * through the hook it installs at import. */
#ifndef MYMODULE_PROTOCOLS_H
#define MYMODULE_PROTOCOLS_H

#include "common.h"

/* The two methods: their share of the type. */
TypePart protocols_type_part(void);

#endif
