// rint: numpy.rint on float32 and float64 (integers compute in float64): the
// nearest integer, halves to even, exact.
#include "op_declare.cuh"

struct Rint {
    template <typename T>
    __device__ T operator()(T x) const { return rint(x); }
};

VA_ELEMENTWISE(rint, Rint, "a", 0, FLOAT, "numpy.rint", "", 0,
               "Round elements of the array to the nearest integer.")
