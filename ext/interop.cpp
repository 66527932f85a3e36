/* Zero-copy exchange with other GPU libraries: __cuda_array_interface__ (v2/v3)
 * and DLPack, both ways, with the stream ordering each protocol asks for. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "dlpack_abi.h"
#include "shapes.h"

/* ---- helpers ---- */

/* A CUDA stream handle as the protocols pass it: 1 is the legacy default
 * stream, 2 the per-thread default stream, others are cudaStream_t values. */
static void *protocol_stream(long long value)
{
    return (void *)(intptr_t)value;
}

static PyObject *library_stream_int(int device)
{
    void *stream = NULL;
    va_status st = va_stream(device, &stream);
    if (st != VA_SUCCESS) {
        return raise_status(st);
    }
    return PyLong_FromVoidPtr(stream);
}

/* typestr must be a str, as NumPy's __array_interface__ asks; a subclass is
 * copied into an exact str first, so that no method of the user's runs
 * inside NumPy's conversion. */
static int dtype_from_typestr(PyObject *typestr, va_dtype *dtype)
{
    PyObject *exact = NULL;
    PyArray_Descr *descr = NULL;
    int rc = -1;
    if (!PyUnicode_Check(typestr)) {
        PyErr_Format(PyExc_TypeError, "__cuda_array_interface__ typestr must be a str, not %.100s",
                     Py_TYPE(typestr)->tp_name);
        return -1;
    }
    exact = PyUnicode_FromObject(typestr);
    if (exact == NULL || !PyArray_DescrConverter(exact, &descr)) {
        goto fail;
    }
    if (va_dtype_from_descr(descr, dtype) < 0 || !PyArray_ISNBO(descr->byteorder)) {
        raise_unsupported_dtype((PyObject *)descr);
        goto fail;
    }
    rc = 0;
fail:
    Py_XDECREF(descr);
    Py_XDECREF(exact);
    return rc;
}

/* shape or strides: a tuple (or list) of ints. The items are read from a tuple
 * copy, so an item's __index__ cannot change what the loop walks. */
static int int64_sequence(PyObject *seq, const char *what, int64_t *values, int *n)
{
    PyObject *copy = NULL;
    int rc = -1;
    if (!PyTuple_Check(seq) && !PyList_Check(seq)) {
        PyErr_Format(PyExc_TypeError, "__cuda_array_interface__ %s must be a tuple, not %.100s",
                     what, Py_TYPE(seq)->tp_name);
        return -1;
    }
    copy = PySequence_Tuple(seq);
    if (copy == NULL) {
        return -1;
    }
    Py_ssize_t len = PyTuple_GET_SIZE(copy);
    if (len > VA_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported", VA_MAX_NDIM);
        goto fail;
    }
    for (Py_ssize_t i = 0; i < len; ++i) {
        PyObject *item = PyTuple_GET_ITEM(copy, i);
        if (PyFloat_Check(item) || !PyIndex_Check(item)) {
            PyErr_Format(PyExc_TypeError, "__cuda_array_interface__ %s must hold integers, not %.100s",
                         what, Py_TYPE(item)->tp_name);
            goto fail;
        }
        values[i] = PyLong_AsLongLong(item);
        if (values[i] == -1 && PyErr_Occurred()) {
            if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Format(PyExc_ValueError, "__cuda_array_interface__ %s does not fit in int64",
                             what);
            }
            goto fail;
        }
    }
    *n = (int)len;
    rc = 0;
fail:
    Py_DECREF(copy);
    return rc;
}

/* The checks NumPy makes of a shape, and those the GPU needs of a layout, made
 * before any CUDA call: no negative dimension, a size in bytes and every
 * element's offset that fit in int64, byte strides that are multiples of the
 * item size, an aligned data pointer, and no NULL pointer with elements. */
static int check_layout(const char *protocol, const void *ptr, int ndim, const int64_t *shape,
                        const int64_t *strides, int64_t itemsize, int64_t *count_out)
{
    int64_t count = 1, bytes = itemsize, low = 0, high = 0;
    for (int d = 0; d < ndim; ++d) {
        if (shape[d] < 0) {
            PyErr_Format(PyExc_ValueError, "%s: negative dimensions are not allowed", protocol);
            return -1;
        }
        /* Zero-size arrays too: no dimension product may overflow. */
        if (checked_mul(bytes, shape[d] > 0 ? shape[d] : 1, &bytes)) {
            PyErr_Format(PyExc_ValueError, "%s: array is too big (the size in bytes overflows int64)",
                         protocol);
            return -1;
        }
        count *= shape[d];
    }
    for (int d = 0; d < ndim; ++d) {
        if (strides[d] % itemsize != 0) {
            PyErr_Format(PyExc_ValueError,
                         "%s: stride %lld of dimension %d is not a multiple of the item size %lld",
                         protocol, (long long)strides[d], d, (long long)itemsize);
            return -1;
        }
    }
    if (checked_view_extent(ndim, shape, strides, &low, &high) < 0) {
        return -1;
    }
    if (count > 0) {
        if (ptr == NULL) {
            PyErr_Format(PyExc_ValueError, "%s: NULL data pointer for %lld elements", protocol,
                         (long long)count);
            return -1;
        }
        uintptr_t p = (uintptr_t)ptr;
        if (p < (uintptr_t)(-(low + 1)) + 1 || p + (uintptr_t)high < p ||
            p + (uintptr_t)high > UINTPTR_MAX - (uintptr_t)itemsize) {
            PyErr_Format(PyExc_ValueError, "%s: the elements lie outside the address space", protocol);
            return -1;
        }
        if (p % (uintptr_t)itemsize != 0) {
            PyErr_Format(PyExc_ValueError, "%s: GPU arrays must be aligned to their element size",
                         protocol);
            return -1;
        }
    }
    *count_out = count;
    return 0;
}

/* A new reference to cai[key], NULL when absent (-1 on a lookup error). */
static int cai_item(PyObject *cai, const char *key, PyObject **value)
{
    PyObject *name = PyUnicode_InternFromString(key);
    if (name == NULL) {
        return -1;
    }
    *value = PyDict_GetItemWithError(cai, name);
    Py_DECREF(name);
    if (*value == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    Py_INCREF(*value);
    return 0;
}

static int owning_device(void *ptr, int64_t count, int *device)
{
    *device = 0;
    if (ptr == NULL || count == 0) {
        return 0;
    }
    va_status st = va_pointer_device(ptr, device, NULL);
    if (st == VA_ERROR_INVALID_VALUE) {
        PyErr_SetString(PyExc_ValueError, "the array interface points at memory CUDA does not know");
        return -1;
    }
    if (st != VA_SUCCESS) {
        raise_status(st);
        return -1;
    }
    return 0;
}

/* ---- import: __cuda_array_interface__ ---- */

/* Every item is held by a strong reference and everything is read and checked
 * before the first CUDA call: the items' conversions run user code, which may
 * change or empty the dict. */
static PyObject *import_cai(PyObject *obj, PyObject *cai)
{
    PyObject *shape_obj = NULL, *typestr = NULL, *data = NULL, *strides_obj = NULL,
             *stream_obj = NULL, *mask = NULL, *result = NULL;
    DeviceArrayObject *view = NULL;
    va_dtype dtype;
    int64_t shape[VA_MAX_NDIM], strides[VA_MAX_NDIM];
    int ndim = 0, nstrides = 0, readonly = 0, device = 0;
    int64_t count = 0, itemsize = 0;
    long long stream = 0;
    void *ptr = NULL;
    if (!PyDict_Check(cai)) {
        PyErr_Format(PyExc_TypeError, "__cuda_array_interface__ must be a dict, not %.100s",
                     Py_TYPE(cai)->tp_name);
        return NULL;
    }
    if (cai_item(cai, "shape", &shape_obj) < 0 || cai_item(cai, "typestr", &typestr) < 0 ||
        cai_item(cai, "data", &data) < 0 || cai_item(cai, "strides", &strides_obj) < 0 ||
        cai_item(cai, "stream", &stream_obj) < 0 || cai_item(cai, "mask", &mask) < 0) {
        goto fail;
    }
    if (shape_obj == NULL || typestr == NULL || data == NULL) {
        PyErr_Format(PyExc_ValueError, "__cuda_array_interface__ lacks the '%s' key",
                     shape_obj == NULL ? "shape" : typestr == NULL ? "typestr" : "data");
        goto fail;
    }
    if (mask != NULL && mask != Py_None) {
        PyErr_SetString(PyExc_ValueError, "masked arrays are not supported");
        goto fail;
    }
    if (dtype_from_typestr(typestr, &dtype) < 0 ||
        int64_sequence(shape_obj, "shape", shape, &ndim) < 0) {
        goto fail;
    }
    itemsize = (int64_t)va_dtype_size(dtype);
    if (strides_obj != NULL && strides_obj != Py_None) {
        if (int64_sequence(strides_obj, "strides", strides, &nstrides) < 0) {
            goto fail;
        }
        if (nstrides != ndim) {
            PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__ strides and shape differ in length");
            goto fail;
        }
    }
    else {
        /* C order; checked first, so the products fit. */
        int64_t step = itemsize;
        for (int d = ndim - 1; d >= 0; --d) {
            strides[d] = step;
            if (checked_mul(step, shape[d] > 0 ? shape[d] : 1, &step)) {
                step = 0; /* refused below as too big */
            }
        }
    }
    if (!PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
        PyErr_SetString(PyExc_TypeError, "__cuda_array_interface__ data must be a 2-tuple "
                        "(pointer, read-only flag)");
        goto fail;
    }
    if (!PyLong_Check(PyTuple_GET_ITEM(data, 0))) {
        PyErr_Format(PyExc_TypeError, "__cuda_array_interface__ data pointer must be an int, not %.100s",
                     Py_TYPE(PyTuple_GET_ITEM(data, 0))->tp_name);
        goto fail;
    }
    ptr = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    if (ptr == NULL && PyErr_Occurred()) {
        goto fail;
    }
    if ((readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1))) < 0) {
        goto fail;
    }
    if (stream_obj != NULL && stream_obj != Py_None) {
        if (PyFloat_Check(stream_obj) || !PyIndex_Check(stream_obj)) {
            PyErr_Format(PyExc_TypeError, "__cuda_array_interface__ stream must be an int or None, "
                         "not %.100s", Py_TYPE(stream_obj)->tp_name);
            goto fail;
        }
        stream = PyLong_AsLongLong(stream_obj);
        if (stream == -1 && PyErr_Occurred()) {
            goto fail;
        }
        if (stream == 0) {
            PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__ stream 0 is not allowed");
            goto fail;
        }
    }
    if (check_layout("__cuda_array_interface__", ptr, ndim, shape, strides, itemsize, &count) < 0) {
        goto fail;
    }
    /* The first CUDA call. */
    if (owning_device(ptr, count, &device) < 0) {
        goto fail;
    }
    /* v3: the producer's work on `stream` must finish before we read. Without a
     * stream key (v2) the producer's work may still be queued on the legacy
     * default stream, which our non-blocking stream does not follow by itself. */
    if (count > 0 && (stream_obj == NULL || stream_obj != Py_None)) {
        va_status st = va_stream_wait_external(device, protocol_stream(stream_obj == NULL ? 1 : stream));
        if (st != VA_SUCCESS) {
            raise_status(st);
            goto fail;
        }
    }
    view = devicearray_view(ptr, device, dtype, ndim, shape, strides, obj);
    if (view != NULL) {
        view->readonly = readonly;
    }
    result = (PyObject *)view;
fail:
    Py_XDECREF(shape_obj);
    Py_XDECREF(typestr);
    Py_XDECREF(data);
    Py_XDECREF(strides_obj);
    Py_XDECREF(stream_obj);
    Py_XDECREF(mask);
    return result;
}

/* ---- import: DLPack ---- */

/* Capsule destructors run while an exception may be set (a failed import): it
 * is kept as it was. */
static void release_legacy_capsule(PyObject *capsule)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    DLManagedTensorABI *t = (DLManagedTensorABI *)PyCapsule_GetPointer(capsule, "myModule.dlpack_owner");
    if (t != NULL && t->deleter != NULL) {
        t->deleter(t);
    }
    PyErr_Restore(type, value, traceback);
}

static void release_versioned_capsule(PyObject *capsule)
{
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    DLManagedTensorVersionedABI *t =
        (DLManagedTensorVersionedABI *)PyCapsule_GetPointer(capsule, "myModule.dlpack_owner_v");
    if (t != NULL && t->deleter != NULL) {
        t->deleter(t);
    }
    PyErr_Restore(type, value, traceback);
}

static int dtype_from_dlpack(DLDataTypeABI t, va_dtype *dtype)
{
    if (t.lanes != 1 || va_dtype_from_dlpack(t.code, t.bits, dtype) < 0) {
        PyErr_Format(PyExc_TypeError,
                     "unsupported DLPack dtype (code %d, %d bits, %d lanes): myModule supports %s",
                     t.code, t.bits, t.lanes, supported_dtypes_and());
        return -1;
    }
    return 0;
}

/* The producer's tensor, checked before it is taken: on the GPU that
 * __dlpack_device__ named, a supported dtype, and a layout check_layout
 * accepts. `strides` receives byte strides. */
static int check_dltensor(const DLTensorABI *t, int device, va_dtype *dtype, int64_t *strides)
{
    if (t->device.device_type != DLPACK_DEVICE_CUDA &&
        t->device.device_type != DLPACK_DEVICE_CUDA_MANAGED) {
        PyErr_Format(PyExc_BufferError,
                     "the DLPack tensor is on device type %d: myModule takes CUDA (%d) and CUDA "
                     "managed (%d) memory", (int)t->device.device_type, (int)DLPACK_DEVICE_CUDA,
                     (int)DLPACK_DEVICE_CUDA_MANAGED);
        return -1;
    }
    if (t->device.device_id != device) {
        PyErr_Format(PyExc_BufferError,
                     "the DLPack tensor is on GPU %d but __dlpack_device__ said GPU %d",
                     (int)t->device.device_id, device);
        return -1;
    }
    if (dtype_from_dlpack(t->dtype, dtype) < 0) {
        return -1;
    }
    if (t->ndim < 0 || t->ndim > VA_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "DLPack: ndim %d; at most %d dimensions are supported",
                     (int)t->ndim, VA_MAX_NDIM);
        return -1;
    }
    if (t->ndim > 0 && t->shape == NULL) {
        PyErr_SetString(PyExc_ValueError, "DLPack: NULL shape pointer");
        return -1;
    }
    int64_t itemsize = (int64_t)va_dtype_size(*dtype), step = itemsize;
    for (int d = t->ndim - 1; d >= 0; --d) {
        if (t->strides == NULL) {
            strides[d] = step;
            if (checked_mul(step, t->shape[d] > 0 ? t->shape[d] : 1, &step)) {
                step = 0; /* check_layout refuses the shape */
            }
        }
        else if (checked_mul(t->strides[d], itemsize, &strides[d])) {
            PyErr_SetString(PyExc_ValueError, "DLPack: a stride in bytes overflows int64");
            return -1;
        }
    }
    uintptr_t data = 0;
    if (__builtin_add_overflow((uintptr_t)t->data, t->byte_offset, &data)) {
        PyErr_SetString(PyExc_ValueError, "DLPack: data + byte_offset overflows the address space");
        return -1;
    }
    int64_t count = 0;
    return check_layout("DLPack", (const void *)data, t->ndim, t->shape, strides, itemsize, &count);
}

/* The versions and flags this module understands. */
#define DLPACK_KNOWN_FLAGS \
    (DLPACK_FLAG_READ_ONLY | DLPACK_FLAG_IS_COPIED | DLPACK_FLAG_IS_SUBBYTE_TYPE_PADDED)

static int capsule_name_is(PyObject *capsule, const char *name)
{
    const char *have = PyCapsule_GetName(capsule);
    return have != NULL && strcmp(have, name) == 0;
}

/* Takes the capsule `obj.__dlpack__` returned, once it is known to be good:
 * until then the producer's capsule destructor still owns the tensor. */
static PyObject *view_of_capsule(PyObject *capsule, int device, va_status stream_status)
{
    DLManagedTensorVersionedABI *tv = NULL;
    DLManagedTensorABI *tl = NULL;
    const DLTensorABI *tensor = NULL;
    PyObject *owner = NULL;
    DeviceArrayObject *view = NULL;
    va_dtype dtype;
    int64_t strides[VA_MAX_NDIM];
    if (!PyCapsule_CheckExact(capsule)) {
        PyErr_Format(PyExc_TypeError, "__dlpack__ must return a PyCapsule, not %.100s",
                     Py_TYPE(capsule)->tp_name);
        return NULL;
    }
    if (capsule_name_is(capsule, "dltensor_versioned")) {
        tv = (DLManagedTensorVersionedABI *)PyCapsule_GetPointer(capsule, "dltensor_versioned");
        if (tv == NULL) {
            return NULL;
        }
        if (tv->version.major != 1) {
            PyErr_Format(PyExc_BufferError, "DLPack version %u.%u: this module reads 1.x",
                         tv->version.major, tv->version.minor);
            return NULL;
        }
        if ((tv->flags & ~(uint64_t)DLPACK_KNOWN_FLAGS) != 0) {
            PyErr_Format(PyExc_BufferError, "DLPack flags 0x%llx hold bits this module does not know",
                         (unsigned long long)tv->flags);
            return NULL;
        }
        tensor = &tv->dl_tensor;
    }
    else if (capsule_name_is(capsule, "dltensor")) {
        tl = (DLManagedTensorABI *)PyCapsule_GetPointer(capsule, "dltensor");
        if (tl == NULL) {
            return NULL;
        }
        tensor = &tl->dl_tensor;
    }
    else if (capsule_name_is(capsule, "used_dltensor") ||
             capsule_name_is(capsule, "used_dltensor_versioned")) {
        PyErr_SetString(PyExc_BufferError, "__dlpack__ returned a capsule that was already consumed");
        return NULL;
    }
    else {
        PyErr_SetString(PyExc_TypeError, "__dlpack__ returned a capsule that is not named "
                        "'dltensor' or 'dltensor_versioned'");
        return NULL;
    }
    if (check_dltensor(tensor, device, &dtype, strides) < 0) {
        return NULL;
    }
    /* A good capsule, but no GPU to order work on: left to its producer. */
    if (stream_status != VA_SUCCESS) {
        return raise_status(stream_status);
    }
    if (tv != NULL) {
        owner = PyCapsule_New(tv, "myModule.dlpack_owner_v", release_versioned_capsule);
    }
    else {
        owner = PyCapsule_New(tl, "myModule.dlpack_owner", release_legacy_capsule);
    }
    if (owner == NULL) {
        return NULL; /* not renamed: the producer's destructor still frees it */
    }
    PyCapsule_SetName(capsule, tv != NULL ? "used_dltensor_versioned" : "used_dltensor");
    view = devicearray_view((char *)tensor->data + tensor->byte_offset, device, dtype,
                            tensor->ndim, tensor->shape, strides, owner);
    if (view != NULL) {
        view->readonly = tv != NULL && (tv->flags & DLPACK_FLAG_READ_ONLY) != 0;
    }
    Py_DECREF(owner);
    return (PyObject *)view;
}

static PyObject *import_dlpack(PyObject *obj, int device)
{
    PyObject *stream = NULL, *args = NULL, *kwargs = NULL, *method = NULL, *capsule = NULL,
             *result = NULL;
    void *handle = NULL;
    /* Without a GPU there is no work to order after (stream None): the capsule
     * is still asked for and checked, so a malformed one is reported as such. */
    va_status stream_status = va_stream(device, &handle);
    if (stream_status == VA_SUCCESS) {
        stream = PyLong_FromVoidPtr(handle);
    }
    else if (stream_status == VA_ERROR_NO_DEVICE) {
        Py_INCREF(Py_None);
        stream = Py_None;
    }
    else {
        return raise_status(stream_status);
    }
    if (stream == NULL || (args = PyTuple_New(0)) == NULL ||
        (kwargs = Py_BuildValue("{s:O,s:(ii)}", "stream", stream, "max_version", 1, 1)) == NULL ||
        (method = PyObject_GetAttrString(obj, "__dlpack__")) == NULL) {
        goto fail;
    }
    /* Ask for a versioned capsule; producers that predate it get the old call. */
    capsule = PyObject_Call(method, args, kwargs);
    if (capsule == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        if (PyDict_DelItemString(kwargs, "max_version") < 0) {
            goto fail;
        }
        capsule = PyObject_Call(method, args, kwargs);
    }
    if (capsule != NULL) {
        result = view_of_capsule(capsule, device, stream_status);
    }
fail:
    Py_XDECREF(capsule);
    Py_XDECREF(method);
    Py_XDECREF(kwargs);
    Py_XDECREF(args);
    Py_XDECREF(stream);
    return result;
}

/* (type, id) from a 2-tuple of ints: TypeError for anything else (a list, None). */
static int int_pair(PyObject *pair, const char *what, int *first, int *second)
{
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_Format(PyExc_TypeError, "%s must be a tuple of two ints, not %.100s", what,
                     Py_TYPE(pair)->tp_name);
        return -1;
    }
    int *out[2] = {first, second};
    for (int i = 0; i < 2; ++i) {
        PyObject *item = PyTuple_GET_ITEM(pair, i);
        if (PyFloat_Check(item) || !PyIndex_Check(item)) {
            PyErr_Format(PyExc_TypeError, "%s must be a tuple of two ints, not one holding %.100s",
                         what, Py_TYPE(item)->tp_name);
            return -1;
        }
        int overflow = 0;
        long v = PyLong_AsLongAndOverflow(item, &overflow);
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (overflow != 0 || v < INT_MIN || v > INT_MAX) {
            PyErr_Format(PyExc_OverflowError, "%s: a value does not fit in a C int", what);
            return -1;
        }
        *out[i] = (int)v;
    }
    return 0;
}

/* (device_type, device_id) from __dlpack_device__, or -1 with an exception. */
static int dlpack_device_of(PyObject *obj, int *type, int *id)
{
    PyObject *dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
    if (dev == NULL) {
        return -1;
    }
    int rc = int_pair(dev, "__dlpack_device__()'s result", type, id);
    Py_DECREF(dev);
    if (rc == 0 && (*type == DLPACK_DEVICE_CUDA || *type == DLPACK_DEVICE_CUDA_MANAGED) && *id < 0) {
        PyErr_Format(PyExc_ValueError, "__dlpack_device__ gave GPU %d", *id);
        rc = -1;
    }
    return rc;
}

static PyObject *optional_attr(PyObject *obj, const char *name)
{
    PyObject *value = PyObject_GetAttrString(obj, name);
    if (value == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
    }
    return value;
}

PyObject *interop_import(PyObject *obj)
{
    PyObject *cai = optional_attr(obj, "__cuda_array_interface__");
    PyObject *has_dlpack = NULL;
    if (cai == NULL && PyErr_Occurred()) {
        return NULL;
    }
    /* The array interface is quickest to read; but one without a stream key
     * (PyTorch's v2) can't order our reads after the producer's work, which
     * DLPack can: only then is DLPack looked for. */
    int cai_has_stream = cai != NULL && (!PyDict_Check(cai) ||
                                         PyDict_GetItemString(cai, "stream") != NULL);
    if (!cai_has_stream) {
        has_dlpack = optional_attr(obj, "__dlpack_device__");
        if (has_dlpack == NULL && PyErr_Occurred()) {
            Py_XDECREF(cai);
            return NULL;
        }
    }
    if (cai != NULL && (cai_has_stream || has_dlpack == NULL)) {
        Py_XDECREF(has_dlpack);
        PyObject *r = import_cai(obj, cai);
        Py_DECREF(cai);
        return r;
    }
    Py_XDECREF(cai);
    if (has_dlpack == NULL) {
        Py_RETURN_NONE;
    }
    Py_DECREF(has_dlpack);
    int type = 0, id = 0;
    if (dlpack_device_of(obj, &type, &id) < 0) {
        return NULL;
    }
    if (type != DLPACK_DEVICE_CUDA && type != DLPACK_DEVICE_CUDA_MANAGED) {
        Py_RETURN_NONE; /* host memory: NumPy's conversion takes it */
    }
    return import_dlpack(obj, id);
}

int interop_after_write(PyObject *obj, int device)
{
    PyObject *cai = optional_attr(obj, "__cuda_array_interface__");
    PyObject *stream_obj = NULL;
    va_status st = VA_SUCCESS;
    if (cai != NULL && PyDict_Check(cai)) {
        /* Held: the conversion runs the item's __index__. */
        if (cai_item(cai, "stream", &stream_obj) < 0) {
            Py_DECREF(cai);
            return -1;
        }
        if (stream_obj != NULL && stream_obj != Py_None) {
            long long s = PyLong_AsLongLong(stream_obj);
            Py_DECREF(stream_obj);
            if (s == -1 && PyErr_Occurred()) {
                Py_DECREF(cai);
                return -1;
            }
            st = s == 0 ? va_synchronize(device) : va_external_wait_library(device, protocol_stream(s));
        }
        else {
            Py_XDECREF(stream_obj);
            st = va_synchronize(device);
        }
    }
    else {
        PyErr_Clear();
        /* We can't name the owner's stream: finish the work before returning. */
        Py_BEGIN_ALLOW_THREADS
        st = va_synchronize(device);
        Py_END_ALLOW_THREADS
    }
    Py_XDECREF(cai);
    if (st != VA_SUCCESS) {
        raise_status(st);
        return -1;
    }
    return 0;
}

/* ---- export ---- */

PyObject *devicearray_cai(PyObject *op, void *)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    PyObject *shape = NULL, *strides = NULL, *stream = NULL, *result = NULL;
    shape = PyTuple_New(self->ndim);
    if (shape == NULL) {
        goto done;
    }
    for (int d = 0; d < self->ndim; ++d) {
        PyTuple_SET_ITEM(shape, d, PyLong_FromLongLong(self->shape[d]));
    }
    if (devicearray_is_c_contiguous(self)) {
        Py_INCREF(Py_None);
        strides = Py_None;
    }
    else {
        strides = PyTuple_New(self->ndim);
        if (strides == NULL) {
            goto done;
        }
        for (int d = 0; d < self->ndim; ++d) {
            PyTuple_SET_ITEM(strides, d, PyLong_FromLongLong(self->strides[d]));
        }
    }
    /* The consumer may write there unseen. */
    (void)va_note_address_exported();
    /* Consumers order their work after what is queued on our stream. */
    stream = library_stream_int(self->device);
    if (stream == NULL) {
        goto done;
    }
    result = Py_BuildValue("{s:O,s:s,s:(NO),s:O,s:i,s:O}", "shape", shape, "typestr",
                           typestr_of(self->dtype), "data", PyLong_FromVoidPtr(self->data),
                           self->readonly ? Py_True : Py_False,
                           "strides", strides, "version", 3, "stream", stream);
done:
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(stream);
    return result;
}

/* What an exported capsule owns: the tensor, its shape and strides, and a
 * reference to the DeviceArray, dropped by the deleter (with the GIL, which the
 * consumer may not hold). */
typedef struct {
    DLManagedTensorVersionedABI versioned;
    DLManagedTensorABI legacy;
    int64_t shape[VA_MAX_NDIM];
    int64_t strides[VA_MAX_NDIM];
    PyObject *array;
} ExportContext;

static void release_context(ExportContext *ctx)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_XDECREF(ctx->array);
    PyGILState_Release(gil);
    free(ctx);
}

static void delete_versioned(DLManagedTensorVersionedABI *t)
{
    release_context((ExportContext *)t->manager_ctx);
}

static void delete_legacy(DLManagedTensorABI *t)
{
    release_context((ExportContext *)t->manager_ctx);
}

/* An unconsumed capsule still owns its tensor. */
static void capsule_versioned_destructor(PyObject *capsule)
{
    if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
        DLManagedTensorVersionedABI *t =
            (DLManagedTensorVersionedABI *)PyCapsule_GetPointer(capsule, "dltensor_versioned");
        t->deleter(t);
    }
}

static void capsule_legacy_destructor(PyObject *capsule)
{
    if (PyCapsule_IsValid(capsule, "dltensor")) {
        DLManagedTensorABI *t = (DLManagedTensorABI *)PyCapsule_GetPointer(capsule, "dltensor");
        t->deleter(t);
    }
}

PyObject *devicearray_dlpack(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"stream", "max_version", "dl_device", "copy"};
    PyObject *values[4];
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    DeviceArrayObject *source = self;
    int versioned = 0;
    if (parse_arguments("__dlpack__", args, nargs, kwnames, names, 4, 0, 1, values) < 0) {
        return NULL;
    }
    if (values[1] != NULL && values[1] != Py_None) {
        int major = 0, minor = 0;
        if (int_pair(values[1], "max_version", &major, &minor) < 0) {
            return NULL;
        }
        versioned = major >= 1;
    }
    if (values[2] != NULL && values[2] != Py_None) {
        int type = 0, id = 0;
        if (int_pair(values[2], "dl_device", &type, &id) < 0) {
            return NULL;
        }
        int type_ok = type == DLPACK_DEVICE_CUDA || (type == DLPACK_DEVICE_CUDA_MANAGED && self->managed);
        if (!type_ok || id != self->device) {
            PyErr_SetString(PyExc_BufferError, "DeviceArray can only be exported to its own GPU");
            return NULL;
        }
    }
    /* A legacy capsule cannot say "read-only": its consumer would write. */
    if (self->readonly && !versioned && values[3] != Py_True) {
        PyErr_SetString(PyExc_BufferError, "a read-only DeviceArray is exported only as a versioned "
                        "capsule (max_version >= (1, 0)) or with copy=True");
        return NULL;
    }
    /* The consumer may write there unseen. */
    (void)va_note_address_exported();
    /* The consumer's stream waits for our work; -1 asks for no ordering. */
    long long stream = 1;
    if (values[0] != NULL && values[0] != Py_None) {
        stream = PyLong_AsLongLong(values[0]);
        if (stream == -1 && PyErr_Occurred()) {
            return NULL;
        }
    }
    if (stream != -1) {
        va_status st = va_external_wait_library(self->device, protocol_stream(stream == 0 ? 1 : stream));
        if (st != VA_SUCCESS) {
            return raise_status(st);
        }
    }
    int copied = 0;
    if (values[3] == Py_True) {
        source = devicearray_copy(self);
        if (source == NULL) {
            return NULL;
        }
        if (stream != -1) {
            va_status st = va_external_wait_library(self->device, protocol_stream(stream == 0 ? 1 : stream));
            if (st != VA_SUCCESS) {
                Py_DECREF(source);
                return raise_status(st);
            }
        }
        copied = 1;
    }
    else {
        Py_INCREF(source);
    }
    ExportContext *ctx = (ExportContext *)calloc(1, sizeof(ExportContext));
    if (ctx == NULL) {
        Py_DECREF(source);
        return PyErr_NoMemory();
    }
    ctx->array = (PyObject *)source;
    int64_t itemsize = (int64_t)va_dtype_size(source->dtype);
    for (int d = 0; d < source->ndim; ++d) {
        ctx->shape[d] = source->shape[d];
        ctx->strides[d] = source->strides[d] / itemsize;
    }
    DLTensorABI tensor;
    memset(&tensor, 0, sizeof(tensor));
    tensor.data = source->data;
    tensor.device.device_type = DLPACK_DEVICE_CUDA;
    tensor.device.device_id = source->device;
    tensor.ndim = source->ndim;
    tensor.dtype.code = dlpack_code_of(source->dtype);
    tensor.dtype.bits = (uint8_t)(8 * itemsize);
    tensor.dtype.lanes = 1;
    tensor.shape = ctx->shape;
    tensor.strides = ctx->strides;
    PyObject *capsule;
    if (versioned) {
        ctx->versioned.version.major = 1;
        ctx->versioned.version.minor = 0;
        ctx->versioned.manager_ctx = ctx;
        ctx->versioned.deleter = delete_versioned;
        ctx->versioned.flags = copied ? DLPACK_FLAG_IS_COPIED
                                      : source->readonly ? DLPACK_FLAG_READ_ONLY : 0;
        ctx->versioned.dl_tensor = tensor;
        capsule = PyCapsule_New(&ctx->versioned, "dltensor_versioned", capsule_versioned_destructor);
    }
    else {
        ctx->legacy.dl_tensor = tensor;
        ctx->legacy.manager_ctx = ctx;
        ctx->legacy.deleter = delete_legacy;
        capsule = PyCapsule_New(&ctx->legacy, "dltensor", capsule_legacy_destructor);
    }
    if (capsule == NULL) {
        Py_DECREF(source);
        free(ctx);
    }
    return capsule;
}

PyObject *devicearray_dlpack_device(PyObject *op, PyObject *)
{
    return Py_BuildValue("(ii)", (int)DLPACK_DEVICE_CUDA, ((DeviceArrayObject *)op)->device);
}

/* ---- module functions ---- */

PyObject *interop_from_dlpack(PyObject *obj)
{
    if (DeviceArray_Check(obj)) {
        Py_INCREF(obj);
        return obj;
    }
    if (!PyObject_HasAttrString(obj, "__dlpack__") || !PyObject_HasAttrString(obj, "__dlpack_device__")) {
        PyErr_Format(PyExc_TypeError, "from_dlpack needs an object with __dlpack__ and "
                     "__dlpack_device__, not %.100s", Py_TYPE(obj)->tp_name);
        return NULL;
    }
    int type = 0, id = 0;
    if (dlpack_device_of(obj, &type, &id) < 0) {
        return NULL;
    }
    if (type != DLPACK_DEVICE_CUDA && type != DLPACK_DEVICE_CUDA_MANAGED) {
        PyErr_Format(PyExc_BufferError,
                     "from_dlpack needs an array on a CUDA device (DLPack device type %d given); "
                     "use to_device() for host data", type);
        return NULL;
    }
    return import_dlpack(obj, id);
}
