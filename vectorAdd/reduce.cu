// The C entry points of reductions on device memory (and trace, the sum of a
// diagonal view): arguments checked against the operation's declaration, the
// per-device scratch, then its launcher. Results are written straight into
// pinned host memory (va_reduce) or device memory (va_reduce_async).
#include <algorithm>
#include <cstring>
#include <mutex>

#include "error.cuh"
#include "layout.cuh"
#include "memory.cuh"
#include "op_types.cuh"
#include "ops.cuh"

namespace va {
namespace {

// The per-device scratch of the library stream: every reduction queued there
// runs after the previous one, so one area per device is enough.
std::mutex g_scratch_mutex;
ReduceScratch g_scratch[kMaxDevices];
void *g_scratch_memory[kMaxDevices] = {};

va_status reduction_of(va_op op, const OpEntry **entry) {
    const OpEntry *e = op_entry(op);
    if (e == nullptr || e->reduce == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    *entry = e;
    return VA_SUCCESS;
}

}  // namespace

va_status device_scratch(int device, ReduceScratch *out) {
    std::lock_guard<std::mutex> lock(g_scratch_mutex);
    if (g_scratch_memory[device] == nullptr) {
        void *mem = nullptr;
        VA_CUDA_CHECK(cudaMalloc(&mem, kReduceScratchBytes));
        cudaError_t err = cudaMemset(mem, 0, kReduceScratchBytes);
        if (err != cudaSuccess) {
            cudaFree(mem);
            VA_CUDA_CHECK(err);
        }
        g_scratch_memory[device] = mem;
        g_scratch[device] = scratch_at(mem);
    }
    *out = g_scratch[device];
    return VA_SUCCESS;
}

void shutdown_reduce() {
    std::lock_guard<std::mutex> lock(g_scratch_mutex);
    for (int d = 0; d < kMaxDevices; ++d) {
        if (g_scratch_memory[d] == nullptr) continue;
        DeviceScope scope(d);
        cudaFree(g_scratch_memory[d]);
        g_scratch_memory[d] = nullptr;
        g_scratch[d] = ReduceScratch();
    }
    cudaGetLastError();
}

ReduceScratch scratch_at(void *memory) {
    ReduceScratch s;
    s.partials = memory;
    s.counter = reinterpret_cast<unsigned int *>(static_cast<char *>(memory) +
                                                 kMaxBlocks * sizeof(int64_t));
    return s;
}

va_status check_reduce(va_op op, const va_array *a, int64_t *n, va_dtype *result) {
    const OpEntry *e = nullptr;
    VA_CHECK(reduction_of(op, &e));
    VA_CHECK(validate(a, n));
    va_dtype compute;
    VA_CHECK(va_op_dtypes(op, 1, &a->dtype, nullptr, &compute, result));
    // NumPy: "zero-size array to reduction operation maximum which has no identity".
    if (*n == 0 && !e->info.has_identity) VA_FAIL(VA_ERROR_INVALID_VALUE);
    return VA_SUCCESS;
}

va_status reduce_on_stream(int device, cudaStream_t stream, va_op op, const va_array *a, int64_t n,
                           ReduceScratch scratch, void *result, bool to_accumulator) {
    // An input the op computes in another dtype (complex for all, any and
    // count_nonzero: read as bool, va_op_dtypes) is converted first. Only complex
    // inputs are asked: the n = 1 rows time this path.
    DeviceBuffer staged(device, stream);
    va_array input = *a;
    if (is_complex_dtype(a->dtype)) {
        va_dtype compute, result_dtype;
        VA_CHECK(va_op_dtypes(op, 1, &a->dtype, nullptr, &compute, &result_dtype));
        if (compute != a->dtype) VA_CHECK(contiguous_view_as(device, stream, a, n, compute, &staged, &input));
    }
    const ReduceCall call{device, stream, &input, n, scratch, result, to_accumulator};
    return op_entry(op)->reduce(call);
}

va_status reduce_and_wait(int device, cudaStream_t stream, va_op op, const va_array *a, int64_t n,
                          void *result) {
    va_dtype result_dtype, compute;
    VA_CHECK(va_op_dtypes(op, 1, &a->dtype, nullptr, &compute, &result_dtype));
    ReduceScratch scratch;
    VA_CHECK(device_scratch(device, &scratch));
    PinnedSlot slot;
    VA_CHECK(slot.acquire());
    // An empty input runs too: one block that writes the op's neutral value.
    VA_CHECK(reduce_on_stream(device, stream, op, a, n, scratch, slot.device_address(), false));
    VA_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::memcpy(result, slot.get(), va_dtype_size(result_dtype));
    return VA_SUCCESS;
}

va_status diagonal_view(const va_array *a, va_array *diag, int64_t *n) {
    int64_t count = 0;
    VA_CHECK(validate(a, &count));
    if (a->ndim != 2) VA_FAIL(VA_ERROR_INVALID_VALUE);
    std::memset(diag, 0, sizeof(*diag));
    diag->data = a->data;
    diag->dtype = a->dtype;
    diag->ndim = 1;
    diag->shape[0] = std::min(a->shape[0], a->shape[1]);
    diag->strides[0] = a->strides[0] + a->strides[1];
    *n = diag->shape[0];
    return VA_SUCCESS;
}

}  // namespace va

extern "C" {

va_status va_reduce(int device, va_op op, const va_array *a, void *result) {
    int64_t n = 0;
    va_dtype result_dtype;
    VA_CHECK(va::check_reduce(op, a, &n, &result_dtype));
    if (result == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    return va::reduce_and_wait(device, stream, op, a, n, result);
}

va_status va_reduce_async(int device, va_op op, const va_array *a, void *result) {
    int64_t n = 0;
    va_dtype result_dtype;
    VA_CHECK(va::check_reduce(op, a, &n, &result_dtype));
    if (result == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    va::ReduceScratch scratch;
    VA_CHECK(va::device_scratch(device, &scratch));
    return va::reduce_on_stream(device, stream, op, a, n, scratch, result, false);
}

va_status va_sum(int device, const va_array *a, void *result) {
    va_op sum = 0;
    VA_CHECK(va_op_find("sum", &sum));
    return va_reduce(device, sum, a, result);
}

va_status va_trace(int device, const va_array *a, void *result) {
    va_array diag;
    int64_t n = 0;
    VA_CHECK(va::diagonal_view(a, &diag, &n));
    return va_sum(device, &diag, result);
}

}  // extern "C"
