// positive: numpy.positive, a copy of x (NumPy refuses bool).
#include "op_declare.cuh"

struct Positive {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ T operator()(T x) const { return x; }
};

VA_ELEMENTWISE(positive, Positive, "a", 0, NUMBER, "numpy.positive", "", 0,
               "Numerical positive, element-wise.")
