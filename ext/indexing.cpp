/* NumPy's indexing rules for DeviceArrays. Integers, slices, `...` and None
 * make a view (its geometry computed here, no GPU work); index arrays and
 * boolean masks are resolved into a table of byte offsets that va_gather /
 * va_scatter walk along one axis: on the host, except for a key whose one
 * index array is a boolean mask already on the array's GPU, whose offsets
 * nonzero_device writes there (no copy of the mask to the host). */
#include <string.h>

#include "checked.h"
#include "indexing.h"
#include "nonzero.h"
#include "shapes.h"

#define MAX_ITEMS 64

enum { ITEM_INT, ITEM_SLICE, ITEM_NONE, ITEM_ELLIPSIS, ITEM_ARRAY };

typedef struct {
    int kind;
    int64_t value;    /* ITEM_INT */
    PyObject *object; /* borrowed: the slice, or the array-like */
} Item;

static const char invalid_index[] =
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
    "boolean arrays are valid indices";

static int item_integer(PyObject *obj, Item *item)
{
    Py_ssize_t v = PyNumber_AsSsize_t(obj, NULL); /* clipped when it overflows */
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (v == PY_SSIZE_T_MAX || v == PY_SSIZE_T_MIN) {
        /* past int64: NumPy raises OverflowError above and IndexError below */
        PyObject *exact = PyNumber_Index(obj);
        int overflow = 0;
        if (exact == NULL) {
            return -1;
        }
        PyLong_AsLongLongAndOverflow(exact, &overflow);
        /* NumPy reads an index as intp, then as uint64: [2**63, 2**64) overflows
         * its C long (OverflowError), anything further is no index (IndexError) */
        int as_unsigned = overflow > 0 && !(PyLong_AsUnsignedLongLong(exact) == (unsigned long long)-1 &&
                                            PyErr_Occurred());
        PyErr_Clear();
        Py_DECREF(exact);
        if (overflow != 0) {
            if (as_unsigned) {
                PyErr_SetString(PyExc_OverflowError, "Python int too large to convert to C long");
            }
            else {
                PyErr_SetString(PyExc_IndexError, invalid_index);
            }
            return -1;
        }
    }
    item->kind = ITEM_INT;
    item->value = (int64_t)v;
    return 0;
}

static int classify(PyObject *obj, Item *item)
{
    item->object = obj;
    if (PyLong_CheckExact(obj)) {
        return item_integer(obj, item);
    }
    if (PySlice_Check(obj)) {
        item->kind = ITEM_SLICE;
        return 0;
    }
    if (obj == Py_None) {
        item->kind = ITEM_NONE;
        return 0;
    }
    if (obj == Py_Ellipsis) {
        item->kind = ITEM_ELLIPSIS;
        return 0;
    }
    if (PyArray_Check(obj)) {
        PyArrayObject *a = (PyArrayObject *)obj;
        /* NumPy takes a 0-d integer array as an integer */
        if (PyArray_NDIM(a) == 0 && PyDataType_ISINTEGER(PyArray_DESCR(a))) {
            return item_integer(obj, item);
        }
        item->kind = ITEM_ARRAY;
        return 0;
    }
    if (PyBool_Check(obj) || PyArray_IsScalar(obj, Bool) || DeviceArray_Check(obj) ||
        PyList_Check(obj) || PyTuple_Check(obj)) {
        item->kind = ITEM_ARRAY;
        return 0;
    }
    if (PyIndex_Check(obj)) { /* NumPy integer scalars, objects with __index__ */
        return item_integer(obj, item);
    }
    if (PyObject_HasAttrString(obj, "__cuda_array_interface__") ||
        PyObject_HasAttrString(obj, "__array__") || PyObject_HasAttrString(obj, "__dlpack__")) {
        item->kind = ITEM_ARRAY;
        return 0;
    }
    PyErr_SetString(PyExc_IndexError, invalid_index);
    return -1;
}

static int split_key(PyObject *key, Item *items, int *nitems)
{
    if (!PyTuple_Check(key)) {
        *nitems = 1;
        return classify(key, &items[0]);
    }
    Py_ssize_t n = PyTuple_GET_SIZE(key);
    if (n > MAX_ITEMS) {
        PyErr_SetString(PyExc_IndexError, "too many indices for array");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
        if (classify(PyTuple_GET_ITEM(key, i), &items[i]) < 0) {
            return -1;
        }
    }
    *nitems = (int)n;
    return 0;
}

static int push_dim(ViewGeometry *g, int64_t extent, int64_t stride)
{
    if (g->ndim >= VA_MAX_NDIM) {
        PyErr_Format(PyExc_IndexError, "number of dimensions must be within [0, %d]", VA_MAX_NDIM);
        return -1;
    }
    g->shape[g->ndim] = extent;
    g->strides[g->ndim] = stride;
    ++g->ndim;
    return 0;
}

/* The byte step of a slice: stride * step as NumPy's. It fits whenever the slice
 * has two or more elements (both lie inside the array); with fewer it is never
 * used to move, and a huge step (x[::2**62]) must not overflow: the stride stays. */
static int64_t slice_stride(int64_t stride, Py_ssize_t step)
{
    int64_t result = stride;
    if (checked_mul(stride, (int64_t)step, &result)) {
        result = stride; /* only for a slice of at most one element */
    }
    return result;
}

static int check_bound(int64_t *v, int axis, int64_t size)
{
    if (*v < -size || *v >= size) {
        PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for axis %d with size %lld",
                     (long long)*v, axis, (long long)size);
        return -1;
    }
    if (*v < 0) {
        *v += size;
    }
    return 0;
}

/* Counts the dimensions the items index; IndexError for two ellipses or too many. */
static int count_indexed(const Item *items, int nitems, const int *array_dims, int ndim,
                         int *consumed)
{
    int n = 0, ellipses = 0;
    for (int i = 0; i < nitems; ++i) {
        switch (items[i].kind) {
            case ITEM_INT:
            case ITEM_SLICE: ++n; break;
            case ITEM_ARRAY: n += array_dims[i]; break;
            case ITEM_ELLIPSIS: ++ellipses; break;
            case ITEM_NONE: break; /* a new axis consumes no dimension of the array */
        }
    }
    if (ellipses > 1) {
        PyErr_SetString(PyExc_IndexError, "an index can only have a single ellipsis ('...')");
        return -1;
    }
    if (n > ndim) {
        PyErr_Format(PyExc_IndexError,
                     "too many indices for array: array is %d-dimensional, but %d were indexed",
                     ndim, n);
        return -1;
    }
    *consumed = n;
    return 0;
}

/* The view that a key of integers, slices, ... and None selects: 0 with `out`
 * filled, 1 when the key holds index arrays (nothing set), -1 with an error. */
static int basic_geometry(const Item *items, int nitems, const ViewGeometry *in, ViewGeometry *out)
{
    int ones[MAX_ITEMS] = {0};
    for (int i = 0; i < nitems; ++i) {
        if (items[i].kind == ITEM_ARRAY) {
            return 1;
        }
        ones[i] = 1;
    }
    int consumed = 0;
    if (count_indexed(items, nitems, ones, in->ndim, &consumed) < 0) {
        return -1;
    }
    out->ndim = 0;
    out->offset = in->offset;
    int d = 0;
    for (int i = 0; i < nitems; ++i) {
        const Item *it = &items[i];
        if (it->kind == ITEM_INT) {
            int64_t v = it->value;
            if (check_bound(&v, d, in->shape[d]) < 0) {
                return -1;
            }
            out->offset += v * in->strides[d];
            ++d;
        }
        else if (it->kind == ITEM_SLICE) {
            Py_ssize_t start, stop, step;
            if (PySlice_Unpack(it->object, &start, &stop, &step) < 0) {
                return -1;
            }
            Py_ssize_t len = PySlice_AdjustIndices((Py_ssize_t)in->shape[d], &start, &stop, step);
            if (len > 0) { /* an empty slice stays at the base, as NumPy's */
                out->offset += (int64_t)start * in->strides[d];
            }
            if (push_dim(out, len, slice_stride(in->strides[d], step)) < 0) {
                return -1;
            }
            ++d;
        }
        else if (it->kind == ITEM_NONE) {
            if (push_dim(out, 1, 0) < 0) {
                return -1;
            }
        }
        else { /* ellipsis */
            for (int k = 0; k < in->ndim - consumed; ++k, ++d) {
                if (push_dim(out, in->shape[d], in->strides[d]) < 0) {
                    return -1;
                }
            }
        }
    }
    for (; d < in->ndim; ++d) {
        if (push_dim(out, in->shape[d], in->strides[d]) < 0) {
            return -1;
        }
    }
    return 0;
}

/* ---- index arrays ---- */

typedef struct {
    ViewGeometry source; /* the indexed view, the table axis of extent `count` at `axis` */
    int axis;
    int64_t count;       /* entries of the table */
    int result_ndim;
    int64_t result_shape[VA_MAX_NDIM];
    PyArrayObject *table; /* new reference: int64 byte offsets in C order */
    DeviceArrayObject *device_table; /* new reference: the same on the GPU, instead of `table` */
} Plan;

static void plan_clear(Plan *plan)
{
    Py_CLEAR(plan->table);
    Py_CLEAR(plan->device_table);
}

/* The table on GPU `device`: device_table, or `table` uploaded (new reference). */
static DeviceArrayObject *plan_device_table(const Plan *plan, int device)
{
    if (plan->device_table != NULL) {
        Py_INCREF(plan->device_table);
        return plan->device_table;
    }
    return devicearray_from_host(plan->table, device, 0);
}

/* `obj` when it is a boolean mask of at least one dimension on GPU `device`
 * (a DeviceArray, or another library's GPU array imported): a new reference.
 * NULL when it is not (no error), or with an error when an import failed. */
static DeviceArrayObject *mask_on_gpu(PyObject *obj, int device)
{
    PyObject *imported = NULL;
    if (DeviceArray_Check(obj)) {
        Py_INCREF(obj);
        imported = obj;
    }
    else if (PyArray_Check(obj) || PyList_Check(obj) || PyTuple_Check(obj) || PyBool_Check(obj) ||
             PyArray_IsScalar(obj, Bool)) {
        return NULL;
    }
    else {
        imported = interop_import(obj);
        if (imported == NULL) {
            return NULL;
        }
        if (imported == Py_None) {
            Py_DECREF(imported);
            return NULL;
        }
    }
    DeviceArrayObject *mask = (DeviceArrayObject *)imported;
    if (mask->dtype != VA_BOOL || mask->ndim == 0 || mask->device != device) {
        Py_DECREF(imported);
        return NULL;
    }
    return mask;
}

/* An index array as a host NumPy array of int64 or bool (new reference). */
static PyArrayObject *host_index_array(PyObject *obj)
{
    PyObject *host = NULL;
    PyArrayObject *result = NULL;
    if (DeviceArray_Check(obj)) {
        host = devicearray_to_host((DeviceArrayObject *)obj);
    }
    else {
        PyObject *imported = interop_import(obj);
        if (imported == NULL) {
            return NULL;
        }
        if (imported != Py_None) {
            host = devicearray_to_host((DeviceArrayObject *)imported);
        }
        else {
            host = PyArray_FromAny(obj, NULL, 0, 0, 0, NULL);
        }
        Py_DECREF(imported);
    }
    if (host == NULL) {
        return NULL;
    }
    PyArray_Descr *descr = PyArray_DESCR((PyArrayObject *)host);
    if (PyArray_SIZE((PyArrayObject *)host) == 0 && !PyArray_Check(obj) && !DeviceArray_Check(obj)) {
        /* [] indexes nothing: NumPy takes an empty sequence as integers */
        result = (PyArrayObject *)PyArray_FROMANY(host, NPY_INT64, 0, 0, NPY_ARRAY_FORCECAST);
    }
    else if (PyDataType_ISBOOL(descr)) {
        Py_INCREF(host);
        result = (PyArrayObject *)host;
    }
    else if (PyDataType_ISINTEGER(descr)) {
        result = (PyArrayObject *)PyArray_FROMANY(host, NPY_INT64, 0, 0,
                                                  NPY_ARRAY_FORCECAST | NPY_ARRAY_CARRAY_RO);
    }
    else {
        PyErr_SetString(PyExc_IndexError, "arrays used as indices must be of integer (or boolean) type");
    }
    Py_DECREF(host);
    return result;
}

static int shapes_mismatch(PyArrayObject **arrays, int n)
{
    PyObject *text = PyUnicode_FromString("shape mismatch: indexing arrays could not be broadcast together with shapes ");
    for (int k = 0; text != NULL && k < n; ++k) {
        PyObject *dims = PyTuple_New(PyArray_NDIM(arrays[k]));
        if (dims == NULL) {
            Py_CLEAR(text);
            break;
        }
        for (int d = 0; d < PyArray_NDIM(arrays[k]); ++d) {
            PyTuple_SET_ITEM(dims, d, PyLong_FromSsize_t(PyArray_DIM(arrays[k], d)));
        }
        PyObject *piece = PyUnicode_FromFormat("%S ", dims);
        Py_DECREF(dims);
        if (piece == NULL) {
            Py_CLEAR(text);
            break;
        }
        PyObject *joined = PyUnicode_Concat(text, piece);
        Py_DECREF(piece);
        Py_SETREF(text, joined);
    }
    if (text != NULL) {
        PyErr_SetObject(PyExc_IndexError, text);
        Py_DECREF(text);
    }
    return -1;
}

/* NumPy's advanced indexing: the broadcast index arrays become one table axis,
 * placed where the first index array stands when the index arrays (integers
 * included) are adjacent, else in front. `device` is the indexed array's GPU
 * (-1: host arithmetic only, no GPU work). */
static int advanced_plan(const Item *items, int nitems, const ViewGeometry *in, int device, Plan *plan)
{
    PyArrayObject *converted[MAX_ITEMS] = {NULL};
    /* one index array per indexed axis, and one per boolean scalar (which
     * indexes none): at most VA_MAX_NDIM + MAX_ITEMS */
    PyArrayObject *arrays[VA_MAX_NDIM + MAX_ITEMS] = {NULL}; /* borrowed from converted or nonzero */
    PyObject *nonzero[MAX_ITEMS] = {NULL};
    int array_dims[MAX_ITEMS] = {0};
    int adv_axis[VA_MAX_NDIM + MAX_ITEMS];
    int nadv = 0, consumed = 0, result = -1, narrays = 0, mask_item = -1, mask_axis = 0;
    PyArrayMultiIterObject *mit = NULL;
    DeviceArrayObject *mask = NULL; /* the key's one index array: a mask on the GPU */
    ViewGeometry *src = &plan->source;
    memset(plan, 0, sizeof(*plan));

    for (int i = 0; i < nitems; ++i) {
        narrays += items[i].kind == ITEM_ARRAY;
    }
    for (int i = 0; i < nitems; ++i) {
        array_dims[i] = 1;
        if (items[i].kind == ITEM_ARRAY && narrays == 1 && device >= 0) {
            mask = mask_on_gpu(items[i].object, device);
            if (mask == NULL && PyErr_Occurred()) {
                goto fail;
            }
            if (mask != NULL) {
                mask_item = i;
                array_dims[i] = mask->ndim;
                continue;
            }
        }
        if (items[i].kind == ITEM_ARRAY) {
            converted[i] = host_index_array(items[i].object);
            if (converted[i] == NULL) {
                goto fail;
            }
            if (PyArray_ISBOOL(converted[i])) {
                array_dims[i] = PyArray_NDIM(converted[i]);
            }
        }
    }
    if (count_indexed(items, nitems, array_dims, in->ndim, &consumed) < 0) {
        goto fail;
    }
    {
        int d = 0, position = -1, seen = 0, separated = 0, apart = 0;
        src->ndim = 0;
        src->offset = in->offset;
        for (int i = 0; i < nitems; ++i) {
            const Item *it = &items[i];
            if (it->kind == ITEM_INT || it->kind == ITEM_ARRAY) {
                if (seen && separated) {
                    apart = 1;
                }
                if (!seen) {
                    position = src->ndim;
                }
                seen = 1;
            }
            else if (seen) {
                separated = 1;
            }
            if (it->kind == ITEM_INT) {
                int64_t v = it->value;
                if (check_bound(&v, d, in->shape[d]) < 0) {
                    goto fail;
                }
                src->offset += v * in->strides[d];
                ++d;
            }
            else if (i == mask_item) {
                for (int k = 0; k < mask->ndim; ++k) {
                    if (mask->shape[k] != in->shape[d + k]) {
                        PyErr_Format(PyExc_IndexError,
                                     "boolean index did not match indexed array along axis %d; size of "
                                     "axis is %lld but size of corresponding boolean axis is %lld",
                                     d + k, (long long)in->shape[d + k], (long long)mask->shape[k]);
                        goto fail;
                    }
                }
                mask_axis = d;
                d += mask->ndim;
            }
            else if (it->kind == ITEM_ARRAY && !PyArray_ISBOOL(converted[i])) {
                arrays[nadv] = converted[i];
                adv_axis[nadv++] = d++;
            }
            else if (it->kind == ITEM_ARRAY) {
                PyArrayObject *mask = converted[i];
                for (int k = 0; k < PyArray_NDIM(mask); ++k) {
                    if (PyArray_DIM(mask, k) != in->shape[d + k]) {
                        PyErr_Format(PyExc_IndexError,
                                     "boolean index did not match indexed array along axis %d; size of "
                                     "axis is %lld but size of corresponding boolean axis is %lld",
                                     d + k, (long long)in->shape[d + k], (long long)PyArray_DIM(mask, k));
                        goto fail;
                    }
                }
                if (PyArray_NDIM(mask) == 0) {
                    /* d[True] / d[False]: a new axis of length 1 or 0, indexing nothing */
                    npy_intp len = *(const npy_bool *)PyArray_DATA(mask) ? 1 : 0;
                    nonzero[i] = PyArray_ZEROS(1, &len, NPY_INT64, 0);
                    if (nonzero[i] == NULL) {
                        goto fail;
                    }
                    arrays[nadv] = (PyArrayObject *)nonzero[i];
                    adv_axis[nadv++] = -1;
                    continue;
                }
                nonzero[i] = PyArray_Nonzero(mask);
                if (nonzero[i] == NULL) {
                    goto fail;
                }
                for (int k = 0; k < PyArray_NDIM(mask); ++k) {
                    arrays[nadv] = (PyArrayObject *)PyTuple_GET_ITEM(nonzero[i], k);
                    adv_axis[nadv++] = d++;
                }
            }
            else if (it->kind == ITEM_SLICE) {
                Py_ssize_t start, stop, step;
                if (PySlice_Unpack(it->object, &start, &stop, &step) < 0) {
                    goto fail;
                }
                Py_ssize_t len = PySlice_AdjustIndices((Py_ssize_t)in->shape[d], &start, &stop, step);
                if (len > 0) {
                    src->offset += (int64_t)start * in->strides[d];
                }
                if (push_dim(src, len, slice_stride(in->strides[d], step)) < 0) {
                    goto fail;
                }
                ++d;
            }
            else if (it->kind == ITEM_NONE) {
                if (push_dim(src, 1, 0) < 0) {
                    goto fail;
                }
            }
            else {
                for (int k = 0; k < in->ndim - consumed; ++k, ++d) {
                    if (push_dim(src, in->shape[d], in->strides[d]) < 0) {
                        goto fail;
                    }
                }
            }
        }
        for (; d < in->ndim; ++d) {
            if (push_dim(src, in->shape[d], in->strides[d]) < 0) {
                goto fail;
            }
        }
        plan->axis = apart ? 0 : position;
    }

    if (mask == NULL) {
        mit = (PyArrayMultiIterObject *)PyArray_MultiIterFromObjects((PyObject **)arrays, nadv, 0);
        if (mit == NULL) {
            PyErr_Clear();
            shapes_mismatch(arrays, nadv);
            goto fail;
        }
    }
    {
        npy_intp mask_dims[1] = {0};
        int bnd = mask != NULL ? 1 : PyArray_MultiIter_NDIM(mit);
        npy_intp *bdims = mask != NULL ? mask_dims : PyArray_MultiIter_DIMS(mit);
        if (src->ndim + bnd > VA_MAX_NDIM) {
            PyErr_Format(PyExc_IndexError, "number of dimensions must be within [0, %d]", VA_MAX_NDIM);
            goto fail;
        }
        if (mask != NULL) {
            /* The mask's positions as byte offsets along the axes it covers. */
            int64_t weights[VA_MAX_NDIM];
            for (int k = 0; k < mask->ndim; ++k) {
                weights[k] = in->strides[mask_axis + k];
            }
            if (nonzero_device(mask, NULL, weights, &plan->device_table) < 0) {
                goto fail;
            }
            plan->count = plan->device_table->shape[0];
            mask_dims[0] = (npy_intp)plan->count;
        }
        else {
            plan->table = (PyArrayObject *)PyArray_SimpleNew(bnd, bdims, NPY_INT64);
            if (plan->table == NULL) {
                goto fail;
            }
            int64_t *t = (int64_t *)PyArray_DATA(plan->table);
            while (PyArray_MultiIter_NOTDONE(mit)) {
                int64_t offset = 0;
                for (int k = 0; k < nadv; ++k) {
                    int64_t v = *(int64_t *)PyArray_MultiIter_DATA(mit, k);
                    if (adv_axis[k] < 0) { /* a boolean scalar's axis: no memory moves */
                        continue;
                    }
                    if (check_bound(&v, adv_axis[k], in->shape[adv_axis[k]]) < 0) {
                        goto fail;
                    }
                    offset += v * in->strides[adv_axis[k]];
                }
                *t++ = offset;
                PyArray_MultiIter_NEXT(mit);
            }
            plan->count = PyArray_SIZE(plan->table);
        }
        /* result: the basic dims with the broadcast index shape at axis */
        int r = 0;
        for (int k = 0; k < plan->axis; ++k) {
            plan->result_shape[r++] = src->shape[k];
        }
        for (int k = 0; k < bnd; ++k) {
            plan->result_shape[r++] = bdims[k];
        }
        for (int k = plan->axis; k < src->ndim; ++k) {
            plan->result_shape[r++] = src->shape[k];
        }
        plan->result_ndim = r;
        /* the source: the table axis inserted at `axis` (its stride unused) */
        for (int k = src->ndim; k > plan->axis; --k) {
            src->shape[k] = src->shape[k - 1];
            src->strides[k] = src->strides[k - 1];
        }
        src->shape[plan->axis] = plan->count;
        src->strides[plan->axis] = 0;
        ++src->ndim;
    }
    result = 0;
fail:
    Py_XDECREF(mit);
    Py_XDECREF(mask);
    for (int i = 0; i < nitems; ++i) {
        Py_XDECREF(converted[i]);
        Py_XDECREF(nonzero[i]);
    }
    if (result < 0) {
        plan_clear(plan);
    }
    return result;
}

/* ---- getting ---- */

static void describe_geometry(va_array *view, void *data, va_dtype dtype, const ViewGeometry *g)
{
    memset(view, 0, sizeof(*view));
    view->data = data;
    view->dtype = dtype;
    view->ndim = g->ndim;
    for (int d = 0; d < g->ndim; ++d) {
        view->shape[d] = g->shape[d];
        view->strides[d] = g->strides[d];
    }
}

static void describe_contiguous(va_array *view, void *data, va_dtype dtype, int ndim, const int64_t *shape)
{
    memset(view, 0, sizeof(*view));
    view->data = data;
    view->dtype = dtype;
    view->ndim = ndim;
    int64_t stride = (int64_t)va_dtype_size(dtype);
    for (int d = ndim - 1; d >= 0; --d) {
        view->shape[d] = shape[d];
        view->strides[d] = stride;
        stride *= shape[d] > 0 ? shape[d] : 1;
    }
}

static PyObject *gather(DeviceArrayObject *self, Plan *plan)
{
    DeviceArrayObject *result = devicearray_empty(self->device, self->dtype, plan->result_ndim,
                                                  plan->result_shape, 0);
    if (result == NULL) {
        return NULL;
    }
    if (array_size(result) == 0) {
        return (PyObject *)result;
    }
    DeviceArrayObject *table = plan_device_table(plan, self->device);
    if (table == NULL) {
        Py_DECREF(result);
        return NULL;
    }
    va_array src, dst;
    describe_geometry(&src, (char *)self->data + plan->source.offset, self->dtype, &plan->source);
    describe_contiguous(&dst, result->data, self->dtype, plan->source.ndim, plan->source.shape);
    va_status st = va_gather(self->device, &src, plan->axis, (const int64_t *)table->data, &dst);
    Py_DECREF(table); /* its memory goes back to the pool in stream order */
    if (st != VA_SUCCESS) {
        Py_DECREF(result);
        return raise_status(st);
    }
    return (PyObject *)result;
}

static PyObject *devicearray_subscript(PyObject *op, PyObject *key)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    Item items[MAX_ITEMS];
    int nitems = 0;
    if (split_key(key, items, &nitems) < 0) {
        return NULL;
    }
    ViewGeometry in, out;
    geometry_of(self, &in);
    int kind = basic_geometry(items, nitems, &in, &out);
    if (kind < 0) {
        return NULL;
    }
    if (kind == 0) {
        return (PyObject *)view_of(self, &out);
    }
    Plan plan;
    if (advanced_plan(items, nitems, &in, self->device, &plan) < 0) {
        return NULL;
    }
    PyObject *result = gather(self, &plan);
    plan_clear(&plan);
    return result;
}

/* ---- setting ---- */

static PyObject *shape_tuple_of(int ndim, const int64_t *shape)
{
    PyObject *t = PyTuple_New(ndim);
    for (int d = 0; t != NULL && d < ndim; ++d) {
        PyObject *v = PyLong_FromLongLong(shape[d]);
        if (v == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, d, v);
    }
    return t;
}

/* Strides of a value (vnd, vshape, vstrides) broadcast into a target shape, as
 * NumPy's assignment allows (leading length-1 dimensions of the value dropped). */
int broadcast_value(int vnd, const int64_t *vshape, const int64_t *vstrides, int tnd,
                           const int64_t *tshape, int64_t *strides)
{
    int skip = 0;
    while (vnd - skip > tnd && vshape[skip] == 1) {
        ++skip;
    }
    int ok = vnd - skip <= tnd;
    for (int d = 0; ok && d < tnd; ++d) {
        int s = d - (tnd - (vnd - skip));
        if (s < 0) {
            strides[d] = 0;
        }
        else if (vshape[skip + s] == tshape[d]) {
            strides[d] = vstrides[skip + s];
        }
        else if (vshape[skip + s] == 1) {
            strides[d] = 0;
        }
        else {
            ok = 0;
        }
    }
    if (!ok) {
        PyObject *a = shape_tuple_of(vnd, vshape), *b = shape_tuple_of(tnd, tshape);
        if (a != NULL && b != NULL) {
            PyErr_Format(PyExc_ValueError, "could not broadcast input array from shape %S into shape %S", a, b);
        }
        Py_XDECREF(a);
        Py_XDECREF(b);
        return -1;
    }
    return 0;
}

static int is_scalar(PyObject *value)
{
    return PyLong_Check(value) || PyFloat_Check(value) || PyComplex_Check(value) || PyArray_IsScalar(value, Generic);
}

static void extent_of(const va_array *a, uintptr_t *lo, uintptr_t *hi)
{
    int64_t low = 0, high = 0;
    for (int d = 0; d < a->ndim; ++d) {
        if (a->shape[d] == 0) {
            *lo = *hi = 0;
            return;
        }
        int64_t span = (a->shape[d] - 1) * a->strides[d];
        if (span < 0) {
            low += span;
        }
        else {
            high += span;
        }
    }
    *lo = (uintptr_t)a->data + low;
    *hi = (uintptr_t)a->data + high + va_dtype_size(a->dtype);
}

static int overlaps(const va_array *a, const va_array *b)
{
    uintptr_t alo, ahi, blo, bhi;
    extent_of(a, &alo, &ahi);
    extent_of(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

/* Whether `value` broadcasts into the target shape, found before anything is
 * uploaded or allocated (NumPy's ValueError otherwise). GPU arrays of other
 * libraries are checked once imported. */
static int value_fits(PyObject *value, int tnd, const int64_t *tshape)
{
    int64_t vshape[VA_MAX_NDIM], strides[VA_MAX_NDIM] = {0};
    int vnd = 0;
    if (is_scalar(value)) {
        return 0;
    }
    if (DeviceArray_Check(value)) {
        const DeviceArrayObject *v = (const DeviceArrayObject *)value;
        return broadcast_value(v->ndim, v->shape, strides, tnd, tshape, strides);
    }
    if (!PyArray_Check(value) && (PyObject_HasAttrString(value, "__cuda_array_interface__") ||
                                  PyObject_HasAttrString(value, "__dlpack__"))) {
        return 0;
    }
    PyArrayObject *host = (PyArrayObject *)PyArray_FromAny(value, NULL, 0, 0, 0, NULL);
    if (host == NULL) {
        return -1;
    }
    vnd = PyArray_NDIM(host) < VA_MAX_NDIM ? PyArray_NDIM(host) : VA_MAX_NDIM;
    for (int d = 0; d < vnd; ++d) {
        vshape[d] = PyArray_DIM(host, d);
    }
    Py_DECREF(host);
    return broadcast_value(vnd, vshape, strides, tnd, tshape, strides);
}

/* `value` as a DeviceArray on `device`: GPU data as is (through the host from
 * another device), host data cast to `dtype` as NumPy assigns and uploaded. */
static DeviceArrayObject *value_on_device(PyObject *value, int device, va_dtype dtype)
{
    PyObject *gpu = NULL;
    PyArrayObject *host = NULL;
    if (DeviceArray_Check(value)) {
        Py_INCREF(value);
        gpu = value;
    }
    else {
        gpu = interop_import(value);
        if (gpu == NULL) {
            return NULL;
        }
    }
    if (gpu != Py_None && ((DeviceArrayObject *)gpu)->device == device) {
        return (DeviceArrayObject *)gpu;
    }
    if (gpu != Py_None) {
        host = (PyArrayObject *)devicearray_to_host((DeviceArrayObject *)gpu);
    }
    else {
        PyArray_Descr *descr = descr_from_va(dtype); /* stolen by PyArray_FromAny */
        if (descr != NULL) {
            host = (PyArrayObject *)PyArray_FromAny(value, descr, 0, 0,
                                                    NPY_ARRAY_FORCECAST | NPY_ARRAY_CARRAY_RO, NULL);
        }
    }
    Py_DECREF(gpu);
    if (host == NULL) {
        return NULL;
    }
    DeviceArrayObject *result = devicearray_from_host(host, device, 0);
    Py_DECREF(host);
    return result;
}

int assign_to_view(DeviceArrayObject *base, const ViewGeometry *target, PyObject *value)
{
    va_array dst, src;
    va_status st;
    describe_geometry(&dst, (char *)base->data + target->offset, base->dtype, target);
    if (is_scalar(value)) {
        unsigned char packed[16];
        if (pack_scalar(value, base->dtype, packed) < 0) {
            return -1;
        }
        st = va_fill(base->device, &dst, packed);
        if (st != VA_SUCCESS) {
            raise_status(st);
            return -1;
        }
        return 0;
    }
    if (value_fits(value, target->ndim, target->shape) < 0) {
        return -1;
    }
    DeviceArrayObject *v = value_on_device(value, base->device, base->dtype);
    if (v == NULL) {
        return -1;
    }
    int64_t strides[VA_MAX_NDIM];
    if (broadcast_value(v->ndim, v->shape, v->strides, target->ndim, target->shape, strides) < 0) {
        Py_DECREF(v);
        return -1;
    }
    memset(&src, 0, sizeof(src));
    src.data = v->data;
    src.dtype = v->dtype;
    src.ndim = target->ndim;
    for (int d = 0; d < target->ndim; ++d) {
        src.shape[d] = target->shape[d];
        src.strides[d] = strides[d];
    }
    if (overlaps(&src, &dst)) { /* a[1:] = a[:-1]: read everything before writing */
        DeviceArrayObject *copy = devicearray_copy(v);
        Py_DECREF(v);
        if (copy == NULL) {
            return -1;
        }
        v = copy;
        src.data = v->data;
        broadcast_value(v->ndim, v->shape, v->strides, target->ndim, target->shape, src.strides);
    }
    st = va_copy_convert(base->device, &src, &dst);
    Py_DECREF(v);
    if (st != VA_SUCCESS) {
        raise_status(st);
        return -1;
    }
    return 0;
}

static int scatter(DeviceArrayObject *self, Plan *plan, PyObject *value)
{
    int result = -1;
    DeviceArrayObject *packed = NULL, *table = NULL;
    va_array src, dst;
    va_status st;
    ViewGeometry target; /* the packed value, in the result's shape */
    int64_t n = 0;
    if (checked_count(plan->result_ndim, plan->result_shape, &n)) {
        raise_too_big();
        goto fail;
    }
    if (value_fits(value, plan->result_ndim, plan->result_shape) < 0) {
        goto fail;
    }
    /* The value, broadcast and converted, packed in the result's shape first:
     * the scatter then walks one plain contiguous source. */
    packed = devicearray_empty(self->device, self->dtype, plan->result_ndim, plan->result_shape, 0);
    if (packed == NULL) {
        goto fail;
    }
    geometry_of(packed, &target);
    if (assign_to_view(packed, &target, value) < 0) {
        goto fail;
    }
    if (n > 0) {
        table = plan_device_table(plan, self->device);
        if (table == NULL) {
            goto fail;
        }
        describe_contiguous(&src, packed->data, self->dtype, plan->source.ndim, plan->source.shape);
        describe_geometry(&dst, (char *)self->data + plan->source.offset, self->dtype, &plan->source);
        st = va_scatter(self->device, &src, &dst, plan->axis, (const int64_t *)table->data);
        if (st != VA_SUCCESS) {
            raise_status(st);
            goto fail;
        }
    }
    result = 0;
fail:
    Py_XDECREF(packed);
    Py_XDECREF(table);
    return result;
}

static int devicearray_ass_subscript(PyObject *op, PyObject *key, PyObject *value)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    if (value == NULL) {
        PyErr_SetString(PyExc_ValueError, "cannot delete array elements");
        return -1;
    }
    if (devicearray_check_assignable(self) < 0) { /* NumPy checks this before the key */
        return -1;
    }
    Item items[MAX_ITEMS];
    int nitems = 0;
    if (split_key(key, items, &nitems) < 0) {
        return -1;
    }
    ViewGeometry in, out;
    geometry_of(self, &in);
    int kind = basic_geometry(items, nitems, &in, &out);
    if (kind < 0) {
        return -1;
    }
    if (kind == 0) {
        return assign_to_view(self, &out, value);
    }
    Plan plan;
    if (advanced_plan(items, nitems, &in, self->device, &plan) < 0) {
        return -1;
    }
    int st = scatter(self, &plan, value);
    plan_clear(&plan);
    return st;
}

static Py_ssize_t devicearray_length(PyObject *op)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    if (self->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of unsized object");
        return -1;
    }
    return (Py_ssize_t)self->shape[0];
}

PyObject *devicearray_iter(PyObject *op)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    if (self->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d array");
        return NULL;
    }
    /* iter(map(d.__getitem__, range(len(d)))): views of the first axis, made lazily */
    PyObject *range = NULL, *getitem = NULL, *mapped = NULL, *result = NULL;
    range = PyObject_CallFunction((PyObject *)&PyRange_Type, "L", (long long)self->shape[0]);
    if (range != NULL) {
        getitem = PyObject_GetAttrString(op, "__getitem__");
    }
    if (getitem != NULL) {
        mapped = PyObject_CallFunctionObjArgs((PyObject *)&PyMap_Type, getitem, range, NULL);
    }
    if (mapped != NULL) {
        result = PyObject_GetIter(mapped);
    }
    Py_XDECREF(range);
    Py_XDECREF(getitem);
    Py_XDECREF(mapped);
    return result;
}

PyMappingMethods devicearray_as_mapping = {devicearray_length, devicearray_subscript,
                                           devicearray_ass_subscript};

/* ---- the index arithmetic, exposed for tests on host arrays ---- */

static int geometry_from_args(PyObject *shape, PyObject *strides, ViewGeometry *g)
{
    int nd = 0, ns = 0;
    int64_t st[VA_MAX_NDIM];
    if (parse_shape(shape, 0, &nd, g->shape) < 0) {
        return -1;
    }
    PyObject *seq = PySequence_Fast(strides, "strides must be a sequence");
    if (seq == NULL) {
        return -1;
    }
    ns = (int)PySequence_Fast_GET_SIZE(seq);
    for (int d = 0; d < ns && d < VA_MAX_NDIM; ++d) {
        st[d] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, d));
    }
    Py_DECREF(seq);
    if (PyErr_Occurred()) {
        return -1;
    }
    if (ns != nd) {
        PyErr_SetString(PyExc_ValueError, "shape and strides differ in length");
        return -1;
    }
    g->ndim = nd;
    g->offset = 0;
    memcpy(g->strides, st, sizeof(int64_t) * nd);
    /* the geometry of a possible array only: what a DeviceArray could have */
    int64_t count = 0, low = 0, high = 0;
    if (checked_array_size(nd, g->shape, 1, &count) < 0 ||
        checked_view_extent(nd, g->shape, g->strides, &low, &high) < 0) {
        return -1;
    }
    return 0;
}

static PyObject *geometry_tuple(const ViewGeometry *g)
{
    PyObject *shape = shape_tuple_of(g->ndim, g->shape);
    PyObject *strides = shape_tuple_of(g->ndim, g->strides);
    PyObject *result = NULL;
    if (shape != NULL && strides != NULL) {
        result = Py_BuildValue("(LOO)", (long long)g->offset, shape, strides);
    }
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    return result;
}

static PyObject *mm_view_meta(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"shape", "strides", "itemsize", "key"};
    PyObject *values[4];
    if (parse_arguments("_view_meta", args, nargs, kwnames, names, 4, 4, 4, values) < 0) {
        return NULL;
    }
    ViewGeometry in, out;
    Item items[MAX_ITEMS];
    int nitems = 0;
    if (geometry_from_args(values[0], values[1], &in) < 0 || split_key(values[3], items, &nitems) < 0) {
        return NULL;
    }
    int kind = basic_geometry(items, nitems, &in, &out);
    if (kind < 0) {
        return NULL;
    }
    if (kind == 1) {
        PyErr_SetString(PyExc_ValueError, "_view_meta: the key holds index arrays (see _index_plan)");
        return NULL;
    }
    return geometry_tuple(&out);
}

static PyObject *mm_index_plan(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"shape", "strides", "key"};
    PyObject *values[3];
    if (parse_arguments("_index_plan", args, nargs, kwnames, names, 3, 3, 3, values) < 0) {
        return NULL;
    }
    ViewGeometry in;
    Item items[MAX_ITEMS];
    int nitems = 0;
    if (geometry_from_args(values[0], values[1], &in) < 0 || split_key(values[2], items, &nitems) < 0) {
        return NULL;
    }
    Plan plan;
    if (advanced_plan(items, nitems, &in, -1, &plan) < 0) {
        return NULL;
    }
    PyObject *source = geometry_tuple(&plan.source);
    PyObject *shape = shape_tuple_of(plan.result_ndim, plan.result_shape);
    PyObject *result = NULL;
    if (source != NULL && shape != NULL) {
        result = Py_BuildValue("(OiOO)", source, plan.axis, (PyObject *)plan.table, shape);
    }
    Py_XDECREF(source);
    Py_XDECREF(shape);
    plan_clear(&plan);
    return result;
}

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef indexing_functions[] = {
    {"_view_meta", FASTCALL(mm_view_meta),
     "_view_meta(shape, strides, itemsize, key)\n--\n\n(offset, shape, strides) in bytes of the view a "
     "basic key selects (tests check it against NumPy's views)."},
    {"_index_plan", FASTCALL(mm_index_plan),
     "_index_plan(shape, strides, key)\n--\n\n((offset, shape, strides), axis, table, result_shape): the "
     "gather an index-array key makes; the table axis reads byte offsets from `table`."},
    {NULL, NULL, 0, NULL},
};

int indexing_init(PyObject *module)
{
    return PyModule_AddFunctions(module, indexing_functions);
}
