/*
 * vectorAdd: the CUDA library behind myModule, callable from C.
 *
 * Every function returns a va_status; va_status_string() gives its text and
 * va_last_error() the details of the last CUDA failure on the calling thread.
 * Nothing here exits, prints or lets a C++ exception out. Sizes, shapes, strides
 * and indices are 64-bit. The CUDA runtime is linked statically, so loading
 * needs no libcudart; with no driver or no GPU every call that needs one
 * returns VA_ERROR_NO_DEVICE.
 */
#ifndef VECTORADD_H
#define VECTORADD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum va_status {
    VA_SUCCESS = 0,
    VA_ERROR_INVALID_VALUE = 1,     /* a bad argument: NULL, shape, ndim, op */
    VA_ERROR_UNSUPPORTED_DTYPE = 2, /* not a va_dtype, or not one the operation has a loop for */
    VA_ERROR_NO_DEVICE = 3,         /* no usable GPU or no driver */
    VA_ERROR_OUT_OF_MEMORY = 4,     /* GPU (or pinned host) memory exhausted */
    VA_ERROR_CUDA = 5,              /* another CUDA failure; the context is still usable */
    VA_ERROR_CUDA_FATAL = 6,        /* a sticky fault: the process must restart */
    VA_ERROR_LIBRARY_UNAVAILABLE = 7, /* a library loaded when first needed (cuBLAS) could not
                                         be loaded: va_last_error's text says why (since 0.1.0) */
    VA_STATUS_MAX_ENUM = 0x7fffffff /* keeps any int a valid value when C++ reads it */
} va_status;

typedef enum va_dtype {
    VA_INT32 = 0,
    VA_INT64 = 1,
    VA_FLOAT32 = 2,
    VA_FLOAT64 = 3,
    VA_BOOL = 4,
    /* Since 0.2.0 (VA_MODULE_ABI 2): the rest of the array API standard's integers. */
    VA_INT8 = 5,
    VA_INT16 = 6,
    VA_UINT8 = 7,
    VA_UINT16 = 8,
    VA_UINT32 = 9,
    VA_UINT64 = 10,
    /* Since VA_MODULE_ABI 4: the standard's complex dtypes, as NumPy lays
     * them out (real part, then imaginary part; aligned to the whole element). */
    VA_COMPLEX64 = 11,
    VA_COMPLEX128 = 12,
    VA_DTYPE_COUNT = 13,
    VA_DTYPE_MAX_ENUM = 0x7fffffff
} va_dtype;

/* The dtype of one part of an element: a complex dtype's real and imaginary parts
 * (VA_FLOAT32 for VA_COMPLEX64, VA_FLOAT64 for VA_COMPLEX128); any other dtype is
 * its own. Inline: no symbol, the same in the library and in a user's module.
 * (Since VA_MODULE_ABI 4.) */
static inline va_dtype va_part_dtype(va_dtype dtype)
{
    return dtype == VA_COMPLEX64 ? VA_FLOAT32 : dtype == VA_COMPLEX128 ? VA_FLOAT64 : dtype;
}

/* An operation: its index in the operation table (va_op_find gives it by name).
 * The table is built from the declarations in ops/ and user_ops/, one file each. */
typedef int32_t va_op;

typedef enum va_op_kind {
    VA_KIND_ELEMENTWISE = 0, /* nin array inputs (and nparams leading scalars) -> one array */
    VA_KIND_REDUCTION = 1,   /* one array -> one value, by a combine functor */
    VA_KIND_RAW = 2,         /* a user's own __global__ kernel */
    VA_KIND_MAX_ENUM = 0x7fffffff
} va_op_kind;

/* Which dtype an elementwise operation computes in, after NumPy's promotion of
 * its inputs (NEP 50) gives `p`: the first loop NumPy would pick. */
typedef enum va_domain {
    VA_DOMAIN_ALL = 0,         /* p itself (bool included) */
    VA_DOMAIN_NUMBER = 1,      /* p; bool alone refused, as NumPy refuses it (subtract, negative) */
    VA_DOMAIN_FLOAT = 2,       /* the first float every input casts to safely: bool, int8 and uint8 ->
                                  float16 (unsupported), int16 and uint16 -> float32, wider -> float64 */
    VA_DOMAIN_TRUE_DIVIDE = 3, /* floating: bool and integers -> float64 */
    VA_DOMAIN_SUM = 4,         /* reductions: bool and integers accumulate as int64, floats as themselves */
    VA_DOMAIN_SAME = 5,        /* reductions: the input's own dtype */
    VA_DOMAIN_FIXED = 6,       /* raw kernels: their one dtype, inputs converted to it */
    VA_DOMAIN_MEAN = 7,        /* reductions: floats as themselves, bool and integers into float64 */
    VA_DOMAIN_INDEX = 8,       /* reductions to a position: int64 for every input dtype */
    VA_DOMAIN_INTEGER = 9,     /* p when bool or an integer; floats have no loop (bitwise ops) */
    VA_DOMAIN_LOGICAL = 10,    /* reductions of truth values (all, any): bool for every input dtype */
    VA_DOMAIN_COUNT = 11,      /* reductions counting truth values (count_nonzero): int64 for every input dtype */
    VA_DOMAIN_SHIFT = 12,      /* p when an integer, bool as int8 (since 0.2.0); floats have no loop (shifts) */
    VA_DOMAIN_ARITHMETIC = 13, /* p; bool as int8, NumPy's first loop it casts to (since 0.2.0) */
    VA_DOMAIN_MAX_ENUM = 0x7fffffff
} va_domain;

/* How a Python scalar argument takes part in promotion (NEP 50: "weak"). */
typedef enum va_weak {
    VA_STRONG = 0,     /* an array or NumPy scalar: its dtype counts */
    VA_WEAK_BOOL = 1,  /* a Python bool */
    VA_WEAK_INT = 2,   /* a Python int */
    VA_WEAK_FLOAT = 3, /* a Python float */
    VA_WEAK_COMPLEX = 4, /* a Python complex (since VA_MODULE_ABI 4) */
    VA_WEAK_MAX_ENUM = 0x7fffffff
} va_weak;

#define VA_MAX_INPUTS 4
#define VA_MAX_PARAMS 4

/* What the declaration of an operation says (static storage). */
typedef struct va_op_info {
    const char *name;         /* "maximum": the C and Python name */
    va_op_kind kind;
    int32_t nin;              /* array inputs */
    int32_t nparams;          /* scalar parameters, before the arrays in Python */
    const char *args;         /* argument names, comma separated: "alpha,x,y" */
    const char *reference;    /* the NumPy counterpart, "numpy.maximum": CPU path and test oracle */
    const char *pyop;         /* the Python operator it provides ("__add__"), or "" */
    const char *doc;          /* one-paragraph description */
    /* A Python function, "module.name", that checks host inputs for what NumPy
     * refuses by value before the GPU computes them (power: negative integer
     * exponents), called as f(compute_dtype_name, *arrays); "" for none. */
    const char *host_check;
    va_domain domain;
    int32_t ulp;              /* 0: bit-identical to NumPy; else the largest difference in ULP */
    int32_t has_identity;     /* reductions: 0 when an empty input is an error (max, min) */
    /* Indexed by the compute dtype: the result dtype, VA_DTYPE_COUNT where the
     * operation has no loop for it. */
    va_dtype result[VA_DTYPE_COUNT];
    /* Inputs of a fixed dtype whatever the others are (where's condition: bool),
     * else VA_DTYPE_COUNT; fixed inputs take no part in promotion. */
    va_dtype fixed_input[VA_MAX_INPUTS];
    /* Since VA_MODULE_ABI 3: ULP are counted at max(|result|, ulp_floor). 0 for
     * most operations; a function whose result cancels toward 0 while its
     * arguments do not (logaddexp near max(x, y) = -ln 2) names the scale below
     * which an error of its arguments' size is all it can promise. */
    double ulp_floor;
    /* Since VA_MODULE_ABI 4: where the operation has complex loops (result[] of
     * VA_COMPLEX64 and VA_COMPLEX128), how many ULP they may differ from NumPy's,
     * counted at the larger magnitude of the expected value's two parts, or at
     * complex_ulp_floor where that is larger (0 for most; log1p, whose NumPy
     * result near 0 is off by an ULP of 1, declares 1). */
    int32_t complex_ulp;
    double complex_ulp_floor;
} va_op_info;

/* How many operations the table holds at most: the built-in ones and those
 * loaded from operation libraries (va_module_load) together. */
#define VA_MAX_OPS 1024

/* The GPU architectures the library holds machine code for, as CUDA_ARCH
 * spells them: "75 80 86 ... 121" (static storage). */
const char *va_built_architectures(void);

/* The number of operations, and each one's declaration (NULL past the end).
 * Loading an operation library appends to the table; nothing is ever removed,
 * so an index and its declaration stay valid for the life of the process. */
int32_t va_op_count(void);
const va_op_info *va_op_get(va_op op);
/* The index of the operation called `name`, or VA_ERROR_INVALID_VALUE. */
va_status va_op_find(const char *name, va_op *op);
/* Where an operation comes from: "" for the library's own (ops/, user_ops/), the
 * path of its operation library for a loaded one; NULL past the end. */
const char *va_op_origin(va_op op);

/* ---- operation libraries built outside the library (myModule.load) ---- */
/* Why va_module_load refused an object (VA_MODULE_LOADED when it did not). */
typedef enum va_module_problem {
    VA_MODULE_LOADED = 0,
    VA_MODULE_CANNOT_OPEN = 1,     /* the loader's message is in `detail` */
    VA_MODULE_NOT_A_MODULE = 2,    /* no va_module_version / va_module_abi / init symbol */
    VA_MODULE_OTHER_VERSION = 3,   /* built for another myModule version or ABI: `found_version` */
    VA_MODULE_NAME_TAKEN = 4,      /* row `clash_row` is named like operation `clash_op` */
    VA_MODULE_TABLE_FULL = 5,      /* past VA_MAX_OPS */
    VA_MODULE_BAD_ROWS = 6,        /* the init call failed or gave rows the table cannot take */
    VA_MODULE_PROBLEM_MAX_ENUM = 0x7fffffff
} va_module_problem;

/* The layout version of what an operation library and the library exchange
 * (module_abi.cuh); an object built with other headers is refused. 5: the
 * reduction call structs carry a pinned copy's address (op_registry.cuh). */
#define VA_MODULE_ABI 5

typedef struct va_module_result {
    va_module_problem problem;
    va_op first;                   /* the operations added: first .. first + count - 1 */
    int32_t count;
    va_op clash_op;                /* VA_MODULE_NAME_TAKEN: the operation holding the name, or */
    int32_t clash_row;             /* -1 when two rows of the object itself share it */
    const char *clash_name;        /* the name (the object's storage) */
    char found_version[64];        /* VA_MODULE_OTHER_VERSION: "0.2.0 (ABI 2)" */
    char detail[512];              /* VA_MODULE_CANNOT_OPEN: dlerror()'s text */
} va_module_result;

/* Opens the shared object at `path` (built by myModule for `version`), checks
 * that it was built for that version and this ABI before calling anything in
 * it, and appends its operations to the table: all of them, or none when a
 * name is taken. The object stays loaded for the life of the process.
 * VA_ERROR_INVALID_VALUE with result->problem saying why. */
va_status va_module_load(const char *path, const char *version, va_module_result *result);

#define VA_MAX_NDIM 32

/* An n-d strided view of memory. Strides are in bytes and may be zero (broadcast)
 * or negative; data points at element [0, ..., 0]. */
typedef struct va_array {
    void *data;
    va_dtype dtype;
    int32_t ndim;
    int64_t shape[VA_MAX_NDIM];
    int64_t strides[VA_MAX_NDIM];
} va_array;

/* Details of the last CUDA failure seen on the calling thread. */
typedef struct va_error_info {
    int cuda_code;         /* cudaError_t value, 0 if the failure was not a CUDA call */
    const char *name;      /* "cudaErrorMemoryAllocation", static storage */
    const char *text;      /* the runtime's description, static storage */
    const char *file;      /* where in this library it was caught */
    int line;
    int64_t bytes;         /* for VA_ERROR_OUT_OF_MEMORY: the request that failed */
} va_error_info;

typedef struct va_device_info {
    char name[256];
    int major, minor;              /* compute capability */
    int multiprocessors;
    int64_t total_memory;          /* bytes */
    int64_t free_memory;           /* bytes, at the time of the call */
    int64_t l2_cache_bytes;
    int pci_bus_id;
    int managed_memory;            /* 1 if managed (unified) memory is supported */
} va_device_info;

/* ---- status and errors ---- */
const char *va_status_string(va_status status);
void va_last_error(va_error_info *info);
size_t va_dtype_size(va_dtype dtype);
/* 1 when the view's elements lie in C order one after another (length-1 axes'
 * strides aside; an empty view is), else 0: the one test of C-contiguity, for
 * the library and the Python extension. (Since 0.1.0.) */
int32_t va_is_c_contiguous(const va_array *a);
/* The dtypes `op` computes in and returns for arguments of dtypes in[0..nargs),
 * its nparams scalars then its nin arrays (weak[i] says which are Python
 * scalars; NULL: none): NumPy's promotion (NEP 50) and loop choice.
 * VA_ERROR_UNSUPPORTED_DTYPE where NumPy would give a dtype this library lacks
 * or has no loop for. The library and the Python extension share it; the C
 * entry points pass their double params as Python scalars of the output's kind
 * (va_elementwise). */
va_status va_op_dtypes(va_op op, int32_t nargs, const va_dtype *in, const va_weak *weak,
                       va_dtype *compute, va_dtype *result);
/* NumPy's result_type of arrays (or dtypes) in[0..n) and Python scalars (weak[i]
 * their kinds; NULL: none): the first type of NumPy's loop order that every
 * array's dtype casts to safely, the scalars joining by NEP 50 as in
 * va_op_dtypes. 1 <= n <= VA_MAX_RESULT_TYPE_ARGS. (Since VA_MODULE_ABI 4.) */
#define VA_MAX_RESULT_TYPE_ARGS 64
va_status va_result_type(int32_t n, const va_dtype *in, const va_weak *weak, va_dtype *result);
/* The result dtype of a two-input `op` on arrays of dtypes a and b. */
va_status va_result_dtype(va_op op, va_dtype a, va_dtype b, va_dtype *result);
/* NumPy's promote_types over the supported dtypes (the dtype both a and b cast to
 * safely: bool < int32 < int64 < float64, bool < float32 < float64, an integer
 * with float32 gives float64): what every operation promotes its arrays by. */
va_status va_promote_types(va_dtype a, va_dtype b, va_dtype *result);

/* ---- devices ---- */
/* VA_SUCCESS when at least one usable GPU and a driver are present. */
va_status va_cuda_available(void);
va_status va_device_count(int *count);
va_status va_device_info_get(int device, va_device_info *info);
/* Driver and runtime versions as 1000*major + 10*minor; driver is 0 without one. */
va_status va_versions(int *driver_version, int *runtime_version);
/* The device that owns `ptr` (device or managed memory), or VA_ERROR_INVALID_VALUE
 * when it is host memory unknown to CUDA. is_managed may be NULL. */
va_status va_pointer_device(const void *ptr, int *device, int *is_managed);
/* The library's stream on `device` (a cudaStream_t), created on first use. */
va_status va_stream(int device, void **stream);
/* Wait for the library's work on `device`, or on every device when device < 0. */
va_status va_synchronize(int device);
/* Make the library's stream on `device` wait for work queued so far on `stream`
 * (an event, no host wait). A stream of NULL means the legacy default stream. */
va_status va_stream_wait_external(int device, void *stream);
/* Make `stream` wait for the library's work queued so far on `device`. */
va_status va_external_wait_library(int device, void *stream);

/* A marker of the library's work queued on `device` so far; va_marker_done()
 * says whether the GPU has passed it (1), not yet (0). Markers are cheap events
 * from a cache; each is given back with va_marker_release(). */
va_status va_marker_record(int device, void **marker);
int va_marker_done(void *marker);
void va_marker_release(void *marker);

/* ---- memory (stream-ordered pool on the library's stream) ---- */
va_status va_malloc(int device, size_t nbytes, void **ptr);
va_status va_free(int device, void *ptr, size_t nbytes);
/* Managed memory; refused with VA_ERROR_OUT_OF_MEMORY when more than the GPU has free. */
va_status va_malloc_managed(int device, size_t nbytes, void **ptr);
va_status va_free_managed(int device, void *ptr, size_t nbytes);
/* Bytes the library holds for live allocations, and how many there are. */
va_status va_memory_stats(int64_t *bytes_in_use, int64_t *live_allocations);
/* Return the pool's cached, unused memory to the driver. */
va_status va_release_cached(void);
/* Pinned (page-locked, device-mapped) host memory from a cache: GPU copies to and
 * from it run at full PCIe speed. Freed blocks are kept for reuse, up to a cap. */
va_status va_host_alloc(size_t nbytes, void **ptr);
va_status va_host_free(void *ptr);
/* Copies on the library's stream of `device`; va_copy_to_host waits for it. */
va_status va_copy_to_device(int device, void *dst, const void *src, size_t nbytes);
va_status va_copy_to_host(int device, void *dst, const void *src, size_t nbytes);
/* Call when a device address leaves the caller's hands (an export to another
 * library, a raw pointer handed to a user): what the library remembers of the
 * bytes there (va_reduce_axes_scalar) is no longer trusted. (Since VA_MODULE_ABI 5.) */
va_status va_note_address_exported(void);

/* ---- compute on device memory, queued on the library's stream of `device` ---- */
/* out = op(params..., in[0], ..., in[nin-1]) elementwise, for an elementwise op.
 * Inputs and out have the same ndim and shape (broadcast inputs carry stride 0),
 * any dtypes and layouts; each input is cast to the compute dtype as it is read;
 * out's dtype is the op's result dtype (va_op_dtypes). params: nparams values,
 * converted to the compute dtype; in the dtype rules they count as Python
 * scalars of out's kind (float for a float out, int for an integer one, bool for
 * bool), so that axpy of two int64 arrays may give int64 or float64 (NEP 50). */
va_status va_elementwise(int device, va_op op, int32_t nin, const va_array *in,
                         const double *params, const va_array *out);
/* An elementwise call whose loop the caller has decided (va_op_dtypes with what
 * it knows of its arguments: the Python extension knows each parameter's Python
 * type). The library checks the views and that `compute` is a loop of the op
 * whose result dtype is out's, and decides nothing again. (Since 0.1.0.) */
typedef struct va_elementwise_plan {
    va_op op;
    int32_t nin;
    const va_array *in;      /* nin views of out's shape (broadcast: stride 0) */
    const double *params;    /* the op's nparams values */
    const va_array *out;
    va_dtype compute;        /* the loop */
} va_elementwise_plan;
/* va_elementwise of a decided call, on device memory of `device`. */
va_status va_elementwise_planned(int device, const va_elementwise_plan *plan);
/* va_elementwise_planned into new memory: plan->out describes a C-contiguous result
 * (its data is not read); the library allocates it as va_malloc would (give it back
 * with va_free and out's byte size), queues the call into it and writes its address
 * to *data. On failure *data is NULL and nothing stays allocated. One entry for both:
 * the least host time before a small call's launch. (Since 0.2.0.) */
va_status va_elementwise_planned_new(int device, const va_elementwise_plan *plan, void **data);
/* va_elementwise_host_multi of a decided call, on host memory. */
va_status va_elementwise_host_planned(const int *devices, int32_t ndevices, const va_elementwise_plan *plan);
/* va_elementwise of a two-input op. */
va_status va_binary(int device, va_op op, const va_array *a, const va_array *b,
                    const va_array *out);
/* dst = src converted to dst's dtype, any layouts of one shape. */
va_status va_copy_convert(int device, const va_array *src, const va_array *dst);
/* The reduction `op` (sum, prod, max, min, ...) of every element of `a`, written
 * to host memory *result in the op's result dtype (va_op_dtypes). Waits for it.
 * VA_ERROR_INVALID_VALUE for an empty input to an op with no identity. */
va_status va_reduce(int device, va_op op, const va_array *a, void *result);
/* The same, written to device memory `result` on the library's stream: no wait. */
va_status va_reduce_async(int device, va_op op, const va_array *a, void *result);
/* The reduction `op` of `a` over its axes axes[0..naxes) (distinct, in
 * [0, a->ndim); naxes 0 reduces nothing, a conversion to the result dtype),
 * written to the device view `out` on the library's stream: no wait. `out` has
 * the op's result dtype (va_op_dtypes) and a's shape without the reduced axes,
 * or with 1 in their place (keepdims); any strides. Averaging ops (mean) give
 * NaN for an empty reduction; ops with no identity (max, min) fail with
 * VA_ERROR_INVALID_VALUE when the reduced axes hold no element, as NumPy.
 * Results are deterministic: the same order of combination on every run. */
va_status va_reduce_axes(int device, va_op op, const va_array *a, int32_t naxes, const int32_t *axes,
                         const va_array *out);
/* va_reduce_axes into a one-element `out` whose address no code outside the
 * library has seen (a result just allocated for it): the kernel writes the
 * value also into pinned host memory, and va_copy_to_host of `out` takes it
 * from there (a synchronisation, no copy) until anything else uses the
 * library's stream or va_note_address_exported is called. Other reductions
 * behave as va_reduce_axes. (Since VA_MODULE_ABI 5.) */
va_status va_reduce_axes_scalar(int device, va_op op, const va_array *a, int32_t naxes, const int32_t *axes,
                                const va_array *out);
/* va_reduce with op "sum": int64 for bool and integer dtypes, float32 or double for floats. */
va_status va_sum(int device, const va_array *a, void *result);
/* The trace of a 2-d array, written like va_sum's result. */
va_status va_trace(int device, const va_array *a, void *result);

/* out[i] = where values[i] would be inserted into the 1-d `sorted` (ascending,
 * NaN last, as NumPy sorts) to keep it sorted: the first such position (right
 * == 0, NumPy's side='left') or the last (right != 0). Compared in the dtype both
 * promote to (va_promote_types). `values` any shape and layout; `out` int64 of
 * its shape, C-contiguous. Queued on the library's stream. (Since 0.1.0.) */
va_status va_searchsorted(int device, const va_array *sorted, const va_array *values, int32_t right,
                          const va_array *out);

/* out[i] = a[i] @ b[i] for i < B: a (B, m, k), b (B, k, n), out (B, m, n), one dtype.
 * A batch stride may be 0 (one matrix for every i). float32 and float64 through cuBLAS,
 * loaded when first needed (libcublas.so.13: $MYMODULE_CUBLAS, the loader's path,
 * $CUDA_PATH/lib64, /usr/local/cuda/lib64; VA_ERROR_LIBRARY_UNAVAILABLE when none
 * loads), in the inputs' precision (no TF32); their matrices in either row-major or
 * column-major layout, others are copied first. bool, int32 and int64 with a kernel of
 * the library's, as NumPy computes them (integers wrap; bool is any(a & b)). `out`
 * C-contiguous, apart from a and b. Queued on the library's stream. (Since 0.1.0.) */
va_status va_matmul(int device, const va_array *a, const va_array *b, const va_array *out);

/* The variance of every element of `a` (float32 or float64, any shape and layout),
 * sum((x - mean)^2) / max(n - correction, 0) as NumPy's var with ddof=correction,
 * written to `out` (one element of a's dtype, device memory). One pass over the
 * data (a strided `a` is first copied), computed in double, combined in the same
 * order on every run. An empty `a`, or n <= correction, gives NaN or inf, as
 * NumPy. Queued on the library's stream. (Since 0.1.0.) */
va_status va_var(int device, const va_array *a, double correction, const va_array *out);

/* ---- sorting and scans along an axis, queued on the library's stream of `device` ---- */
/* Sorts `a` along `axis` (in [0, a->ndim)), stable: equal elements keep their
 * order, also when `descending`. Floats in NumPy's order: NaN after +inf (first
 * when descending; a NaN's sign and payload in `values` are unspecified), -0.0 equal
 * to 0.0.
 * `values` (a's dtype) and `indices` (int64: each element's position along the
 * axis in `a`) have a's shape and any layout; either may be NULL, and `values`
 * may be `a` itself (an in-place sort). */
va_status va_sort(int device, const va_array *a, int32_t axis, int32_t descending, const va_array *values,
                  const va_array *indices);

typedef enum va_scan {
    VA_SCAN_SUM = 0,  /* running sums (bool: logical or) */
    VA_SCAN_PROD = 1, /* running products (bool: logical and) */
    VA_SCAN_MAX_ENUM = 0x7fffffff
} va_scan;

/* out = the inclusive scan of `a` along `axis`, computed in out's dtype (each
 * element converted as it is read; integers wrap as NumPy's). out has a's shape
 * and any layout; axis < 0 scans every element in C order into a 1-d out of a's
 * size (numpy.cumsum with axis=None). out may overlap `a`. Floats are summed in
 * a tree order (not NumPy's left to right): within rounding of it. */
va_status va_cumulative(int device, va_scan kind, const va_array *a, int32_t axis, const va_array *out);

/* ---- creation and indexing, queued on the library's stream of `device` ---- */
/* Every element of dst (any layout) set to *value, one element of dst's dtype. */
va_status va_fill(int device, const va_array *dst, const void *value);
/* dst (1-d) = numpy.arange's values: *first and *second are elements 0 and 1 in
 * dst's dtype (as NumPy sets them from start and start + step), element i >= 2
 * is first + i * (second - first) in that dtype. */
va_status va_arange(int device, const va_array *dst, const void *first, const void *second);
/* dst (1-d) = numpy.linspace(start, stop, len, endpoint) computed in `compute`
 * (VA_FLOAT32 or VA_FLOAT64), floored for an integer dst, then cast to dst's dtype
 * (a complex dst: zero imaginary parts). */
va_status va_linspace(int device, const va_array *dst, va_dtype compute, double start,
                      double stop, int endpoint);
/* The same for a complex dst (VA_COMPLEX64 or VA_COMPLEX128) between start[0] +
 * start[1] i and stop[0] + stop[1] i, computed as NumPy's complex linspace in the
 * complex type whose parts are `compute`: each part apart, bit for bit NumPy's for
 * finite ends (an infinite or NaN part stays in its part; NumPy spreads it).
 * (Since VA_MODULE_ABI 4.) */
va_status va_linspace_complex(int device, const va_array *dst, va_dtype compute, const double start[2],
                              const double stop[2], int endpoint);
/* dst (2-d, any layout) = ones on diagonal k (k > 0 above the main one), zeros elsewhere. */
va_status va_eye(int device, const va_array *dst, int64_t k);
/* dst = src (converted to dst's dtype), both of one shape, except that along
 * `axis` src's element j sits at byte offset offsets[j] (int64, device memory,
 * shape[axis] entries) from src->data plus the other axes' strides: a gather. */
va_status va_gather(int device, const va_array *src, int axis, const int64_t *offsets,
                    const va_array *dst);
/* The reverse: dst's element j along `axis` sits at offsets[j]: a scatter (with
 * repeated offsets, which write lands is unspecified). */
va_status va_scatter(int device, const va_array *src, const va_array *dst, int axis,
                     const int64_t *offsets);

/* numpy.nonzero on device memory: the positions, in C order, of the elements of
 * `a` (any dtype and layout) that are nonzero (NaN is, -0.0 is not). Their number
 * sizes the outputs, so it takes two calls around one host wait:
 *   va_nonzero_scratch_bytes gives the size of the scratch (device memory the
 *   caller allocates, on `device`, and keeps until the second call is queued);
 *   va_nonzero_count counts into it and returns the number in *count (waits);
 *   va_nonzero_write then writes, for the k-th nonzero element (k < *count),
 *   coords[d][k] = its index along axis d (int64 device memory; coords NULL or
 *   coords[d] NULL: not written) and, when offsets is not NULL,
 *   offsets[k] = sum over d of that index times weights[d] (a gather's byte
 *   offsets, for a boolean mask). Queued, no wait. An empty `a` counts 0 and
 *   needs no scratch (NULL). VA_ERROR_INVALID_VALUE past 2**31 - 1 tiles of
 *   4096 elements. */
va_status va_nonzero_scratch_bytes(const va_array *a, size_t *nbytes);
va_status va_nonzero_count(int device, const va_array *a, void *scratch, int64_t *count);
va_status va_nonzero_write(int device, const va_array *a, const void *scratch, int64_t *const *coords,
                           const int64_t *weights, int64_t *offsets);

/* ---- compute on host memory through the GPU (uploads, computes, downloads) ---- */
/* Like va_binary, but a, b and out live in host memory. Inputs are read with
 * their strides; out must be C-contiguous. Small inputs go through one kernel
 * reading pinned memory in place; large contiguous ones through a pipeline of
 * pinned staging buffers on several streams, filled by several CPU threads;
 * out from va_host_alloc receives results by DMA directly. */
va_status va_elementwise_host(int device, va_op op, int32_t nin, const va_array *in,
                              const double *params, const va_array *out);
va_status va_binary_host(int device, va_op op, const va_array *a, const va_array *b,
                         const va_array *out);
va_status va_reduce_host(int device, va_op op, const va_array *a, void *result);
va_status va_sum_host(int device, const va_array *a, void *result);
/* The same over the GPUs devices[0..ndevices) (distinct indices): work that
 * moves at least twice MYMODULE_SPLIT_BYTES (16 MiB by default) is shared out,
 * each GPU taking a piece with its own pinned staging, streams and threads;
 * smaller work, and reductions of inputs that are not C-contiguous, run on
 * devices[0]. Results are the same bits as on devices[0] alone (a host
 * reduction combines fixed chunks in order, however many GPUs take part).
 * All GPUs have finished when it returns; the status is the first failure,
 * but VA_ERROR_OUT_OF_MEMORY only when no GPU failed otherwise. */
va_status va_elementwise_host_multi(const int *devices, int32_t ndevices, va_op op, int32_t nin,
                                    const va_array *in, const double *params, const va_array *out);
va_status va_reduce_host_multi(const int *devices, int32_t ndevices, va_op op, const va_array *a,
                               void *result);

/* ---- a user's own kernel (user_ops/, VA_RAW_KERNEL) ---- */
/* Launches raw kernel `op` on the library's stream of `device` over device views
 * in[0..nin) and out, with `grid` blocks of `block` threads (0: the declaration's
 * defaults for out's size). out must have in[0]'s shape when there are inputs,
 * grid at most 2**31 - 1 and block at most 1024: VA_ERROR_INVALID_VALUE otherwise. */
va_status va_raw_launch(int device, va_op op, int32_t nin, const va_array *in,
                        const double *params, const va_array *out, int64_t grid, int32_t block);

/* A user kernel's launch: grid and block in up to three dimensions (a 0 in
 * grid[0] or block[0]: the default, one thread per element of out along x, 256
 * a block; other 0s count as 1), and bytes of dynamic shared memory. */
typedef struct va_launch {
    int64_t grid[3];
    int32_t block[3];
    int64_t shared_bytes;
} va_launch;

/* va_raw_launch with a launch shape, integer parameters beside the double ones
 * (iparams: NULL for none; a kernel reads them as args.iparams) and an out of
 * the caller's choosing (any shape; any dtype the library has: the kernel reads
 * args.out.dtype). The inputs must be of one dtype the kernel has a loop for
 * (the compute dtype: va_op_dtypes). Checked against the device's limits
 * (grid[0] <= 2**31 - 1, grid[1], grid[2] <= 65535, at most 1024 threads a block,
 * block[2] <= 64, shared memory within the device's opt-in limit). */
va_status va_raw_launch_shaped(int device, va_op op, int32_t nin, const va_array *in,
                               const double *params, const int64_t *iparams, const va_array *out,
                               const va_launch *launch);

/* Waits for all work, then gives back everything the library holds (streams,
 * pools, caches, staging buffers). Optional, for programs and checkers that want
 * a clean exit; no array of the library may be used after it. */
va_status va_shutdown(void);

/* ---- testing ---- */
/* Launch a kernel that writes through an invalid address: a sticky fault, for tests
 * of the fatal-error path only. */
va_status va_testing_fault(int device);
/* How many reads va_copy_to_host took from the pinned copy of a reduction's
 * result (va_reduce_axes_scalar) in this process, for tests that the copy is
 * used. (Since VA_MODULE_ABI 5.) */
va_status va_testing_mirror_reads(int64_t *served);

#ifdef __cplusplus
}
#endif

#endif /* VECTORADD_H */
