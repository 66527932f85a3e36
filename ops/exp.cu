// exp: numpy.exp on float32 and float64 (integers compute in float64);
// CUDA's exp, within 4 ULP of NumPy's.
#include "op_declare.cuh"

struct Exp {
    // complex: past exp's overflow the product takes exp(x - 1024 ln 2) and the sine or
    // cosine apart (complex_math.cuh), and NumPy's (glibc) its own scaling: 5 ULP
    // apart near 1e308 on the H100 (session 19), 2 below.
    static constexpr int complex_ulp = 6;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::cexp(x);  // complex_math.cuh
        else return exp(x);
    }
};

VA_ELEMENTWISE(exp, Exp, "a", 0, FLOAT, "numpy.exp", "", 4,
               "Calculate the exponential of all elements in the input array.")
