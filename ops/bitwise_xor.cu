// bitwise_xor: numpy.bitwise_xor (bool: logical xor; floats refused as NumPy's).
#include "op_declare.cuh"

struct BitwiseXor {
    template <typename T>
    __device__ T operator()(T x, T y) const { return static_cast<T>(x ^ y); }
};

VA_ELEMENTWISE(bitwise_xor, BitwiseXor, "a,b", 0, INTEGER, "numpy.bitwise_xor", "__xor__", 0,
               "Compute the bit-wise XOR of two arrays element-wise.")
