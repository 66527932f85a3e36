// log: numpy.log on float32 and float64 (integers compute in float64);
// CUDA's log, within 4 ULP of NumPy's.
#include "op_declare.cuh"

struct Log {
    static constexpr int complex_ulp = 4;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::clog(x);  // complex_math.cuh
        else return log(x);
    }
};

VA_ELEMENTWISE(log, Log, "a", 0, FLOAT, "numpy.log", "", 4,
               "Natural logarithm, element-wise.")
