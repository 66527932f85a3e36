// square: numpy.square (integers wrap as NumPy's; bool would be int8, absent).
#include "op_declare.cuh"

struct Square {
    static constexpr int complex_ulp = 2;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (std::is_integral<T>::value) return va::wrap_mul(x, x);
        else if constexpr (va::is_complex_v<T>) return va::cmul(x, x);
        else return x * x;
    }
};

VA_ELEMENTWISE(square, Square, "a", 0, ARITHMETIC, "numpy.square", "", 0,
               "Return the element-wise square of the input.")
