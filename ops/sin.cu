// sin: numpy.sin on float32 and float64 (integers compute in float64);
// CUDA's sin, within 4 ULP of NumPy's.
#include "op_declare.cuh"

struct Sin {
    static constexpr int complex_ulp = 4;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::csin(x);  // complex_math.cuh
        else return sin(x);
    }
};

VA_ELEMENTWISE(sin, Sin, "a", 0, FLOAT, "numpy.sin", "", 4,
               "Trigonometric sine, element-wise.")
