/* Dask arrays as arguments: found by their __dask_graph__ and handed to
 * myModule.dask (the package's dask hook, hooks.h: imported on first use so
 * that users without Dask never pay for it). */
#include "deferred.h"
#include "hooks.h"

/* The values the op-table functions take most: never collections. */
static int plainly_not_collection(PyObject *obj)
{
    return PyArray_Check(obj) || DeviceArray_Check(obj) || PyFloat_CheckExact(obj) ||
           PyLong_CheckExact(obj) || PyBool_Check(obj) || obj == Py_None || PyUnicode_CheckExact(obj);
}

static int lookup_optional(PyObject *obj, PyObject *name, PyObject **value)
{
#if PY_VERSION_HEX >= 0x030D0000
    return PyObject_GetOptionalAttr(obj, name, value);
#else
    return _PyObject_LookupAttr(obj, name, value);
#endif
}

int deferred_is_collection(PyObject *obj)
{
    static PyObject *dask_name = NULL, *graph_name = NULL;
    PyObject *dask = NULL, *attribute = NULL;
    int found = 0;
    if (plainly_not_collection(obj)) {
        return 0;
    }
    if (dask_name == NULL) {
        dask_name = PyUnicode_InternFromString("dask");
        graph_name = PyUnicode_InternFromString("__dask_graph__");
        if (dask_name == NULL || graph_name == NULL) {
            Py_CLEAR(dask_name);
            Py_CLEAR(graph_name);
            PyErr_Clear();
            return 0;
        }
    }
    /* No Dask collection can exist before Dask is imported. */
    dask = PyImport_GetModule(dask_name);
    if (dask == NULL) {
        PyErr_Clear();
        return 0;
    }
    /* On the type, as Python looks up special methods: an instance's
     * __getattr__ (a proxy's, say) is not asked. */
    if (lookup_optional((PyObject *)Py_TYPE(obj), graph_name, &attribute) < 0) {
        PyErr_Clear();
    }
    found = attribute != NULL;
    Py_XDECREF(attribute);
    Py_DECREF(dask);
    return found;
}

int deferred_any(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    Py_ssize_t total = nargs + (kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0);
    for (Py_ssize_t k = 0; k < total; ++k) {
        if (deferred_is_collection(args[k])) {
            return 1;
        }
    }
    return 0;
}

PyObject *deferred_call(const char *name, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames)
{
    enum { MAX_STACK = 32 };
    PyObject *stack[MAX_STACK];
    PyObject *handler = NULL, *fname = NULL, *result = NULL;
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + nkw + 1 > MAX_STACK) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments", name, MAX_STACK - 1);
        return NULL;
    }
    handler = hook_attribute(HOOK_DASK, "_dispatch");
    if (handler == NULL) {
        goto fail;
    }
    fname = PyUnicode_FromString(name);
    if (fname == NULL) {
        goto fail;
    }
    stack[0] = fname;
    for (Py_ssize_t k = 0; k < nargs + nkw; ++k) {
        stack[k + 1] = args[k];
    }
    result = PyObject_Vectorcall(handler, stack, (size_t)(nargs + 1), kwnames);
fail:
    Py_XDECREF(handler);
    Py_XDECREF(fname);
    return result;
}
