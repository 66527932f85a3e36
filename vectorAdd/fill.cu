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
template <typename C>
struct LinspaceTerms {
    C start, stop, step, delta, div;
    // 0: i * step, 1: i / div * delta, 2: i * delta, 3: i * div * delta (a complex
    // part: NumPy's complex quotient multiplies by the divisor's reciprocal, held in div)
    int mode;
    int64_t last;  // the index set to stop, or -1
};

template <typename C, typename T>
struct LinspaceValue : LinspaceTerms<C> {
    __device__ __forceinline__ T operator()(int64_t i) const {
        const auto [start, stop, step, delta, div, mode, last] = static_cast<const LinspaceTerms<C> &>(*this);
        C y = static_cast<C>(i);
        if (mode == 0) y = mul_rn(y, step);
        else if (mode == 1) y = mul_rn(div_rn(y, div), delta);
        else if (mode == 2) y = mul_rn(y, delta);
        else y = mul_rn(mul_rn(y, div), delta);
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

// kFillPacks 16-byte packs a thread, kThreads packs apart (each store coalesced
// across the warp), every block a tile; the last block writes the tail. A block of
// one pack a thread lives too briefly to hide its start and its wait for the grid
// before it: on an H200 such blocks wrote 1e8 float64 in 241 us (ncu; 15% of the
// warps active), where the same stores without that wait took 173 (bench/NOTES.md,
// session 39).
constexpr int kFillPacks = 4;

// Whether write_packed unrolls its packs: yes for the values a fill or arange
// writes (the shape measured), no for linspace's, whose formula unrolled 4 x 16
// times for one-byte types took fill.o from 1.10 to 1.43 MB for the wheel's
// architectures (1.15 MB with linspace's packs in a loop), for no row that times it.
template <typename Value>
struct UnrollPacks : std::true_type {};
template <typename C, typename T>
struct UnrollPacks<LinspaceValue<C, T>> : std::false_type {};

template <typename T, typename Value>
__global__ void __launch_bounds__(kThreads) write_packed(T *out, int64_t n, Value value) {
    follow_previous_grid();
    constexpr int G = Pack16<T>::kCount;
    const int64_t groups = n / G;
    const int64_t first = static_cast<int64_t>(blockIdx.x) * (kThreads * kFillPacks) + threadIdx.x;
    auto store = [&](int64_t g) {
        if (g < groups) {
            Pack16<T> p;
#pragma unroll
            for (int j = 0; j < G; ++j) p.v[j] = value(g * G + j);
            reinterpret_cast<Pack16<T> *>(out)[g] = p;
        }
    };
    if constexpr (UnrollPacks<Value>::value) {
#pragma unroll
        for (int u = 0; u < kFillPacks; ++u) store(first + static_cast<int64_t>(u) * kThreads);
    } else {
#pragma unroll 1
        for (int u = 0; u < kFillPacks; ++u) store(first + static_cast<int64_t>(u) * kThreads);
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
                                    tiles_for(n / Pack16<T>::kCount, kThreads * kFillPacks), kThreads, stream,
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
    // Zeros go through write_packed like any value where it takes them (contiguous,
    // 16-byte aligned): on an H200, zeros(1e8) float64 took 172.7-173.0 us that way
    // against 178.8-179.3 for the copy engine's memset (bench/probes/fill_library.py
    // and fill_variants.cu; bench/NOTES.md, session 39). The memset keeps the other
    // contiguous zeros, where write_packed would give way to write_strided.
    if (contiguous && reinterpret_cast<uintptr_t>(dst->data) % 16 != 0 && all_zero_bytes(value, size)) {
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

// numpy.linspace into dst (1-d, validated); a complex dst's two parts are each
// written as a real array through a view of every other element. complex_ends:
// NumPy's complex linspace, part by part: its step is delta times the reciprocal
// of the count (its complex quotient), and y * step with a real y adds exact
// zeros (finite ends; a NaN or infinite part stays in its part). Otherwise the
// real linspace, into a complex dst's real parts with zeros beside (NumPy's cast).
// Either way the zero-step form is taken only when both parts' steps are zero.
va_status linspace_parts(int device, const va_array *dst, va_dtype compute, const double *start, const double *stop,
                         int endpoint, bool complex_ends) {
    const int parts = is_complex_dtype(dst->dtype) ? 2 : 1;
    const int64_t n = dst->shape[0];
    VA_ENTER_STREAM(device, scope, stream);
    if (n == 0) return VA_SUCCESS;
    return dispatch_real_dtype(compute, [&](auto ctag) {
        using C = typename decltype(ctag)::type;
        if constexpr (!std::is_floating_point<C>::value) {
            VA_FAIL(VA_ERROR_INVALID_VALUE);
        } else {
            va_array part = *dst;
            part.dtype = va_part_dtype(dst->dtype);
            const int64_t count = endpoint ? n - 1 : n;
            LinspaceTerms<C> value[2];
            bool steps_zero = true;
            for (int k = 0; k < parts; ++k) {
                value[k].start = static_cast<C>(start[k]);
                value[k].stop = static_cast<C>(stop[k]);
                value[k].delta = value[k].stop - value[k].start;
                value[k].div = complex_ends ? C(1) / static_cast<C>(count) : static_cast<C>(count);
                value[k].step = complex_ends ? value[k].delta * value[k].div : value[k].delta / value[k].div;
                value[k].last = (endpoint && n > 1) ? n - 1 : -1;
                steps_zero = steps_zero && value[k].step == 0;
            }
            for (int k = 0; k < parts; ++k) {
                value[k].mode = count <= 0 ? 2 : !steps_zero ? 0 : complex_ends ? 3 : 1;
                part.data = static_cast<char *>(dst->data) + k * static_cast<int64_t>(va_dtype_size(part.dtype));
                VA_CHECK(dispatch_real_dtype(part.dtype, [&](auto tag) {
                    using T = typename decltype(tag)::type;
                    return write_values<T>(device, stream, &part, n, LinspaceValue<C, T>{value[k]});
                }));
            }
            return VA_SUCCESS;
        }
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
    if (dst->ndim != 1 || (compute != VA_FLOAT32 && compute != VA_FLOAT64)) VA_FAIL(VA_ERROR_INVALID_VALUE);
    const double starts[2] = {start, 0.0}, stops[2] = {stop, 0.0};
    return va::linspace_parts(device, dst, compute, starts, stops, endpoint, false);
}

va_status va_linspace_complex(int device, const va_array *dst, va_dtype compute, const double start[2],
                              const double stop[2], int endpoint) {
    int64_t n = 0;
    VA_CHECK(va::validate(dst, &n));
    if (dst->ndim != 1 || (compute != VA_FLOAT32 && compute != VA_FLOAT64) || !va::is_complex_dtype(dst->dtype) ||
        start == nullptr || stop == nullptr)
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    return va::linspace_parts(device, dst, compute, start, stop, endpoint, true);
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
