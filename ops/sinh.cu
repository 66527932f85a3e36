// sinh: numpy.sinh on float32 and float64 (integers compute in float64); CUDA's
// sinh is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Sinh {
    static constexpr int complex_ulp = 4;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::csinh(x);  // complex_math.cuh
        else return sinh(x);
    }
};

VA_ELEMENTWISE(sinh, Sinh, "a", 0, FLOAT, "numpy.sinh", "", 4,
               "Hyperbolic sine, element-wise.")
