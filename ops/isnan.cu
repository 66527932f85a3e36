// isnan: numpy.isnan, a bool result; bool and integers are never NaN (NumPy has loops for them, so no float cast).
#include "op_declare.cuh"

struct IsNan {
    static constexpr int complex_ulp = 0;
    template <typename T>
    static constexpr bool zero_result = std::is_integral<T>::value;  // bool and integers

    template <typename T>
    __device__ bool operator()(T x) const {
        return va::is_nan(x);
    }
};

VA_ELEMENTWISE(isnan, IsNan, "a", 0, ALL, "numpy.isnan", "", 0,
               "Test element-wise for NaN and return result as a boolean array.")
