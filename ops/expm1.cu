// expm1: numpy.expm1 on float32 and float64 (integers compute in float64); CUDA's
// expm1 is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Expm1 {
    static constexpr int complex_ulp = 4;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::cexpm1(x);
        else return expm1(x);
    }
};

VA_ELEMENTWISE(expm1, Expm1, "a", 0, FLOAT, "numpy.expm1", "", 4,
               "Calculate exp(x) - 1 for all elements in the array.")
