/* Argument parsing for METH_FASTCALL | METH_KEYWORDS functions, without building
 * tuples or dicts on the hot path. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* `s` (a str) is exactly the ASCII string `name`: every character compared,
 * an embedded NUL included; a str that UTF-8 cannot encode (a lone
 * surrogate) is simply not equal. */
static int str_equals(PyObject *s, const char *name)
{
    /* Compares lengths as well as characters, and never raises. */
    return PyUnicode_CompareWithASCIIString(s, name) == 0;
}

int parse_arguments(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                    PyObject *kwnames, const char *const *names, int nnames,
                    int required, int max_positional, PyObject **values)
{
    for (int i = 0; i < nnames; ++i) {
        values[i] = NULL;
    }
    if (nargs > max_positional) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)",
                     fname, max_positional, nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; ++i) {
        values[i] = args[i];
    }
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; ++k) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int found = -1;
        for (int i = 0; i < nnames; ++i) {
            if (str_equals(key, names[i])) {
                found = i;
                break;
            }
        }
        if (found < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", fname, key);
            return -1;
        }
        if (values[found] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'",
                         fname, names[found]);
            return -1;
        }
        values[found] = args[nargs + k];
    }
    for (int i = 0; i < required; ++i) {
        if (values[i] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)",
                         fname, names[i], i + 1);
            return -1;
        }
    }
    return 0;
}

#define WHERE_KINDS "'auto', 'cpu', 'cuda', 'cuda:N' or a GPU index N"

/* A GPU index as device= gives it: ValueError past the GPUs there are. */
static int parse_gpu_index(long long index, PyObject *value, Where *where)
{
    int count = 0;
    va_device_count(&count);
    if (index < 0) {
        PyErr_Format(PyExc_ValueError, "device must be " WHERE_KINDS " (N >= 0), not %R", value);
        return -1;
    }
    if (index >= count) {
        PyErr_Format(PyExc_ValueError, "device=%R names no GPU: this machine has %d GPU%s (device_count())",
                     value, count, count == 1 ? "" : "s");
        return -1;
    }
    where->kind = WHERE_CUDA;
    where->gpu = (int)index;
    return 0;
}

/* "cuda:N": N decimal digits, nothing else. */
static int parse_cuda_colon(PyObject *value, Where *where)
{
    Py_ssize_t length = 0;
    const char *text = PyUnicode_AsUTF8AndSize(value, &length);
    if (text == NULL) { /* a lone surrogate: no GPU's name */
        PyErr_Clear();
        return 0;
    }
    /* Every character counts: "cuda:0\0x" is not "cuda:0". */
    if ((size_t)length != strlen(text) || length < 6 || length > 5 + 9 || strncmp(text, "cuda:", 5) != 0) {
        return 0;
    }
    for (const char *c = text + 5; *c != '\0'; ++c) {
        if (*c < '0' || *c > '9') {
            return 0;
        }
    }
    return parse_gpu_index(atoll(text + 5), value, where) == 0 ? 1 : -1;
}

int parse_where(PyObject *value, Where *where)
{
    *where = Where();
    if (value == NULL || value == Py_None) {
        return 0;
    }
    if (!PyUnicode_Check(value)) {
        /* bool is an int to Python, but device=True is a mistake, not GPU 1. */
        if (PyIndex_Check(value) && !PyBool_Check(value)) {
            PyObject *integer = PyNumber_Index(value);
            if (integer == NULL) {
                return -1;
            }
            int overflow = 0;
            long long index = PyLong_AsLongLongAndOverflow(integer, &overflow);
            Py_DECREF(integer);
            if (overflow != 0) {
                index = overflow < 0 ? -1 : LLONG_MAX;
            }
            else if (index == -1 && PyErr_Occurred()) {
                return -1;
            }
            return parse_gpu_index(index, value, where);
        }
        PyErr_Format(PyExc_TypeError, "device must be " WHERE_KINDS ", not %.100s",
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    if (str_equals(value, "auto")) {
        where->kind = WHERE_AUTO;
    }
    else if (str_equals(value, "cpu")) {
        where->kind = WHERE_CPU;
    }
    else if (str_equals(value, "cuda") || str_equals(value, "gpu")) { /* "gpu": a synonym users type */
        where->kind = WHERE_CUDA;
    }
    else {
        int rc = parse_cuda_colon(value, where);
        if (rc != 0) {
            return rc > 0 ? 0 : -1;
        }
        PyErr_Format(PyExc_ValueError, "device must be " WHERE_KINDS ", not %R", value);
        return -1;
    }
    return 0;
}
