// tan: numpy.tan on float32 and float64 (integers compute in float64); CUDA's
// tan is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Tan {
    static constexpr int complex_ulp = 8;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::ctan(x);  // complex_math.cuh
        else return tan(x);
    }
};

VA_ELEMENTWISE(tan, Tan, "a", 0, FLOAT, "numpy.tan", "", 4,
               "Compute tangent element-wise.")
