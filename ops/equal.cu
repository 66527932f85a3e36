// equal: numpy.equal, a bool result computed in the inputs' promoted dtype.
#include "op_declare.cuh"

struct Equal {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ bool operator()(T x, T y) const { return x == y; }
};

VA_ELEMENTWISE(equal, Equal, "a,b", 0, ALL, "numpy.equal", "__eq__", 0,
               "Return the truth value of (x1 == x2) element-wise.")
