// real: numpy.real: a complex number's real part, of the real dtype of its
// components; a real one itself, of its own dtype.
#include "op_declare.cuh"

struct Real {
    static constexpr int complex_ulp = 0;

    template <typename T>
    __device__ va::RealT<T> operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return x.real();
        else return x;
    }
};

VA_ELEMENTWISE(real, Real, "a", 0, ALL, "myModule._reference.real", "", 0,
               "Return the real part of the complex argument.")
