// hypot: numpy.hypot on float32 and float64 (integers compute in float64); CUDA's
// hypot is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Hypot {
    template <typename T>
    __device__ T operator()(T x, T y) const {
        const T h = hypot(x, y);
        // CUDA's hypot overflows to inf for finite legs whose hypotenuse rounds to
        // at most the largest finite value (DBL_MAX and a small leg; seen on the
        // H100, halving the legs was not enough): NumPy gives that value. Scaling
        // both legs down by a power of two far from the range's ends is exact for
        // the large leg, loses nothing that could change a result near overflow,
        // and scaling back is exact up to the rounding to the largest finite value.
        if (isinf(h) && isfinite(x) && isfinite(y)) {
            constexpr T down = sizeof(T) == 8 ? T(0x1p-600) : T(0x1p-64);
            constexpr T up = sizeof(T) == 8 ? T(0x1p600) : T(0x1p64);
            return hypot(x * down, y * down) * up;
        }
        return h;
    }
};

VA_ELEMENTWISE(hypot, Hypot, "a,b", 0, FLOAT, "numpy.hypot", "", 4,
               "Given the legs of a right triangle, return its hypotenuse.")
