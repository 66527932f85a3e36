// softplus: log(1 + exp(x)), a smooth ReLU, written without overflow for large
// x. The tutorial's example of an operation loaded from a user's own folder
// (docs/adding-a-kernel.md); built in-tree too, so that the benchmark holds the
// loaded copy to the in-tree one (bench/load_bench.py).
#include "op_declare.cuh"

struct Softplus {
    template <typename T>
    __device__ T operator()(T x) const {
        return x > T(20) ? x + log1p(exp(-x)) : log1p(exp(x));
    }
};

VA_ELEMENTWISE(softplus, Softplus, "x", 0, FLOAT, "myModule._reference.softplus", "", 4,
               "Softplus, log(1 + exp(x)): a smooth ReLU that does not overflow for large x.")
