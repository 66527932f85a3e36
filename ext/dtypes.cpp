/* The supported dtypes and their NumPy descriptors. */
#include "common.h"

int va_dtype_from_descr(PyArray_Descr *descr, va_dtype *out)
{
    const char kind = descr->kind;
    const npy_intp size = PyDataType_ELSIZE(descr);
    if (kind == 'b' && size == 1) {
        *out = VA_BOOL;
    }
    else if (kind == 'i' && size == 4) {
        *out = VA_INT32;
    }
    else if (kind == 'i' && size == 8) {
        *out = VA_INT64;
    }
    else if (kind == 'f' && size == 4) {
        *out = VA_FLOAT32;
    }
    else if (kind == 'f' && size == 8) {
        *out = VA_FLOAT64;
    }
    else {
        return -1;
    }
    return 0;
}

PyArray_Descr *descr_from_va(va_dtype dtype)
{
    switch (dtype) {
        case VA_INT32: return PyArray_DescrFromType(NPY_INT32);
        case VA_INT64: return PyArray_DescrFromType(NPY_INT64);
        case VA_FLOAT32: return PyArray_DescrFromType(NPY_FLOAT32);
        case VA_FLOAT64: return PyArray_DescrFromType(NPY_FLOAT64);
        case VA_BOOL: return PyArray_DescrFromType(NPY_BOOL);
        case VA_DTYPE_COUNT: case VA_DTYPE_MAX_ENUM: break;
    }
    PyErr_SetString(PyExc_SystemError, "unknown va_dtype");
    return NULL;
}

const char *va_dtype_name(va_dtype dtype)
{
    switch (dtype) {
        case VA_INT32: return "int32";
        case VA_INT64: return "int64";
        case VA_FLOAT32: return "float32";
        case VA_FLOAT64: return "float64";
        case VA_BOOL: return "bool";
        case VA_DTYPE_COUNT: case VA_DTYPE_MAX_ENUM: break;
    }
    return "unknown";
}

/* The names joined, the last with `last` (" and ", " or "), in the enum's order. */
static void join_dtype_names(char *text, size_t size, const char *last)
{
    size_t used = 0;
    text[0] = '\0';
    for (int d = 0; d < VA_DTYPE_COUNT && used < size; ++d) {
        const char *sep = d == 0 ? "" : (d == VA_DTYPE_COUNT - 1 ? last : ", ");
        used += (size_t)PyOS_snprintf(text + used, size - used, "%s%s", sep, va_dtype_name((va_dtype)d));
    }
}

/* Built once, under the GIL, as every caller holds it. */
const char *supported_dtypes_and(void)
{
    static char text[128];
    if (text[0] == '\0') {
        join_dtype_names(text, sizeof(text), " and ");
    }
    return text;
}

const char *supported_dtypes_or(void)
{
    static char text[128];
    if (text[0] == '\0') {
        join_dtype_names(text, sizeof(text), " or ");
    }
    return text;
}

/* One supported dtype from a dtype-like argument of a Python-facing function. */
static int supported_dtype(PyObject *obj, va_dtype *out)
{
    PyArray_Descr *descr = NULL;
    if (PyArray_DescrConverter(obj, &descr) == NPY_FAIL) {
        return -1;
    }
    const int st = va_dtype_from_descr(descr, out);
    if (st < 0) {
        raise_unsupported_dtype((PyObject *)descr);
    }
    Py_DECREF(descr);
    return st;
}

PyObject *mm_promote_types(PyObject *, PyObject *const *args, Py_ssize_t nargs)
{
    va_dtype a, b, result;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "_promote_types() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    if (supported_dtype(args[0], &a) < 0 || supported_dtype(args[1], &b) < 0) {
        return NULL;
    }
    const va_status st = va_promote_types(a, b, &result);
    return st != VA_SUCCESS ? raise_status(st) : (PyObject *)descr_from_va(result);
}
