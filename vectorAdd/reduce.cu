// sum and trace on device memory: one launch, a warp-shuffle tree in each block
// and the last block to finish combining the blocks' partials, its result
// written straight into pinned host memory.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <type_traits>

#include "dispatch.cuh"
#include "elementwise.cuh"
#include "launch.cuh"
#include "layout.cuh"
#include "memory.cuh"
#include "ops.cuh"

namespace va {
namespace {

constexpr int kThreads = 256;

// The per-device scratch of the library stream: every sum queued there runs
// after the previous one, so one area per device is enough.
std::mutex g_scratch_mutex;
ReduceScratch g_scratch[kMaxDevices];
void *g_scratch_memory[kMaxDevices] = {};

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

// Integer sums wrap like NumPy's: add as unsigned.
template <typename Acc>
__device__ __forceinline__ Acc acc_add(Acc x, Acc y) {
    if constexpr (std::is_integral<Acc>::value)
        return static_cast<Acc>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
    else
        return x + y;
}

template <typename Acc>
__device__ Acc block_reduce(Acc v) {
    __shared__ Acc warp_sums[kThreads / 32];
    for (int offset = 16; offset > 0; offset >>= 1)
        v = acc_add(v, __shfl_down_sync(0xffffffffu, v, offset));
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < kThreads / 32) ? warp_sums[lane] : Acc(0);
        for (int offset = 16; offset > 0; offset >>= 1)
            v = acc_add(v, __shfl_down_sync(0xffffffffu, v, offset));
    }
    __syncthreads();  // warp_sums may be reused by the caller's next reduction
    return v;
}

// Where a strided sum finds element i: one stride (a 1-d view such as a trace's
// diagonal), or an n-d walk. Contiguous sums take neither (kernel parameters
// stay small: a Walk is 1 KB).
struct Contiguous {};
struct Stride1 {
    int64_t bytes;
};
__device__ __forceinline__ int64_t element_offset(const Stride1 &s, int64_t i) { return i * s.bytes; }
__device__ __forceinline__ int64_t element_offset(const Walk &w, int64_t i) { return walk_offset(w, 0, i); }

// G > 0: contiguous, read in packs of G; G == 0: strided, found with `layout`.
template <typename T, int G, typename Out, typename Layout>
__global__ void __launch_bounds__(kThreads)
sum_kernel(const char *data, int64_t n, int64_t span, Layout layout, SumAcc<T> *partials,
           unsigned int *counter, Out *result) {
    follow_previous_grid();
    using Acc = SumAcc<T>;
    const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    Acc acc = 0;
    if constexpr (G > 0) {
        // Each block sums its own contiguous run of `span` packs (a multiple of
        // kThreads * 4), four packs in flight per thread.
        const auto *packs = reinterpret_cast<const Pack<T, G> *>(data);
        const auto *elems = reinterpret_cast<const T *>(data);
        const int64_t groups = n / G;
        const int64_t begin = static_cast<int64_t>(blockIdx.x) * span;
        const int64_t end = begin + span < groups ? begin + span : groups;
        // One accumulator per pack in flight: the adds of one iteration don't
        // wait on each other, and the next loads issue sooner.
        constexpr int U = 4;
        Acc lane_acc[U] = {};
        for (int64_t base = begin + threadIdx.x; base < end; base += kThreads * U) {
            Pack<T, G> p[U];
#pragma unroll
            for (int k = 0; k < U; ++k)
                if (base + k * kThreads < end) p[k] = packs[base + k * kThreads];
#pragma unroll
            for (int k = 0; k < U; ++k)
                if (base + k * kThreads < end)
#pragma unroll
                    for (int j = 0; j < G; ++j) lane_acc[k] = acc_add(lane_acc[k], static_cast<Acc>(p[k].v[j]));
        }
#pragma unroll
        for (int k = 0; k < U; ++k) acc = acc_add(acc, lane_acc[k]);
        if (blockIdx.x == gridDim.x - 1)
            for (int64_t i = groups * G + threadIdx.x; i < n; i += kThreads)
                acc = acc_add(acc, static_cast<Acc>(elems[i]));
    } else {
        for (int64_t i = tid; i < n; i += nthreads)
            acc = acc_add(acc, static_cast<Acc>(*reinterpret_cast<const T *>(
                                   data + element_offset(layout, i))));
    }
    acc = block_reduce(acc);
    if (gridDim.x == 1) {  // small inputs: no partials, no ticket
        if (threadIdx.x == 0) *result = static_cast<Out>(acc);
        return;
    }
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        __threadfence();  // the partial is visible before the ticket is taken
        last = (atomicAdd(counter, 1u) == gridDim.x - 1);
    }
    __syncthreads();
    if (!last) return;
    Acc total = 0;
    for (int i = threadIdx.x; i < static_cast<int>(gridDim.x); i += kThreads)
        total = acc_add(total, __ldcg(&partials[i]));
    total = block_reduce(total);
    if (threadIdx.x == 0) {
        *result = static_cast<Out>(total);
        *counter = 0;
    }
}

// A contiguous sum over `groups` packs of G: one even wave of blocks, each over
// a contiguous run, so no ragged last wave (a probe kernel of this shape: 182.6 us
// against 197 us with 4096 blocks for 1e8 doubles on an H200; the library's own
// kernel moved within noise: bench/NOTES.md, change 8).
template <typename T, int G, typename Out>
va_status launch_contiguous_sum(int device, cudaStream_t stream, const char *data, int64_t n,
                                int64_t groups, SumAcc<T> *partials, unsigned int *counter,
                                Out *result) {
    constexpr auto kernel = sum_kernel<T, G, Out, Contiguous>;
    const int64_t step = static_cast<int64_t>(kThreads) * 4;
    const int64_t wave = static_cast<int64_t>(multiprocessor_count(device)) * resident_blocks<kernel>(kThreads);
    const int64_t blocks = std::max<int64_t>(
        1, std::min<int64_t>({(groups + step - 1) / step, wave, static_cast<int64_t>(kMaxBlocks)}));
    // Runs are whole multiples of `step` (at least one, also for fewer packs than
    // that: the last block takes the elements after the last whole pack).
    const int64_t span = std::max<int64_t>(step, ((groups + blocks - 1) / blocks + step - 1) / step * step);
    const int64_t grid = std::max<int64_t>(1, (groups + span - 1) / span);
    VA_CUDA_CHECK(launch_kernel(device, kernel, static_cast<unsigned>(grid), kThreads, stream, data,
                                n, span, Contiguous(), partials, counter, result));
    return VA_SUCCESS;
}

template <typename T, typename Out>
va_status launch_sum(int device, cudaStream_t stream, const va_array *a, int64_t n,
                     ReduceScratch scratch, Out *result) {
    const va_array *views[1] = {a};
    Walk walk;
    make_walk(views, 1, &walk);
    constexpr int G = 16 / sizeof(T);
    const bool contiguous = walk.ndim == 0 ||
                            (walk.ndim == 1 && walk.strides[0][0] == static_cast<int64_t>(sizeof(T)));
    auto *partials = static_cast<SumAcc<T> *>(scratch.partials);
    const char *data = static_cast<const char *>(a->data);
    if (contiguous) {
        const bool packed = reinterpret_cast<uintptr_t>(data) % (sizeof(T) * G) == 0;
        if (packed)
            VA_CHECK((launch_contiguous_sum<T, G, Out>(device, stream, data, n, n / G, partials,
                                                       scratch.counter, result)));
        else
            VA_CHECK((launch_contiguous_sum<T, 1, Out>(device, stream, data, n, n, partials,
                                                       scratch.counter, result)));
    } else {
        // Strided reads (a trace's diagonal) are latency-bound: one element a
        // thread while that fills the GPU, so every read is in flight at once.
        const int64_t per_block = n <= static_cast<int64_t>(kThreads) * kMaxBlocks ? kThreads : kThreads * 4;
        const int64_t cap = std::min<int64_t>(kMaxBlocks, static_cast<int64_t>(multiprocessor_count(device)) * 16);
        const unsigned blocks = static_cast<unsigned>(
            std::max<int64_t>(1, std::min<int64_t>((n + per_block - 1) / per_block, cap)));
        if (walk.ndim == 1)
            VA_CUDA_CHECK(launch_kernel(device, sum_kernel<T, 0, Out, Stride1>, blocks, kThreads,
                                        stream, data, n, int64_t(0), Stride1{walk.strides[0][0]},
                                        partials, scratch.counter, result));
        else
            VA_CUDA_CHECK(launch_kernel(device, sum_kernel<T, 0, Out, Walk>, blocks, kThreads,
                                        stream, data, n, int64_t(0), walk, partials,
                                        scratch.counter, result));
    }
    return VA_SUCCESS;
}

}  // namespace

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

va_status enqueue_partial_sum(int device, cudaStream_t stream, const va_array *a, int64_t n,
                              ReduceScratch scratch, void *accumulator) {
    return dispatch_dtype(a->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return launch_sum<T>(device, stream, a, n, scratch, static_cast<SumAcc<T> *>(accumulator));
    });
}

va_status sum_on_stream(int device, cudaStream_t stream, const va_array *a, int64_t n,
                        void *result) {
    return dispatch_dtype(a->dtype, [&](auto tag) -> va_status {
        using T = typename decltype(tag)::type;
        using R = typename SumResult<T>::type;
        if (n == 0) {
            const R zero = 0;
            std::memcpy(result, &zero, sizeof(R));
            return VA_SUCCESS;
        }
        ReduceScratch scratch;
        VA_CHECK(device_scratch(device, &scratch));
        PinnedSlot slot;
        VA_CHECK(slot.acquire());
        VA_CHECK(launch_sum<T>(device, stream, a, n, scratch, static_cast<R *>(slot.device_address())));
        VA_CUDA_CHECK(cudaStreamSynchronize(stream));
        std::memcpy(result, slot.get(), sizeof(R));
        return VA_SUCCESS;
    });
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

va_status va_sum(int device, const va_array *a, void *result) {
    int64_t n = 0;
    VA_CHECK(va::validate(a, &n));
    if (result == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    return va::sum_on_stream(device, stream, a, n, result);
}

va_status va_trace(int device, const va_array *a, void *result) {
    va_array diag;
    int64_t n = 0;
    VA_CHECK(va::diagonal_view(a, &diag, &n));
    if (result == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    return va::sum_on_stream(device, stream, &diag, n, result);
}

}  // extern "C"
