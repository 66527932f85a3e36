// where: numpy.where(condition, x, y). The condition is read as bool whatever
// its dtype and takes no part in promotion.
#include "op_declare.cuh"

struct Where {
    static constexpr int complex_ulp = 0;

    template <typename T>
    using inputs = va::Inputs<bool, T, T>;

    template <typename T>
    __device__ T operator()(bool condition, T x, T y) const { return condition ? x : y; }
};

VA_ELEMENTWISE(where, Where, "condition,x,y", 0, ALL, "numpy.where", "", 0,
               "Return elements chosen from x or y depending on condition.")
