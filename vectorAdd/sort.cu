// va_sort: stable sorts along an axis through CUB's radix sorts. The axis is
// moved last into a contiguous buffer of keys (one pass that also makes the
// keys radix-ready), each line is sorted (one DeviceRadixSort a line for long
// lines, DeviceSegmentedRadixSort for many short ones), and the result is
// written back through the caller's layout. An ascending sort of one long
// contiguous line of numbers into a separate contiguous result skips the key
// pass: CUB reads the caller's array, and a float line's negative NaNs, which
// CUB's bit order puts before -inf, are rotated to the end afterwards on the
// device (kernels that return at once when there are none, the usual case).
//
// argsort sorts order keys instead (order_key.cuh; their complement for
// descending) with each element's position, 32-bit where a line is
// shorter than 2^31: per width, not per dtype, and a quarter less to move each
// radix pass than 64-bit positions.
//
// One radix sort per key type serves both orders: descending sorts the
// ascending order of an order-reversing image of the keys (-x for floats, ~x
// for integers, !x for bools), which keeps equal keys in input order, as the
// array API's stable descending sort asks; CUB's own descending sort would
// double the instantiations, each of them seconds of build time.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "dispatch.cuh"
#include "grid.cuh"
#include "launch.cuh"
#include "layout.cuh"
#include "memory.cuh"
#include "op_types.cuh"
#include "order_key.cuh"
#include "ops.cuh"
#include "runtime.cuh"

namespace va {
namespace {

constexpr int kThreads = 256;
// Lines at least this long are sorted one DeviceRadixSort each: the segmented
// sort gives a line one block, which leaves a GPU idle on a few long lines.
constexpr int64_t kLongLine = int64_t(1) << 16;

// The radix sort's key for an element of T: bools as bytes 0/1.
template <typename T>
using KeyOf = typename std::conditional<std::is_same<T, bool>::value, uint8_t, T>::type;

// CUB orders floats by their bits, so a NaN with the sign bit set would sort
// before -inf; every NaN becomes the one positive quiet NaN (what np.nan is).
template <typename T>
__device__ __forceinline__ T canonical_nan(T v) {
    if constexpr (std::is_same<T, float>::value) return v != v ? __int_as_float(0x7fc00000) : v;
    else if constexpr (std::is_same<T, double>::value)
        return v != v ? __longlong_as_double(0x7ff8000000000000LL) : v;
    else return v;
}

// An order-reversing bijection of the keys (its own inverse). Floats flip their
// sign bit as an integer: PTX's neg of a NaN gives "an unspecified NaN", and the
// H100 kept the canonical NaN positive, so descending sorts put NaN last.
template <typename T, typename K = KeyOf<T>>
__device__ __forceinline__ K reversed(K k) {
    if constexpr (std::is_same<K, float>::value) return __int_as_float(__float_as_int(k) ^ INT32_MIN);
    else if constexpr (std::is_same<K, double>::value)
        return __longlong_as_double(__double_as_longlong(k) ^ static_cast<long long>(INT64_MIN));
    else if constexpr (std::is_same<T, bool>::value) return static_cast<K>(k == 0);  // keys 0 and 1
    else return ~k;
}

template <typename T>
__device__ __forceinline__ KeyOf<T> key_of(const char *p, bool descending) {
    KeyOf<T> k;
    if constexpr (std::is_same<T, bool>::value) k = *reinterpret_cast<const uint8_t *>(p) != 0;
    else k = canonical_nan(*reinterpret_cast<const T *>(p));
    return descending ? reversed<T>(k) : k;
}

// The byte offsets of the i-th element (C order over walk.shape) in views 0 and 1.
__device__ __forceinline__ void offsets_of(const Walk &walk, int64_t i, int64_t *o0, int64_t *o1) {
    for (int d = walk.ndim - 1; d >= 0; --d) {
        const int64_t extent = walk.shape[d];
        const int64_t k = i % extent;
        i /= extent;
        *o0 += k * walk.strides[0][d];
        *o1 += k * walk.strides[1][d];
    }
}

// Walk view 0 is the key buffer (axis last), view 1 the source.
template <typename T>
__global__ void __launch_bounds__(kThreads)
gather_keys(const char *src, char *keys, int64_t n, Walk walk, bool descending) {
    follow_previous_grid();
    const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += nthreads) {
        int64_t od = 0, os = 0;
        offsets_of(walk, i, &od, &os);
        *reinterpret_cast<KeyOf<T> *>(keys + od) = key_of<T>(src + os, descending);
    }
}

// Walk view 0 is the destination, view 1 the sorted keys (axis last).
template <typename T>
__global__ void __launch_bounds__(kThreads)
scatter_values(const char *keys, char *dst, int64_t n, Walk walk, bool descending) {
    follow_previous_grid();
    const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += nthreads) {
        int64_t od = 0, os = 0;
        offsets_of(walk, i, &od, &os);
        const KeyOf<T> k = *reinterpret_cast<const KeyOf<T> *>(keys + os);
        *reinterpret_cast<KeyOf<T> *>(dst + od) = descending ? reversed<T>(k) : k;
    }
}

// Each element's position along its line: the values argsort carries along.
template <typename P>
__global__ void __launch_bounds__(kThreads) line_positions(P *out, int64_t n, int64_t line) {
    follow_previous_grid();
    const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += nthreads)
        out[i] = static_cast<P>(i % line);
}

// argsort's key: the order key of the element's width (a bool as a byte 0 or 1).
template <typename T>
using OrderKey = typename UnsignedOf<sizeof(KeyOf<T>)>::type;

template <typename T>
__device__ __forceinline__ OrderKey<T> order_key_at(const char *p, bool descending) {
    using U = OrderKey<T>;
    U u;
    if constexpr (std::is_same<T, bool>::value) u = *reinterpret_cast<const uint8_t *>(p) != 0;
    else u = order_key(*reinterpret_cast<const U *>(p), order_kind_of<T>());
    return descending ? static_cast<U>(~u) : u;
}

// Walk view 0 is the key buffer (axis last), view 1 the source.
template <typename T>
__global__ void __launch_bounds__(kThreads)
gather_order_keys(const char *src, OrderKey<T> *keys, int64_t n, Walk walk, bool descending) {
    follow_previous_grid();
    const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += nthreads) {
        int64_t od = 0, os = 0;
        offsets_of(walk, i, &od, &os);
        *reinterpret_cast<OrderKey<T> *>(reinterpret_cast<char *>(keys) + od) = order_key_at<T>(src + os, descending);
    }
}

// The key pass skipped from this many elements: below, the three launches that
// look for negative NaNs cost about what the pass does.
constexpr int64_t kFromSourceMin = int64_t(1) << 22;

template <typename T>
__device__ __forceinline__ bool negative_nan(T v) {
    return v != v && signbit(v);
}

// count = how many negative NaNs lead the sorted line (they are all at its front).
template <typename T>
__global__ void __launch_bounds__(kThreads) count_leading_negative_nans(const T *line, int64_t n, int64_t *count) {
    follow_previous_grid();
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (negative_nan(line[mid])) lo = mid + 1;
        else hi = mid;
    }
    *count = lo;
}

// One of the three in-place reversals that rotate the line left by count
// (part 0: [0, count), part 1: [count, n), part 2: [0, n)); nothing to do when
// count is 0 (or n: every element a negative NaN).
template <typename T>
__global__ void __launch_bounds__(kThreads)
reverse_for_rotation(T *line, int64_t n, const int64_t *count, int part) {
    follow_previous_grid();
    const int64_t k = *count;
    if (k == 0 || k == n) return;
    const int64_t first = part == 1 ? k : 0;
    const int64_t length = part == 0 ? k : part == 1 ? n - k : n;
    const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < length / 2; i += nthreads) {
        T *lo = line + first + i, *hi = line + first + length - 1 - i;
        const T t = *lo;
        *lo = *hi;
        *hi = t;
    }
}

// Where segment r starts, for the segmented sort (a chunk of lines is under 2**31 elements).
struct LineStart {
    int line;
    __host__ __device__ int operator()(int r) const { return r * line; }
};

struct Plan {
    int device;
    cudaStream_t stream;
    int64_t n, line, lines;
};

template <typename K, typename P>
va_status sort_short_lines(const Plan &p, const K *keys_in, K *keys_out, const P *positions_in, P *positions_out);

// Sorts the lines of keys_in into keys_out, carrying positions_in along into
// positions_out (P: their type; void: keys alone).
template <typename K, typename P>
va_status sort_lines(const Plan &p, const K *keys_in, K *keys_out, const P *positions_in, P *positions_out) {
    constexpr bool kKeysOnly = std::is_void<P>::value;
    DeviceBuffer temp(p.device, p.stream);
    size_t temp_bytes = 0;
    if (p.lines == 1 || p.line >= kLongLine) {
        auto sort = [&](void *storage, int64_t first) -> cudaError_t {
            if constexpr (kKeysOnly)
                return cub::DeviceRadixSort::SortKeys(storage, temp_bytes, keys_in + first, keys_out + first, p.line,
                                                      0, int(sizeof(K) * 8), p.stream);
            else
                return cub::DeviceRadixSort::SortPairs(storage, temp_bytes, keys_in + first, keys_out + first,
                                                       positions_in + first, positions_out + first, p.line, 0,
                                                       int(sizeof(K) * 8), p.stream);
        };
        VA_CUDA_CHECK(sort(nullptr, 0));
        VA_CHECK(temp.allocate(std::max<size_t>(temp_bytes, 1)));  // never the size query's NULL
        for (int64_t r = 0; r < p.lines; ++r) VA_CUDA_CHECK(sort(temp.get(), r * p.line));
        return VA_SUCCESS;
    }
    // 64-bit positions are for lines of 2^31 elements or more, never short ones: no
    // segmented sort of them is instantiated.
    if constexpr (std::is_same<P, int64_t>::value) VA_FAIL(VA_ERROR_INVALID_VALUE);
    else return sort_short_lines(p, keys_in, keys_out, positions_in, positions_out);
}

// Short lines (line < kLongLine): chunks of whole lines, each under 2**31 elements
// (the segmented sort counts in int).
template <typename K, typename P>
va_status sort_short_lines(const Plan &p, const K *keys_in, K *keys_out, const P *positions_in, P *positions_out) {
    constexpr bool kKeysOnly = std::is_void<P>::value;
    DeviceBuffer temp(p.device, p.stream);
    size_t temp_bytes = 0;
    const int64_t per_chunk = std::numeric_limits<int>::max() / p.line;
    auto sort = [&](void *storage, int64_t first_line, int64_t count) -> cudaError_t {
        const int64_t first = first_line * p.line;
        auto begins = thrust::make_transform_iterator(thrust::make_counting_iterator(0), LineStart{int(p.line)});
        auto ends = thrust::make_transform_iterator(thrust::make_counting_iterator(1), LineStart{int(p.line)});
        const int items = static_cast<int>(count * p.line), segments = static_cast<int>(count);
        if constexpr (kKeysOnly)
            return cub::DeviceSegmentedRadixSort::SortKeys(storage, temp_bytes, keys_in + first, keys_out + first,
                                                           items, segments, begins, ends, 0, int(sizeof(K) * 8),
                                                           p.stream);
        else
            return cub::DeviceSegmentedRadixSort::SortPairs(storage, temp_bytes, keys_in + first, keys_out + first,
                                                            positions_in + first, positions_out + first, items,
                                                            segments, begins, ends, 0, int(sizeof(K) * 8),
                                                            p.stream);
    };
    VA_CUDA_CHECK(sort(nullptr, 0, std::min(per_chunk, p.lines)));
    VA_CHECK(temp.allocate(std::max<size_t>(temp_bytes, 1)));  // never the size query's NULL
    for (int64_t first = 0; first < p.lines; first += per_chunk)
        VA_CUDA_CHECK(sort(temp.get(), first, std::min(per_chunk, p.lines - first)));
    return VA_SUCCESS;
}

// An ascending sort of one contiguous line of numbers into a separate contiguous
// result, from the caller's array (see the top of the file).
template <typename T>
bool sorts_from_source(const Plan &p, const va_array *a, int axis, bool descending, const va_array *values) {
    return !std::is_same<T, bool>::value && !descending && p.lines == 1 && p.n >= kFromSourceMin &&
           is_axis_last(a, axis) && is_axis_last(values, axis) &&
           reinterpret_cast<uintptr_t>(a->data) % sizeof(T) == 0 &&
           reinterpret_cast<uintptr_t>(values->data) % sizeof(T) == 0 && !may_overlap(a, values);
}

template <typename T>
va_status sort_from_source(const Plan &p, const va_array *a, const va_array *values) {
    T *out = static_cast<T *>(values->data);
    VA_CHECK((sort_lines<T, void>(p, static_cast<const T *>(a->data), out, nullptr, nullptr)));
    if constexpr (std::is_floating_point<T>::value) {
        DeviceBuffer count(p.device, p.stream);
        VA_CHECK(count.allocate(sizeof(int64_t)));
        int64_t *k = reinterpret_cast<int64_t *>(count.get());
        VA_CUDA_CHECK(launch_kernel(p.device, count_leading_negative_nans<T>, 1, 1, p.stream,
                                    static_cast<const T *>(out), p.n, k));
        constexpr auto reverse = reverse_for_rotation<T>;
        const unsigned grid = resident_grid_for<reverse>(p.device, p.n / 2, kThreads);
        for (int part = 0; part < 3; ++part)
            VA_CUDA_CHECK(launch_kernel(p.device, reverse, grid, kThreads, p.stream, out, p.n,
                                        static_cast<const int64_t *>(k), part));
    }
    return VA_SUCCESS;
}

// The sorted values of a along axis into `values`.
template <typename T>
va_status sort_typed(const Plan &p, const va_array *a, int axis, bool descending, const va_array *values) {
    using K = KeyOf<T>;
    if (sorts_from_source<T>(p, a, axis, descending, values)) return sort_from_source<T>(p, a, values);
    const size_t key_bytes = static_cast<size_t>(p.n) * sizeof(K);
    DeviceBuffer keys(p.device, p.stream), sorted(p.device, p.stream);
    VA_CHECK(keys.allocate(key_bytes));
    {
        va_array key_view;
        axis_last_view(a, axis, keys.get(), a->dtype, &key_view);
        const va_array *views[2] = {&key_view, a};
        Walk walk;
        make_walk(views, 2, &walk);
        constexpr auto kernel = gather_keys<T>;
        VA_CUDA_CHECK(launch_kernel(p.device, kernel, resident_grid_for<kernel>(p.device, p.n, kThreads), kThreads,
                                    p.stream, static_cast<const char *>(a->data), keys.get(), p.n, walk,
                                    descending));
    }
    // Sorted straight into the caller's memory when it has the buffer's layout
    // and nothing is left to undo (an ascending sort).
    const bool values_direct = !descending && is_axis_last(values, axis);
    K *keys_out = nullptr;
    if (values_direct) {
        keys_out = static_cast<K *>(values->data);
    } else {
        VA_CHECK(sorted.allocate(key_bytes));
        keys_out = reinterpret_cast<K *>(sorted.get());
    }
    VA_CHECK((sort_lines<K, void>(p, reinterpret_cast<const K *>(keys.get()), keys_out, nullptr, nullptr)));
    if (!values_direct) {
        va_array sorted_view;
        axis_last_view(a, axis, keys_out, a->dtype, &sorted_view);
        const va_array *views[2] = {values, &sorted_view};
        Walk walk;
        make_walk(views, 2, &walk);
        constexpr auto kernel = scatter_values<T>;
        VA_CUDA_CHECK(launch_kernel(p.device, kernel, resident_grid_for<kernel>(p.device, p.n, kThreads), kThreads,
                                    p.stream, reinterpret_cast<const char *>(keys_out),
                                    static_cast<char *>(values->data), p.n, walk, descending));
    }
    return VA_SUCCESS;
}

// argsort of the order keys already gathered (axis last) into `indices`, with positions of type P.
template <typename U, typename P>
va_status argsort_keys(const Plan &p, const va_array *a, int axis, const U *keys, const va_array *indices) {
    constexpr va_dtype kPositionDtype = std::is_same<P, int32_t>::value ? VA_INT32 : VA_INT64;
    const size_t position_bytes = static_cast<size_t>(p.n) * sizeof(P);  // va_sort checked n * 8
    DeviceBuffer sorted_keys(p.device, p.stream), positions(p.device, p.stream), sorted(p.device, p.stream);
    VA_CHECK(sorted_keys.allocate(static_cast<size_t>(p.n) * sizeof(U)));
    VA_CHECK(positions.allocate(position_bytes));
    P *positions_in = reinterpret_cast<P *>(positions.get());
    constexpr auto fill = line_positions<P>;
    VA_CUDA_CHECK(launch_kernel(p.device, fill, resident_grid_for<fill>(p.device, p.n, kThreads), kThreads, p.stream,
                                positions_in, p.n, p.line));
    // 64-bit positions in the caller's layout go there directly; else through a buffer.
    const bool direct = kPositionDtype == VA_INT64 && is_axis_last(indices, axis);
    P *positions_out = nullptr;
    if (direct) {
        positions_out = static_cast<P *>(indices->data);
    } else {
        VA_CHECK(sorted.allocate(position_bytes));
        positions_out = reinterpret_cast<P *>(sorted.get());
    }
    VA_CHECK((sort_lines<U, P>(p, keys, reinterpret_cast<U *>(sorted_keys.get()), positions_in, positions_out)));
    if (direct) return VA_SUCCESS;
    va_array sorted_view;
    axis_last_view(a, axis, positions_out, kPositionDtype, &sorted_view);
    return convert_on_stream(p.device, p.stream, &sorted_view, indices, p.n);
}

// Each element's position along axis in a stable sort of a, into `indices`.
template <typename T>
va_status argsort_typed(const Plan &p, const va_array *a, int axis, bool descending, const va_array *indices) {
    using U = OrderKey<T>;
    DeviceBuffer keys(p.device, p.stream);
    VA_CHECK(keys.allocate(static_cast<size_t>(p.n) * sizeof(U)));
    U *key_items = reinterpret_cast<U *>(keys.get());
    {
        va_array key_view;
        axis_last_view(a, axis, key_items, a->dtype, &key_view);
        const va_array *views[2] = {&key_view, a};
        Walk walk;
        make_walk(views, 2, &walk);
        constexpr auto kernel = gather_order_keys<T>;
        VA_CUDA_CHECK(launch_kernel(p.device, kernel, resident_grid_for<kernel>(p.device, p.n, kThreads), kThreads,
                                    p.stream, static_cast<const char *>(a->data), key_items, p.n, walk,
                                    descending));
    }
    if (p.line <= std::numeric_limits<int32_t>::max()) return argsort_keys<U, int32_t>(p, a, axis, key_items, indices);
    return argsort_keys<U, int64_t>(p, a, axis, key_items, indices);
}

}  // namespace
}  // namespace va

extern "C" {

va_status va_sort(int device, const va_array *a, int32_t axis, int32_t descending, const va_array *values,
                  const va_array *indices) {
    int64_t n = 0, nv = 0, ni = 0;
    VA_CHECK(va::validate(a, &n));
    if (axis < 0 || axis >= a->ndim) VA_FAIL(VA_ERROR_INVALID_VALUE);
    if (values != nullptr) {
        VA_CHECK(va::validate(values, &nv));
        if (!va::same_shape(a, values) || values->dtype != a->dtype) VA_FAIL(VA_ERROR_INVALID_VALUE);
    }
    if (indices != nullptr) {
        VA_CHECK(va::validate(indices, &ni));
        if (!va::same_shape(a, indices) || indices->dtype != VA_INT64) VA_FAIL(VA_ERROR_INVALID_VALUE);
    }
    // The key and position buffers hold n elements of up to 8 bytes each: a broadcast
    // view may count more elements than a byte count reaches (validate() bounds the
    // count by int64 only), and no such buffer could be had anyway.
    if (n > static_cast<int64_t>((SIZE_MAX - 1) / sizeof(int64_t))) VA_FAIL(VA_ERROR_OUT_OF_MEMORY);
    VA_ENTER_STREAM(device, scope, stream);
    if (n == 0 || (values == nullptr && indices == nullptr)) return VA_SUCCESS;
    va::Plan plan = {device, stream, n, a->shape[axis], n / a->shape[axis]};
    return va::dispatch_real_dtype(a->dtype, [&](auto tag) -> va_status {
        using T = typename decltype(tag)::type;
        // indices first: an in-place sort (values == a) would change what they order
        if (indices != nullptr) VA_CHECK(va::argsort_typed<T>(plan, a, axis, descending != 0, indices));
        if (values != nullptr) VA_CHECK(va::sort_typed<T>(plan, a, axis, descending != 0, values));
        return VA_SUCCESS;
    });
}

}  // extern "C"
