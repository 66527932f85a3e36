// all: numpy.all. Each element counts as its truth value (x != 0; NaN is true),
// whatever its dtype; the result is bool. Nothing is all true.
#include "op_declare.cuh"

struct All {
    template <typename A>
    __device__ static A neutral() { return A(true); }

    template <typename A>
    __device__ A operator()(A x, A y) const { return x && y; }
};

VA_REDUCTION(all, All, LOGICAL, "numpy.all", 1, 0, "Whether every element is true (nonzero; NaN is true).")
