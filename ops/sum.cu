// sum: numpy.sum. bool and integers accumulate in int64 (wrapping as NumPy's);
// floats in double, rounded once to the input's type. Floats start from +0.0,
// NumPy 2's identity of add: a sum of -0.0 alone is +0.0 there on every path
// (full, over any axes, empty), so it is here too.
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
