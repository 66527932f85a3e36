/* The hooks the package installs (hooks.h): strong references for the life of
 * the process, as the module itself lives. */
#include "hooks.h"

static const char *const hook_names[HOOK_COUNT] = {"errors", "reference", "dask", "array_api", "dispatch"};
static PyObject *hooks[HOOK_COUNT];

PyObject *hook_attribute(HookId id, const char *name)
{
    if (hooks[id] == NULL) {
        PyErr_Format(PyExc_RuntimeError,
                     "myModule._core needs its package: import myModule (the '%s' hook is not installed)",
                     hook_names[id]);
        return NULL;
    }
    return PyObject_GetAttrString(hooks[id], name);
}

PyObject *mm_install_hooks(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *values[HOOK_COUNT];
    if (parse_arguments("_install_hooks", args, nargs, kwnames, hook_names, HOOK_COUNT, HOOK_COUNT, 0, values) <
        0) {
        return NULL;
    }
    for (int i = 0; i < HOOK_COUNT; ++i) {
        Py_INCREF(values[i]);
        Py_XSETREF(hooks[i], values[i]);
    }
    Py_RETURN_NONE;
}
