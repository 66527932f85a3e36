// floor_divide: numpy.floor_divide, NumPy's own arithmetic: integers round
// toward minus infinity, x // 0 is 0 and MIN // -1 is MIN; floats give NumPy's
// npy_divmod (Python's divmod) bit for bit: from one division where the quotient
// is short (below), else step for step, so the quotient's sign and edge cases
// match; its fmod is va::exact_fmod (the same value without the long division).
// Both held to NumPy on the CPU and the GPU (tests/test_divmod_host.py).
#include "op_declare.cuh"

struct FloorDivide {
    template <typename T>
    __host__ __device__ T operator()(T a, T b) const {
        if constexpr (std::is_integral<T>::value) {
            if (b == 0) return T(0);
            if constexpr (std::is_signed<T>::value) {
                if (b == -1) return va::wrap_sub(T(0), a);
            }
            T q = static_cast<T>(a / b);
            if (((a > 0) != (b > 0)) && q * b != a) --q;
            return q;
        } else {
            if (b == 0) return a / b;
            // One division where the quotient is short: with |trunc(a / b)| below
            // 2^(digits - 3), NumPy's (a - mod) / b below lands within a quarter of
            // it, so its floor-and-round gives back that integer (or one less, after
            // the sign step) exactly; so does this, bit for bit, without dividing
            // again (bench/NOTES.md, session 23: 444 -> 368 us for 2^26 float64).
            constexpr T quarter = std::is_same<T, float>::value ? T(2097152.0f) : T(1125899906842624.0);
            const T q = a / b;
            if (va::quotient_is_short(q, b, quarter)) {
                T n;
                const T r = va::truncated_remainder(a, b, q, n);
                if (r != 0 && (b < 0) != (r < 0)) return n - T(1);
                return n != 0 ? n : copysign(T(0), q);
            }
            T mod = va::exact_fmod(a, b);
            T div = (a - mod) / b;
            if (mod != 0) {
                if ((b < 0) != (mod < 0)) div -= T(1);
            }
            if (div != 0) {
                T floordiv = floor(div);
                if (div - floordiv > T(0.5)) floordiv += T(1);
                return floordiv;
            }
            return copysign(T(0), a / b);
        }
    }
};

VA_ELEMENTWISE(floor_divide, FloorDivide, "a,b", 0, ARITHMETIC, "numpy.floor_divide", "__floordiv__", 0,
               "Largest integer smaller or equal to the division of the inputs.")
