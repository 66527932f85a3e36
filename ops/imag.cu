// imag: numpy.imag: a complex number's imaginary part, of the real dtype of its
// components; 0 of its own dtype for a real one.
#include "op_declare.cuh"

struct Imag {
    static constexpr int complex_ulp = 0;
    template <typename T>
    static constexpr bool zero_result = !va::is_complex_v<T>;

    template <typename T>
    __device__ va::RealT<T> operator()(T x) const {
        if constexpr (va::is_complex_v<T>) return x.imag();
        else return T(0);
    }
};

VA_ELEMENTWISE(imag, Imag, "a", 0, ALL, "myModule._reference.imag", "", 0,
               "Return the imaginary part of the complex argument.")
