// log2: numpy.log2 on float32 and float64 (integers compute in float64); CUDA's
// log2 is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Log2 {
    template <typename T>
    __device__ T operator()(T x) const { return log2(x); }
};

VA_ELEMENTWISE(log2, Log2, "a", 0, FLOAT, "numpy.log2", "", 4,
               "Base-2 logarithm of x.")
