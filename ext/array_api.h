/* The array API standard's members of DeviceArray (__array_namespace__, to_device,
 * mT, unary +), written in Python (myModule/array_api/_array.py) and attached here. */
#ifndef MYMODULE_ARRAY_API_H
#define MYMODULE_ARRAY_API_H

#include "common.h"

int array_api_init(PyObject *module);

#endif
