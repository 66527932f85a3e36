// negative: numpy.negative (integers wrap: -MIN is MIN; NumPy refuses bool).
#include "op_declare.cuh"

struct Negative {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (std::is_integral<T>::value) return va::wrap_sub(T(0), x);
        else return -x;
    }
};

VA_ELEMENTWISE(negative, Negative, "a", 0, NUMBER, "numpy.negative", "__neg__", 0,
               "Numerical negative, element-wise.")
