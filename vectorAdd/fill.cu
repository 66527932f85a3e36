// Creation kernels: fill with one value, NumPy's arange and linspace sequences
// (bit for bit: the same formulas in the same precision, no contraction into
// FMA), and the identity's diagonal.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "op_types.cuh"
#include "dispatch.cuh"
#include "grid.cuh"
#include "launch.cuh"
#include "layout.cuh"
#include "runtime.cuh"

namespace va {
namespace {

constexpr int kThreads = 256;

// 16 bytes of T: the widest store a thread issues (the kernels here only write).
template <typename T>
struct alignas(16) Pack16 {
    static constexpr int kCount = 16 / sizeof(T);
    T v[kCount];
};

// Rounded IEEE operations that nvcc may not fuse: NumPy computes `start + i*delta`
// as a multiply and an add, each rounded (mul_rn: complex.cuh).
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float div_rn(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double div_rn(double a, double b) { return __ddiv_rn(a, b); }

// ---- the values, one function per sequence ----

template <typename T>
struct FillValue {
    T value;
    __device__ __forceinline__ T operator()(int64_t) const { return value; }
};

// NumPy's arange: elements 0 and 1 as NumPy set them (from start and start + step),
// then start + i * (second - first) in T (integers in int64, wrapping).
template <typename T>
struct ArangeValue {
    T first, second, delta;
    __device__ __forceinline__ T operator()(int64_t i) const {
        if (i == 0) return first;
        if (i == 1) return second;
        if constexpr (std::is_floating_point<T>::value) {
            return add_rn(first, mul_rn(static_cast<T>(i), delta));
        } else {
            const uint64_t r = static_cast<uint64_t>(static_cast<int64_t>(first)) +
                               static_cast<uint64_t>(i) * static_cast<uint64_t>(static_cast<int64_t>(delta));
            return static_cast<T>(r);
        }
    }
};

// NumPy's linspace in its computation type C (numpy/_core/function_base.py):
// arange(num) * step (or / div * delta when step underflows to 0, or * delta
// when div is 0), + start, the endpoint set to stop, floored for integer output.
template <typename C, typename T>
struct LinspaceValue {
    C start, stop, step, delta, div;
    int mode;      // 0: i * step, 1: i / div * delta, 2: i * delta
    int64_t last;  // the index set to stop, or -1
    __device__ __forceinline__ T operator()(int64_t i) const {
        C y = static_cast<C>(i);
        if (mode == 0) y = mul_rn(y, step);
        else if (mode == 1) y = mul_rn(div_rn(y, div), delta);
        else y = mul_rn(y, delta);
        y = add_rn(y, start);
        if (i == last) y = stop;
        if constexpr (std::is_integral<T>::value && !std::is_same<T, bool>::value) {
            return convert_to<T>(floor(y));
        } else {
            return static_cast<T>(y);
        }
    }
};

// ---- the kernels, generic over the value ----

// One 16-byte pack a thread, every block a tile; the last block writes the tail.
template <typename T, typename Value>
__global__ void __launch_bounds__(kThreads) write_packed(T *out, int64_t n, Value value) {
    follow_previous_grid();
    constexpr int G = Pack16<T>::kCount;
    const int64_t groups = n / G;
    const int64_t g = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    if (g < groups) {
        Pack16<T> p;
#pragma unroll
        for (int j = 0; j < G; ++j) p.v[j] = value(g * G + j);
        reinterpret_cast<Pack16<T> *>(out)[g] = p;
    }
    if (blockIdx.x == gridDim.x - 1) {
        for (int64_t i = groups * G + threadIdx.x; i < n; i += kThreads) out[i] = value(i);
    }
}

// Any layout: flat C-order index i lands at walk_offset(walk, 0, i).
template <typename T, typename Value>
__global__ void __launch_bounds__(kThreads) write_strided(char *out, int64_t n, Walk walk, Value value) {
    follow_previous_grid();
    const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += nthreads)
        *reinterpret_cast<T *>(out + walk_offset(walk, 0, i)) = value(i);
}

template <typename T>
__global__ void __launch_bounds__(kThreads) write_diagonal(char *out, int64_t count, int64_t step) {
    follow_previous_grid();
    const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    if (i < count) *reinterpret_cast<T *>(out + i * step) = static_cast<T>(1);
}

// Writes value(i) to every element i (C order) of dst.
template <typename T, typename Value>
va_status write_values(int device, cudaStream_t stream, const va_array *dst, int64_t n, Value value) {
    const va_array *views[1] = {dst};
    Walk walk;
    make_walk(views, 1, &walk);
    const bool contiguous =
        walk.ndim == 0 || (walk.ndim == 1 && walk.strides[0][0] == static_cast<int64_t>(sizeof(T)));
    if (contiguous && reinterpret_cast<uintptr_t>(dst->data) % 16 == 0) {
        VA_CUDA_CHECK(launch_kernel(device, write_packed<T, Value>,
                                    tiles_for(n / Pack16<T>::kCount, kThreads), kThreads, stream,
                                    static_cast<T *>(dst->data), n, value));
    } else {
        if (walk.ndim == 0) {  // one element: a walk of one dimension of length 1
            walk.ndim = 1;
            walk.shape[0] = 1;
            walk.strides[0][0] = 0;
        }
        constexpr auto kernel = write_strided<T, Value>;
        VA_CUDA_CHECK(launch_kernel(device, kernel, resident_grid_for<kernel>(device, n, kThreads),
                                    kThreads, stream, static_cast<char *>(dst->data), n, walk, value));
    }
    return VA_SUCCESS;
}

bool all_zero_bytes(const void *value, size_t size) {
    const unsigned char *p = static_cast<const unsigned char *>(value);
    for (size_t i = 0; i < size; ++i)
        if (p[i] != 0) return false;
    return true;
}

va_status fill_on_stream(int device, cudaStream_t stream, const va_array *dst, int64_t n,
                         const void *value) {
    const size_t size = va_dtype_size(dst->dtype);
    const va_array *views[1] = {dst};
    Walk walk;
    make_walk(views, 1, &walk);
    const bool contiguous =
        walk.ndim == 0 || (walk.ndim == 1 && walk.strides[0][0] == static_cast<int64_t>(size));
    if (contiguous && all_zero_bytes(value, size)) {
        // The copy engine's memset reaches the write bound with no kernel at all.
        VA_CUDA_CHECK(cudaMemsetAsync(dst->data, 0, static_cast<size_t>(n) * size, stream));
        return VA_SUCCESS;
    }
    return dispatch_dtype(dst->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        FillValue<T> fill;
        std::memcpy(&fill.value, value, sizeof(T));
        return write_values<T>(device, stream, dst, n, fill);
    });
}

}  // namespace
}  // namespace va

extern "C" {

va_status va_fill(int device, const va_array *dst, const void *value) {
    int64_t n = 0;
    VA_CHECK(va::validate(dst, &n));
    if (value == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    if (n == 0) return VA_SUCCESS;
    return va::fill_on_stream(device, stream, dst, n, value);
}

va_status va_arange(int device, const va_array *dst, const void *first, const void *second) {
    int64_t n = 0;
    VA_CHECK(va::validate(dst, &n));
    if (dst->ndim != 1 || first == nullptr || second == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    if (n == 0) return VA_SUCCESS;
    return va::dispatch_real_dtype(dst->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        va::ArangeValue<T> value;
        std::memcpy(&value.first, first, sizeof(T));
        std::memcpy(&value.second, second, sizeof(T));
        if constexpr (std::is_floating_point<T>::value) {
            value.delta = value.second - value.first;
        } else {
            value.delta = static_cast<T>(static_cast<uint64_t>(static_cast<int64_t>(value.second)) -
                                         static_cast<uint64_t>(static_cast<int64_t>(value.first)));
        }
        return va::write_values<T>(device, stream, dst, n, value);
    });
}

va_status va_linspace(int device, const va_array *dst, va_dtype compute, double start, double stop,
                      int endpoint) {
    int64_t n = 0;
    VA_CHECK(va::validate(dst, &n));
    if (dst->ndim != 1 || (compute != VA_FLOAT32 && compute != VA_FLOAT64))
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    if (n == 0) return VA_SUCCESS;
    return va::dispatch_dtype(compute, [&](auto ctag) {
        using C = typename decltype(ctag)::type;
        if constexpr (!std::is_floating_point<C>::value) {
            VA_FAIL(VA_ERROR_INVALID_VALUE);
        } else {
            return va::dispatch_real_dtype(dst->dtype, [&](auto tag) {
                using T = typename decltype(tag)::type;
                va::LinspaceValue<C, T> value;
                const int64_t div = endpoint ? n - 1 : n;
                value.start = static_cast<C>(start);
                value.stop = static_cast<C>(stop);
                value.div = static_cast<C>(div);
                value.delta = value.stop - value.start;
                value.step = value.delta / value.div;
                value.mode = div > 0 ? (value.step == 0 ? 1 : 0) : 2;
                value.last = (endpoint && n > 1) ? n - 1 : -1;
                return va::write_values<T>(device, stream, dst, n, value);
            });
        }
    });
}

va_status va_eye(int device, const va_array *dst, int64_t k) {
    int64_t n = 0;
    VA_CHECK(va::validate(dst, &n));
    if (dst->ndim != 2) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    if (n == 0) return VA_SUCCESS;
    const int64_t rows = dst->shape[0], cols = dst->shape[1];
    // The diagonal misses the matrix when k <= -rows or k >= cols; asked that
    // way, no -k is taken of INT64_MIN (k = -2**63 must give zeros, as NumPy's).
    const bool misses = k < 0 ? k <= -rows : k >= cols;
    const int64_t r0 = misses || k >= 0 ? 0 : -k, c0 = misses || k <= 0 ? 0 : k;
    const int64_t count = misses ? 0 : std::min(rows - r0, cols - c0);
    return va::dispatch_dtype(dst->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T zero = static_cast<T>(0);
        VA_CHECK(va::fill_on_stream(device, stream, dst, n, &zero));
        if (count == 0) return VA_SUCCESS;
        char *first = static_cast<char *>(dst->data) + r0 * dst->strides[0] + c0 * dst->strides[1];
        VA_CUDA_CHECK(va::launch_kernel(device, va::write_diagonal<T>, va::tiles_for(count, va::kThreads),
                                        va::kThreads, stream, first, count,
                                        dst->strides[0] + dst->strides[1]));
        return VA_SUCCESS;
    });
}

}  // extern "C"
