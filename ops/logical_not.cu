// logical_not: numpy.logical_not, a bool result; any nonzero (NaN too) is true.
#include "op_declare.cuh"

struct LogicalNot {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ bool operator()(T x) const {
        return !va::convert_to<bool>(x);
    }
};

VA_ELEMENTWISE(logical_not, LogicalNot, "a", 0, ALL, "numpy.logical_not", "", 0,
               "Compute the truth value of NOT x element-wise.")
