// moving_average: the tutorial's example of a user's own kernel (a __global__
// function), launched from Python on NumPy or GPU arrays. Each element becomes
// the mean of itself and its neighbours along a 1-d array (the ends average two).
#include "op_declare.cuh"
#include "raw_kernel.cuh"

namespace {

__global__ void moving_average_kernel(va::RawArgs args) {
    const va::RawArray &x = args.in[0];
    const int64_t n = x.size;
    const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double sum = x.at<double>(i);
    int count = 1;
    if (i > 0) {
        sum += x.at<double>(i - 1);
        ++count;
    }
    if (i + 1 < n) {
        sum += x.at<double>(i + 1);
        ++count;
    }
    args.out.at<double>(i) = sum / count;
}

}  // namespace

VA_RAW_KERNEL(moving_average, moving_average_kernel, "x", 0, FLOAT64,
              "Mean of each element and its neighbours along a 1-d array (the ends average two).")
