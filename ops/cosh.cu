// cosh: numpy.cosh on float32 and float64 (integers compute in float64); CUDA's
// cosh is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Cosh {
    static constexpr int complex_ulp = 4;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::ccosh(x);  // complex_math.cuh
        else return cosh(x);
    }
};

VA_ELEMENTWISE(cosh, Cosh, "a", 0, FLOAT, "numpy.cosh", "", 4,
               "Hyperbolic cosine, element-wise.")
