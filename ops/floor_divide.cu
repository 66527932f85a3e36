// floor_divide: numpy.floor_divide, NumPy's own arithmetic: integers round
// toward minus infinity, x // 0 is 0 and MIN // -1 is MIN; floats as NumPy's
// npy_divmod (Python's divmod), step for step, so the quotient's sign and edge
// cases match; its fmod is va::exact_fmod (the same value without the long
// division, held to NumPy bit for bit on the CPU and the GPU).
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
