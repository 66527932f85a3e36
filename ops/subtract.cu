// subtract: numpy.subtract (no bool loop: NumPy refuses bool - bool).
#include "op_declare.cuh"

struct Subtract {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ T operator()(T x, T y) const {
        if constexpr (std::is_integral<T>::value) return va::wrap_sub(x, y);
        else return x - y;
    }
};

VA_ELEMENTWISE(subtract, Subtract, "a,b", 0, NUMBER, "numpy.subtract", "__sub__", 0,
               "Subtract arguments element-wise.")
