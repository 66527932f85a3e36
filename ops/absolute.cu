// absolute: numpy.absolute (|MIN| wraps to MIN; floats clear the sign bit,
// of -0.0 and NaN too; a complex number gives its real magnitude, by hypot).
#include "op_declare.cuh"

struct Absolute {
    // complex: CUDA's hypot (2 ULP) beside glibc's, NumPy's own 2 ULP from the exact
    // value (measured against long double); 3 ULP apart on the H100 (session 19).
    static constexpr int complex_ulp = 4;

    template <typename T>
    __device__ va::RealT<T> operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return hypot(x.real(), x.imag());
        else if constexpr (std::is_same<T, bool>::value) return x;
        else if constexpr (std::is_integral<T>::value) return va::is_negative(x) ? va::wrap_sub(T(0), x) : x;
        else return fabs(x);
    }
};

VA_ELEMENTWISE(absolute, Absolute, "a", 0, ALL, "numpy.absolute", "__abs__", 0,
               "Calculate the absolute value element-wise.")
