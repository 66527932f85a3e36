// sign: numpy.sign: -1, 0 or 1; NaN stays NaN and -0.0 gives +0.0, as NumPy's;
// a complex number gives z / |z| (NumPy 2, complex.cuh).
#include "op_declare.cuh"

struct Sign {
    // complex: z / |z|, |z| as absolute's; 3 ULP from NumPy's on the H100 (session 19).
    static constexpr int complex_ulp = 4;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) {
            return va::csign(x);
        } else {
            if (x > T(0)) return T(1);
            if (va::is_negative(x)) return static_cast<T>(-1);
            return x == T(0) ? T(0) : x;
        }
    }
};

VA_ELEMENTWISE(sign, Sign, "a", 0, NUMBER, "numpy.sign", "", 0,
               "Returns an element-wise indication of the sign of a number.")
