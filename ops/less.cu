// less: numpy.less, a bool result computed in the inputs' promoted dtype.
#include "op_declare.cuh"

struct Less {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ bool operator()(T x, T y) const {
        if constexpr (va::is_complex_v<T>) return va::clt(x, y);  // NumPy's order (complex.cuh)
        else return x < y;
    }
};

VA_ELEMENTWISE(less, Less, "a,b", 0, ALL, "numpy.less", "__lt__", 0,
               "Return the truth value of (x1 < x2) element-wise.")
