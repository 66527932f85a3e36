// absolute: numpy.absolute (|MIN| wraps to MIN; floats clear the sign bit,
// of -0.0 and NaN too).
#include "op_declare.cuh"

struct Absolute {
    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (std::is_same<T, bool>::value) return x;
        else if constexpr (std::is_integral<T>::value) return va::is_negative(x) ? va::wrap_sub(T(0), x) : x;
        else return fabs(x);
    }
};

VA_ELEMENTWISE(absolute, Absolute, "a", 0, ALL, "numpy.absolute", "__abs__", 0,
               "Calculate the absolute value element-wise.")
