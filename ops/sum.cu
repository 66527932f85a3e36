// sum: numpy.sum over all elements. bool and integers accumulate in int64
// (wrapping as NumPy's); floats in double, rounded once to the input's type.
#include "op_declare.cuh"

struct Sum {
    template <typename A>
    __device__ static A neutral() { return A(0); }

    template <typename A>
    __device__ A operator()(A x, A y) const {
        if constexpr (std::is_integral<A>::value) return va::wrap_add(x, y);
        else return x + y;
    }
};

VA_REDUCTION(sum, Sum, SUM, "numpy.sum", 1, 0, "Sum of array elements.")
