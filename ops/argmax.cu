// argmax: numpy.argmax: the C-order index of the first maximum; the first NaN
// wins, as in NumPy. An empty input has no position (ValueError).
#include "op_declare.cuh"

struct ArgMax {
    template <typename A>
    __device__ static bool better(A x, A y) { return (va::is_nan(x) && !va::is_nan(y)) || x > y; }
};

VA_REDUCTION(argmax, ArgMax, INDEX, "numpy.argmax", 0, 0, "Index of the maximum (first occurrence; NaN wins).")
