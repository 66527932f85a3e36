// logaddexp: numpy.logaddexp, log(exp(a) + exp(b)) without overflow; the
// tutorial's example of an operation added in one file (docs/adding-a-kernel.md).
#include "op_declare.cuh"

struct LogAddExp {
    template <typename T>
    __device__ T operator()(T a, T b) const {
        if (a == b) return a + T(0.693147180559945309417232121458176568);  // log(2); equal infinities
        const T d = a - b;
        if (d > 0) return a + log1p(exp(-d));
        if (d <= 0) return b + log1p(exp(d));
        return d;  // a NaN
    }
};

VA_ELEMENTWISE(logaddexp, LogAddExp, "a,b", 0, FLOAT, "numpy.logaddexp", "", 4,
               "Logarithm of the sum of exponentiations of the inputs.")
