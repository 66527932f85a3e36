// arcsinh: numpy.arcsinh on float32 and float64 (integers compute in float64); CUDA's
// asinh is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Arcsinh {
    template <typename T> static constexpr int packs_per_thread = va::kTwoPacksForFloat64<T>;

    static constexpr int complex_ulp = 8;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::casinh(x);  // complex_math.cuh
        else return asinh(x);
    }
};

VA_ELEMENTWISE(arcsinh, Arcsinh, "a", 0, FLOAT, "numpy.arcsinh", "", 4,
               "Inverse hyperbolic sine element-wise.")
