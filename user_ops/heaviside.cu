// heaviside: numpy.heaviside(x, h0): 0 where x < 0, h0 where x == 0, 1 where
// x > 0, NaN where x is NaN; the tutorial's example of an operation added in
// one file (docs/adding-a-kernel.md).
#include "op_declare.cuh"

struct Heaviside {
    template <typename T>
    __device__ T operator()(T x, T h0) const {
        if (va::is_nan(x)) return x;
        return x < T(0) ? T(0) : x > T(0) ? T(1) : h0;
    }
};

VA_ELEMENTWISE(heaviside, Heaviside, "x,h0", 0, FLOAT, "numpy.heaviside", "", 0,
               "Heaviside step function: 0 below zero, h0 at zero, 1 above.")
