// copysign: numpy.copysign on float32 and float64 (integers compute in float64), exact.
#include "op_declare.cuh"

struct Copysign {
    template <typename T>
    __device__ T operator()(T x, T y) const { return copysign(x, y); }
};

VA_ELEMENTWISE(copysign, Copysign, "a,b", 0, FLOAT, "numpy.copysign", "", 0,
               "Change the sign of x1 to that of x2, element-wise.")
