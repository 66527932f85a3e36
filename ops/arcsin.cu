// arcsin: numpy.arcsin on float32 and float64 (integers compute in float64); CUDA's
// asin is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Arcsin {
    template <typename T> static constexpr int packs_per_thread = va::kTwoPacksForFloat64<T>;

    static constexpr int complex_ulp = 8;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::casin(x);  // complex_math.cuh
        else return asin(x);
    }
};

VA_ELEMENTWISE(arcsin, Arcsin, "a", 0, FLOAT, "numpy.arcsin", "", 4,
               "Inverse sine, element-wise.")
