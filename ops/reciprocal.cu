// reciprocal: numpy.reciprocal. Integers divide as C does (0 for |x| > 1) and
// 1/0 gives the lowest value, NumPy's result on x86 (it also warns on the host).
#include "op_declare.cuh"

struct Reciprocal {
    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (std::is_integral<T>::value) {
            if (x == 0) return va::lowest<T>();
            return (x == 1 || x == -1) ? x : T(0);
        } else {
            return T(1) / x;
        }
    }
};

VA_ELEMENTWISE(reciprocal, Reciprocal, "a", 0, NUMBER, "numpy.reciprocal", "", 0,
               "Return the reciprocal of the argument, element-wise.")
