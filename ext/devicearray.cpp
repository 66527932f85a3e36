/* DeviceArray: an n-d array in GPU memory (pooled, managed, or a view of another
 * library's memory), its attributes, host copies and arithmetic. */
#include <string.h>

#include "checked.h"
#include "conversions.h"
#include "indexing.h"
#include "shapes.h"

static int64_t element_count(const DeviceArrayObject *self)
{
    int64_t n = 1;
    for (int d = 0; d < self->ndim; ++d) {
        n *= self->shape[d];
    }
    return n;
}

static void describe(va_array *view, void *data, va_dtype dtype, int ndim, const int64_t *shape,
                     const int64_t *strides)
{
    memset(view, 0, sizeof(*view));
    view->data = data;
    view->dtype = dtype;
    view->ndim = ndim;
    for (int d = 0; d < ndim; ++d) {
        view->shape[d] = shape[d];
        view->strides[d] = strides[d];
    }
}

void devicearray_describe(const DeviceArrayObject *self, va_array *view)
{
    describe(view, self->data, self->dtype, self->ndim, self->shape, self->strides);
}

int devicearray_is_c_contiguous(const DeviceArrayObject *self)
{
    va_array view;
    devicearray_describe(self, &view);
    return va_is_c_contiguous(&view);
}

int devicearray_check_writable(PyObject *, DeviceArrayObject *out)
{
    if (out != NULL && out->readonly) {
        PyErr_SetString(PyExc_ValueError, "output array is read-only");
        return -1;
    }
    return 0;
}

int devicearray_check_assignable(const DeviceArrayObject *self)
{
    if (self->readonly) {
        PyErr_SetString(PyExc_ValueError, "assignment destination is read-only");
        return -1;
    }
    return 0;
}

/* The shape of every new DeviceArray and of every new allocation must pass NumPy's
 * size rule, so that size, nbytes and every count derived from it cannot wrap.
 * 0, or -1 with the exception set. */
static int check_new_shape(va_dtype dtype, int ndim, const int64_t *shape, int64_t *count)
{
    if (ndim < 0 || ndim > VA_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported on the GPU", VA_MAX_NDIM);
        return -1;
    }
    return checked_array_size(ndim, shape, (int64_t)va_dtype_size(dtype), count);
}

/* Every DeviceArray is made here, its shape checked (check_new_shape). */
static DeviceArrayObject *alloc_object(int device, va_dtype dtype, int ndim, const int64_t *shape)
{
    int64_t count = 0;
    if (check_new_shape(dtype, ndim, shape, &count) < 0) {
        return NULL;
    }
    DeviceArrayObject *self = (DeviceArrayObject *)DeviceArray_Type.tp_alloc(&DeviceArray_Type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->device = device;
    self->dtype = dtype;
    self->ndim = ndim;
    for (int d = 0; d < ndim; ++d) {
        self->shape[d] = shape[d];
    }
    return self;
}

int devicearray_memory_layout(int device, va_dtype dtype, int ndim, const int64_t *shape, DeviceMemory *memory)
{
    int64_t count = 0;
    memory->data = NULL;
    if (check_new_shape(dtype, ndim, shape, &count) < 0) {
        return -1;
    }
    memory->device = device;
    memory->dtype = dtype;
    memory->ndim = ndim;
    for (int d = 0; d < ndim; ++d) {
        memory->shape[d] = shape[d];
    }
    checked_c_strides(ndim, shape, (int64_t)va_dtype_size(dtype), memory->strides);
    /* check_new_shape checked that count * itemsize fits */
    memory->nbytes = (size_t)count * va_dtype_size(dtype);
    return 0;
}

int devicearray_memory(int device, va_dtype dtype, int ndim, const int64_t *shape, DeviceMemory *memory)
{
    if (devicearray_memory_layout(device, dtype, ndim, shape, memory) < 0) {
        return -1;
    }
    va_status st = va_malloc(device, memory->nbytes, &memory->data);
    if (st != VA_SUCCESS) {
        memory->data = NULL;
        raise_status(st);
        return -1;
    }
    return 0;
}

void devicearray_memory_view(const DeviceMemory *memory, va_array *view)
{
    describe(view, memory->data, memory->dtype, memory->ndim, memory->shape, memory->strides);
}

void devicearray_memory_free(DeviceMemory *memory)
{
    if (memory->data != NULL) {
        va_free(memory->device, memory->data, memory->nbytes);
        memory->data = NULL;
    }
}

DeviceArrayObject *devicearray_adopt(DeviceMemory *memory)
{
    DeviceArrayObject *self = alloc_object(memory->device, memory->dtype, memory->ndim, memory->shape);
    if (self == NULL) {
        devicearray_memory_free(memory);
        return NULL;
    }
    for (int d = 0; d < memory->ndim; ++d) {
        self->strides[d] = memory->strides[d];
    }
    self->allocation = memory->data;
    self->allocation_bytes = memory->nbytes;
    self->managed = 0;
    self->data = self->allocation;
    memory->data = NULL;
    return self;
}

DeviceArrayObject *devicearray_empty(int device, va_dtype dtype, int ndim, const int64_t *shape,
                                     int managed)
{
    if (!managed) {
        DeviceMemory memory;
        if (devicearray_memory(device, dtype, ndim, shape, &memory) < 0) {
            return NULL;
        }
        return devicearray_adopt(&memory);
    }
    DeviceArrayObject *self = alloc_object(device, dtype, ndim, shape);
    if (self == NULL) {
        return NULL;
    }
    checked_c_strides(ndim, shape, (int64_t)va_dtype_size(dtype), self->strides);
    /* alloc_object checked that count * itemsize fits */
    size_t nbytes = (size_t)element_count(self) * va_dtype_size(dtype);
    va_status st = va_malloc_managed(device, nbytes, &self->allocation);
    if (st != VA_SUCCESS) {
        self->allocation = NULL;
        Py_DECREF(self);
        return (DeviceArrayObject *)raise_status(st);
    }
    self->allocation_bytes = nbytes;
    self->managed = 1;
    self->data = self->allocation;
    return self;
}

DeviceArrayObject *devicearray_view(void *data, int device, va_dtype dtype, int ndim,
                                    const int64_t *shape, const int64_t *strides, PyObject *owner)
{
    int64_t low = 0, high = 0;
    DeviceArrayObject *self = alloc_object(device, dtype, ndim, shape);
    if (self == NULL) {
        return NULL;
    }
    /* a view whose byte offsets wrap would let a kernel address anything */
    if (checked_view_extent(ndim, shape, strides, &low, &high) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    for (int d = 0; d < ndim; ++d) {
        self->strides[d] = strides[d];
    }
    self->data = data;
    Py_XINCREF(owner);
    self->owner = owner;
    return self;
}

DeviceArrayObject *devicearray_from_host(PyArrayObject *array, int device, int managed)
{
    va_dtype dtype;
    if (va_dtype_from_descr(PyArray_DESCR(array), &dtype) < 0) {
        return (DeviceArrayObject *)raise_unsupported_dtype((PyObject *)PyArray_DESCR(array));
    }
    PyArray_Descr *native = descr_from_va(dtype);
    if (native == NULL) {
        return NULL;
    }
    PyArrayObject *packed = (PyArrayObject *)PyArray_FromAny(
        (PyObject *)array, native, 0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, NULL);
    if (packed == NULL) {
        return NULL;
    }
    Shape shape;
    DeviceArrayObject *self = NULL;
    if (shape_of_host(packed, &shape) == 0) {
        self = devicearray_empty(device, dtype, shape.ndim, shape.dims, managed);
    }
    if (self != NULL) {
        va_status st;
        size_t nbytes = (size_t)PyArray_NBYTES(packed);
        Py_BEGIN_ALLOW_THREADS
        st = va_copy_to_device(device, self->data, PyArray_DATA(packed), nbytes);
        if (st == VA_SUCCESS && managed) {
            st = va_synchronize(device);
        }
        Py_END_ALLOW_THREADS
        if (st != VA_SUCCESS) {
            Py_CLEAR(self);
            raise_status(st);
        }
    }
    Py_DECREF(packed);
    return self;
}

DeviceArrayObject *devicearray_contiguous(DeviceArrayObject *self)
{
    if (devicearray_is_c_contiguous(self)) {
        Py_INCREF(self);
        return self;
    }
    return devicearray_copy(self);
}

DeviceArrayObject *devicearray_copy(DeviceArrayObject *self)
{
    DeviceArrayObject *copy = devicearray_empty(self->device, self->dtype, self->ndim, self->shape, 0);
    if (copy == NULL) {
        return NULL;
    }
    va_array src, dst;
    devicearray_describe(self, &src);
    devicearray_describe(copy, &dst);
    va_status st = va_copy_convert(self->device, &src, &dst);
    if (st != VA_SUCCESS) {
        Py_DECREF(copy);
        return (DeviceArrayObject *)raise_status(st);
    }
    return copy;
}

PyObject *devicearray_to_host(DeviceArrayObject *self)
{
    /* Pinned memory: the download runs at full PCIe speed, not through the
     * driver's pageable staging. */
    PyArrayObject *result = pinned_array_empty(self->ndim, self->shape, self->dtype);
    if (result == NULL) {
        return NULL;
    }
    DeviceArrayObject *packed = devicearray_contiguous(self);
    if (packed == NULL) {
        Py_DECREF(result);
        return NULL;
    }
    va_status st;
    size_t nbytes = (size_t)PyArray_NBYTES(result);
    Py_BEGIN_ALLOW_THREADS
    st = va_copy_to_host(packed->device, PyArray_DATA(result), packed->data, nbytes);
    Py_END_ALLOW_THREADS
    Py_DECREF(packed);
    if (st != VA_SUCCESS) {
        Py_DECREF(result);
        return raise_status(st);
    }
    return (PyObject *)result;
}

/* ---- the type ---- */

/* The owner of foreign memory (another library's array, a DLPack capsule) may
 * free it as soon as we let go, while our queued kernels still read it: the
 * owner is let go only once the GPU has passed a marker recorded when the view
 * died. */
typedef struct {
    void *marker;
    PyObject *owner;
} PendingRelease;

static PendingRelease *pending = NULL;
static Py_ssize_t pending_count = 0, pending_capacity = 0;

Py_ssize_t devicearray_sweep_releases(int everything_done)
{
    if (pending_count == 0) {
        return 0;
    }
    /* Owners are dropped after the list is compacted: dropping one may run code
     * that defers more releases (the owner held a view of another foreign owner). */
    PyObject **ready = (PyObject **)PyMem_Malloc(sizeof(PyObject *) * pending_count);
    if (ready == NULL) {
        return 0; /* no memory to sweep now: the next sweep tries again */
    }
    Py_ssize_t nready = 0, kept = 0;
    for (Py_ssize_t i = 0; i < pending_count; ++i) {
        if (everything_done || va_marker_done(pending[i].marker)) {
            va_marker_release(pending[i].marker);
            ready[nready++] = pending[i].owner;
        }
        else {
            pending[kept++] = pending[i];
        }
    }
    pending_count = kept;
    for (Py_ssize_t i = 0; i < nready; ++i) {
        Py_DECREF(ready[i]);
    }
    PyMem_Free(ready);
    return pending_count;
}

static void release_owner_later(PyObject *owner, int device)
{
    void *marker = NULL;
    if (va_cuda_available() != VA_SUCCESS || va_marker_record(device, &marker) != VA_SUCCESS) {
        Py_DECREF(owner); /* nothing can be running: let go now */
        return;
    }
    if (pending_count == pending_capacity) {
        Py_ssize_t capacity = pending_capacity == 0 ? 16 : 2 * pending_capacity;
        PendingRelease *grown = (PendingRelease *)PyMem_Realloc(pending, sizeof(PendingRelease) * capacity);
        if (grown == NULL) {
            va_synchronize(device); /* no room to wait asynchronously */
            va_marker_release(marker);
            Py_DECREF(owner);
            return;
        }
        pending = grown;
        pending_capacity = capacity;
    }
    pending[pending_count].marker = marker;
    pending[pending_count].owner = owner;
    ++pending_count;
}

/* The owner may hold this view (a producer that keeps `asarray(self)` as an
 * attribute): the collector must see the reference to break the cycle. */
static int devicearray_traverse(PyObject *op, visitproc visit, void *arg)
{
    Py_VISIT(((DeviceArrayObject *)op)->owner);
    return 0;
}

/* Only the collector calls this, for a view in a cycle of garbage: no one can
 * queue more work on it, but queued work may still read the owner's memory. */
static int devicearray_clear(PyObject *op)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    PyObject *owner = self->owner;
    if (owner != NULL) {
        self->owner = NULL;
        release_owner_later(owner, self->device);
    }
    return 0;
}

static void devicearray_dealloc(PyObject *op)
{
    DeviceArrayObject *self = (DeviceArrayObject *)op;
    PyObject_GC_UnTrack(op);
    if (self->weakreflist != NULL) {
        PyObject_ClearWeakRefs(op);
    }
    if (self->allocation != NULL) {
        /* Errors here (after a sticky fault) have no one to go to. */
        if (self->managed) {
            va_free_managed(self->device, self->allocation, self->allocation_bytes);
        }
        else {
            va_free(self->device, self->allocation, self->allocation_bytes);
        }
    }
    PyObject *owner = self->owner;
    int device = self->device;
    self->owner = NULL;
    Py_TYPE(op)->tp_free(op);
    if (owner != NULL && DeviceArray_Check(owner)) {
        Py_DECREF(owner); /* a view of our own array: frees in stream order itself */
    }
    else if (owner != NULL) {
        release_owner_later(owner, device);
    }
    devicearray_sweep_releases(0);
}

static PyObject *int64_tuple(int n, const int64_t *values)
{
    PyObject *t = PyTuple_New(n);
    if (t == NULL) {
        return NULL;
    }
    for (int i = 0; i < n; ++i) {
        PyObject *v = PyLong_FromLongLong(values[i]);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

#define SELF ((DeviceArrayObject *)op)

static PyObject *get_shape(PyObject *op, void *) { return int64_tuple(SELF->ndim, SELF->shape); }
static PyObject *get_strides(PyObject *op, void *) { return int64_tuple(SELF->ndim, SELF->strides); }
static PyObject *get_ndim(PyObject *op, void *) { return PyLong_FromLong(SELF->ndim); }
static PyObject *get_size(PyObject *op, void *) { return PyLong_FromLongLong(element_count(SELF)); }
static PyObject *get_itemsize(PyObject *op, void *)
{
    return PyLong_FromSize_t(va_dtype_size(SELF->dtype));
}
static PyObject *get_nbytes(PyObject *op, void *)
{
    return PyLong_FromLongLong(element_count(SELF) * (int64_t)va_dtype_size(SELF->dtype));
}
static PyObject *get_device(PyObject *op, void *) { return PyLong_FromLong(SELF->device); }
static PyObject *get_ptr(PyObject *op, void *)
{
    /* Whoever holds the address may write there unseen. */
    (void)va_note_address_exported();
    return PyLong_FromVoidPtr(SELF->data);
}
static PyObject *get_unified(PyObject *op, void *) { return PyBool_FromLong(SELF->managed); }
static PyObject *get_dtype(PyObject *op, void *) { return (PyObject *)descr_from_va(SELF->dtype); }

static PyGetSetDef devicearray_getset[] = {
    {"shape", get_shape, NULL, "tuple of dimensions", NULL},
    {"strides", get_strides, NULL, "tuple of byte steps per dimension", NULL},
    {"ndim", get_ndim, NULL, "number of dimensions", NULL},
    {"size", get_size, NULL, "number of elements", NULL},
    {"itemsize", get_itemsize, NULL, "bytes per element", NULL},
    {"nbytes", get_nbytes, NULL, "bytes of all elements", NULL},
    {"dtype", get_dtype, NULL, "numpy.dtype of the elements", NULL},
    {"device", get_device, NULL, "index of the GPU that holds the data", NULL},
    {"ptr", get_ptr, NULL, "address of the first element", NULL},
    {"unified", get_unified, NULL, "True for CUDA managed (unified) memory", NULL},
    {"__cuda_array_interface__", devicearray_cai, NULL, "CUDA array interface, version 3", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *da_get(PyObject *op, PyObject *)
{
    return devicearray_to_host(SELF);
}

static PyObject *da_array(PyObject *op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dtype", "copy"};
    PyObject *values[2];
    if (parse_arguments("__array__", args, nargs, kwnames, names, 2, 0, 2, values) < 0) {
        return NULL;
    }
    if (values[1] == Py_False) {
        PyErr_SetString(PyExc_ValueError,
                        "a DeviceArray in GPU memory cannot be viewed by NumPy without a copy");
        return NULL;
    }
    PyObject *host = devicearray_to_host(SELF);
    if (host == NULL || values[0] == NULL || values[0] == Py_None) {
        return host;
    }
    PyArray_Descr *descr = NULL;
    if (!PyArray_DescrConverter(values[0], &descr)) {
        Py_DECREF(host);
        return NULL;
    }
    PyObject *cast = PyArray_CastToType((PyArrayObject *)host, descr, 0);
    Py_DECREF(host);
    return cast;
}

/* NumPy's ndarray.tolist of the host copy. */
static PyObject *da_tolist(PyObject *op, PyObject *)
{
    PyObject *host = devicearray_to_host(SELF);
    if (host == NULL) {
        return NULL;
    }
    PyObject *list = PyObject_CallMethod(host, "tolist", NULL);
    Py_DECREF(host);
    return list;
}

static PyMethodDef devicearray_methods[] = {
    {"get", da_get, METH_NOARGS, "get()\n--\n\nCopy to a new NumPy array (waits for queued work)."},
    {"item", (PyCFunction)(void (*)(void))devicearray_item, METH_FASTCALL,
     "item(*index)\n--\n\nOne element as a Python scalar, as numpy.ndarray.item: no index for an array "
     "of one element, a flat index (C order), or one index per axis. Only that element is copied."},
    {"tolist", da_tolist, METH_NOARGS, "tolist()\n--\n\nThe array as nested Python lists of Python "
     "scalars, as numpy.ndarray.tolist (a copy to the host first)."},
    {"__array__", (PyCFunction)(void (*)(void))da_array, METH_FASTCALL | METH_KEYWORDS,
     "NumPy's conversion: a host copy."},
    {"__dlpack__", (PyCFunction)(void (*)(void))devicearray_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__(stream=None, max_version=None, dl_device=None, copy=None)\n--\n\n"
     "Export as a DLPack capsule; the consumer's stream waits for the library's work."},
    {"__dlpack_device__", devicearray_dlpack_device, METH_NOARGS,
     "(kDLCUDA or kDLCUDAManaged, device index)"},
    {"__complex__", devicearray_complex, METH_NOARGS, "complex(d): the one element of a 0-d array."},
    {NULL, NULL, 0, NULL},
};

static PyObject *devicearray_repr(PyObject *op)
{
    PyObject *host = devicearray_to_host(SELF);
    if (host == NULL) {
        return NULL;
    }
    PyObject *r = PyObject_Repr(host);
    Py_DECREF(host);
    if (r == NULL) {
        return NULL;
    }
    /* "array([...], dtype=...)" becomes "DeviceArray([...], dtype=..., device=N)",
     * continuation lines moved right by the six letters "Device" adds */
    PyObject *cut = PyUnicode_Substring(r, 5, PyUnicode_GET_LENGTH(r) - 1);
    Py_DECREF(r);
    if (cut == NULL) {
        return NULL;
    }
    PyObject *body = PyObject_CallMethod(cut, "replace", "ss", "\n", "\n      ");
    Py_DECREF(cut);
    if (body == NULL) {
        return NULL;
    }
    PyObject *result = PyUnicode_FromFormat("DeviceArray%U, device=%d)", body, SELF->device);
    Py_DECREF(body);
    return result;
}

static Py_ssize_t devicearray_len(PyObject *op)
{
    if (SELF->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of unsized object");
        return -1;
    }
    return (Py_ssize_t)SELF->shape[0];
}

/* Filled from the op table (optable_init) before the type is readied. */
static PyNumberMethods devicearray_as_number;

PyNumberMethods *devicearray_number_methods(void)
{
    return &devicearray_as_number;
}
static PySequenceMethods devicearray_as_sequence;
static PyBufferProcs devicearray_as_buffer;

/* Managed memory is readable on the host: NumPy can use it in place. */
static int devicearray_getbuffer(PyObject *op, Py_buffer *view, int flags)
{
    if (!SELF->managed) {
        PyErr_SetString(PyExc_BufferError,
                        "only unified (managed) DeviceArrays expose the buffer protocol");
        return -1;
    }
    va_status st;
    Py_BEGIN_ALLOW_THREADS
    st = va_synchronize(SELF->device);
    Py_END_ALLOW_THREADS
    if (st != VA_SUCCESS) {
        raise_status(st);
        return -1;
    }
    Py_ssize_t *dims = (Py_ssize_t *)PyMem_Malloc(sizeof(Py_ssize_t) * 2 * (SELF->ndim + 1));
    if (dims == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int d = 0; d < SELF->ndim; ++d) {
        dims[d] = (Py_ssize_t)SELF->shape[d];
        dims[SELF->ndim + d] = (Py_ssize_t)SELF->strides[d];
    }
    static const char *formats[] = {"i", "q", "f", "d", "?"};
    view->buf = SELF->data;
    view->obj = op;
    Py_INCREF(op);
    view->len = (Py_ssize_t)(element_count(SELF) * (int64_t)va_dtype_size(SELF->dtype));
    view->readonly = 0;
    view->itemsize = (Py_ssize_t)va_dtype_size(SELF->dtype);
    view->format = (flags & PyBUF_FORMAT) ? (char *)formats[SELF->dtype] : NULL;
    view->ndim = SELF->ndim;
    view->shape = dims;
    view->strides = dims + SELF->ndim;
    view->suboffsets = NULL;
    view->internal = dims;
    return 0;
}

static void devicearray_releasebuffer(PyObject *, Py_buffer *view)
{
    PyMem_Free(view->internal);
}

/* Zero-initialised; filled in by devicearray_init (PyType_Ready sets its type). */
PyTypeObject DeviceArray_Type;

/* The type's one method table and one attribute table: its own entries, then
 * each part's, joined once (static storage: the type keeps pointers into them). */
#define MAX_TYPE_METHODS 512
#define MAX_TYPE_GETSET 64
static PyMethodDef joined_methods[MAX_TYPE_METHODS + 1];
static PyGetSetDef joined_getset[MAX_TYPE_GETSET + 1];

static const char *name_of(const PyMethodDef &m) { return m.ml_name; }
static const char *name_of(const PyGetSetDef &g) { return g.name; }

/* Appends the NULL-terminated `table` to `joined` (room for `most`); SystemError
 * past it or for a name already there. */
template <typename Def>
static int join(Def *joined, int most, int *used, const Def *table, const char *what)
{
    for (const Def *d = table; d != NULL && name_of(*d) != NULL; ++d) {
        if (*used == most) {
            PyErr_Format(PyExc_SystemError, "DeviceArray: more %s than its table holds", what);
            return -1;
        }
        for (int k = 0; k < *used; ++k) {
            if (strcmp(name_of(joined[k]), name_of(*d)) == 0) {
                PyErr_Format(PyExc_SystemError, "DeviceArray: %s %s declared twice", what, name_of(*d));
                return -1;
            }
        }
        joined[(*used)++] = *d;
    }
    return 0;
}

static int join_part(int *nmethods, int *ngetset, const PyMethodDef *methods, const PyGetSetDef *getset)
{
    return join(joined_methods, MAX_TYPE_METHODS, nmethods, methods, "methods") < 0 ||
                   join(joined_getset, MAX_TYPE_GETSET, ngetset, getset, "attributes") < 0
               ? -1
               : 0;
}

int devicearray_init(PyObject *module, richcmpfunc richcompare, const TypePart *parts, int nparts)
{
    int nmethods = 0, ngetset = 0;
    if (join_part(&nmethods, &ngetset, devicearray_methods, devicearray_getset) < 0) {
        return -1;
    }
    for (int k = 0; k < nparts; ++k) {
        if (join_part(&nmethods, &ngetset, parts[k].methods, parts[k].getset) < 0) {
            return -1;
        }
    }
    joined_methods[nmethods] = PyMethodDef{NULL, NULL, 0, NULL};
    joined_getset[ngetset] = PyGetSetDef{NULL, NULL, NULL, NULL, NULL};
    devicearray_as_sequence.sq_length = devicearray_len;
    devicearray_as_buffer.bf_getbuffer = devicearray_getbuffer;
    devicearray_as_buffer.bf_releasebuffer = devicearray_releasebuffer;

    Py_SET_REFCNT((PyObject *)&DeviceArray_Type, 1);
    DeviceArray_Type.tp_name = "myModule.DeviceArray";
    DeviceArray_Type.tp_basicsize = sizeof(DeviceArrayObject);
    DeviceArray_Type.tp_dealloc = devicearray_dealloc;
    DeviceArray_Type.tp_repr = devicearray_repr;
    DeviceArray_Type.tp_as_number = &devicearray_as_number;
    /* Comparisons are elementwise (as NumPy's), so arrays are unhashable. */
    DeviceArray_Type.tp_richcompare = richcompare;
    if (richcompare != NULL) {
        DeviceArray_Type.tp_hash = PyObject_HashNotImplemented;
    }
    DeviceArray_Type.tp_as_sequence = &devicearray_as_sequence;
    DeviceArray_Type.tp_as_mapping = &devicearray_as_mapping;
    DeviceArray_Type.tp_iter = devicearray_iter;
    DeviceArray_Type.tp_as_buffer = &devicearray_as_buffer;
    DeviceArray_Type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC;
    DeviceArray_Type.tp_traverse = devicearray_traverse;
    DeviceArray_Type.tp_clear = devicearray_clear;
    DeviceArray_Type.tp_doc =
        "An n-d array in GPU memory. Made by to_device(), asarray(), from_dlpack() and the\n"
        "operations on GPU data; get() or numpy.asarray() copies it to the host.";
    DeviceArray_Type.tp_weaklistoffset = offsetof(DeviceArrayObject, weakreflist);
    DeviceArray_Type.tp_methods = joined_methods;
    DeviceArray_Type.tp_getset = joined_getset;
    if (PyType_Ready(&DeviceArray_Type) < 0) {
        return -1;
    }
    Py_INCREF(&DeviceArray_Type);
    if (PyModule_AddObject(module, "DeviceArray", (PyObject *)&DeviceArray_Type) < 0) {
        Py_DECREF(&DeviceArray_Type);
        return -1;
    }
    return 0;
}
