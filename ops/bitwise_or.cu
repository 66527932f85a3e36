// bitwise_or: numpy.bitwise_or (bool: logical or; floats refused as NumPy's).
#include "op_declare.cuh"

struct BitwiseOr {
    template <typename T>
    __device__ T operator()(T x, T y) const { return static_cast<T>(x | y); }
};

VA_ELEMENTWISE(bitwise_or, BitwiseOr, "a,b", 0, INTEGER, "numpy.bitwise_or", "__or__", 0,
               "Compute the bit-wise OR of two arrays element-wise.")
