// logical_and: numpy.logical_and, a bool result computed in the promoted dtype (any nonzero,
// NaN too, is true).
#include "op_declare.cuh"

struct LogicalAnd {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ bool operator()(T x, T y) const { return va::convert_to<bool>(x) && va::convert_to<bool>(y); }
};

VA_ELEMENTWISE(logical_and, LogicalAnd, "a,b", 0, ALL, "numpy.logical_and", "", 0,
               "Compute the truth value of x1 AND x2 element-wise.")
