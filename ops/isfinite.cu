// isfinite: numpy.isfinite, a bool result; bool and integers are always finite.
#include "op_declare.cuh"

struct IsFinite {
    template <typename T>
    __device__ bool operator()(T x) const {
        if constexpr (std::is_floating_point<T>::value) return isfinite(x);
        else return true;
    }
};

VA_ELEMENTWISE(isfinite, IsFinite, "a", 0, ALL, "numpy.isfinite", "", 0,
               "Test element-wise for finiteness (not infinity and not NaN).")
