// trunc: numpy.trunc; bool and integers are returned as they are (NumPy 2 keeps
// their dtype), floats rounded exactly.
#include "op_declare.cuh"

struct Trunc {
    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (std::is_floating_point<T>::value) return trunc(x);
        else return x;
    }
};

VA_ELEMENTWISE(trunc, Trunc, "a", 0, ALL, "numpy.trunc", "", 0,
               "Return the truncated value of the input, element-wise.")
