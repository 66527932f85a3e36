// mean: numpy.mean: sum's combine, divided by the count once at the end. bool
// and integers give float64, floats their own type; every dtype accumulates in
// double. An empty input gives NaN (NumPy adds a RuntimeWarning).
#include "op_declare.cuh"

struct Mean {
    static constexpr bool averages = true;

    template <typename A>
    __device__ static A neutral() { return A(0); }  // +0.0, as sum's (NumPy 2)

    template <typename A>
    __device__ A operator()(A x, A y) const { return x + y; }
};

VA_REDUCTION(mean, Mean, MEAN, "numpy.mean", 1, 0, "Arithmetic mean of array elements.")
