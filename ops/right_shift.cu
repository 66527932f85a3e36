// right_shift: numpy.right_shift on integers, arithmetic (the sign bit kept). A
// count of the width or more, or a negative one, gives -1 for a negative value
// and 0 otherwise, as NumPy's npy_rshift (C leaves it undefined).
#include <type_traits>

#include "op_declare.cuh"

struct RightShift {
    template <typename T>
    __device__ T operator()(T x, T y) const {
        using U = typename std::make_unsigned<T>::type;
        if (static_cast<U>(y) >= sizeof(T) * 8) return va::is_negative(x) ? static_cast<T>(-1) : T(0);
        return static_cast<T>(x >> y);
    }
};

VA_ELEMENTWISE(right_shift, RightShift, "x1,x2", 0, SHIFT, "numpy.right_shift", "__rshift__", 0,
               "Shift the bits of an integer to the right.")
