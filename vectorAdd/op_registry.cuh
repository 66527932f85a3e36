// The operation table's internal side: what each declaration provides to the
// library (its va_op_info and the launchers its kernels were instantiated in),
// and the arguments those launchers take.
#pragma once

#include <cuda_runtime.h>

#include "vectorAdd.h"

namespace va {

// Scratch of one stream's reductions: the blocks' partials and the counter that
// finds the last block (zero between reductions: the last block resets it).
constexpr int kMaxBlocks = 4096;
constexpr size_t kReduceScratchBytes = kMaxBlocks * sizeof(int64_t) + 64;
struct ReduceScratch {
    void *partials = nullptr;
    unsigned int *counter = nullptr;
};

// One elementwise call, arguments checked: views of one shape, n elements.
struct ElementwiseCall {
    int device;
    cudaStream_t stream;
    int nin;
    const va_array *in;
    const double *params;
    const va_array *out;  // the op's result dtype
    int64_t n;
    va_dtype compute;
};

// One reduction over n > 0 elements of `a`, written to device-visible `result`
// in the op's result dtype, or in its accumulator dtype when `to_accumulator`
// (partial results that a second pass combines). A non-null `mirror` (mapped
// pinned memory) receives the same value from the same thread: a Python float
// of the result is then read with no copy (scalar_mirror.cuh). Since
// VA_MODULE_ABI 5.
struct ReduceCall {
    int device;
    cudaStream_t stream;
    const va_array *a;
    int64_t n;
    ReduceScratch scratch;
    void *result;
    bool to_accumulator;
    void *mirror = nullptr;
};

// A reduction over a set of axes, as the planner (reduce_axes.cu) leaves it:
// dims of extent 1 dropped, negative strides turned round, mergeable dims
// merged; each group ordered outermost first, so its last dim is the fastest.
// `kept` index the outputs (strides into the input and into the output),
// `reduced` the elements each output combines. Byte strides.
struct AxesPlan {
    const char *in;
    char *out;
    int nkept;
    int64_t kept_extent[VA_MAX_NDIM];
    int64_t kept_in[VA_MAX_NDIM];
    int64_t kept_out[VA_MAX_NDIM];
    int nreduced;
    int64_t reduced_extent[VA_MAX_NDIM];
    int64_t reduced_in[VA_MAX_NDIM];
    int64_t outputs;   // product of kept_extent (> 0)
    int64_t reduced;   // product of reduced_extent (>= 0)
};

struct AxesCall {
    int device;
    cudaStream_t stream;
    va_dtype dtype;      // the input's
    AxesPlan plan;
    ReduceScratch scratch;  // for full reductions (every element, or a few long rows)
    // Since VA_MODULE_ABI 5: where not null, a launcher that writes its one result
    // also into `mirror` (ReduceCall::mirror) sets *mirror_written; one that
    // cannot leaves it false, and the copy is not used.
    void *mirror = nullptr;
    bool *mirror_written = nullptr;
};

// The dtype that picks a call's kernels (its compute type, or its input's for
// a reduction): what a launcher of a dtype part routes on (op_declare.cuh).
inline va_dtype routed_dtype(const ElementwiseCall &c) { return c.compute; }
inline va_dtype routed_dtype(const ReduceCall &c) { return c.a->dtype; }
inline va_dtype routed_dtype(const AxesCall &c) { return c.dtype; }

// A user kernel's launch over device views, its inputs of dtype `compute`.
struct RawCall {
    int device;
    cudaStream_t stream;
    int nin;
    const va_array *in;
    const double *params;
    const int64_t *iparams;  // nullptr: none
    const va_array *out;
    va_launch launch;
    va_dtype compute;
};

struct OpEntry {
    va_op_info info;
    va_status (*elementwise)(const ElementwiseCall &);
    va_status (*reduce)(const ReduceCall &);
    va_status (*reduce_axes)(const AxesCall &);
    va_status (*raw)(const RawCall &);
    // Reductions: the accumulator dtype for each input dtype.
    va_dtype accumulator[VA_DTYPE_COUNT];
    int32_t default_block;  // raw kernels
};

// The entry of `op`, or nullptr when there is none.
const OpEntry *op_entry(va_op op);

// Appends n rows of an operation library (their strings and launchers stay
// valid for the life of the process) whose path is `origin`: all of them, or
// none when a name is taken or the table is full (result->problem says which).
va_status append_rows(const OpEntry *rows, int32_t n, const char *origin, va_module_result *result);

}  // namespace va
