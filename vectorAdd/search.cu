// va_searchsorted: where values would go in a sorted 1-d array, one binary search
// per value. The sorted array and the values are first brought to one compute
// dtype, contiguous (one conversion pass each, skipped when they already are),
// so the kernel has one instantiation per dtype and side; a search is about
// log2(n) dependent loads, the upper levels of the tree staying in the caches.
// The search is branchless: every query takes the same ceil(log2 n) steps (the
// length left halves the same way whatever the comparisons give), so a thread
// carries kQueries searches side by side and their loads are in flight together
// (one search a thread left the H200 at 1.11x PyTorch's time, session 19).
#include <cstdint>
#include <type_traits>

#include "dispatch.cuh"
#include "grid.cuh"
#include "layout.cuh"
#include "memory.cuh"
#include "ops.cuh"
#include "runtime.cuh"

namespace va {
namespace {

constexpr int kThreads = 256;
constexpr int kQueries = 4;

// NumPy's order for searching: NaN after everything else (as it sorts).
template <typename T>
__device__ __forceinline__ bool less(T a, T b) {
    if constexpr (std::is_floating_point<T>::value) return a < b || (b != b && a == a);
    else return a < b;
}

// Whether v goes after s: s < v (left), or !(v < s) (right).
template <typename T, bool Right>
__device__ __forceinline__ bool goes_after(T s, T v) {
    if constexpr (Right) return !less(v, s);
    else return less(s, v);
}

// out[i] = how many elements of sorted[0, n) (n >= 1) values[i] goes after: NumPy's
// left or right insertion point.
template <typename T, bool Right>
__global__ void __launch_bounds__(kThreads) search_kernel(const T *__restrict__ sorted, int64_t n,
                                                          const T *__restrict__ values, int64_t count,
                                                          int64_t *__restrict__ out) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t first = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; first < count;
         first += stride * kQueries) {
        T v[kQueries];
        int64_t base[kQueries];
#pragma unroll
        for (int k = 0; k < kQueries; ++k) {
            const int64_t i = first + k * stride;
            v[k] = values[i < count ? i : first];  // past the end: the first query again, not written
            base[k] = 0;
        }
        for (int64_t len = n; len > 1;) {
            const int64_t half = len / 2;
#pragma unroll
            for (int k = 0; k < kQueries; ++k)
                base[k] = goes_after<T, Right>(sorted[base[k] + half], v[k]) ? base[k] + half : base[k];
            len -= half;
        }
#pragma unroll
        for (int k = 0; k < kQueries; ++k) {
            const int64_t i = first + k * stride;
            if (i < count) out[i] = base[k] + (goes_after<T, Right>(sorted[base[k]], v[k]) ? 1 : 0);
        }
    }
}

// The kernel for one side on a grid of the threads it needs (kQueries queries a
// thread), at most those resident at once.
template <auto Kernel, typename T>
va_status launch_search(int device, cudaStream_t stream, const T *sorted, int64_t n, const T *values, int64_t count,
                        int64_t *out) {
    const unsigned blocks = resident_grid_for<Kernel>(device, (count + kQueries - 1) / kQueries, kThreads);
    Kernel<<<blocks, kThreads, 0, stream>>>(sorted, n, values, count, out);
    VA_LAUNCH_CHECK();
    return VA_SUCCESS;
}

}  // namespace
}  // namespace va

extern "C" va_status va_searchsorted(int device, const va_array *sorted, const va_array *values, int32_t right,
                                     const va_array *out) {
    int64_t n = 0, count = 0, out_count = 0;
    if (sorted == nullptr || values == nullptr || out == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_CHECK(va::validate(sorted, &n));
    VA_CHECK(va::validate(values, &count));
    VA_CHECK(va::validate(out, &out_count));
    if (sorted->ndim != 1 || out->dtype != VA_INT64 || !va::same_shape(values, out) || !va_is_c_contiguous(out))
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    va_dtype compute;
    VA_CHECK(va_promote_types(sorted->dtype, values->dtype, &compute));
    VA_ENTER_STREAM(device, scope, stream);
    if (count == 0) return VA_SUCCESS;
    va::DeviceBuffer sorted_copy(device, stream), values_copy(device, stream);
    const void *s = nullptr, *v = nullptr;
    VA_CHECK(va::contiguous_as(device, stream, sorted, n, compute, &sorted_copy, &s));
    VA_CHECK(va::contiguous_as(device, stream, values, count, compute, &values_copy, &v));
    if (n == 0) {  // every value goes at 0
        VA_CUDA_CHECK(cudaMemsetAsync(out->data, 0, static_cast<size_t>(count) * sizeof(int64_t), stream));
        return VA_SUCCESS;
    }
    return va::dispatch_real_dtype(compute, [&](auto tag) -> va_status {
        using T = typename decltype(tag)::type;
        const T *st = static_cast<const T *>(s), *vt = static_cast<const T *>(v);
        int64_t *o = static_cast<int64_t *>(out->data);
        return right != 0 ? va::launch_search<va::search_kernel<T, true>>(device, stream, st, n, vt, count, o)
                          : va::launch_search<va::search_kernel<T, false>>(device, stream, st, n, vt, count, o);
    });
}
