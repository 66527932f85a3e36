// sqrt: numpy.sqrt on float32 and float64 (integers compute in float64);
// correctly rounded (IEEE), as NumPy's.
#include "op_declare.cuh"

struct Sqrt {
    static constexpr int complex_ulp = 4;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::csqrt(x);
        else return sqrt(x);
    }
};

VA_ELEMENTWISE(sqrt, Sqrt, "a", 0, FLOAT, "numpy.sqrt", "", 0,
               "Return the non-negative square-root of an array, element-wise.")
