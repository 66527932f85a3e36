/* DeviceArray's array API members forward to myModule/array_api/_array.py (the
 * package's array_api hook, hooks.h): the
 * standard's semantics live in Python beside the namespace, and the type only
 * needs the names (methods of a static type cannot be added from Python). */
#include "array_api.h"
#include "hooks.h"
#include "views.h"

/* helper(self, *args, **kwargs) for the function `name` of the Python module. */
static PyObject *forward(const char *name, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames)
{
    PyObject *helper = NULL, *result = NULL;
    PyObject **all = NULL;
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);

    helper = hook_attribute(HOOK_ARRAY_API, name);
    if (helper == NULL) {
        goto fail;
    }
    all = (PyObject **)PyMem_Malloc((size_t)(nargs + nkw + 1) * sizeof(PyObject *));
    if (all == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    /* Borrowed: the caller holds args and self for the duration of the call. */
    all[0] = self;
    for (Py_ssize_t i = 0; i < nargs + nkw; ++i) {
        all[i + 1] = args[i];
    }
    result = PyObject_Vectorcall(helper, all, (size_t)(nargs + 1), kwnames);
fail:
    PyMem_Free(all);
    Py_XDECREF(helper);
    return result;
}

static PyObject *da_array_namespace(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return forward("array_namespace", self, args, nargs, kwnames);
}

static PyObject *da_to_device(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return forward("to_device", self, args, nargs, kwnames);
}

static PyObject *da_positive(PyObject *self)
{
    return forward("positive", self, NULL, 0, NULL);
}

static PyObject *da_positive_method(PyObject *self, PyObject *)
{
    return da_positive(self);
}

static PyObject *get_mT(PyObject *self, void *)
{
    return forward("matrix_transpose", self, NULL, 0, NULL);
}

#define FASTCALL_KW(fn) (PyCFunction)(void (*)(void))(fn), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef array_api_methods[] = {
    {"__array_namespace__", FASTCALL_KW(da_array_namespace),
     "__array_namespace__(api_version=None)\n--\n\nThe array API namespace, myModule.array_api."},
    {"to_device", FASTCALL_KW(da_to_device),
     "to_device(device, /, *, stream=None)\n--\n\nThis array on GPU `device` (itself when it is there)."},
    {"__pos__", da_positive_method, METH_NOARGS, "+self: a copy (the array API's positive)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef array_api_getset[] = {
    {"mT", get_mT, NULL, "the view with the last two axes swapped (matrix transpose)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

TypePart array_api_type_part(void)
{
    /* Before the type is readied: unary + as __pos__ (the dict entry above
     * serves getattr), where the op table gave it none. */
    PyNumberMethods *numbers = devicearray_number_methods();
    if (numbers->nb_positive == NULL) {
        numbers->nb_positive = da_positive;
    }
    return TypePart{array_api_methods, array_api_getset};
}
