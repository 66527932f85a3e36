// argmin: numpy.argmin: the C-order index of the first minimum; the first NaN
// wins, as in NumPy. An empty input has no position (ValueError).
#include "op_declare.cuh"

struct ArgMin {
    template <typename A>
    __device__ static bool better(A x, A y) { return (va::is_nan(x) && !va::is_nan(y)) || x < y; }
};

VA_REDUCTION(argmin, ArgMin, INDEX, "numpy.argmin", 0, 0, "Index of the minimum (first occurrence; NaN wins).")
