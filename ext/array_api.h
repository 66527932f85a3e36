/* The array API standard's members of DeviceArray (__array_namespace__, to_device,
 * mT, unary +), written in Python (myModule/array_api/_array.py) and attached here. */
#ifndef MYMODULE_ARRAY_API_H
#define MYMODULE_ARRAY_API_H

#include "common.h"

/* DeviceArray's array API methods and attributes (__array_namespace__, mT,
 * __pos__, ...): its share of the type. */
TypePart array_api_type_part(void);

#endif
