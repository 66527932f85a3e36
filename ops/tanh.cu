// tanh: numpy.tanh on float32 and float64 (integers compute in float64); CUDA's
// tanh is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Tanh {
    template <typename T> static constexpr int packs_per_thread = va::kTwoPacksForFloat64<T>;

    static constexpr int complex_ulp = 8;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::ctanh(x);  // complex_math.cuh
        else return tanh(x);
    }
};

VA_ELEMENTWISE(tanh, Tanh, "a", 0, FLOAT, "numpy.tanh", "", 4,
               "Compute hyperbolic tangent element-wise.")
