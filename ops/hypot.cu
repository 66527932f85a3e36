// hypot: numpy.hypot on float32 and float64 (integers compute in float64); CUDA's
// hypot is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Hypot {
    template <typename T>
    __device__ T operator()(T x, T y) const {
        const T h = hypot(x, y);
        // CUDA's hypot is not correctly rounded (the ULP bound above): for a leg of
        // the largest finite value and a small other leg it rounds up, past it, to
        // inf, where NumPy gives that value (seen on the H100; scaling the legs
        // down and back kept the rounding up). There, big * sqrt(1 + r*r) with
        // r = small / big is big exactly when r*r is below half an ulp of 1, and
        // overflows only when the hypotenuse does.
        if (isinf(h) && isfinite(x) && isfinite(y)) {
            const T a = fabs(x), b = fabs(y);
            const T big = fmax(a, b), r = fmin(a, b) / big;
            return big * sqrt(fma(r, r, T(1)));  // 1 exactly where r*r < ulp(1)/2
        }
        return h;
    }
};

VA_ELEMENTWISE(hypot, Hypot, "a,b", 0, FLOAT, "numpy.hypot", "", 4,
               "Given the legs of a right triangle, return its hypotenuse.")
