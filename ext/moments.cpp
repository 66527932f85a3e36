/* _core._var_all(x, correction): NumPy's var(x, ddof=correction) of every element
 * of a float32 or float64 DeviceArray, a 0-d DeviceArray of x's dtype queued on the
 * library's stream (no wait), computed in one pass (va_var). */
#include "moments.h"

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyObject *mm_var_all(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"x", "correction"};
    PyObject *values[2];
    DeviceArrayObject *x = NULL, *out = NULL;
    PyObject *result = NULL;
    double correction;
    va_array vx, vo;
    va_status st;
    (void)module;
    if (parse_arguments("_var_all", args, nargs, kwnames, names, 2, 2, 2, values) < 0) {
        return NULL;
    }
    if (!DeviceArray_Check(values[0])) {
        PyErr_Format(PyExc_TypeError, "_var_all() takes a DeviceArray, got %.200s", Py_TYPE(values[0])->tp_name);
        return NULL;
    }
    x = (DeviceArrayObject *)values[0];
    Py_INCREF(x);  /* held across the float conversion below, which may call into Python */
    correction = PyFloat_AsDouble(values[1]);
    if (correction == -1.0 && PyErr_Occurred()) {
        goto fail;
    }
    if (x->dtype != VA_FLOAT32 && x->dtype != VA_FLOAT64) {
        PyErr_Format(PyExc_TypeError, "_var_all() takes a float32 or float64 array, got %s", va_dtype_name(x->dtype));
        goto fail;
    }
    out = devicearray_empty(x->device, x->dtype, 0, NULL, 0);
    if (out == NULL) {
        goto fail;
    }
    devicearray_describe(x, &vx);
    devicearray_describe(out, &vo);
    Py_BEGIN_ALLOW_THREADS
    st = va_var(x->device, &vx, correction, &vo);
    Py_END_ALLOW_THREADS
    result = filled_or_raise(st, &out);
fail:
    Py_XDECREF(out);
    Py_XDECREF(x);
    return result;
}

static PyMethodDef moments_functions[] = {
    {"_var_all", FASTCALL(mm_var_all),
     "_var_all(x, correction)\n--\n\n"
     "numpy.var(x, ddof=correction) of every element of a float32 or float64 DeviceArray: a 0-d "
     "DeviceArray of x's dtype, computed in one pass on x's GPU and not waited for."},
    {NULL, NULL, 0, NULL},
};

int moments_init(PyObject *module)
{
    return PyModule_AddFunctions(module, moments_functions) < 0 ? -1 : 0;
}
