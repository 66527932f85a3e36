// max: numpy.max over all elements; a NaN anywhere gives NaN. An empty input
// has no maximum (ValueError, as NumPy).
#include "op_declare.cuh"

struct Max {
    template <typename A>
    __device__ static A neutral() { return va::lowest<A>(); }

    template <typename A>
    __device__ A operator()(A x, A y) const { return (va::is_nan(x) || x > y) ? x : y; }
};

VA_REDUCTION(max, Max, SAME, "numpy.max", 0, 0, "Maximum of array elements; NaNs propagate.")
