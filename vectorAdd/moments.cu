// va_var: the variance of every element in one pass over the data. A thread keeps
// (count, mean, M2) of what it read, taking a batch of packs at a time (the
// batch's own mean and squared deviations in registers, then Chan et al.'s
// update of the running moments, one division a batch); the threads' moments
// are combined the same way through the reductions' warp-shuffle tree
// (block_reduce), the blocks' by the last block to finish, always in the same order. Two passes (NumPy's mean, then its
// squared deviations) read the data twice; this reads it once, with the
// accuracy of the two-pass method within each batch and of the pairwise
// combination across them.
#include <algorithm>
#include <cstdint>

#include "dispatch.cuh"
#include "elementwise_kernels.cuh"
#include "grid.cuh"
#include "layout.cuh"
#include "memory.cuh"
#include "ops.cuh"
#include "reduce_kernels.cuh"
#include "runtime.cuh"

namespace va {
namespace {

constexpr int kMomentThreads = kReduceThreads;  // block_reduce's block
constexpr int kBatchPacks = 4;  // packs in flight a thread, one batch
// Three doubles a block in the reduction scratch (sized for kMaxBlocks int64s).
constexpr int kMaxMomentBlocks = kMaxBlocks / 3;

struct Moments {
    double n, mean, m2;
};

// Chan, Golub and LeVeque's combination of two sets' moments.
__device__ __forceinline__ Moments merge(const Moments &a, const Moments &b) {
    if (b.n == 0) return a;
    if (a.n == 0) return b;
    const double n = a.n + b.n;
    const double delta = b.mean - a.mean;
    const double share = b.n / n;
    return {n, a.mean + delta * share, a.m2 + b.m2 + delta * delta * a.n * share};
}

// The moments as block_reduce's accumulator: shuffled a double at a time, merged.
__device__ __forceinline__ Moments shuffle_down(const Moments &m, int offset) {
    return {__shfl_down_sync(0xffffffffu, m.n, offset), __shfl_down_sync(0xffffffffu, m.mean, offset),
            __shfl_down_sync(0xffffffffu, m.m2, offset)};
}

struct Merge {
    template <typename A>
    __device__ static A neutral() { return A{0, 0, 0}; }
    __device__ Moments operator()(const Moments &a, const Moments &b) const { return merge(a, b); }
};

// sum((x - mean)^2) / max(n - correction, 0), NumPy's var (an empty input, or
// no degrees of freedom left, divide by zero: NaN or inf, as NumPy's do).
template <typename T>
__device__ __forceinline__ T variance(const Moments &m, double correction) {
    return static_cast<T>(m.m2 / fmax(m.n - correction, 0.0));
}

// Block b reads packs [b * span, (b + 1) * span) of the `groups` whole packs of
// G; the last block also the elements after them.
template <typename T, int G>
__global__ void __launch_bounds__(kMomentThreads)
moments_kernel(const T *data, int64_t n, int64_t span, double correction, double *partials,
               unsigned int *counter, T *result) {
    follow_previous_grid();
    const auto *packs = reinterpret_cast<const Pack<T, G> *>(data);
    const int64_t groups = n / G;
    const int64_t begin = static_cast<int64_t>(blockIdx.x) * span;
    const int64_t end = begin + span < groups ? begin + span : groups;
    Moments m{0, 0, 0};
    int64_t base = begin + threadIdx.x;
    // Whole batches: kBatchPacks packs a thread, read together.
    for (; base + (kBatchPacks - 1) * kMomentThreads < end; base += kBatchPacks * kMomentThreads) {
        Pack<T, G> p[kBatchPacks];
#pragma unroll
        for (int k = 0; k < kBatchPacks; ++k) p[k] = packs[base + k * kMomentThreads];
        double sum = 0;
#pragma unroll
        for (int k = 0; k < kBatchPacks; ++k)
#pragma unroll
            for (int j = 0; j < G; ++j) sum += static_cast<double>(p[k].v[j]);
        constexpr double count = kBatchPacks * G;
        const double mean = sum / count;
        double m2 = 0;
#pragma unroll
        for (int k = 0; k < kBatchPacks; ++k)
#pragma unroll
            for (int j = 0; j < G; ++j) {
                const double d = static_cast<double>(p[k].v[j]) - mean;
                m2 += d * d;
            }
        m = merge(m, Moments{count, mean, m2});
    }
    // The packs of a last, partial batch, one element at a time.
    for (; base < end; base += kMomentThreads)
#pragma unroll
        for (int j = 0; j < G; ++j) m = merge(m, Moments{1, static_cast<double>(packs[base].v[j]), 0});
    if (blockIdx.x == gridDim.x - 1)
        for (int64_t i = groups * G + threadIdx.x; i < n; i += kMomentThreads)
            m = merge(m, Moments{1, static_cast<double>(data[i]), 0});
    m = block_reduce<Merge>(m);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *result = variance<T>(m, correction);
        return;
    }
    __shared__ bool last;
    const int blocks = static_cast<int>(gridDim.x);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = m.n;
        partials[blocks + blockIdx.x] = m.mean;
        partials[2 * blocks + blockIdx.x] = m.m2;
        __threadfence();  // the partials are visible before the ticket is taken
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    Moments total{0, 0, 0};
    for (int b = threadIdx.x; b < blocks; b += kMomentThreads)
        total = merge(total, Moments{__ldcg(&partials[b]), __ldcg(&partials[blocks + b]),
                                     __ldcg(&partials[2 * blocks + b])});
    total = block_reduce<Merge>(total);
    if (threadIdx.x == 0) {
        *result = variance<T>(total, correction);
        *counter = 0;
    }
}

template <typename T, int G>
va_status launch_moments(int device, cudaStream_t stream, const T *data, int64_t n, double correction,
                         ReduceScratch scratch, T *result) {
    constexpr auto kernel = moments_kernel<T, G>;
    const int64_t groups = n / G;
    const int64_t step = static_cast<int64_t>(kMomentThreads) * kBatchPacks;
    const int64_t wave = static_cast<int64_t>(multiprocessor_count(device)) * resident_blocks<kernel>(kMomentThreads);
    const int64_t blocks = std::max<int64_t>(
        1, std::min<int64_t>({(groups + step - 1) / step, wave, static_cast<int64_t>(kMaxMomentBlocks)}));
    // Whole batches to every block but the last.
    const int64_t span = std::max<int64_t>(step, ((groups + blocks - 1) / blocks + step - 1) / step * step);
    const int64_t grid = std::max<int64_t>(1, (groups + span - 1) / span);
    VA_CUDA_CHECK(launch_kernel(device, kernel, static_cast<unsigned>(grid), kMomentThreads, stream, data, n,
                                span, correction, static_cast<double *>(scratch.partials), scratch.counter,
                                result));
    return VA_SUCCESS;
}

}  // namespace
}  // namespace va

extern "C" va_status va_var(int device, const va_array *a, double correction, const va_array *out) {
    int64_t n = 0, out_count = 0;
    if (a == nullptr || out == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_CHECK(va::validate(a, &n));
    VA_CHECK(va::validate(out, &out_count));
    if ((a->dtype != VA_FLOAT32 && a->dtype != VA_FLOAT64) || out->dtype != a->dtype || out_count != 1)
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    va::ReduceScratch scratch;
    VA_CHECK(va::device_scratch(device, &scratch));
    va::DeviceBuffer packed(device, stream);
    const void *data = nullptr;
    VA_CHECK(va::contiguous_as(device, stream, a, n, a->dtype, &packed, &data));
    auto launch = [&](auto tag) -> va_status {
        using T = typename decltype(tag)::type;
        constexpr int G = static_cast<int>(16 / sizeof(T));
        const T *values = static_cast<const T *>(data);
        T *result = static_cast<T *>(out->data);
        if (reinterpret_cast<uintptr_t>(values) % (sizeof(T) * G) == 0)
            return va::launch_moments<T, G>(device, stream, values, n, correction, scratch, result);
        return va::launch_moments<T, 1>(device, stream, values, n, correction, scratch, result);
    };
    if (a->dtype == VA_FLOAT32) return launch(va::TypeTag<float>{});
    return launch(va::TypeTag<double>{});
}
