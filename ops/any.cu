// any: numpy.any. Each element counts as its truth value (x != 0; NaN is true),
// whatever its dtype; the result is bool. Nothing has none true.
#include "op_declare.cuh"

struct Any {
    template <typename A>
    __device__ static A neutral() { return A(false); }

    template <typename A>
    __device__ A operator()(A x, A y) const { return x || y; }
};

VA_REDUCTION(any, Any, LOGICAL, "numpy.any", 1, 0, "Whether any element is true (nonzero; NaN is true).")
