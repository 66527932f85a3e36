// arctanh: numpy.arctanh on float32 and float64 (integers compute in float64); CUDA's
// atanh is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Arctanh {
    template <typename T> static constexpr int packs_per_thread = va::kTwoPacksForFloat64<T>;

    static constexpr int complex_ulp = 8;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::catanh(x);  // complex_math.cuh
        else return atanh(x);
    }
};

VA_ELEMENTWISE(arctanh, Arctanh, "a", 0, FLOAT, "numpy.arctanh", "", 4,
               "Inverse hyperbolic tangent element-wise.")
