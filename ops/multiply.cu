// multiply: numpy.multiply (bool: logical and).
#include "op_declare.cuh"

struct Multiply {
    template <typename T>
    __device__ T operator()(T x, T y) const {
        if constexpr (std::is_same<T, bool>::value) return x && y;
        else if constexpr (std::is_integral<T>::value) return va::wrap_mul(x, y);
        else return x * y;
    }
};

VA_ELEMENTWISE(multiply, Multiply, "a,b", 0, ALL, "numpy.multiply", "__mul__", 0,
               "Multiply arguments element-wise.")
