// add: numpy.add (bool: logical or; integers wrap around as NumPy's do).
#include "op_declare.cuh"

struct Add {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ T operator()(T x, T y) const {
        if constexpr (std::is_same<T, bool>::value) return x || y;
        else if constexpr (std::is_integral<T>::value) return va::wrap_add(x, y);
        else return x + y;
    }
};

VA_ELEMENTWISE(add, Add, "a,b", 0, ALL, "numpy.add", "__add__", 0,
               "Add arguments element-wise.")
