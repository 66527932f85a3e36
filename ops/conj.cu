// conj: numpy.conjugate: a complex number with its imaginary part negated (-0.0
// for +0.0, NaN's sign flipped); a real one itself (bool as int8, as NumPy's).
#include "op_declare.cuh"

struct Conj {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ T operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return T(x.real(), -x.imag());
        else return x;
    }
};

VA_ELEMENTWISE(conj, Conj, "a", 0, ARITHMETIC, "numpy.conjugate", "", 0,
               "Return the complex conjugate, element-wise.")
