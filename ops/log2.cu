// log2: numpy.log2 on float32 and float64 (integers compute in float64); CUDA's
// log2 is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Log2 {
    // complex: log's, times log2(e) (NumPy's own up to 3 ULP from the exact value).
    static constexpr int complex_ulp = 6;

    template <typename T>
    __device__ T operator()(T x) const {
        // NumPy's: the natural logarithm's parts times log_2(e).
        if constexpr (va::is_complex_v<T>) return va::clog_scaled(x, va::RealT<T>(1.4426950408889634));
        else return log2(x);
    }
};

VA_ELEMENTWISE(log2, Log2, "a", 0, FLOAT, "numpy.log2", "", 4,
               "Base-2 logarithm of x.")
