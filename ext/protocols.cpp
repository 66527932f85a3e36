/* DeviceArray.__array_ufunc__ and __array_function__: methods of the type's one
 * table that forward to the package's implementations (myModule/_dispatch.py,
 * the "dispatch" hook), so the static type is never patched after it is ready. */
#include "protocols.h"

#include "hooks.h"

/* impl(self, *args, **kwargs) for the dispatch hook's function `name`. */
static PyObject *forward(const char *name, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames)
{
    PyObject *impl = hook_attribute(HOOK_DISPATCH, name);
    if (impl == NULL) {
        return NULL;
    }
    const Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    const Py_ssize_t total = 1 + nargs + nkw;
    /* NumPy passes a ufunc's inputs and its few keywords: a stack array holds them
     * all but in odd calls. */
    PyObject *stack[16];
    PyObject **call = total <= 16 ? stack : (PyObject **)PyMem_Malloc((size_t)total * sizeof(PyObject *));
    if (call == NULL) {
        Py_DECREF(impl);
        return PyErr_NoMemory();
    }
    call[0] = self;
    for (Py_ssize_t k = 0; k < nargs + nkw; ++k) {
        call[1 + k] = args[k];
    }
    PyObject *result = PyObject_Vectorcall(impl, call, (size_t)(1 + nargs), kwnames);
    if (call != stack) {
        PyMem_Free(call);
    }
    Py_DECREF(impl);
    return result;
}

static PyObject *da_array_ufunc(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return forward("array_ufunc", self, args, nargs, kwnames);
}

static PyObject *da_array_function(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return forward("array_function", self, args, nargs, kwnames);
}

static PyMethodDef protocol_methods[] = {
    {"__array_ufunc__", (PyCFunction)(void (*)(void))da_array_ufunc, METH_FASTCALL | METH_KEYWORDS,
     "__array_ufunc__(ufunc, method, *inputs, **kwargs)\n--\n\n"
     "NumPy's ufuncs on DeviceArrays: those of the op table run on the GPU (myModule._dispatch)."},
    {"__array_function__", (PyCFunction)(void (*)(void))da_array_function, METH_FASTCALL | METH_KEYWORDS,
     "__array_function__(func, types, args, kwargs)\n--\n\n"
     "NumPy's functions on DeviceArrays: those myModule has run on the GPU (myModule._dispatch)."},
    {NULL, NULL, 0, NULL},
};

TypePart protocols_type_part(void)
{
    return TypePart{protocol_methods, NULL};
}
