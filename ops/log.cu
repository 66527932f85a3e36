// log: numpy.log on float32 and float64 (integers compute in float64);
// CUDA's log, within 4 ULP of NumPy's.
#include "op_declare.cuh"

struct Log {
    // complex: NumPy's own real part is up to 3 ULP from the exact value (measured
    // against long double); ours sums |z|^2 without rounding (complex_math.cuh).
    static constexpr int complex_ulp = 6;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::clog(x);  // complex_math.cuh
        else return log(x);
    }
};

VA_ELEMENTWISE(log, Log, "a", 0, FLOAT, "numpy.log", "", 4,
               "Natural logarithm, element-wise.")
