// clip: NumPy's clip ufunc (numpy.clip with both bounds given), its loop:
// max(x, lo) then min(_, hi), each keeping a NaN first argument and otherwise
// taking the bound unless x is strictly inside, so a NaN x or a NaN bound gives
// NaN, and lo > hi gives hi. Of two equal zeros the bound's sign wins, as in
// NumPy's loop for bounds that vary; NumPy's loop for two constant bounds keeps
// x's sign instead (np.clip(-0.0, 0.0, 1.0) is -0.0 there, 0.0 here).
#include "op_declare.cuh"

struct Clip {
    template <typename T>
    __device__ T operator()(T x, T lo, T hi) const {
        const T t = (va::is_nan(x) || x > lo) ? x : lo;
        return (va::is_nan(t) || t < hi) ? t : hi;
    }
};

VA_ELEMENTWISE(clip, Clip, "x,lo,hi", 0, ALL, "myModule._reference.clip", "", 0,
               "Clip (limit) the values in an array to [lo, hi]; NaNs propagate.")
