// nextafter: numpy.nextafter, the next representable value after x1 towards x2
// (exact: CUDA's nextafter is IEEE's, subnormals and signed zeros included).
#include "op_declare.cuh"

struct NextAfter {
    template <typename T>
    __device__ T operator()(T x, T y) const { return nextafter(x, y); }
};

VA_ELEMENTWISE(nextafter, NextAfter, "x1,x2", 0, FLOAT, "numpy.nextafter", "", 0,
               "Return the next floating-point value after x1 towards x2, element-wise.")
