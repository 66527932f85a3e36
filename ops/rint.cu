// rint: numpy.rint on float32 and float64 (integers compute in float64): the
// nearest integer, halves to even, exact.
#include "op_declare.cuh"

struct Rint {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return T(rint(x.real()), rint(x.imag()));
        else return rint(x);
    }
};

VA_ELEMENTWISE(rint, Rint, "a", 0, FLOAT, "numpy.rint", "", 0,
               "Round elements of the array to the nearest integer.")
