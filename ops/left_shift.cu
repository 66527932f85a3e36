// left_shift: numpy.left_shift on integers. A count of the width or more, or a
// negative one, gives 0 as NumPy's npy_lshift (C leaves both undefined); the bits
// shift as unsigned, so a negative value shifts as NumPy's does.
#include <type_traits>

#include "op_declare.cuh"

struct LeftShift {
    template <typename T>
    __device__ T operator()(T x, T y) const {
        using U = typename std::make_unsigned<T>::type;
        if (static_cast<U>(y) >= sizeof(T) * 8) return T(0);
        return static_cast<T>(static_cast<U>(x) << static_cast<U>(y));
    }
};

VA_ELEMENTWISE(left_shift, LeftShift, "x1,x2", 0, SHIFT, "numpy.left_shift", "__lshift__", 0,
               "Shift the bits of an integer to the left.")
