// sinh: numpy.sinh on float32 and float64 (integers compute in float64); CUDA's
// sinh is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Sinh {
    template <typename T> static constexpr int packs_per_thread = va::kFourPacksForFloat64<T>;

    // complex: past exp's overflow the product takes exp(x - 1024 ln 2) and the sine or
    // cosine apart (complex_math.cuh), and NumPy's (glibc) its own scaling: 5 ULP
    // apart near 1e308 on the H100 (session 19), 2 below.
    static constexpr int complex_ulp = 6;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::csinh(x);  // complex_math.cuh
        else return sinh(x);
    }
};

VA_ELEMENTWISE(sinh, Sinh, "a", 0, FLOAT, "numpy.sinh", "", 4,
               "Hyperbolic sine, element-wise.")
