// divide: numpy.true_divide (bool and integer inputs divide as float64; complex
// ones by NumPy's method, complex.cuh).
#include "op_declare.cuh"

struct Divide {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ T operator()(T x, T y) const {
        if constexpr (va::is_complex_v<T>) return va::cdiv(x, y);
        else return x / y;
    }
};

VA_ELEMENTWISE(divide, Divide, "a,b", 0, TRUE_DIVIDE, "numpy.true_divide", "__truediv__", 0,
               "Divide arguments element-wise (true division).")
