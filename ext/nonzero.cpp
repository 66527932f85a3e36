/* numpy.nonzero. Data on a GPU stays there: va_nonzero_count (the one wait:
 * the results are sized by it), then va_nonzero_write into new int64 arrays.
 * Host data is NumPy's own (PyArray_Nonzero), unless device="cuda" asks for
 * the GPU, as trace does: the work is one pass, so the transfer never pays. */
#include <string.h>

#include "nonzero.h"
#include "views.h"

/* NumPy 2's words for a 0-d input. */
static const char zero_d[] =
    "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead.";

int nonzero_device(DeviceArrayObject *a, DeviceArrayObject **coords, const int64_t *weights,
                   DeviceArrayObject **offsets)
{
    int result = -1;
    int naxes = coords != NULL ? a->ndim : 0;
    DeviceArrayObject *scratch = NULL, *table = NULL;
    DeviceArrayObject *made[VA_MAX_NDIM] = {NULL};
    int64_t *pointers[VA_MAX_NDIM] = {NULL};
    int64_t count = 0, entries = 0;
    size_t nbytes = 0;
    va_array view;
    va_status st;

    devicearray_describe(a, &view);
    st = va_nonzero_scratch_bytes(&view, &nbytes);
    if (st != VA_SUCCESS) {
        raise_status(st);
        goto fail;
    }
    entries = (int64_t)(nbytes / sizeof(int64_t));
    scratch = devicearray_empty(a->device, VA_INT64, 1, &entries, 0);
    if (scratch == NULL) {
        goto fail;
    }
    Py_BEGIN_ALLOW_THREADS
    st = va_nonzero_count(a->device, &view, scratch->data, &count);
    Py_END_ALLOW_THREADS
    if (st != VA_SUCCESS) {
        raise_status(st);
        goto fail;
    }
    for (int d = 0; d < naxes; ++d) {
        made[d] = devicearray_empty(a->device, VA_INT64, 1, &count, 0);
        if (made[d] == NULL) {
            goto fail;
        }
        pointers[d] = (int64_t *)made[d]->data;
    }
    if (offsets != NULL) {
        table = devicearray_empty(a->device, VA_INT64, 1, &count, 0);
        if (table == NULL) {
            goto fail;
        }
    }
    /* Queued: the scratch goes back to the pool in stream order after it. */
    st = va_nonzero_write(a->device, &view, scratch->data, naxes > 0 ? pointers : NULL, weights,
                          table != NULL ? (int64_t *)table->data : NULL);
    if (st != VA_SUCCESS) {
        raise_status(st);
        goto fail;
    }
    for (int d = 0; d < naxes; ++d) {
        coords[d] = made[d];
        made[d] = NULL;
    }
    if (offsets != NULL) {
        *offsets = table;
        table = NULL;
    }
    result = 0;
fail:
    Py_XDECREF(scratch);
    Py_XDECREF(table);
    for (int d = 0; d < naxes; ++d) {
        Py_XDECREF(made[d]);
    }
    return result;
}

/* A tuple of one int64 DeviceArray per axis of `a` (not 0-d). */
static PyObject *nonzero_tuple(DeviceArrayObject *a)
{
    DeviceArrayObject *coords[VA_MAX_NDIM] = {NULL};
    PyObject *tuple = NULL;
    if (a->ndim == 0) {
        PyErr_SetString(PyExc_ValueError, zero_d);
        return NULL;
    }
    if (nonzero_device(a, coords, NULL, NULL) < 0) {
        return NULL;
    }
    tuple = PyTuple_New(a->ndim);
    for (int d = 0; d < a->ndim; ++d) {
        if (tuple != NULL) {
            PyTuple_SET_ITEM(tuple, d, (PyObject *)coords[d]); /* steals */
        }
        else {
            Py_DECREF(coords[d]);
        }
    }
    return tuple;
}

/* Host data on the GPU that device= names: uploaded, then each axis copied back. */
static PyObject *nonzero_host_on_gpu(PyArrayObject *host, Where where)
{
    int gpus[WHERE_MAX_GPUS], ngpus = 0;
    DeviceArrayObject *uploaded = NULL;
    PyObject *on_gpu = NULL, *result = NULL;
    if (PyArray_NDIM(host) == 0) {
        PyErr_SetString(PyExc_ValueError, zero_d);
        return NULL;
    }
    if (require_cuda("nonzero") < 0 || where_devices(where, gpus, &ngpus) < 0) {
        return NULL;
    }
    uploaded = devicearray_from_host(host, gpus[0], 0);
    if (uploaded == NULL) {
        goto fail;
    }
    on_gpu = nonzero_tuple(uploaded);
    if (on_gpu == NULL) {
        goto fail;
    }
    result = PyTuple_New(PyTuple_GET_SIZE(on_gpu));
    for (Py_ssize_t d = 0; result != NULL && d < PyTuple_GET_SIZE(on_gpu); ++d) {
        PyObject *axis = devicearray_to_host((DeviceArrayObject *)PyTuple_GET_ITEM(on_gpu, d));
        if (axis == NULL) {
            Py_CLEAR(result);
            break;
        }
        PyTuple_SET_ITEM(result, d, axis);
    }
fail:
    Py_XDECREF(on_gpu);
    Py_XDECREF(uploaded);
    return result;
}

static PyObject *mm_nonzero(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"a", "device"};
    PyObject *values[2];
    PyObject *result = NULL;
    PyArrayObject *host = NULL;
    Operand a;
    Where where;
    memset(&a, 0, sizeof(a));
    if (parse_arguments("nonzero", args, nargs, kwnames, names, 2, 1, 1, values) < 0 ||
        parse_where(values[1], &where) < 0 || operand_init(&a, values[0]) < 0) {
        goto done;
    }
    if (a.device != NULL) {
        if (where_check_data(where, a.device->device) < 0) {
            goto done;
        }
        result = nonzero_tuple(a.device);
        goto done;
    }
    host = operand_host_array(&a, operand_natural_dtype(&a));
    if (host == NULL) {
        goto done;
    }
    result = where == WHERE_CUDA ? nonzero_host_on_gpu(host, where) : PyArray_Nonzero(host);
done:
    Py_XDECREF(host);
    operand_clear(&a);
    return result;
}

static PyObject *da_nonzero(PyObject *self, PyObject *)
{
    return nonzero_tuple((DeviceArrayObject *)self);
}

static PyMethodDef nonzero_functions[] = {
    {"nonzero", (PyCFunction)(void (*)(void))mm_nonzero, METH_FASTCALL | METH_KEYWORDS,
     "nonzero(a, device='auto')\n--\n\nnumpy.nonzero: the indices of the nonzero elements (NaN is, -0.0 "
     "is not), one int64 array per axis, in C order. Data on a GPU gives DeviceArrays (one wait, "
     "for their number); host data is NumPy's unless device='cuda'. ValueError for a 0-d array, "
     "as NumPy 2."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef nonzero_methods[] = {
    {"nonzero", da_nonzero, METH_NOARGS,
     "nonzero()\n--\n\nAs myModule.nonzero(self): a tuple of int64 DeviceArrays, one per axis."},
    {NULL, NULL, 0, NULL},
};

int nonzero_init(PyObject *module)
{
    if (PyModule_AddFunctions(module, nonzero_functions) < 0) {
        return -1;
    }
    return 0;
}

TypePart nonzero_type_part(void)
{
    return TypePart{nonzero_methods, NULL};
}
