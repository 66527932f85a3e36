// sum: numpy.sum. bool and integers accumulate in int64 (wrapping as NumPy's);
// floats in double, rounded once to the input's type. Floats start from -0.0,
// the exact identity of IEEE addition (a sum of -0.0 stays -0.0, as NumPy's
// that starts from the first element); an empty sum is +0.0 (finish()).
#include "op_declare.cuh"

struct Sum {
    template <typename A>
    __device__ static A neutral() {
        if constexpr (std::is_floating_point<A>::value) return -A(0);
        else return A(0);
    }

    template <typename A>
    __device__ A operator()(A x, A y) const {
        if constexpr (std::is_integral<A>::value) return va::wrap_add(x, y);
        else return x + y;
    }
};

VA_REDUCTION(sum, Sum, SUM, "numpy.sum", 1, 0, "Sum of array elements.")
