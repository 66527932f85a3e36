// log10: numpy.log10 on float32 and float64 (integers compute in float64); CUDA's
// log10 is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Log10 {
    template <typename T>
    __device__ T operator()(T x) const { return log10(x); }
};

VA_ELEMENTWISE(log10, Log10, "a", 0, FLOAT, "numpy.log10", "", 4,
               "Return the base 10 logarithm of the input array, element-wise.")
