// reciprocal: numpy.reciprocal. Integers as NumPy's loop computes them, 1.0 / x
// in double cast back (0 for |x| > 1), so 1/0 is inf cast as x86 casts it: the
// lowest int32 or int64, 0 for the narrower types (it also warns on the host).
#include "op_declare.cuh"

struct Reciprocal {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (std::is_integral<T>::value) {
            return va::convert_to<T>(1.0 / static_cast<double>(x));
        } else if constexpr (va::is_complex_v<T>) {
            return va::creciprocal(x);
        } else {
            return T(1) / x;
        }
    }
};

VA_ELEMENTWISE(reciprocal, Reciprocal, "a", 0, ARITHMETIC, "numpy.reciprocal", "", 0,
               "Return the reciprocal of the argument, element-wise.")
