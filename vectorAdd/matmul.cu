// va_matmul: a batch of matrix products. float32 and float64 through cuBLAS
// (blas.cuh), the row-major product C = A B written as cuBLAS's column-major
// C^T = B^T A^T, so that neither input is transposed in memory; bool and integers
// with a kernel of the library's, one element of the result a thread, as NumPy
// computes them (integers wrap, bool is any(a & b)).
#include <climits>
#include <cstdint>
#include <type_traits>

#include "blas.cuh"
#include "dispatch.cuh"
#include "error.cuh"
#include "grid.cuh"
#include "layout.cuh"
#include "memory.cuh"
#include "op_types.cuh"
#include "ops.cuh"
#include "runtime.cuh"

namespace va {
namespace {

constexpr int kThreads = 256;

struct BatchStrides {
    int64_t a[3], b[3];  // bytes, over (batch, row, column)
};

// Integers multiply and add in the unsigned type of their width: NumPy's wrapping,
// without signed overflow. bool ORs its ANDs.
template <typename T>
struct AccumulatorOf {
    using type = typename std::make_unsigned<T>::type;
};
template <>
struct AccumulatorOf<bool> {
    using type = bool;
};

template <typename T>
__global__ void __launch_bounds__(kThreads)
matmul_kernel(const char *a, const char *b, T *out, int64_t m, int64_t k, int64_t n, int64_t total, BatchStrides s) {
    using Acc = typename AccumulatorOf<T>::type;
    for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < total;
         idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int64_t batch = idx / (m * n), i = idx / n % m, j = idx % n;
        const char *row = a + batch * s.a[0] + i * s.a[1];
        const char *col = b + batch * s.b[0] + j * s.b[2];
        Acc acc = Acc(0);
        for (int64_t p = 0; p < k; ++p) {
            const T x = *reinterpret_cast<const T *>(row + p * s.a[2]);
            const T y = *reinterpret_cast<const T *>(col + p * s.b[1]);
            if constexpr (std::is_same<T, bool>::value) acc = acc || (x && y);
            else acc += static_cast<Acc>(x) * static_cast<Acc>(y);
        }
        out[idx] = static_cast<T>(acc);
    }
}

// One input as cuBLAS reads it: the column-major matrix in memory, whether cuBLAS
// transposes it, its leading dimension and batch stride (elements).
struct GemmInput {
    const void *data;
    cublasOperation_t op;
    long long ld, batch;
};

// X (rows x cols, element strides sr, sc) as the column-major matrix X^T cuBLAS needs:
// row-major X already is X^T (op N, ld sr); column-major X is X itself, transposed by
// cuBLAS (op T, ld sc). False for other layouts. A length-1 axis takes any stride.
bool transposed_view(const void *data, int64_t rows, int64_t cols, int64_t sr, int64_t sc, int64_t batch,
                     GemmInput *g) {
    if (cols == 1) sc = 1;
    if (rows == 1) sr = cols > 1 ? cols : 1;
    g->data = data;
    g->batch = batch;
    if (sc == 1 && sr >= (cols > 1 ? cols : 1) && sr <= INT_MAX) {
        g->op = CUBLAS_OP_N;
        g->ld = sr;
        return true;
    }
    if (sr == 1 && sc >= (rows > 1 ? rows : 1) && sc <= INT_MAX) {
        g->op = CUBLAS_OP_T;
        g->ld = sc;
        return true;
    }
    return false;
}

// `x` (B, rows, cols) as a GemmInput: its own memory where the layout allows, else a
// C-contiguous copy in `buffer`.
va_status gemm_input(int device, cudaStream_t stream, const va_array *x, DeviceBuffer *buffer, GemmInput *g) {
    const int64_t item = static_cast<int64_t>(va_dtype_size(x->dtype));
    const int64_t batch = x->shape[0] > 1 ? x->strides[0] / item : 0;
    if (x->strides[0] % item == 0 && x->strides[1] % item == 0 && x->strides[2] % item == 0 &&
        transposed_view(x->data, x->shape[1], x->shape[2], x->strides[1] / item, x->strides[2] / item, batch, g))
        return VA_SUCCESS;
    const void *packed = nullptr;
    const int64_t count = x->shape[0] * x->shape[1] * x->shape[2];
    VA_CHECK(contiguous_as(device, stream, x, count, x->dtype, buffer, &packed));
    transposed_view(packed, x->shape[1], x->shape[2], x->shape[2], 1, x->shape[1] * x->shape[2], g);
    return VA_SUCCESS;
}

// cuBLAS's complex types hold NumPy's layout (real part, then imaginary part).
template <typename T>
using BlasT = typename std::conditional<
    std::is_same<T, complex<float>>::value, cuComplex,
    typename std::conditional<std::is_same<T, complex<double>>::value, cuDoubleComplex, T>::type>::type;

template <typename T>
va_status gemm(const BlasHandle &h, int m, int n, int k, const GemmInput &ga, const GemmInput &gb, T *out,
               int batches) {
    using B = BlasT<T>;
    const T one_value = T(1), zero_value = T(0);
    const B *one = reinterpret_cast<const B *>(&one_value), *zero = reinterpret_cast<const B *>(&zero_value);
    const B *a = static_cast<const B *>(ga.data), *b = static_cast<const B *>(gb.data);
    B *c = reinterpret_cast<B *>(out);
    const int lda = static_cast<int>(ga.ld), ldb = static_cast<int>(gb.ld);
    const long long stride_c = static_cast<long long>(m) * n;
    auto call = [&](auto fn) {
        // C^T (n x m, ld n) = B^T (n x k) A^T (k x m)
        return fn(h.handle, gb.op, ga.op, n, m, k, one, b, ldb, gb.batch, a, lda, ga.batch, zero, c, n, stride_c,
                  batches);
    };
    if constexpr (std::is_same<T, float>::value) VA_BLAS_CHECK(call(h.api->sgemm_strided_batched));
    else if constexpr (std::is_same<T, double>::value) VA_BLAS_CHECK(call(h.api->dgemm_strided_batched));
    else if constexpr (std::is_same<T, complex<float>>::value) VA_BLAS_CHECK(call(h.api->cgemm_strided_batched));
    else VA_BLAS_CHECK(call(h.api->zgemm_strided_batched));
    return VA_SUCCESS;
}

}  // namespace
}  // namespace va

extern "C" va_status va_matmul(int device, const va_array *a, const va_array *b, const va_array *out) {
    int64_t na = 0, nb = 0, no = 0;
    if (a == nullptr || b == nullptr || out == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_CHECK(va::validate(a, &na));
    VA_CHECK(va::validate(b, &nb));
    VA_CHECK(va::validate(out, &no));
    if (a->ndim != 3 || b->ndim != 3 || out->ndim != 3 || a->dtype != b->dtype || out->dtype != a->dtype)
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    const int64_t batches = out->shape[0], m = out->shape[1], n = out->shape[2], k = a->shape[2];
    if (a->shape[0] != batches || b->shape[0] != batches || a->shape[1] != m || b->shape[1] != k ||
        b->shape[2] != n || !va_is_c_contiguous(out) || va::may_overlap(a, out) || va::may_overlap(b, out))
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    const bool floats = va::is_float_dtype(a->dtype) || va::is_complex_dtype(a->dtype);
    if (floats && (batches > INT_MAX || m > INT_MAX || n > INT_MAX || k > INT_MAX))
        VA_FAIL(VA_ERROR_INVALID_VALUE);  // cuBLAS's 32-bit sizes
    VA_ENTER_STREAM(device, scope, stream);
    if (no == 0) return VA_SUCCESS;
    if (k == 0) {  // sums of nothing: zeros (all-zero bits for every dtype)
        VA_CUDA_CHECK(cudaMemsetAsync(out->data, 0, static_cast<size_t>(no) * va_dtype_size(out->dtype), stream));
        return VA_SUCCESS;
    }
    if (floats) {
        va::BlasHandle h;
        VA_CHECK(va::blas_handle(device, stream, &h));
        va::DeviceBuffer copy_a(device, stream), copy_b(device, stream);
        va::GemmInput ga, gb;
        VA_CHECK(va::gemm_input(device, stream, a, &copy_a, &ga));
        VA_CHECK(va::gemm_input(device, stream, b, &copy_b, &gb));
        return va::dispatch_dtype(a->dtype, [&](auto tag) -> va_status {
            using T = typename decltype(tag)::type;
            if constexpr (va::is_inexact_v<T>)
                return va::gemm<T>(h, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), ga, gb,
                                   static_cast<T *>(out->data), static_cast<int>(batches));
            else return VA_ERROR_UNSUPPORTED_DTYPE;  // the library's own kernel, below
        });
    }
    va::BatchStrides s;
    for (int d = 0; d < 3; ++d) {
        s.a[d] = a->strides[d];
        s.b[d] = b->strides[d];
    }
    return va::dispatch_dtype(a->dtype, [&](auto tag) -> va_status {
        using T = typename decltype(tag)::type;
        if constexpr (va::is_inexact_v<T>) {
            return VA_ERROR_UNSUPPORTED_DTYPE;  // taken by cuBLAS above
        } else {
            const unsigned blocks = va::resident_grid_for<va::matmul_kernel<T>>(device, no, va::kThreads);
            va::matmul_kernel<T><<<blocks, va::kThreads, 0, stream>>>(
                static_cast<const char *>(a->data), static_cast<const char *>(b->data), static_cast<T *>(out->data),
                m, k, n, no, s);
            VA_LAUNCH_CHECK();
            return VA_SUCCESS;
        }
    });
}
