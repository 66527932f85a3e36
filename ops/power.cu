// power: numpy.power. Integers by squaring, wrapping as NumPy's do. A negative
// integer exponent is refused for host inputs (ValueError, as NumPy); on device
// data it gives the integer part of the real result: 1 for base 1, +-1 for
// base -1, else 0.
#include "op_declare.cuh"

struct Power {
    // complex: exp(w log z) multiplies log z's error by |w log z|: NumPy's own is up to
    // 25 ULP from the exact value for |z| in [1e-5, 10], |w| <= 1 (|w log z| up to about
    // 20; measured against long double), and ours is of the same kind. Past that both
    // lose about |w log z| ULP, and an integer exponent n below 100 (by squaring, as
    // NumPy) about n: the bound is for |w log z| up to 20 and n below 16 (the tests').
    static constexpr int complex_ulp = 64;

    static constexpr const char *host_check = "myModule._reference.check_power";

    template <typename T>
    __device__ T operator()(T x, T y) const {
        if constexpr (std::is_integral<T>::value) {
            if constexpr (std::is_signed<T>::value) {
                if (y < 0) return x == 1 ? T(1) : x == -1 ? ((y & 1) ? T(-1) : T(1)) : T(0);
            }
            if (y == 0 || x == 1) return T(1);
            T result = (y & 1) ? x : T(1);
            for (y >>= 1; y > 0; y >>= 1) {
                x = va::wrap_mul(x, x);
                if (y & 1) result = va::wrap_mul(result, x);
            }
            return result;
        } else if constexpr (va::is_complex_v<T>) {
            return va::cpow(x, y);
        } else {
            return pow(x, y);
        }
    }
};

VA_ELEMENTWISE(power, Power, "a,b", 0, ARITHMETIC, "numpy.power", "__pow__", 4,
               "First array elements raised to powers from the second, element-wise.")
