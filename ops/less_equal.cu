// less_equal: numpy.less_equal, a bool result computed in the inputs' promoted dtype.
#include "op_declare.cuh"

struct LessEqual {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ bool operator()(T x, T y) const {
        if constexpr (va::is_complex_v<T>) return va::cle(x, y);  // NumPy's order (complex.cuh)
        else return x <= y;
    }
};

VA_ELEMENTWISE(less_equal, LessEqual, "a,b", 0, ALL, "numpy.less_equal", "__le__", 0,
               "Return the truth value of (x1 <= x2) element-wise.")
