/* The supported dtypes and their NumPy descriptors. */
#include "common.h"
#include "dlpack_abi.h"

/* What Python and the exchange protocols call each va_dtype, in the enum's order:
 * its name, NumPy's type number, its kind and size (how a descriptor of either
 * byte order is recognised), its __cuda_array_interface__ typestr and its
 * DLPack type code. */
typedef struct dtype_facts {
    const char *name;
    int npy_type;
    char kind;
    int size;
    const char *typestr;
    uint8_t dlpack_code;
} dtype_facts;

static const dtype_facts facts[VA_DTYPE_COUNT] = {
    {"int32", NPY_INT32, 'i', 4, "<i4", DLPACK_CODE_INT},
    {"int64", NPY_INT64, 'i', 8, "<i8", DLPACK_CODE_INT},
    {"float32", NPY_FLOAT32, 'f', 4, "<f4", DLPACK_CODE_FLOAT},
    {"float64", NPY_FLOAT64, 'f', 8, "<f8", DLPACK_CODE_FLOAT},
    {"bool", NPY_BOOL, 'b', 1, "|b1", DLPACK_CODE_BOOL},
    {"int8", NPY_INT8, 'i', 1, "|i1", DLPACK_CODE_INT},
    {"int16", NPY_INT16, 'i', 2, "<i2", DLPACK_CODE_INT},
    {"uint8", NPY_UINT8, 'u', 1, "|u1", DLPACK_CODE_UINT},
    {"uint16", NPY_UINT16, 'u', 2, "<u2", DLPACK_CODE_UINT},
    {"uint32", NPY_UINT32, 'u', 4, "<u4", DLPACK_CODE_UINT},
    {"uint64", NPY_UINT64, 'u', 8, "<u8", DLPACK_CODE_UINT},
    {"complex64", NPY_COMPLEX64, 'c', 8, "<c8", DLPACK_CODE_COMPLEX},
    {"complex128", NPY_COMPLEX128, 'c', 16, "<c16", DLPACK_CODE_COMPLEX},
};

static int known(va_dtype dtype) { return dtype >= 0 && dtype < VA_DTYPE_COUNT; }

int va_dtype_from_descr(PyArray_Descr *descr, va_dtype *out)
{
    for (int d = 0; d < VA_DTYPE_COUNT; ++d) {
        if (descr->kind == facts[d].kind && PyDataType_ELSIZE(descr) == facts[d].size) {
            *out = (va_dtype)d;
            return 0;
        }
    }
    return -1;
}

int va_dtype_from_dlpack(uint8_t code, int bits, va_dtype *out)
{
    for (int d = 0; d < VA_DTYPE_COUNT; ++d) {
        if (code == facts[d].dlpack_code && bits == 8 * facts[d].size) {
            *out = (va_dtype)d;
            return 0;
        }
    }
    return -1;
}

char dtype_kind(va_dtype dtype)
{
    return known(dtype) ? facts[dtype].kind : 0;
}

uint8_t dlpack_code_of(va_dtype dtype)
{
    return known(dtype) ? facts[dtype].dlpack_code : (uint8_t)DLPACK_CODE_INT;
}

const char *typestr_of(va_dtype dtype)
{
    return known(dtype) ? facts[dtype].typestr : "";
}

PyArray_Descr *descr_from_va(va_dtype dtype)
{
    if (known(dtype)) {
        return PyArray_DescrFromType(facts[dtype].npy_type);
    }
    PyErr_SetString(PyExc_SystemError, "unknown va_dtype");
    return NULL;
}

const char *va_dtype_name(va_dtype dtype)
{
    return known(dtype) ? facts[dtype].name : "unknown";
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
    static char text[192];
    if (text[0] == '\0') {
        join_dtype_names(text, sizeof(text), " and ");
    }
    return text;
}

const char *supported_dtypes_or(void)
{
    static char text[192];
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

PyObject *mm_supported_dtypes(PyObject *, PyObject *)
{
    PyObject *result = PyTuple_New(VA_DTYPE_COUNT);
    if (result == NULL) {
        return NULL;
    }
    for (int d = 0; d < VA_DTYPE_COUNT; ++d) {
        PyArray_Descr *descr = descr_from_va((va_dtype)d);
        if (descr == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, d, (PyObject *)descr);
    }
    return result;
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

/* _core._result_type(*dtypes_and_scalars): the library's result_type (va_result_type),
 * a Python bool, int, float or complex joining as a weak scalar (NEP 50), anything
 * else read as a dtype. */
PyObject *mm_result_type(PyObject *, PyObject *const *args, Py_ssize_t nargs)
{
    va_dtype in[VA_MAX_RESULT_TYPE_ARGS];
    va_weak weak[VA_MAX_RESULT_TYPE_ARGS];
    va_dtype result;
    if (nargs < 1 || nargs > VA_MAX_RESULT_TYPE_ARGS) {
        PyErr_Format(PyExc_TypeError, "_result_type() takes 1 to %d arguments (%zd given)", VA_MAX_RESULT_TYPE_ARGS,
                     nargs);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < nargs; ++k) {
        PyObject *obj = args[k];
        in[k] = VA_BOOL;
        /* bool before int (a bool is an int); NumPy's scalars are dtypes, not weak */
        weak[k] = PyBool_Check(obj) ? VA_WEAK_BOOL
                  : PyArray_IsScalar(obj, Generic) ? VA_STRONG
                  : PyLong_Check(obj)    ? VA_WEAK_INT
                  : PyFloat_Check(obj)   ? VA_WEAK_FLOAT
                  : PyComplex_Check(obj) ? VA_WEAK_COMPLEX
                                         : VA_STRONG;
        if (PyArray_IsScalar(obj, Generic)) {
            PyArray_Descr *descr = PyArray_DescrFromScalar(obj);
            int st = descr != NULL ? va_dtype_from_descr(descr, &in[k]) : -1;
            if (descr != NULL && st < 0) {
                raise_unsupported_dtype((PyObject *)descr);
            }
            Py_XDECREF(descr);
            if (st < 0) {
                return NULL;
            }
        }
        else if (weak[k] == VA_STRONG && supported_dtype(obj, &in[k]) < 0) {
            return NULL;
        }
    }
    const va_status st = va_result_type((int32_t)nargs, in, weak, &result);
    return st != VA_SUCCESS ? raise_status(st) : (PyObject *)descr_from_va(result);
}
