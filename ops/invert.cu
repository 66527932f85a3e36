// invert: numpy.invert, bit-wise NOT (bool: logical not, where C's ~ of a
// promoted bool would be nonzero either way; floats refused as NumPy's).
#include "op_declare.cuh"

struct Invert {
    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (std::is_same<T, bool>::value) return !x;
        else return static_cast<T>(~x);
    }
};

VA_ELEMENTWISE(invert, Invert, "a", 0, INTEGER, "numpy.invert", "__invert__", 0,
               "Compute bit-wise inversion, or bit-wise NOT, element-wise.")
