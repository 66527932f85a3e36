// arccos: numpy.arccos on float32 and float64 (integers compute in float64); CUDA's
// acos is not glibc's, hence the ULP bound.
#include "op_declare.cuh"

struct Arccos {
    template <typename T> static constexpr int packs_per_thread = va::kTwoPacksForFloat64<T>;

    static constexpr int complex_ulp = 8;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return va::cacos(x);  // complex_math.cuh
        else return acos(x);
    }
};

VA_ELEMENTWISE(arccos, Arccos, "a", 0, FLOAT, "numpy.arccos", "", 4,
               "Trigonometric inverse cosine, element-wise.")
