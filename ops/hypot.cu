// hypot: numpy.hypot on float32 and float64 (integers compute in float64); CUDA's
// hypot is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Hypot {
    template <typename T>
    __device__ T operator()(T x, T y) const { return hypot(x, y); }
};

VA_ELEMENTWISE(hypot, Hypot, "a,b", 0, FLOAT, "numpy.hypot", "", 4,
               "Given the legs of a right triangle, return its hypotenuse.")
