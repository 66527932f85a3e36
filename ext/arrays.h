/* The array functions and methods of DeviceArray (creation, indexing,
 * manipulation), registered in one call from PyInit. */
#ifndef MYMODULE_ARRAYS_H
#define MYMODULE_ARRAYS_H

#include "common.h"

/* Makes DeviceArray (devicearray_init) with every feature's methods and
 * attributes in its one table, then adds the features' functions to `module`. */
int arrays_init(PyObject *module, richcmpfunc richcompare);

#endif
