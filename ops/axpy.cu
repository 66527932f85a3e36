// axpy: alpha * x + y in one pass over memory. The product is rounded before
// the sum (no fused multiply-add), so results equal NumPy's alpha * x + y.
#include "op_declare.cuh"

struct Axpy {
    template <typename T>
    __device__ T operator()(T alpha, T x, T y) const {
        if constexpr (std::is_integral<T>::value) return va::wrap_add(va::wrap_mul(alpha, x), y);
        else if constexpr (std::is_same<T, float>::value) return __fadd_rn(__fmul_rn(alpha, x), y);
        else return __dadd_rn(__dmul_rn(alpha, x), y);
    }
};

VA_ELEMENTWISE(axpy, Axpy, "alpha,x,y", 1, NUMBER, "myModule._reference.axpy", "", 0,
               "alpha * x + y in one pass, alpha a scalar.")
