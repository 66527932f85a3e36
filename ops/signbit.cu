// signbit: numpy.signbit, a bool result; the sign bit of -0.0 and -NaN counts, as NumPy's; integers: x < 0.
#include "op_declare.cuh"

struct SignBit {
    template <typename T>
    static constexpr bool zero_result = std::is_unsigned<T>::value;  // bool and unsigned integers
    template <typename T>
    __device__ bool operator()(T x) const {
        if constexpr (std::is_floating_point<T>::value) return signbit(x);
        else if constexpr (std::is_same<T, bool>::value) return false;
        else return va::is_negative(x);
    }
};

VA_ELEMENTWISE(signbit, SignBit, "a", 0, ALL, "numpy.signbit", "", 0,
               "Returns element-wise True where signbit is set (less than zero).")
