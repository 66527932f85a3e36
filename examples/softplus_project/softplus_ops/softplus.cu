// softplus(x) = log(1 + exp(x)), written without overflow for large x: one
// operation in one file, built into this package's wheel by setup.py and
// loaded by softplus_ops/__init__.py (myModule's docs/adding-a-kernel.md).
#include "op_declare.cuh"

struct Softplus {
    template <typename T>
    __device__ T operator()(T x) const {
        return x > T(20) ? x + log1p(exp(-x)) : log1p(exp(x));
    }
};

// Named log1pexp: myModule itself has a softplus (its tutorial's in-tree copy),
// and a loaded operation may not take a name the table already holds.
VA_ELEMENTWISE(log1pexp, Softplus, "x", 0, FLOAT, "softplus_ops.reference.softplus", "", 2,
               "Softplus, log(1 + exp(x)): a smooth ReLU.")
