// Internal entry points that queue work on a given stream, shared by the device
// and the host-memory front ends.
#pragma once

#include <cstdint>

#include "dispatch.cuh"
#include "op_registry.cuh"
#include "runtime.cuh"

namespace va {

class DeviceBuffer;

// Scratch laid out in kReduceScratchBytes of zeroed device memory.
ReduceScratch scratch_at(void *memory);
// The scratch of the library stream's reductions on `device` (current already).
va_status device_scratch(int device, ReduceScratch *out);

// Checks a reduction's arguments; *compute is the input dtype, *result the op's.
va_status check_reduce(va_op op, const va_array *a, int64_t *n, va_dtype *result);

// Queues reduction `op` of `a` (n > 0 elements, device memory) on `stream`,
// written to device-visible `result` (the accumulator dtype when
// `to_accumulator`). No wait.
va_status reduce_on_stream(int device, cudaStream_t stream, va_op op, const va_array *a, int64_t n,
                           ReduceScratch scratch, void *result, bool to_accumulator);

// Reduces `a` (n elements, device memory) on `stream` and waits; *result in host
// memory, in the op's result dtype (n == 0: its identity).
va_status reduce_and_wait(int device, cudaStream_t stream, va_op op, const va_array *a, int64_t n,
                          void *result);

// The 1-d strided view of a 2-d array's main diagonal.
va_status diagonal_view(const va_array *a, va_array *diag, int64_t *n);

// The C API's decision for an elementwise call (va_elementwise's rule for its
// parameters' types), as a plan over the caller's arrays.
va_status decide_elementwise(va_op op, int32_t nin, const va_array *in, const double *params,
                             const va_array *out, va_elementwise_plan *plan);
// A plan's views and loop checked; *n its element count.
va_status check_elementwise_plan(const va_elementwise_plan *plan, int64_t *n);
// Elementwise work queued on `stream` (arguments already checked).
va_status elementwise_on_stream(int device, cudaStream_t stream, va_op op, int32_t nin,
                                const va_array *in, const double *params, const va_array *out,
                                int64_t n, va_dtype compute);
va_status convert_on_stream(int device, cudaStream_t stream, const va_array *src,
                            const va_array *dst, int64_t n);
// `a` (n elements) as a contiguous array of `dtype`: *data is a's own memory when it
// already is one, else a converted copy queued on `stream` into `buffer`.
va_status contiguous_as(int device, cudaStream_t stream, const va_array *a, int64_t n, va_dtype dtype,
                        DeviceBuffer *buffer, const void **data);
// The same as a view: a's shape, C-order strides of `dtype` (a itself when it is one).
va_status contiguous_view_as(int device, cudaStream_t stream, const va_array *a, int64_t n, va_dtype dtype,
                             DeviceBuffer *buffer, va_array *view);

}  // namespace va
