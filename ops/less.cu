// less: numpy.less, a bool result computed in the inputs' promoted dtype.
#include "op_declare.cuh"

struct Less {
    template <typename T>
    __device__ bool operator()(T x, T y) const { return x < y; }
};

VA_ELEMENTWISE(less, Less, "a,b", 0, ALL, "numpy.less", "__lt__", 0,
               "Return the truth value of (x1 < x2) element-wise.")
