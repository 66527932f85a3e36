// Internal entry points that queue work on a given stream, shared by the device
// and the host-memory front ends.
#pragma once

#include <cstdint>
#include <type_traits>

#include "runtime.cuh"

namespace va {

// What a sum of T reports: int64 for integers, T itself for floats.
template <typename T>
struct SumResult {
    using type = typename std::conditional<std::is_integral<T>::value, int64_t, T>::type;
};

// Scratch of one stream's sums: the blocks' partials and the counter that finds
// the last block (zero between sums: the last block resets it).
constexpr int kMaxBlocks = 4096;
constexpr size_t kReduceScratchBytes = kMaxBlocks * sizeof(int64_t) + 64;
struct ReduceScratch {
    void *partials = nullptr;
    unsigned int *counter = nullptr;
};
// Scratch laid out in kReduceScratchBytes of zeroed device memory.
ReduceScratch scratch_at(void *memory);

// Queues the sum of `a` (device memory) on `stream`, written to device memory
// `accumulator` as the accumulator type (int64 or double). No wait.
va_status enqueue_partial_sum(int device, cudaStream_t stream, const va_array *a, int64_t n,
                              ReduceScratch scratch, void *accumulator);

// Sums `a` (n elements, device memory) on `stream` and waits; *result as va_sum.
va_status sum_on_stream(int device, cudaStream_t stream, const va_array *a, int64_t n,
                        void *result);

// The 1-d strided view of a 2-d array's main diagonal.
va_status diagonal_view(const va_array *a, va_array *diag, int64_t *n);

// Elementwise work queued on `stream` (arguments already checked).
va_status binary_on_stream(int device, cudaStream_t stream, va_op op, const va_array *a,
                           const va_array *b, const va_array *out, int64_t n);
va_status convert_on_stream(int device, cudaStream_t stream, const va_array *src,
                            const va_array *dst, int64_t n);
va_status check_binary(va_op op, const va_array *a, const va_array *b, const va_array *out,
                       int64_t *n);

}  // namespace va
