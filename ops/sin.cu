// sin: numpy.sin on float32 and float64 (integers compute in float64);
// CUDA's sin, within 4 ULP of NumPy's.
#include "op_declare.cuh"

struct Sin {
    // complex: past exp's overflow the product takes exp(x - 1024 ln 2) and the sine or
    // cosine apart (complex_math.cuh), and NumPy's (glibc) its own scaling: 5 ULP
    // apart near 1e308 on the H100 (session 19), 2 below.
    static constexpr int complex_ulp = 6;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::csin(x);  // complex_math.cuh
        else return sin(x);
    }
};

VA_ELEMENTWISE(sin, Sin, "a", 0, FLOAT, "numpy.sin", "", 4,
               "Trigonometric sine, element-wise.")
