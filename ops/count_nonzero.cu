// count_nonzero: numpy.count_nonzero. Each element enters as its truth value
// (2.5 counts once, NaN counts), summed in int64 for every input dtype. Its
// reference is numpy.count_nonzero with out= and an int64 scalar for a full count.
#include "op_declare.cuh"

struct CountNonzero {
    static constexpr bool reads_truth = true;

    template <typename A>
    __device__ static A neutral() { return A(0); }

    template <typename A>
    __device__ A operator()(A x, A y) const { return x + y; }
};

VA_REDUCTION(count_nonzero, CountNonzero, COUNT, "myModule._reference.count_nonzero", 1, 0,
             "Number of nonzero elements (NaN counts).")
