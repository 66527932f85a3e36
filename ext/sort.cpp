/* sort and argsort: NumPy's functions for host data (through
 * myModule._reference, which adds the array API's descending=), va_sort on the
 * GPU for device data, for host data with device='cuda' and for host arrays
 * from the auto threshold on. */
#include <string.h>

#include "hooks.h"
#include "sort.h"
#include "views.h"

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

/* The reference of `name` in myModule._reference (new reference). */
static PyObject *host_reference(const char *name)
{
    return hook_attribute(HOOK_REFERENCE, name);
}

typedef struct {
    PyObject *axis;   /* borrowed; NULL: -1 */
    int descending;
    int want_indices; /* argsort */
} SortRequest;

/* `a` sorted on its GPU into a new DeviceArray (argsort: int64 positions).
 * axis=None sorts the flattened array (C order), as NumPy. */
static PyObject *sort_device(DeviceArrayObject *a, const SortRequest *req)
{
    DeviceArrayObject *source = NULL, *result = NULL;
    va_array view, out_view;
    int axis = 0;
    va_status st;
    if (req->axis == Py_None) {
        int64_t n = array_size(a), step = 0;
        DeviceArrayObject *packed = devicearray_contiguous(a);
        if (packed == NULL) {
            return NULL;
        }
        step = (int64_t)va_dtype_size(packed->dtype);
        source = devicearray_view(packed->data, packed->device, packed->dtype, 1, &n, &step, (PyObject *)packed);
        Py_DECREF(packed);
        if (source == NULL) {
            return NULL;
        }
    }
    else {
        if (req->axis == NULL ? normalize_axis(-1, a->ndim, &axis) < 0
                              : parse_one_axis(req->axis, a->ndim, &axis) < 0) {
            return NULL;
        }
        Py_INCREF(a);
        source = a;
    }
    result = devicearray_empty(source->device, req->want_indices ? VA_INT64 : source->dtype, source->ndim,
                               source->shape, 0);
    if (result == NULL) {
        Py_DECREF(source);
        return NULL;
    }
    devicearray_describe(source, &view);
    devicearray_describe(result, &out_view);
    Py_BEGIN_ALLOW_THREADS
    st = va_sort(source->device, &view, axis, req->descending, req->want_indices ? NULL : &out_view,
                 req->want_indices ? &out_view : NULL);
    Py_END_ALLOW_THREADS
    Py_DECREF(source);
    if (st != VA_SUCCESS) {
        Py_DECREF(result);
        return raise_status(st);
    }
    return (PyObject *)result;
}

/* values: a, axis, kind, order, descending, stable, device. */
static PyObject *sort_values(const char *name, int want_indices, PyObject *const *values)
{
    PyObject *result = NULL;
    Operand a;
    Where where;
    int host_axis = 0; /* checked only: the GPU path reads the axis again */
    SortRequest req;
    memset(&a, 0, sizeof(a));
    req.axis = values[1];
    req.want_indices = want_indices;
    req.descending = 0;
    if (values[4] != NULL && (req.descending = PyObject_IsTrue(values[4])) < 0) {
        return NULL;
    }
    if (parse_where(values[6], &where) < 0 || operand_init(&a, values[0]) < 0) {
        goto done;
    }
    if (a.kind == KIND_ARRAY && refuse_unordered(name, a.dtype) < 0) {
        goto done;
    }
    if (values[3] != NULL && values[3] != Py_None && (a.device != NULL || where == WHERE_CUDA)) {
        PyErr_Format(PyExc_ValueError, "%s: order= needs a structured array, which the GPU does not hold", name);
        goto done;
    }
    if (a.device != NULL) {
        if (where_check_data(where, a.device->device) < 0) {
            goto done;
        }
        /* Any kind= is met: the radix sort is stable. */
        result = sort_device(a.device, &req);
        goto done;
    }
    if (a.host == NULL) {
        PyErr_Format(PyExc_TypeError, "%s() needs an array, got a scalar", name);
        goto done;
    }
    where = where_for_host_data(where, (int64_t)PyArray_SIZE(a.host), "sort");
    if (where == WHERE_CPU) {
        static const char *const keywords[] = {"axis", "kind", "order", "descending", "stable"};
        PyObject *fn = host_reference(name), *args = NULL, *kwargs = NULL;
        if (fn != NULL && (args = PyTuple_Pack(1, (PyObject *)a.host)) != NULL && (kwargs = PyDict_New()) != NULL) {
            int k = 0;
            for (; k < 5; ++k) {
                if (values[k + 1] != NULL && PyDict_SetItemString(kwargs, keywords[k], values[k + 1]) < 0) {
                    break;
                }
            }
            if (k == 5) {
                result = PyObject_Call(fn, args, kwargs);
            }
        }
        Py_XDECREF(fn);
        Py_XDECREF(args);
        Py_XDECREF(kwargs);
        goto done;
    }
    /* the axis is an argument error: before the GPU's availability is asked */
    if (req.axis != NULL && req.axis != Py_None && parse_one_axis(req.axis, PyArray_NDIM(a.host), &host_axis) < 0) {
        goto done;
    }
    if (require_cuda(name) == 0) {
        int gpus[WHERE_MAX_GPUS], ngpus = 0;
        DeviceArrayObject *dev = NULL;
        PyObject *sorted = NULL;
        if (where_devices(where, gpus, &ngpus) < 0 || (dev = operand_device_array(&a, a.dtype, gpus[0])) == NULL) {
            goto done;
        }
        sorted = sort_device(dev, &req);
        Py_DECREF(dev);
        if (sorted != NULL) {
            result = devicearray_to_host((DeviceArrayObject *)sorted);
            Py_DECREF(sorted);
        }
    }
done:
    operand_clear(&a);
    return result;
}

static const char *const function_names[] = {"a", "axis", "kind", "order", "descending", "stable", "device"};

static PyObject *mm_sort(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *values[7];
    if (parse_arguments("sort", args, nargs, kwnames, function_names, 7, 1, 4, values) < 0) {
        return NULL;
    }
    return sort_values("sort", 0, values);
}

static PyObject *mm_argsort(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *values[7];
    if (parse_arguments("argsort", args, nargs, kwnames, function_names, 7, 1, 4, values) < 0) {
        return NULL;
    }
    return sort_values("argsort", 1, values);
}

/* d.sort(): in place, as ndarray.sort (None returned). */
static PyObject *da_sort(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    DeviceArrayObject *a = (DeviceArrayObject *)self;
    PyObject *values[7] = {self, NULL, NULL, NULL, NULL, NULL, NULL};
    va_array view;
    int axis = 0, descending = 0;
    int64_t value = -1;
    va_status st;
    if (parse_arguments("sort", args, nargs, kwnames, function_names + 1, 5, 0, 3, values + 1) < 0 ||
        devicearray_check_assignable(a) < 0) {
        return NULL;
    }
    if (values[3] != NULL && values[3] != Py_None) {
        PyErr_SetString(PyExc_ValueError, "sort: order= needs a structured array, which the GPU does not hold");
        return NULL;
    }
    if (values[4] != NULL && (descending = PyObject_IsTrue(values[4])) < 0) {
        return NULL;
    }
    if (values[1] != NULL) {
        if (values[1] == Py_None || !PyIndex_Check(values[1])) {
            PyErr_Format(PyExc_TypeError, "'%.100s' object cannot be interpreted as an integer",
                         Py_TYPE(values[1])->tp_name);
            return NULL;
        }
        if ((value = PyNumber_AsSsize_t(values[1], PyExc_OverflowError)) == -1 && PyErr_Occurred()) {
            return NULL;
        }
    }
    if (normalize_axis(value, a->ndim, &axis) < 0) {
        return NULL;
    }
    devicearray_describe(a, &view);
    Py_BEGIN_ALLOW_THREADS
    st = va_sort(a->device, &view, axis, descending, &view, NULL);
    Py_END_ALLOW_THREADS
    if (st != VA_SUCCESS) {
        return raise_status(st);
    }
    Py_RETURN_NONE;
}

static PyObject *da_argsort(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *values[7] = {self, NULL, NULL, NULL, NULL, NULL, NULL};
    if (parse_arguments("argsort", args, nargs, kwnames, function_names + 1, 5, 0, 3, values + 1) < 0) {
        return NULL;
    }
    return sort_values("argsort", 1, values);
}

static PyMethodDef sort_functions[] = {
    {"sort", FASTCALL(mm_sort),
     "sort(a, axis=-1, kind=None, order=None, *, descending=False, stable=None, device='auto')\n--\n\n"
     "numpy.sort (axis=None: the flattened array), with the array API's descending=. Every sort is "
     "stable: equal elements keep their order, also descending. NaN sorts last (first when "
     "descending). Host data: NumPy's result, computed by NumPy or, for large arrays and "
     "device='cuda', on a GPU; data on a GPU: a DeviceArray sorted there (CUB's radix sort)."},
    {"argsort", FASTCALL(mm_argsort),
     "argsort(a, axis=-1, kind=None, order=None, *, descending=False, stable=None, device='auto')\n--\n\n"
     "numpy.argsort: the int64 positions that sort `a` along the axis, stable, with the array API's "
     "descending=; where the work runs as for sort()."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef sort_methods[] = {
    {"sort", FASTCALL(da_sort),
     "sort(axis=-1, kind=None, order=None, *, descending=False, stable=None)\n--\n\n"
     "Sort in place along the axis, as ndarray.sort (stable; returns None)."},
    {"argsort", FASTCALL(da_argsort),
     "argsort(axis=-1, kind=None, order=None, *, descending=False, stable=None)\n--\n\n"
     "As myModule.argsort(self, ...): an int64 DeviceArray, queued without a wait."},
    {NULL, NULL, 0, NULL},
};

int sort_init(PyObject *module)
{
    if (PyModule_AddFunctions(module, sort_functions) < 0) {
        return -1;
    }
    return 0;
}

TypePart sort_type_part(void)
{
    return TypePart{sort_methods, NULL};
}
