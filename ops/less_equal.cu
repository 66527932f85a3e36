// less_equal: numpy.less_equal, a bool result computed in the inputs' promoted dtype.
#include "op_declare.cuh"

struct LessEqual {
    template <typename T>
    __device__ bool operator()(T x, T y) const { return x <= y; }
};

VA_ELEMENTWISE(less_equal, LessEqual, "a,b", 0, ALL, "numpy.less_equal", "__le__", 0,
               "Return the truth value of (x1 <= x2) element-wise.")
