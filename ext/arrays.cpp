/* One registration call for creation.cpp, indexing.cpp and manipulation.cpp. */
#include "arrays.h"
#include "creation.h"
#include "indexing.h"
#include "manipulation.h"

int arrays_init(PyObject *module)
{
    if (creation_init(module) < 0 || indexing_init(module) < 0 || manipulation_init(module) < 0) {
        return -1;
    }
    return 0;
}
