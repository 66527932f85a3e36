// arctan2: numpy.arctan2 on float32 and float64 (integers compute in float64); CUDA's
// atan2 is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Arctan2 {
    template <typename T>
    __device__ T operator()(T x, T y) const { return atan2(x, y); }
};

VA_ELEMENTWISE(arctan2, Arctan2, "a,b", 0, FLOAT, "numpy.arctan2", "", 4,
               "Element-wise arc tangent of x1/x2 choosing the quadrant correctly.")
