// add, subtract, multiply, divide on device memory: a vectorised kernel for
// contiguous (or scalar-broadcast) operands and a general strided kernel.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "dispatch.cuh"
#include "elementwise.cuh"
#include "launch.cuh"
#include "layout.cuh"
#include "ops.cuh"
#include "runtime.cuh"

namespace va {
namespace {

constexpr int kThreads = 256;
// Packs per thread. With launches that overlap the previous kernel, one pack a
// thread was the fastest of 1, 2 and 4 at n = 1e6, 2^26 and 1e8 on an H200
// (bench/NOTES.md, change 9); the loops below keep the tile shape general.
constexpr int kUnroll = 1;

// One tile of kThreads * kUnroll packs per block, every block a tile: the
// hardware schedules the waves. (Measured on an H200 against a grid-stride loop
// over a resident grid: 4.31-4.34 TB/s against 4.06, bench/NOTES.md.)
template <typename Ta, typename Tb, typename Tc, int G>
__global__ void __launch_bounds__(kThreads)
binary_contiguous(int op, const Ta *a, const Tb *b, Tc *out, int64_t n, bool a_scalar,
                  bool b_scalar) {
    follow_previous_grid();
    const int64_t groups = n / G;
    const Tc a0 = static_cast<Tc>(a[0]);
    const Tc b0 = static_cast<Tc>(b[0]);
    const auto *pa = reinterpret_cast<const Pack<Ta, G> *>(a);
    const auto *pb = reinterpret_cast<const Pack<Tb, G> *>(b);
    auto *po = reinterpret_cast<Pack<Tc, G> *>(out);
    const int64_t base = static_cast<int64_t>(blockIdx.x) * kThreads * kUnroll + threadIdx.x;
    Pack<Ta, G> va[kUnroll];
    Pack<Tb, G> vb[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
        const int64_t g = base + k * kThreads;
        if (g < groups) {
            if (!a_scalar) va[k] = pa[g];
            if (!b_scalar) vb[k] = pb[g];
        }
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
        const int64_t g = base + k * kThreads;
        if (g < groups) {
            Pack<Tc, G> r;
#pragma unroll
            for (int j = 0; j < G; ++j) {
                const Tc x = a_scalar ? a0 : static_cast<Tc>(va[k].v[j]);
                const Tc y = b_scalar ? b0 : static_cast<Tc>(vb[k].v[j]);
                r.v[j] = apply_op<Tc>(op, x, y);
            }
            po[g] = r;
        }
    }
    // The last block also takes the elements after the last whole pack.
    if (blockIdx.x == gridDim.x - 1) {
        for (int64_t i = groups * G + threadIdx.x; i < n; i += kThreads) {
            const Tc x = a_scalar ? a0 : static_cast<Tc>(a[i]);
            const Tc y = b_scalar ? b0 : static_cast<Tc>(b[i]);
            out[i] = apply_op<Tc>(op, x, y);
        }
    }
}

// Blocks of tiles covering `groups` packs (at least one, for the tail).
unsigned tile_grid(int64_t groups) {
    const int64_t per_block = static_cast<int64_t>(kThreads) * kUnroll;
    return static_cast<unsigned>(std::max<int64_t>(1, (groups + per_block - 1) / per_block));
}

template <typename Ta, typename Tb, typename Tc>
__global__ void __launch_bounds__(kThreads)
binary_strided(int op, const char *a, const char *b, char *out, int64_t n, Walk walk) {
    follow_previous_grid();
    const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += nthreads) {
        int64_t index = i, oo = 0, oa = 0, ob = 0;
        for (int d = walk.ndim - 1; d >= 0; --d) {
            const int64_t extent = walk.shape[d];
            const int64_t k = index % extent;
            index /= extent;
            oo += k * walk.strides[0][d];
            oa += k * walk.strides[1][d];
            ob += k * walk.strides[2][d];
        }
        const Tc x = static_cast<Tc>(*reinterpret_cast<const Ta *>(a + oa));
        const Tc y = static_cast<Tc>(*reinterpret_cast<const Tb *>(b + ob));
        *reinterpret_cast<Tc *>(out + oo) = apply_op<Tc>(op, x, y);
    }
}

template <typename Tin, typename Tout>
__global__ void __launch_bounds__(kThreads)
convert_strided(const char *src, char *dst, int64_t n, Walk walk) {
    follow_previous_grid();
    const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += nthreads) {
        int64_t index = i, od = 0, os = 0;
        for (int d = walk.ndim - 1; d >= 0; --d) {
            const int64_t extent = walk.shape[d];
            const int64_t k = index % extent;
            index /= extent;
            od += k * walk.strides[0][d];
            os += k * walk.strides[1][d];
        }
        *reinterpret_cast<Tout *>(dst + od) =
            static_cast<Tout>(*reinterpret_cast<const Tin *>(src + os));
    }
}

// The result type of the operation on Ta and Tb when it is Tc: promotion, or
// float64 for a true division of integers.
template <typename Ta, typename Tb>
using Promoted = typename std::conditional<
    std::is_same<Ta, Tb>::value, Ta,
    typename std::conditional<std::is_integral<Ta>::value && std::is_integral<Tb>::value,
                              int64_t, double>::type>::type;

template <typename Ta, typename Tb, typename Tc>
constexpr bool valid_result() {
    using P = Promoted<Ta, Tb>;
    return std::is_same<Tc, P>::value ||
           (std::is_integral<P>::value && std::is_same<Tc, double>::value);
}

// A grid-stride kernel's grid: enough blocks for the work, at most as many as
// can be resident at once (more would run as a second, partial wave).
template <auto Kernel>
unsigned grid_for(int device, int64_t work_items) {
    const int64_t cap = static_cast<int64_t>(multiprocessor_count(device)) * resident_blocks<Kernel>(kThreads);
    int64_t blocks = (work_items + kThreads - 1) / kThreads;
    return static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, cap)));
}

bool aligned(const void *p, size_t bytes) {
    return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

template <typename Ta, typename Tb, typename Tc>
va_status launch_binary(int device, cudaStream_t stream, int op, const va_array *a,
                        const va_array *b, const va_array *out, int64_t n) {
    const va_array *views[3] = {out, a, b};
    Walk walk;
    make_walk(views, 3, &walk);
    const int64_t so = walk.ndim == 1 ? walk.strides[0][0] : 0;
    const int64_t sa = walk.ndim == 1 ? walk.strides[1][0] : 0;
    const int64_t sb = walk.ndim == 1 ? walk.strides[2][0] : 0;
    const bool contiguous = walk.ndim == 0 ||
        (walk.ndim == 1 && so == static_cast<int64_t>(sizeof(Tc)) &&
         (sa == 0 || sa == static_cast<int64_t>(sizeof(Ta))) &&
         (sb == 0 || sb == static_cast<int64_t>(sizeof(Tb))));
    if (contiguous) {
        const bool a_scalar = walk.ndim == 1 && sa == 0;
        const bool b_scalar = walk.ndim == 1 && sb == 0;
        constexpr int G = 16 / std::max(sizeof(Ta), std::max(sizeof(Tb), sizeof(Tc)));
        const bool packed = aligned(out->data, sizeof(Tc) * G) &&
                            (a_scalar || aligned(a->data, sizeof(Ta) * G)) &&
                            (b_scalar || aligned(b->data, sizeof(Tb) * G));
        const auto *pa = static_cast<const Ta *>(a->data);
        const auto *pb = static_cast<const Tb *>(b->data);
        auto *po = static_cast<Tc *>(out->data);
        if (packed)
            VA_CUDA_CHECK(launch_kernel(device, binary_contiguous<Ta, Tb, Tc, G>, tile_grid(n / G),
                                        kThreads, stream, op, pa, pb, po, n, a_scalar, b_scalar));
        else
            VA_CUDA_CHECK(launch_kernel(device, binary_contiguous<Ta, Tb, Tc, 1>, tile_grid(n),
                                        kThreads, stream, op, pa, pb, po, n, a_scalar, b_scalar));
    } else {
        constexpr auto kernel = binary_strided<Ta, Tb, Tc>;
        VA_CUDA_CHECK(launch_kernel(device, kernel, grid_for<kernel>(device, n), kThreads, stream,
                                    op, static_cast<const char *>(a->data),
                                    static_cast<const char *>(b->data),
                                    static_cast<char *>(out->data), n, walk));
    }
    return VA_SUCCESS;
}

}  // namespace

va_status convert_on_stream(int device, cudaStream_t stream, const va_array *src,
                            const va_array *dst, int64_t n) {
    const va_array *views[2] = {dst, src};
    Walk walk;
    make_walk(views, 2, &walk);
    const size_t isz = va_dtype_size(src->dtype);
    if (src->dtype == dst->dtype &&
        (walk.ndim == 0 ||
         (walk.ndim == 1 && walk.strides[0][0] == static_cast<int64_t>(isz) &&
          walk.strides[1][0] == static_cast<int64_t>(isz)))) {
        VA_CUDA_CHECK(cudaMemcpyAsync(dst->data, src->data, static_cast<size_t>(n) * isz,
                                      cudaMemcpyDeviceToDevice, stream));
        return VA_SUCCESS;
    }
    return dispatch_dtype(src->dtype, [&](auto tin) {
        return dispatch_dtype(dst->dtype, [&](auto tout) {
            using Tin = typename decltype(tin)::type;
            using Tout = typename decltype(tout)::type;
            constexpr auto kernel = convert_strided<Tin, Tout>;
            VA_CUDA_CHECK(launch_kernel(device, kernel, grid_for<kernel>(device, n), kThreads,
                                        stream, static_cast<const char *>(src->data),
                                        static_cast<char *>(dst->data), n, walk));
            return VA_SUCCESS;
        });
    });
}

va_status binary_on_stream(int device, cudaStream_t stream, va_op op, const va_array *a,
                           const va_array *b, const va_array *out, int64_t n) {
    return dispatch_dtype(a->dtype, [&](auto ta) {
        return dispatch_dtype(b->dtype, [&](auto tb) {
            return dispatch_dtype(out->dtype, [&](auto tc) -> va_status {
                using Ta = typename decltype(ta)::type;
                using Tb = typename decltype(tb)::type;
                using Tc = typename decltype(tc)::type;
                if constexpr (valid_result<Ta, Tb, Tc>()) {
                    return launch_binary<Ta, Tb, Tc>(device, stream, static_cast<int>(op), a, b,
                                                     out, n);
                } else {
                    VA_FAIL(VA_ERROR_INVALID_VALUE);
                }
            });
        });
    });
}

// Checks a binary operation's arguments: shapes equal, out's dtype the result's.
va_status check_binary(va_op op, const va_array *a, const va_array *b, const va_array *out,
                       int64_t *n) {
    int64_t na = 0, nb = 0;
    VA_CHECK(validate(a, &na));
    VA_CHECK(validate(b, &nb));
    VA_CHECK(validate(out, n));
    if (!same_shape(a, out) || !same_shape(b, out)) VA_FAIL(VA_ERROR_INVALID_VALUE);
    va_dtype expected;
    VA_CHECK(va_result_dtype(op, a->dtype, b->dtype, &expected));
    if (expected != out->dtype) VA_FAIL(VA_ERROR_INVALID_VALUE);
    return VA_SUCCESS;
}

}  // namespace va

extern "C" {

va_status va_binary(int device, va_op op, const va_array *a, const va_array *b,
                    const va_array *out) {
    int64_t n = 0;
    VA_CHECK(va::check_binary(op, a, b, out, &n));
    VA_ENTER_STREAM(device, scope, stream);
    if (n == 0) return VA_SUCCESS;
    return va::binary_on_stream(device, stream, op, a, b, out, n);
}

va_status va_copy_convert(int device, const va_array *src, const va_array *dst) {
    int64_t ns = 0, nd = 0;
    VA_CHECK(va::validate(src, &ns));
    VA_CHECK(va::validate(dst, &nd));
    if (!va::same_shape(src, dst)) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    if (nd == 0) return VA_SUCCESS;
    return va::convert_on_stream(device, stream, src, dst, nd);
}

}  // extern "C"
