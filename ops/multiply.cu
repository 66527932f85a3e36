// multiply: numpy.multiply (bool: logical and; complex: NumPy's product, complex.cuh).
#include "op_declare.cuh"

struct Multiply {
    static constexpr int complex_ulp = 2;

    template <typename T>
    __device__ T operator()(T x, T y) const {
        if constexpr (std::is_same<T, bool>::value) return x && y;
        else if constexpr (std::is_integral<T>::value) return va::wrap_mul(x, y);
        else if constexpr (va::is_complex_v<T>) return va::cmul(x, y);
        else return x * y;
    }
};

VA_ELEMENTWISE(multiply, Multiply, "a,b", 0, ALL, "numpy.multiply", "__mul__", 0,
               "Multiply arguments element-wise.")
