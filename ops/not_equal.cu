// not_equal: numpy.not_equal, a bool result computed in the inputs' promoted dtype.
#include "op_declare.cuh"

struct NotEqual {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ bool operator()(T x, T y) const { return x != y; }
};

VA_ELEMENTWISE(not_equal, NotEqual, "a,b", 0, ALL, "numpy.not_equal", "__ne__", 0,
               "Return the truth value of (x1 != x2) element-wise.")
