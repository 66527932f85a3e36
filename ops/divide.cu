// divide: numpy.true_divide (bool and integer inputs divide as float64).
#include "op_declare.cuh"

struct Divide {
    template <typename T>
    __device__ T operator()(T x, T y) const { return x / y; }
};

VA_ELEMENTWISE(divide, Divide, "a,b", 0, TRUE_DIVIDE, "numpy.true_divide", "__truediv__", 0,
               "Divide arguments element-wise (true division).")
