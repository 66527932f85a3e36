/* The package's Python objects that the extension calls, handed to it once by
 * myModule/__init__.py (_core._install_hooks): the extension never imports the
 * package's own modules, so Python calls C and C only calls what it was given. */
#ifndef MYMODULE_HOOKS_H
#define MYMODULE_HOOKS_H

#include "common.h"

typedef enum {
    HOOK_ERRORS,    /* myModule._errors: the exception classes */
    HOOK_REFERENCE, /* myModule._reference: NumPy's functions for host data */
    HOOK_DASK,      /* myModule.dask (imported on first use): _dispatch of deferred calls */
    HOOK_ARRAY_API, /* myModule.array_api._array (on first use): DeviceArray's array API members */
    HOOK_DISPATCH,  /* myModule._dispatch (on first use): __array_ufunc__, __array_function__ */
    HOOK_COUNT
} HookId;

/* New reference to attribute `name` of hook `id`; RuntimeError when the package
 * has not installed its hooks (the extension imported without myModule/__init__). */
PyObject *hook_attribute(HookId id, const char *name);

/* _core._install_hooks(errors=, reference=, dask=, array_api=, dispatch=): every hook, once
 * per import of the package. */
PyObject *mm_install_hooks(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

#endif
