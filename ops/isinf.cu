// isinf: numpy.isinf, a bool result; bool and integers are never infinite.
#include "op_declare.cuh"

struct IsInf {
    static constexpr int complex_ulp = 0;
    template <typename T>
    static constexpr bool zero_result = std::is_integral<T>::value;  // bool and integers

    template <typename T>
    __device__ bool operator()(T x) const {
        if constexpr (std::is_floating_point<T>::value) return isinf(x);
        else if constexpr (va::is_complex_v<T>) return isinf(x.real()) || isinf(x.imag());
        else return false;
    }
};

VA_ELEMENTWISE(isinf, IsInf, "a", 0, ALL, "numpy.isinf", "", 0,
               "Test element-wise for positive or negative infinity.")
