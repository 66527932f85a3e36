// hypot: numpy.hypot on float32 and float64 (integers compute in float64); CUDA's
// hypot is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Hypot {
    template <typename T>
    __device__ T operator()(T x, T y) const {
        const T h = hypot(x, y);
        // CUDA's hypot overflows to inf for finite legs whose hypotenuse rounds to
        // at most the largest finite value (DBL_MAX and a small leg): NumPy gives
        // that value. Halving both legs is exact there, and so is doubling back.
        if (isinf(h) && isfinite(x) && isfinite(y)) return T(2) * hypot(x * T(0.5), y * T(0.5));
        return h;
    }
};

VA_ELEMENTWISE(hypot, Hypot, "a,b", 0, FLOAT, "numpy.hypot", "", 4,
               "Given the legs of a right triangle, return its hypotenuse.")
