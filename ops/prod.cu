// prod: numpy.prod over all elements. bool and integers multiply in int64
// (wrapping as NumPy's); floats in double, complex numbers in complex128 (by
// NumPy's product), rounded once to the input's type.
#include "op_declare.cuh"

struct Prod {
    template <typename A>
    __device__ static A neutral() { return A(1); }

    template <typename A>
    __device__ A operator()(A x, A y) const {
        if constexpr (std::is_integral<A>::value) return va::wrap_mul(x, y);
        else if constexpr (va::is_complex_v<A>) return va::cmul(x, y);
        else return x * y;
    }
};

VA_REDUCTION(prod, Prod, SUM, "numpy.prod", 1, 0, "Product of array elements.")
