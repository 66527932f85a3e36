// floor: numpy.floor; bool and integers are returned as they are (NumPy 2 keeps
// their dtype), floats rounded exactly.
#include "op_declare.cuh"

struct Floor {
    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (std::is_floating_point<T>::value) return floor(x);
        else return x;
    }
};

VA_ELEMENTWISE(floor, Floor, "a", 0, ALL, "numpy.floor", "", 0,
               "Return the floor of the input, element-wise.")
