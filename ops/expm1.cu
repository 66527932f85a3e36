// expm1: numpy.expm1 on float32 and float64 (integers compute in float64); CUDA's
// expm1 is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Expm1 {
    // complex (NumPy's formula): near -1 the real part's two terms, each up to 1, cancel,
    // and carry their library's cos and sin errors: 5 ULP from NumPy's on the H100.
    static constexpr int complex_ulp = 8;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::cexpm1(x);
        else return expm1(x);
    }
};

VA_ELEMENTWISE(expm1, Expm1, "a", 0, FLOAT, "numpy.expm1", "", 4,
               "Calculate exp(x) - 1 for all elements in the array.")
