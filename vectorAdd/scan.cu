// va_cumulative: inclusive scans (running sums and products) along an axis
// through CUB's DeviceScan. An input already in the result's dtype with the axis
// last is scanned as it lies; any other is first converted into that dtype as it
// is copied with the axis last (the scan then reads one type). By line the scan
// is InclusiveScanByKey with the line number as the key, which keeps every line
// in one pass over the data whatever the shape; the result is copied back
// through the caller's layout when that is another. A complex running sum is two
// real running sums (NumPy adds the parts apart): the complex buffer is split into
// its parts and scanned by the real loops (scan_complex_sum), which keeps CUB's
// complex sums out of every architecture's binary (issue 26) for two more passes.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "dispatch.cuh"
#include "layout.cuh"
#include "memory.cuh"
#include "op_types.cuh"
#include "ops.cuh"
#include "runtime.cuh"

namespace va {
namespace {

// Integers wrap as NumPy's do: signed overflow is undefined in C++, so the
// arithmetic is done unsigned. Bools: sum is or, product is and (NumPy's bool loops);
// complex products are NumPy's (complex.cuh).
template <typename T>
using Wrapping = typename std::conditional<std::is_integral<T>::value && !std::is_same<T, bool>::value,
                                           std::make_unsigned<T>, std::enable_if<true, T>>::type::type;

struct Add {
    template <typename T>
    __host__ __device__ __forceinline__ T operator()(T a, T b) const {
        if constexpr (std::is_same<T, bool>::value) return a || b;
        else return static_cast<T>(static_cast<Wrapping<T>>(a) + static_cast<Wrapping<T>>(b));
    }
};

struct Multiply {
    template <typename T>
    __host__ __device__ __forceinline__ T operator()(T a, T b) const {
        if constexpr (std::is_same<T, bool>::value) return a && b;
        else if constexpr (is_complex_v<T>) return cmul(a, b);
        else return static_cast<T>(static_cast<Wrapping<T>>(a) * static_cast<Wrapping<T>>(b));
    }
};

// The line an element of the axis-last buffer belongs to.
struct LineOf {
    int64_t line;
    __host__ __device__ int64_t operator()(int64_t i) const { return i / line; }
};

// CUB's scans are never run in place: on sm_90 an int64 scan with in == out gave
// wrong sums past the first tile (H100, session 11), so `in` and `out` are always
// different buffers.
template <typename T, typename Op>
va_status scan_lines(int device, cudaStream_t stream, const T *in, T *out, int64_t n, int64_t line) {
    DeviceBuffer temp(device, stream);
    size_t temp_bytes = 0;
    auto scan = [&](void *storage) -> cudaError_t {
        if (line == n) return cub::DeviceScan::InclusiveScan(storage, temp_bytes, in, out, Op{}, n, stream);
        auto keys = thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0), LineOf{line});
        return cub::DeviceScan::InclusiveScanByKey(storage, temp_bytes, keys, in, out, Op{}, n,
                                                   ::cuda::std::equal_to<>{}, stream);
    };
    VA_CUDA_CHECK(scan(nullptr));
    VA_CHECK(temp.allocate(std::max<size_t>(temp_bytes, 1)));  // never the size query's NULL
    VA_CUDA_CHECK(scan(temp.get()));
    return VA_SUCCESS;
}

// A complex (lines, line) buffer's running sums along its lines, written to `out`
// (a buffer of the same size, apart from `in`): its parts are laid (lines, 2, line)
// in `out`, scanned as 2 * lines real lines into a buffer, and put back in place.
template <typename R>
va_status scan_complex_sum(int device, cudaStream_t stream, const void *in, void *out, int64_t n, int64_t line) {
    const va_dtype real = DtypeOf<R>::value;
    const int64_t part = static_cast<int64_t>(sizeof(R));
    va_array joined = {}, split = {};
    joined.dtype = split.dtype = real;
    joined.ndim = split.ndim = 3;
    joined.shape[0] = split.shape[0] = n / line;
    joined.shape[1] = split.shape[1] = line;
    joined.shape[2] = split.shape[2] = 2;
    joined.strides[0] = split.strides[0] = 2 * line * part;
    joined.strides[1] = 2 * part;
    joined.strides[2] = part;
    split.strides[1] = part;
    split.strides[2] = line * part;
    DeviceBuffer sums(device, stream);
    VA_CHECK(sums.allocate(static_cast<size_t>(2 * n * part)));  // n complex elements fit memory: no overflow
    joined.data = const_cast<void *>(in);
    split.data = out;
    VA_CHECK(convert_on_stream(device, stream, &joined, &split, 2 * n));
    VA_CHECK((scan_lines<R, Add>(device, stream, static_cast<const R *>(out), reinterpret_cast<R *>(sums.get()), 2 * n,
                                 line)));
    split.data = sums.get();
    joined.data = out;
    return convert_on_stream(device, stream, &split, &joined, 2 * n);
}

}  // namespace
}  // namespace va

extern "C" {

va_status va_cumulative(int device, va_scan kind, const va_array *a, int32_t axis, const va_array *out) {
    int64_t n = 0, nout = 0;
    VA_CHECK(va::validate(a, &n));
    VA_CHECK(va::validate(out, &nout));
    if (kind != VA_SCAN_SUM && kind != VA_SCAN_PROD) VA_FAIL(VA_ERROR_INVALID_VALUE);
    if (axis >= a->ndim) VA_FAIL(VA_ERROR_INVALID_VALUE);
    const bool flat = axis < 0;
    if (flat ? (out->ndim != 1 || nout != n) : !va::same_shape(a, out)) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    if (n == 0) return VA_SUCCESS;
    const int64_t line = flat ? n : a->shape[axis];
    // The buffer's view with a's shape (flat: C order, the axis-last view of
    // the last axis is C-contiguous) and the same elements' view as out sees them.
    const int buffer_axis = flat ? a->ndim - 1 : axis;
    // out takes the scan directly when its elements lie axis-last and apart from a's;
    // a feeds it directly when it already is the buffer the scan wants (out's dtype,
    // axis last): then the scan is the one pass over the data.
    const bool out_direct = !va::may_overlap(a, out) &&
                            (flat ? out->strides[0] == static_cast<int64_t>(va_dtype_size(out->dtype)) || n == 1
                                  : va::is_axis_last(out, axis));
    const bool in_direct = a->dtype == out->dtype && va::is_axis_last(a, buffer_axis);
    const size_t bytes = static_cast<size_t>(n) * va_dtype_size(out->dtype);  // n: a validated count
    va::DeviceBuffer in_buffer(device, stream), out_buffer(device, stream);
    const void *in = a->data;
    va_array work;
    if (!in_direct) {
        VA_CHECK(in_buffer.allocate(bytes));
        va::axis_last_view(a, buffer_axis, in_buffer.get(), out->dtype, &work);
        VA_CHECK(va::convert_on_stream(device, stream, a, &work, n));
        in = in_buffer.get();
    }
    void *result = out->data;
    if (!out_direct) {
        VA_CHECK(out_buffer.allocate(bytes));
        result = out_buffer.get();
    }
    VA_CHECK(va::dispatch_dtype(out->dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T *src = static_cast<const T *>(in);
        T *dst = static_cast<T *>(result);
        if (kind == VA_SCAN_PROD) return va::scan_lines<T, va::Multiply>(device, stream, src, dst, n, line);
        if constexpr (va::is_complex_v<T>)
            return va::scan_complex_sum<va::RealT<T>>(device, stream, src, dst, n, line);
        else return va::scan_lines<T, va::Add>(device, stream, src, dst, n, line);
    }));
    if (out_direct) return VA_SUCCESS;
    if (flat) {
        va_array flat_work = {};
        flat_work.data = result;
        flat_work.dtype = out->dtype;
        flat_work.ndim = 1;
        flat_work.shape[0] = n;
        flat_work.strides[0] = static_cast<int64_t>(va_dtype_size(out->dtype));
        return va::convert_on_stream(device, stream, &flat_work, out, n);
    }
    va::axis_last_view(a, buffer_axis, result, out->dtype, &work);
    return va::convert_on_stream(device, stream, &work, out, n);
}

}  // extern "C"
