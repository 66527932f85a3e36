// logaddexp: numpy.logaddexp, log(exp(x1) + exp(x2)) without overflow, by NumPy's
// steps (npy_logaddexp): equal arguments give x + log(2) (infinities of one sign
// included), otherwise the larger plus log1p(exp(-|difference|)); a NaN gives NaN.
// CUDA's log1p and exp are not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct LogAddExp {
    template <typename T>
    __device__ T operator()(T x, T y) const {
        if (x == y) return x + T(0.693147180559945309417232121458176568);  // x + log(2)
        const T d = x - y;
        if (d > 0) return x + log1p(exp(-d));
        if (d <= 0) return y + log1p(exp(d));
        return d;  // NaN: an argument is NaN, or opposite infinities gave inf - inf
    }
};

VA_ELEMENTWISE(logaddexp, LogAddExp, "x1,x2", 0, FLOAT, "numpy.logaddexp", "", 4,
               "Logarithm of the sum of exponentiations of the inputs.")
