/* searchsorted(a, v, side='left', sorter=None): host data through NumPy, GPU
 * data (either argument) through va_searchsorted on that GPU. */
#include <string.h>

#include "hooks.h"
#include "search.h"

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

/* side='left' -> 0, 'right' -> 1; ValueError otherwise, as NumPy. */
static int parse_side(PyObject *side, int *right)
{
    *right = 0;
    if (side == NULL) {
        return 0;
    }
    if (PyUnicode_Check(side) && PyUnicode_CompareWithASCIIString(side, "left") == 0) {
        return 0;
    }
    if (PyUnicode_Check(side) && PyUnicode_CompareWithASCIIString(side, "right") == 0) {
        *right = 1;
        return 0;
    }
    PyErr_Format(PyExc_ValueError, "search side must be 'left' or 'right' (got %R)", side);
    return -1;
}

/* The search on the GPU of `a` (a DeviceArray): a new int64 DeviceArray of v's shape. */
static PyObject *search_device(DeviceArrayObject *a, PyObject *v_obj, int right, PyObject *sorter)
{
    PyObject *ordered = NULL, *result = NULL;
    DeviceArrayObject *values = NULL, *out = NULL;
    Operand v;
    va_array sorted_view, values_view, out_view;
    va_status st;
    memset(&v, 0, sizeof(v));
    if (a->ndim != 1) {
        PyErr_SetString(PyExc_ValueError, "object too deep for desired array");
        return NULL;
    }
    if (sorter != NULL && sorter != Py_None) {
        /* a[sorter]: a gather on a's GPU (the indices uploaded when on the host) */
        ordered = PyObject_GetItem((PyObject *)a, sorter);
        if (ordered == NULL) {
            return NULL;
        }
        if (!DeviceArray_Check(ordered) || ((DeviceArrayObject *)ordered)->ndim != 1 ||
            ((DeviceArrayObject *)ordered)->shape[0] != a->shape[0]) {
            PyErr_SetString(PyExc_ValueError, "sorter.size must equal a.size");
            goto done;
        }
    }
    else {
        Py_INCREF(a);
        ordered = (PyObject *)a;
    }
    if (operand_init(&v, v_obj) < 0) {
        goto done;
    }
    if (v.device != NULL && v.device->device != a->device) {
        PyErr_SetString(PyExc_ValueError, "arrays on different GPUs: copy them to one GPU first "
                                          "(asarray(x, device=N) or to_device(x, N))");
        goto done;
    }
    values = operand_device_array(&v, operand_natural_dtype(&v), a->device);
    if (values == NULL) {
        goto done;
    }
    out = devicearray_empty(a->device, VA_INT64, values->ndim, values->shape, 0);
    if (out == NULL) {
        goto done;
    }
    devicearray_describe((DeviceArrayObject *)ordered, &sorted_view);
    devicearray_describe(values, &values_view);
    devicearray_describe(out, &out_view);
    st = va_searchsorted(a->device, &sorted_view, &values_view, right, &out_view);
    result = filled_or_raise(st, &out);
done:
    Py_XDECREF(out);
    Py_XDECREF(values);
    Py_XDECREF(ordered);
    operand_clear(&v);
    return result;
}

static const char *const names[] = {"a", "v", "side", "sorter"};

static PyObject *mm_searchsorted(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *values[4], *result = NULL;
    Operand a;
    int right = 0;
    if (parse_arguments("searchsorted", args, nargs, kwnames, names, 4, 2, 4, values) < 0 ||
        parse_side(values[2], &right) < 0) {
        return NULL;
    }
    memset(&a, 0, sizeof(a));
    if (operand_init(&a, values[0]) < 0) {
        return NULL;
    }
    if (a.kind == KIND_ARRAY && refuse_unordered("searchsorted", a.dtype) < 0) {
        operand_clear(&a);
        return NULL;
    }
    if (a.device != NULL || DeviceArray_Check(values[1])) {
        int device = a.device != NULL ? a.device->device : ((DeviceArrayObject *)values[1])->device;
        DeviceArrayObject *on_gpu = operand_device_array(&a, operand_natural_dtype(&a), device);
        if (on_gpu != NULL) {
            result = search_device(on_gpu, values[1], right, values[3]);
            Py_DECREF(on_gpu);
        }
    }
    else {
        /* host data: NumPy's own function, with what was given */
        PyObject *fn = hook_attribute(HOOK_REFERENCE, "searchsorted");
        if (fn != NULL) {
            result = PyObject_Vectorcall(fn, args, (size_t)nargs, kwnames);
            Py_DECREF(fn);
        }
    }
    operand_clear(&a);
    return result;
}

static PyObject *da_searchsorted(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *values[3];
    int right = 0;
    if (parse_arguments("searchsorted", args, nargs, kwnames, names + 1, 3, 1, 3, values) < 0 ||
        parse_side(values[1], &right) < 0) {
        return NULL;
    }
    return search_device((DeviceArrayObject *)self, values[0], right, values[2]);
}

static PyMethodDef search_functions[] = {
    {"searchsorted", FASTCALL(mm_searchsorted),
     "searchsorted(a, v, side='left', sorter=None)\n--\n\n"
     "numpy.searchsorted: where the elements of v would be inserted into the sorted 1-d a. On the GPU "
     "of a (or of v) when either is a GPU array, one binary search per value (int64 positions, a "
     "DeviceArray); NumPy's own result for host data."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef search_methods[] = {
    {"searchsorted", FASTCALL(da_searchsorted),
     "searchsorted(v, side='left', sorter=None)\n--\n\nAs myModule.searchsorted(self, ...)."},
    {NULL, NULL, 0, NULL},
};

int search_init(PyObject *module)
{
    return PyModule_AddFunctions(module, search_functions);
}

TypePart search_type_part(void)
{
    return TypePart{search_methods, NULL};
}
