/* Zero-copy exchange with other GPU libraries: __cuda_array_interface__ (v2/v3)
 * and DLPack, both ways, with the stream ordering each protocol asks for. */
#include <stdlib.h>
#include <string.h>

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

static int dtype_from_typestr(PyObject *typestr, va_dtype *dtype)
{
    PyArray_Descr *descr = NULL;
    if (!PyArray_DescrConverter(typestr, &descr)) {
        return -1;
    }
    int ok = va_dtype_from_descr(descr, dtype) == 0 && PyArray_ISNBO(descr->byteorder);
    if (!ok) {
        raise_unsupported_dtype((PyObject *)descr);
    }
    Py_DECREF(descr);
    return ok ? 0 : -1;
}

static int int64_sequence(PyObject *seq, const char *what, int64_t *values, int *n)
{
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) {
        return -1;
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    if (len > VA_MAX_NDIM) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported", VA_MAX_NDIM);
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; ++i) {
        values[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (values[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    *n = (int)len;
    Py_DECREF(fast);
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

static PyObject *import_cai(PyObject *obj, PyObject *cai)
{
    if (!PyDict_Check(cai)) {
        PyErr_SetString(PyExc_TypeError, "__cuda_array_interface__ must be a dict");
        return NULL;
    }
    PyObject *shape_obj = PyDict_GetItemString(cai, "shape");
    PyObject *typestr = PyDict_GetItemString(cai, "typestr");
    PyObject *data = PyDict_GetItemString(cai, "data");
    PyObject *strides_obj = PyDict_GetItemString(cai, "strides");
    PyObject *stream_obj = PyDict_GetItemString(cai, "stream");
    PyObject *mask = PyDict_GetItemString(cai, "mask");
    if (shape_obj == NULL || typestr == NULL || data == NULL || !PyTuple_Check(data) ||
        PyTuple_GET_SIZE(data) != 2) {
        PyErr_SetString(PyExc_ValueError, "malformed __cuda_array_interface__ (shape, typestr, data)");
        return NULL;
    }
    if (mask != NULL && mask != Py_None) {
        PyErr_SetString(PyExc_ValueError, "masked arrays are not supported");
        return NULL;
    }
    va_dtype dtype;
    if (dtype_from_typestr(typestr, &dtype) < 0) {
        return NULL;
    }
    int64_t shape[VA_MAX_NDIM], strides[VA_MAX_NDIM];
    int ndim = 0, nstrides = 0;
    if (int64_sequence(shape_obj, "shape must be a tuple", shape, &ndim) < 0) {
        return NULL;
    }
    int64_t count = 1;
    for (int d = 0; d < ndim; ++d) {
        count *= shape[d];
    }
    if (strides_obj != NULL && strides_obj != Py_None) {
        if (int64_sequence(strides_obj, "strides must be a tuple", strides, &nstrides) < 0) {
            return NULL;
        }
        if (nstrides != ndim) {
            PyErr_SetString(PyExc_ValueError, "strides and shape differ in length");
            return NULL;
        }
    }
    else {
        int64_t step = (int64_t)va_dtype_size(dtype);
        for (int d = ndim - 1; d >= 0; --d) {
            strides[d] = step;
            step *= shape[d];
        }
    }
    void *ptr = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    if (ptr == NULL && PyErr_Occurred()) {
        return NULL;
    }
    if (count > 0 && ((uintptr_t)ptr % va_dtype_size(dtype)) != 0) {
        PyErr_SetString(PyExc_ValueError, "GPU arrays must be aligned to their element size");
        return NULL;
    }
    int device = 0;
    if (owning_device(ptr, count, &device) < 0) {
        return NULL;
    }
    /* v3: the producer's work on `stream` must finish before we read. Without a
     * stream key (v2) the producer's work may still be queued on the legacy
     * default stream, which our non-blocking stream does not follow by itself. */
    if (stream_obj == NULL && count > 0) {
        va_status st = va_stream_wait_external(device, protocol_stream(1));
        if (st != VA_SUCCESS) {
            return raise_status(st);
        }
    }
    if (stream_obj != NULL && stream_obj != Py_None && count > 0) {
        long long s = PyLong_AsLongLong(stream_obj);
        if (s == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (s == 0) {
            PyErr_SetString(PyExc_ValueError, "__cuda_array_interface__ stream 0 is not allowed");
            return NULL;
        }
        va_status st = va_stream_wait_external(device, protocol_stream(s));
        if (st != VA_SUCCESS) {
            return raise_status(st);
        }
    }
    return (PyObject *)devicearray_view(ptr, device, dtype, ndim, shape, strides, obj);
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
    if (t.lanes == 1 && t.code == DLPACK_CODE_INT && t.bits == 32) *dtype = VA_INT32;
    else if (t.lanes == 1 && t.code == DLPACK_CODE_INT && t.bits == 64) *dtype = VA_INT64;
    else if (t.lanes == 1 && t.code == DLPACK_CODE_FLOAT && t.bits == 32) *dtype = VA_FLOAT32;
    else if (t.lanes == 1 && t.code == DLPACK_CODE_FLOAT && t.bits == 64) *dtype = VA_FLOAT64;
    else {
        PyErr_Format(PyExc_TypeError,
                     "unsupported DLPack dtype (code %d, %d bits, %d lanes): myModule supports "
                     "int32, int64, float32 and float64", t.code, t.bits, t.lanes);
        return -1;
    }
    return 0;
}

static PyObject *view_of_dltensor(const DLTensorABI *t, PyObject *owner)
{
    va_dtype dtype;
    if (dtype_from_dlpack(t->dtype, &dtype) < 0) {
        return NULL;
    }
    if (t->ndim < 0 || t->ndim > VA_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported", VA_MAX_NDIM);
        return NULL;
    }
    int64_t strides[VA_MAX_NDIM];
    int64_t itemsize = (int64_t)va_dtype_size(dtype);
    int64_t step = itemsize;
    for (int d = t->ndim - 1; d >= 0; --d) {
        strides[d] = t->strides != NULL ? t->strides[d] * itemsize : step;
        step *= t->shape[d];
    }
    char *data = (char *)t->data + t->byte_offset;
    return (PyObject *)devicearray_view(data, t->device.device_id, dtype, t->ndim, t->shape,
                                        strides, owner);
}

static PyObject *import_dlpack(PyObject *obj, int device)
{
    PyObject *stream = library_stream_int(device);
    if (stream == NULL) {
        return NULL;
    }
    /* Ask for a versioned capsule; producers that predate it get the old call. */
    PyObject *args = PyTuple_New(0);
    PyObject *kwargs = Py_BuildValue("{s:O,s:(ii)}", "stream", stream, "max_version", 1, 1);
    PyObject *method = PyObject_GetAttrString(obj, "__dlpack__");
    PyObject *capsule = NULL;
    if (args != NULL && kwargs != NULL && method != NULL) {
        capsule = PyObject_Call(method, args, kwargs);
        if (capsule == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyDict_DelItemString(kwargs, "max_version");
            capsule = PyObject_Call(method, args, kwargs);
        }
    }
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    Py_XDECREF(method);
    Py_DECREF(stream);
    if (capsule == NULL) {
        return NULL;
    }
    PyObject *result = NULL, *owner = NULL;
    if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
        DLManagedTensorVersionedABI *t =
            (DLManagedTensorVersionedABI *)PyCapsule_GetPointer(capsule, "dltensor_versioned");
        if (t->version.major > 1) {
            PyErr_Format(PyExc_BufferError, "DLPack version %u is newer than this module knows",
                         t->version.major);
            goto done;
        }
        PyCapsule_SetName(capsule, "used_dltensor_versioned");
        owner = PyCapsule_New(t, "myModule.dlpack_owner_v", release_versioned_capsule);
        if (owner == NULL) {
            if (t->deleter) t->deleter(t);
            goto done;
        }
        result = view_of_dltensor(&t->dl_tensor, owner);
    }
    else if (PyCapsule_IsValid(capsule, "dltensor")) {
        DLManagedTensorABI *t = (DLManagedTensorABI *)PyCapsule_GetPointer(capsule, "dltensor");
        PyCapsule_SetName(capsule, "used_dltensor");
        owner = PyCapsule_New(t, "myModule.dlpack_owner", release_legacy_capsule);
        if (owner == NULL) {
            if (t->deleter) t->deleter(t);
            goto done;
        }
        result = view_of_dltensor(&t->dl_tensor, owner);
    }
    else {
        PyErr_SetString(PyExc_TypeError, "__dlpack__ did not return a DLPack capsule");
    }
done:
    Py_XDECREF(owner);
    Py_DECREF(capsule);
    return result;
}

/* (device_type, device_id) from __dlpack_device__, or -1 with an exception. */
static int dlpack_device_of(PyObject *obj, int *type, int *id)
{
    PyObject *dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
    if (dev == NULL) {
        return -1;
    }
    int ok = PyArg_ParseTuple(dev, "ii", type, id);
    Py_DECREF(dev);
    return ok ? 0 : -1;
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
    va_status st = VA_SUCCESS;
    if (cai != NULL && PyDict_Check(cai)) {
        PyObject *stream_obj = PyDict_GetItemString(cai, "stream");
        if (stream_obj != NULL && stream_obj != Py_None) {
            long long s = PyLong_AsLongLong(stream_obj);
            if (s == -1 && PyErr_Occurred()) {
                Py_DECREF(cai);
                return -1;
            }
            st = va_external_wait_library(device, protocol_stream(s));
        }
        else {
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

static const char *typestrs[] = {"<i4", "<i8", "<f4", "<f8"};

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
    /* Consumers order their work after what is queued on our stream. */
    stream = library_stream_int(self->device);
    if (stream == NULL) {
        goto done;
    }
    result = Py_BuildValue("{s:O,s:s,s:(NO),s:O,s:i,s:O}", "shape", shape, "typestr",
                           typestrs[self->dtype], "data", PyLong_FromVoidPtr(self->data), Py_False,
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
        if (!PyArg_ParseTuple(values[1], "ii", &major, &minor)) {
            return NULL;
        }
        versioned = major >= 1;
    }
    if (values[2] != NULL && values[2] != Py_None) {
        int type = 0, id = 0;
        if (!PyArg_ParseTuple(values[2], "ii", &type, &id)) {
            return NULL;
        }
        int type_ok = type == DLPACK_DEVICE_CUDA || (type == DLPACK_DEVICE_CUDA_MANAGED && self->managed);
        if (!type_ok || id != self->device) {
            PyErr_SetString(PyExc_BufferError, "DeviceArray can only be exported to its own GPU");
            return NULL;
        }
    }
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
    tensor.dtype.code = (source->dtype == VA_FLOAT32 || source->dtype == VA_FLOAT64)
                            ? DLPACK_CODE_FLOAT : DLPACK_CODE_INT;
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
        ctx->versioned.flags = copied ? DLPACK_FLAG_IS_COPIED : 0;
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
