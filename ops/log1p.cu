// log1p: numpy.log1p on float32 and float64 (integers compute in float64); CUDA's
// log1p is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Log1p {
    template <typename T> static constexpr int packs_per_thread = va::kTwoPacksForFloat64<T>;

    static constexpr int complex_ulp = 4;
    // NumPy's complex log1p is log(hypot(1 + x, y)): near 0 it is off by an ULP of 1,
    // where this one (complex_math.cuh) is exact to a few ULP of the result.
    static constexpr double complex_ulp_floor = 1.0;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::clog1p(x);
        else return log1p(x);
    }
};

VA_ELEMENTWISE(log1p, Log1p, "a", 0, FLOAT, "numpy.log1p", "", 4,
               "Return the natural logarithm of one plus the input array, element-wise.")
