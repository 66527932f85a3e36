// va_searchsorted: where values would go in a sorted 1-d array, one binary search
// per value. The sorted array and the values are first brought to one compute
// dtype, contiguous (one conversion pass each, skipped when they already are),
// so the kernel has one instantiation per dtype; a search is about log2(n)
// dependent loads, the upper levels of the tree staying in the caches.
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

// NumPy's order for searching: NaN after everything else (as it sorts).
template <typename T>
__device__ __forceinline__ bool less(T a, T b) {
    if constexpr (std::is_floating_point<T>::value) return a < b || (b != b && a == a);
    else return a < b;
}

// out[i] = the first position p in sorted[0, n) with !(sorted[p] < v) (left) or
// v < sorted[p] (right), v = values[i].
template <typename T>
__global__ void search_kernel(const T *__restrict__ sorted, int64_t n, const T *__restrict__ values, int64_t count,
                              bool right, int64_t *__restrict__ out) {
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const T v = values[i];
        int64_t lo = 0, hi = n;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            const T s = sorted[mid];
            if (right ? !less(v, s) : less(s, v)) lo = mid + 1;
            else hi = mid;
        }
        out[i] = lo;
    }
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
    return va::dispatch_real_dtype(compute, [&](auto tag) -> va_status {
        using T = typename decltype(tag)::type;
        const unsigned blocks = va::resident_grid_for<va::search_kernel<T>>(device, count, va::kThreads);
        va::search_kernel<T><<<blocks, va::kThreads, 0, stream>>>(static_cast<const T *>(s), n,
                                                                  static_cast<const T *>(v), count, right != 0,
                                                                  static_cast<int64_t *>(out->data));
        VA_LAUNCH_CHECK();
        return VA_SUCCESS;
    });
}
