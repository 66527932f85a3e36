// bitwise_and: numpy.bitwise_and (bool: logical and; floats refused as NumPy's).
#include "op_declare.cuh"

struct BitwiseAnd {
    template <typename T>
    __device__ T operator()(T x, T y) const { return static_cast<T>(x & y); }
};

VA_ELEMENTWISE(bitwise_and, BitwiseAnd, "a,b", 0, INTEGER, "numpy.bitwise_and", "__and__", 0,
               "Compute the bit-wise AND of two arrays element-wise.")
