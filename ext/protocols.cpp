/* _install_protocols: puts the package's __array_ufunc__ and __array_function__
 * on DeviceArray, which Python code cannot do itself (a static type refuses
 * setattr). */
#include "protocols.h"

static const char *const protocol_names[] = {"__array_ufunc__", "__array_function__"};

static PyObject *mm_install_protocols(PyObject *, PyObject *const *args, Py_ssize_t nargs,
                                      PyObject *kwnames)
{
    static const char *const names[] = {"ufunc_impl", "function_impl"};
    PyObject *values[2];
    if (parse_arguments("_install_protocols", args, nargs, kwnames, names, 2, 2, 2, values) < 0) {
        return NULL;
    }
    for (int k = 0; k < 2; ++k) {
        if (!PyCallable_Check(values[k])) {
            PyErr_Format(PyExc_TypeError, "_install_protocols: %s must be callable, not %.100s",
                         names[k], Py_TYPE(values[k])->tp_name);
            return NULL;
        }
    }
    /* Both or neither: checked above, so only a failing dict insert can stop us
     * half way, and then the type is marked modified anyway so that no cache
     * keeps a stale entry. */
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; ++k) {
        rc = PyDict_SetItemString(DeviceArray_Type.tp_dict, protocol_names[k], values[k]);
    }
    PyType_Modified(&DeviceArray_Type);
    if (rc < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef protocol_functions[] = {
    {"_install_protocols", (PyCFunction)(void (*)(void))mm_install_protocols,
     METH_FASTCALL | METH_KEYWORDS,
     "_install_protocols(ufunc_impl, function_impl)\n--\n\n"
     "Set DeviceArray.__array_ufunc__ and __array_function__ (done once by the package "
     "at import)."},
    {NULL, NULL, 0, NULL},
};

int protocols_init(PyObject *module)
{
    /* Until the package installs the real implementation, NumPy defers binary
     * operators to our reflected ones and refuses ufuncs instead of copying
     * the data to the host. */
    if (PyDict_SetItemString(DeviceArray_Type.tp_dict, "__array_ufunc__", Py_None) < 0) {
        return -1;
    }
    PyType_Modified(&DeviceArray_Type);
    return PyModule_AddFunctions(module, protocol_functions);
}
