/* Dotted names of the op table ("numpy.maximum", "myModule._reference.axpy")
 * resolved once, on first use, to the functions they name. */
#include <string.h>

#include "references.h"

#define MAX_OPS VA_MAX_OPS

static PyObject *cache[MAX_OPS];
static PyObject *checks[MAX_OPS];
static int takes_out[MAX_OPS];

static PyObject *resolve(const char *dotted)
{
    const char *dot = strrchr(dotted, '.');
    if (dot == NULL) {
        PyErr_Format(PyExc_SystemError, "reference '%s' is not a dotted name", dotted);
        return NULL;
    }
    PyObject *module_name = PyUnicode_FromStringAndSize(dotted, dot - dotted);
    if (module_name == NULL) {
        return NULL;
    }
    PyObject *module = PyImport_Import(module_name);
    Py_DECREF(module_name);
    if (module == NULL) {
        return NULL;
    }
    PyObject *fn = PyObject_GetAttrString(module, dot + 1);
    Py_DECREF(module);
    return fn;
}

PyObject *op_reference(va_op op)
{
    const va_op_info *info = va_op_get(op);
    if (info == NULL || op >= MAX_OPS) {
        PyErr_SetString(PyExc_SystemError, "no such operation");
        return NULL;
    }
    if (info->reference[0] == '\0') {
        PyErr_Format(PyExc_ValueError,
                     "%s has no CPU implementation: its declaration names no reference function "
                     "(REFERENCE \"\"); compute it on a GPU (device='cuda') or name a Python "
                     "function in the declaration",
                     info->name);
        return NULL;
    }
    if (cache[op] == NULL) {
        PyObject *fn = resolve(info->reference);
        if (fn == NULL) {
            return NULL;
        }
        /* NumPy ufuncs take out=; other references compute a new array. */
        int is_ufunc = PyObject_HasAttrString(fn, "nout");
        takes_out[op] = is_ufunc;
        cache[op] = fn;
    }
    return cache[op];
}

int op_has_reference(va_op op)
{
    const va_op_info *info = va_op_get(op);
    return info != NULL && info->reference[0] != '\0';
}

int op_reference_takes_out(va_op op)
{
    if (op_reference(op) == NULL) {
        return -1;
    }
    return takes_out[op];
}

int op_host_check(va_op op, va_dtype compute, PyArrayObject *const *arrays, int n)
{
    const va_op_info *info = va_op_get(op);
    PyObject *argv[VA_MAX_INPUTS + 1];
    if (info == NULL || info->host_check[0] == '\0') {
        return 0;
    }
    if (checks[op] == NULL && (checks[op] = resolve(info->host_check)) == NULL) {
        return -1;
    }
    PyObject *name = PyUnicode_FromString(va_dtype_name(compute));
    if (name == NULL) {
        return -1;
    }
    argv[0] = name;
    for (int k = 0; k < n && k < VA_MAX_INPUTS; ++k) {
        argv[k + 1] = (PyObject *)arrays[k];
    }
    PyObject *r = PyObject_Vectorcall(checks[op], argv, (size_t)n + 1, NULL);
    Py_DECREF(name);
    if (r == NULL) {
        return -1;
    }
    Py_DECREF(r);
    return 0;
}
