// maximum: numpy.maximum. A NaN in either input gives NaN; of two equal
// values (-0.0 and 0.0) the second, as NumPy's loops return.
#include "op_declare.cuh"

struct Maximum {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ T operator()(T x, T y) const {
        if constexpr (va::is_complex_v<T>) return (va::is_nan(x) || va::cge(x, y)) ? x : y;  // NumPy's loop
        else return (va::is_nan(x) || x > y) ? x : y;
    }
};

VA_ELEMENTWISE(maximum, Maximum, "a,b", 0, ALL, "numpy.maximum", "", 0,
               "Element-wise maximum of array elements; NaNs propagate.")
