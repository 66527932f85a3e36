// arccosh: numpy.arccosh on float32 and float64 (integers compute in float64); CUDA's
// acosh is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Arccosh {
    template <typename T> static constexpr int packs_per_thread = va::kTwoPacksForFloat64<T>;

    static constexpr int complex_ulp = 8;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::cacosh(x);  // complex_math.cuh
        else return acosh(x);
    }
};

VA_ELEMENTWISE(arccosh, Arccosh, "a", 0, FLOAT, "numpy.arccosh", "", 4,
               "Inverse hyperbolic cosine, element-wise.")
