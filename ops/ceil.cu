// ceil: numpy.ceil; bool and integers are returned as they are (NumPy 2 keeps
// their dtype), floats rounded exactly.
#include "op_declare.cuh"

struct Ceil {
    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (std::is_floating_point<T>::value) return ceil(x);
        else return x;
    }
};

VA_ELEMENTWISE(ceil, Ceil, "a", 0, ALL, "numpy.ceil", "", 0,
               "Return the ceiling of the input, element-wise.")
