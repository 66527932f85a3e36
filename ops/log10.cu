// log10: numpy.log10 on float32 and float64 (integers compute in float64); CUDA's
// log10 is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Log10 {
    // complex: log's, times log10(e) (NumPy's own up to 3 ULP from the exact value).
    static constexpr int complex_ulp = 6;

    template <typename T>
    __device__ T operator()(T x) const {
        // NumPy's: the natural logarithm's parts times log_10(e).
        if constexpr (va::is_complex_v<T>) return va::clog_scaled(x, va::RealT<T>(0.43429448190325182));
        else return log10(x);
    }
};

VA_ELEMENTWISE(log10, Log10, "a", 0, FLOAT, "numpy.log10", "", 4,
               "Return the base 10 logarithm of the input array, element-wise.")
