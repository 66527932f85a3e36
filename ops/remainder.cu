// remainder: numpy.remainder (Python's %): the sign of the divisor; x % 0 is 0
// for integers and NaN for floats, as NumPy gives. Floats as NumPy's
// npy_divmod, its fmod through va::exact_fmod (the same value, a faster route).
#include "op_declare.cuh"

struct Remainder {
    template <typename T>
    __host__ __device__ T operator()(T a, T b) const {
        if constexpr (std::is_integral<T>::value) {
            if (b == 0) return T(0);
            if constexpr (std::is_signed<T>::value) {
                if (b == -1) return T(0);
            }
            const T r = static_cast<T>(a % b);
            return (r == 0 || ((a > 0) == (b > 0))) ? r : T(r + b);
        } else {
            T mod = va::exact_fmod(a, b);
            if (b == 0) return mod;
            if (mod != 0) {
                if ((b < 0) != (mod < 0)) mod += b;
            } else {
                mod = copysign(T(0), b);
            }
            return mod;
        }
    }
};

VA_ELEMENTWISE(remainder, Remainder, "a,b", 0, ARITHMETIC, "numpy.remainder", "__mod__", 0,
               "Element-wise remainder of division, with the sign of the divisor.")
