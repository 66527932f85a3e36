// min: numpy.min over all elements; a NaN anywhere gives NaN. An empty input
// has no minimum (ValueError, as NumPy).
#include "op_declare.cuh"

struct Min {
    template <typename A>
    __device__ static A neutral() { return va::highest<A>(); }

    template <typename A>
    __device__ A operator()(A x, A y) const { return (va::is_nan(x) || x < y) ? x : y; }
};

VA_REDUCTION(min, Min, SAME, "numpy.min", 0, 0, "Minimum of array elements; NaNs propagate.")
