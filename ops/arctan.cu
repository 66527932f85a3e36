// arctan: numpy.arctan on float32 and float64 (integers compute in float64); CUDA's
// atan is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Arctan {
    template <typename T> static constexpr int packs_per_thread = va::kTwoPacksForFloat64<T>;

    static constexpr int complex_ulp = 8;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::catan(x);  // complex_math.cuh
        else return atan(x);
    }
};

VA_ELEMENTWISE(arctan, Arctan, "a", 0, FLOAT, "numpy.arctan", "", 4,
               "Trigonometric inverse tangent, element-wise.")
