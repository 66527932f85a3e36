// logaddexp: numpy.logaddexp, log(exp(x1) + exp(x2)) without overflow, by NumPy's
// formula: equal arguments (infinities of one sign too) give x + ln 2, else the
// larger plus log1p(exp(-|x1 - x2|)), and a NaN difference is the result.
// Near a result of 0 (the larger argument close to -log1p(exp(-|x1 - x2|))) the
// sum cancels: an error of one ULP in the log1p term, NumPy's as well as CUDA's,
// is many ULP of the result there. So its ULP are counted at max(|result|, 1):
// an error of the size of its arguments' rounding is what any formula in the
// arguments' precision can promise (bench/NOTES.md, session 17).
#include "op_declare.cuh"

struct LogAddExp {
    static constexpr double ulp_floor = 1.0;

    template <typename T>
    __device__ T operator()(T x, T y) const {
        constexpr T ln2 = T(0.693147180559945309417232121458176568);
        if (x == y) return x + ln2;
        const T d = x - y;
        if (d != d) return d;
        // One exp and one log1p for either sign of d: a warp whose lanes differ in the
        // sign would otherwise run both (1.74x PyTorch's time on the H100, session 20).
        return (d > T(0) ? x : y) + log1p(exp(-fabs(d)));
    }
};

VA_ELEMENTWISE(logaddexp, LogAddExp, "a,b", 0, FLOAT, "numpy.logaddexp", "", 4,
               "Logarithm of the sum of exponentiations of the inputs.")
