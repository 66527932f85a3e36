/* Shared declarations of the myModule extension (compiled as C++ by g++). */
#ifndef MYMODULE_COMMON_H
#define MYMODULE_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
/* NumPy 2 or newer at run time (import_array refuses 1.x): the GPU path
 * promotes as NumPy 2 does, and NumPy 1's promotion would disagree with it. */
#define NPY_TARGET_VERSION NPY_2_0_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL myModule_ARRAY_API
#ifndef MYMODULE_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "vectorAdd.h"

/* ---- errors.cpp: status codes to the exceptions of myModule._errors (the
 * package's errors hook, hooks.h) ---- */
/* Raises the exception that matches `status` (details from va_last_error) and
 * returns NULL. */
PyObject *raise_status(va_status status);
/* CudaUnavailableError for `what` when no GPU can be used; NULL with it set, or
 * 0 returned when CUDA is usable. */
int require_cuda(const char *what);
/* ---- unavailable.cpp ---- */
/* Why CUDA is unusable (no driver; a driver too old, with the minimum; no GPU),
 * from the error va_cuda_available() recorded. */
void cuda_unavailable_reason(const va_error_info *info, char *buffer, size_t size);
/* TypeError naming the supported dtypes. */
PyObject *raise_unsupported_dtype(PyObject *dtype_or_object);
/* -1 with TypeError when `dtype` is complex: what orders elements (sorting,
 * searching) takes real numbers only, the array API standard's rule. */
int refuse_unordered(const char *name, va_dtype dtype);

/* ---- dtypes.cpp ---- */
/* 0 and *out set when `descr` is one of the supported dtypes (either byte order). */
int va_dtype_from_descr(PyArray_Descr *descr, va_dtype *out);
/* New reference to the native NumPy dtype of `dtype`. */
PyArray_Descr *descr_from_va(va_dtype dtype);
const char *va_dtype_name(va_dtype dtype);
/* 0 and *out set when a DLPack (code, bits) of one lane is a supported dtype. */
int va_dtype_from_dlpack(uint8_t code, int bits, va_dtype *out);
/* NumPy's kind character of a supported dtype: 'b', 'i', 'u' or 'f' (0 for none). */
char dtype_kind(va_dtype dtype);
/* Its DLPack type code, and its __cuda_array_interface__ typestr. */
uint8_t dlpack_code_of(va_dtype dtype);
const char *typestr_of(va_dtype dtype);
/* Every supported dtype's name in one phrase ("int32, int64, ... and bool", or with
 * "or"), from the dtype enum: the messages that list them cannot fall behind it. */
const char *supported_dtypes_and(void);
const char *supported_dtypes_or(void);
/* _core._supported_dtypes(): a tuple of every supported dtype, in the enum's order. */
PyObject *mm_supported_dtypes(PyObject *module, PyObject *unused);
/* _core._promote_types(a, b): the library's one promotion (va_promote_types) for
 * the Python side (the array API's result_type and can_cast). */
PyObject *mm_promote_types(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *mm_result_type(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* ---- arguments.cpp: vectorcall argument parsing ---- */
/* Fills values[i] (borrowed, NULL when absent) for names[0..nnames) from positional
 * args (at most max_positional) and keywords; the first `required` are required.
 * Returns 0, or -1 with TypeError set. */
int parse_arguments(const char *fname, PyObject *const *args, Py_ssize_t nargs,
                    PyObject *kwnames, const char *const *names, int nnames,
                    int required, int max_positional, PyObject **values);

typedef enum { WHERE_AUTO = 0, WHERE_CPU = 1, WHERE_CUDA = 2 } WhereKind;
/* Where host data is computed. `gpu` is the GPU that device=N or "cuda:N" names
 * (kind WHERE_CUDA), -1 otherwise: the GPUs of devices(). A Where compares equal
 * to its kind, so `where == WHERE_CUDA` holds for any GPU and code that only
 * asks which kind compiles as it did when Where was the enum. */
struct Where {
    WhereKind kind;
    int gpu;
    Where() : kind(WHERE_AUTO), gpu(-1) {}
    Where(WhereKind k) : kind(k), gpu(-1) {} /* implicit: WHERE_AUTO is a Where */
};
inline bool operator==(const Where &w, WhereKind k) { return w.kind == k; }
inline bool operator!=(const Where &w, WhereKind k) { return w.kind != k; }
/* device="auto" | "cpu" | "cuda" | "cuda:N" | N, a GPU index (None means
 * "auto"). ValueError for an index past device_count(), TypeError for other kinds. */
int parse_where(PyObject *value, Where *where);

/* ---- devices.cpp: the GPUs host data may go to ---- */
#define WHERE_MAX_GPUS 64
/* The GPUs `where` sends host data to (at most WHERE_MAX_GPUS): its one GPU, or
 * those of devices() (MYMODULE_DEVICES read at first use). 0, or -1 with ValueError. */
int where_devices(Where where, int *devices, int *count);
/* Data on GPU `data_device` with device=`where`: ValueError when where is the
 * CPU or names another GPU (the GPU that holds the data runs the work). */
int where_check_data(Where where, int data_device);
PyObject *mm_set_devices(PyObject *module, PyObject *arg);
PyObject *mm_devices(PyObject *module, PyObject *unused);
PyObject *mm_parse_devices(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
/* device="auto" for host data of `size` elements: the GPU from the operation's
 * threshold on ("sum" for reductions, "sort", "binary" for the rest: the sizes
 * from which the GPU, transfers included, beats NumPy; MYMODULE_AUTO_THRESHOLD
 * overrides them) when one is usable, else the CPU; any other choice as it is.
 * The one place device="auto" is decided for host data. */
Where where_for_host_data(Where where, int64_t size, const char *operation);

/* ---- devicearray.cpp ---- */
typedef struct {
    PyObject_HEAD
    void *data;            /* element [0, ..., 0], in GPU (or managed) memory */
    void *allocation;      /* memory this object frees, NULL for a view */
    size_t allocation_bytes;
    int device;
    int managed;           /* allocation is CUDA managed memory */
    int readonly;          /* a view the producer marked read-only (CAI data[1], DLPack flag) */
    va_dtype dtype;
    int ndim;
    int64_t shape[VA_MAX_NDIM];
    int64_t strides[VA_MAX_NDIM]; /* bytes */
    PyObject *owner;       /* keeps someone else's memory alive (a producer, a capsule) */
    PyObject *weakreflist;
} DeviceArrayObject;

extern PyTypeObject DeviceArray_Type;
#define DeviceArray_Check(op) PyObject_TypeCheck((op), &DeviceArray_Type)

/* errors.cpp: the end of a call that filled a new array: *out handed over (and set to NULL)
 * on success, else the status raised and NULL (*out left for the caller's
 * cleanup). */
PyObject *filled_or_raise(va_status status, DeviceArrayObject **out);

/* A feature's share of DeviceArray's methods and attributes (NULL-terminated
 * tables, either may be NULL): manipulation, sorting, reductions, ... */
typedef struct {
    const PyMethodDef *methods;
    const PyGetSetDef *getset;
} TypePart;
/* The number methods the op table fills, then the type readied with them,
 * `richcompare` and one method table and one attribute table joined from its own
 * and the features' parts[0..nparts), and added to `module`. Nothing is added to
 * the type after it is ready. */
PyNumberMethods *devicearray_number_methods(void);
int devicearray_init(PyObject *module, richcmpfunc richcompare, const TypePart *parts, int nparts);
/* A new C-contiguous array from the library's pool. */
DeviceArrayObject *devicearray_empty(int device, va_dtype dtype, int ndim, const int64_t *shape,
                                     int managed);
/* The memory of a new C-contiguous array from the library's pool, before its object
 * exists: a small call launches into it first and makes the object after, while the
 * kernel runs (only host time before the launch delays a small call's result). */
typedef struct {
    int device;
    va_dtype dtype;
    int ndim;
    int64_t shape[VA_MAX_NDIM];
    int64_t strides[VA_MAX_NDIM]; /* bytes */
    void *data;
    size_t nbytes;
} DeviceMemory;
/* 0, or -1 with the exception set (a shape past NumPy's size rule, out of memory). */
int devicearray_memory(int device, va_dtype dtype, int ndim, const int64_t *shape, DeviceMemory *memory);
/* devicearray_memory with nothing allocated (data NULL): the size and C-contiguous
 * strides of a result the library allocates itself (va_elementwise_planned_new). */
int devicearray_memory_layout(int device, va_dtype dtype, int ndim, const int64_t *shape, DeviceMemory *memory);
void devicearray_memory_view(const DeviceMemory *memory, va_array *view);
/* Gives the memory back (stream-ordered: after the work queued on it). */
void devicearray_memory_free(DeviceMemory *memory);
/* The array that owns `memory` from now on; NULL with the exception set, the memory
 * given back. */
DeviceArrayObject *devicearray_adopt(DeviceMemory *memory);
/* A view of memory owned by `owner` (borrowed; a new reference is kept). */
DeviceArrayObject *devicearray_view(void *data, int device, va_dtype dtype, int ndim,
                                    const int64_t *shape, const int64_t *strides,
                                    PyObject *owner);
/* Copies a host array (any layout, supported dtype) to `device`. */
DeviceArrayObject *devicearray_from_host(PyArrayObject *array, int device, int managed);
/* A new NumPy array holding the data; waits for queued work. */
PyObject *devicearray_to_host(DeviceArrayObject *self);
/* A C-contiguous copy on the same device (or a new reference when already so). */
DeviceArrayObject *devicearray_contiguous(DeviceArrayObject *self);
/* A new C-contiguous copy on the same device, queued on the library's stream. */
DeviceArrayObject *devicearray_copy(DeviceArrayObject *self);
void devicearray_describe(const DeviceArrayObject *self, va_array *view);
/* Lets go of foreign owners whose views' work is done (all of them after a
 * full synchronisation). Returns how many still wait: with everything_done,
 * those that letting go of the others deferred. */
Py_ssize_t devicearray_sweep_releases(int everything_done);
int devicearray_is_c_contiguous(const DeviceArrayObject *self);
/* 0 when `out` (the DeviceArray taken from the user's `out_obj`) may be
 * written; -1 with ValueError, as NumPy words it, for a read-only view. */
int devicearray_check_writable(PyObject *out_obj, DeviceArrayObject *out);
/* 0 when `self` may be assigned to (d[...] = x, d.fill(x)); -1 with NumPy's
 * ValueError "assignment destination is read-only" for a read-only array. */
int devicearray_check_assignable(const DeviceArrayObject *self);

/* ---- hostmem.cpp ---- */
/* A C-contiguous NumPy array in pinned memory from the library's cache (plain
 * memory when none can be had). */
PyArrayObject *pinned_array_empty(int ndim, const int64_t *shape, va_dtype dtype);

/* ---- interop.cpp: arrays of other GPU libraries ---- */
/* A DeviceArray view of `obj` when it exports __cuda_array_interface__ or
 * __dlpack__ on a CUDA device; Py_None (new reference) when it exports neither;
 * NULL with an exception on a malformed export. */
PyObject *interop_import(PyObject *obj);
/* After the library wrote into `obj`'s memory: make its stream wait for us. */
int interop_after_write(PyObject *obj, int device);
/* from_dlpack(x): x must export __dlpack__ on a CUDA device. */
PyObject *interop_from_dlpack(PyObject *obj);
/* DeviceArray's exports: __cuda_array_interface__, __dlpack__, __dlpack_device__. */
PyObject *devicearray_cai(PyObject *self, void *closure);
PyObject *devicearray_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames);
PyObject *devicearray_dlpack_device(PyObject *self, PyObject *unused);

/* ---- operands.cpp ---- */
typedef enum { KIND_ARRAY = 0, KIND_WEAK_INT = 1, KIND_WEAK_FLOAT = 2, KIND_WEAK_BOOL = 3, KIND_WEAK_COMPLEX = 4 } OperandKind;
typedef struct {
    PyObject *original;          /* borrowed */
    OperandKind kind;
    va_dtype dtype;              /* for KIND_ARRAY */
    PyArrayObject *host;         /* new reference: host data (KIND_ARRAY on the host) */
    DeviceArrayObject *device;   /* new reference: GPU data */
} Operand;

/* Classifies `obj`; TypeError for unsupported dtypes or kinds. */
int operand_init(Operand *op, PyObject *obj);
void operand_clear(Operand *op);
/* How the operand takes part in promotion (Python scalars are weak, NEP 50). */
va_weak operand_weak(const Operand *op);
/* Its dtype on its own: an array's, or NumPy's default for a Python scalar. */
va_dtype operand_natural_dtype(const Operand *op);
/* The operand as a host array of `dtype` (weak scalars) or its own dtype,
 * aligned and in native byte order: a new reference. */
PyArrayObject *operand_host_array(const Operand *op, va_dtype dtype);
/* The operand on the GPU `device` (uploaded when it lives on the host). */
DeviceArrayObject *operand_device_array(const Operand *op, va_dtype dtype, int device);

/* ---- info.cpp, tutorial.cpp ---- */
PyObject *mm_cuda_available(PyObject *module, PyObject *unused);
PyObject *mm_device_count(PyObject *module, PyObject *unused);
PyObject *mm_device_info(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *mm_runtime_info(PyObject *module, PyObject *unused);
PyObject *mm_synchronize(PyObject *module, PyObject *unused);
PyObject *mm_memory_stats(PyObject *module, PyObject *unused);
PyObject *mm_release_cached(PyObject *module, PyObject *unused);
PyObject *mm_testing_fault(PyObject *module, PyObject *unused);
PyObject *mm_testing_mirror_reads(PyObject *module, PyObject *unused);
PyObject *mm_helloworld(PyObject *module, PyObject *unused);
PyObject *mm_fib(PyObject *module, PyObject *arg);

#endif /* MYMODULE_COMMON_H */
