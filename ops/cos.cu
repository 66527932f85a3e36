// cos: numpy.cos on float32 and float64 (integers compute in float64);
// CUDA's cos, within 4 ULP of NumPy's.
#include "op_declare.cuh"

struct Cos {
    static constexpr int complex_ulp = 4;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::ccos(x);  // complex_math.cuh
        else return cos(x);
    }
};

VA_ELEMENTWISE(cos, Cos, "a", 0, FLOAT, "numpy.cos", "", 4,
               "Cosine element-wise.")
