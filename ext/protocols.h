/* NumPy's dispatch protocols on DeviceArray (__array_ufunc__, __array_function__):
 * the implementations are Python (myModule/_dispatch.py), installed on the static
 * type once the package has imported them. */
#ifndef MYMODULE_PROTOCOLS_H
#define MYMODULE_PROTOCOLS_H

#include "common.h"

/* Called by devicearray_init once the type is ready: NumPy refuses ufuncs on
 * DeviceArray until the package installs its implementations, and `module`
 * gets _install_protocols for that. */
int protocols_init(PyObject *module);

#endif
