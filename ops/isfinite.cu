// isfinite: numpy.isfinite, a bool result; bool and integers are always finite.
#include "op_declare.cuh"

struct IsFinite {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ bool operator()(T x) const {
        if constexpr (std::is_floating_point<T>::value) return isfinite(x);
        else if constexpr (va::is_complex_v<T>) return isfinite(x.real()) && isfinite(x.imag());
        else return true;
    }
};

VA_ELEMENTWISE(isfinite, IsFinite, "a", 0, ALL, "numpy.isfinite", "", 0,
               "Test element-wise for finiteness (not infinity and not NaN).")
