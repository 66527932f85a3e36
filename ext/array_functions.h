/* The array functions declared in array_functions.def: their converted arguments,
 * the implementations' prototypes, and the registration of the functions,
 * methods and the Python registry _core._array_functions. */
#ifndef MYMODULE_ARRAY_FUNCTIONS_H
#define MYMODULE_ARRAY_FUNCTIONS_H

#include "views.h"

enum { AF_FUNCTION = 1, AF_METHOD = 2 };

/* One argument after its kind's converter. */
typedef struct {
    PyObject *object; /* as given (borrowed); NULL when absent */
    int given;        /* 0: absent or None where the default is None */
    int64_t index;    /* kind axis: as given */
    int axis;         /* kind axis: in [0, ndim) */
    int naxes;        /* kinds axes and new_axes: distinct, non-negative, in the order given */
    int axes[VA_MAX_NDIM];
} ArgValue;

#define VA_ARRAY_FUNCTION(name, forms, numpy, array_api, signature, doc) \
    PyObject *array_function_##name(DeviceArrayObject *a, const ArgValue *args);
#include "array_functions.def"
#undef VA_ARRAY_FUNCTION

/* The DeviceArray methods of the declarations (their share of the type; the
 * tables are built at the first call). `ok` is 0 when a declaration is malformed
 * (an exception is set). */
TypePart array_functions_type_part(int *ok);
/* Adds the module functions of the declarations, and _core._array_functions: a
 * tuple of dicts (name, function, method, numpy, array_api, signature,
 * parameters, doc), one per declaration, in its order. */
int array_functions_init(PyObject *module);

#endif
