// The floors the small calls are held to (bench/c_floor.py compiles and runs it
// in the same run as the rows it serves), timed per call by the host clock as the
// Python rows are, on a non-blocking stream; the median of rounds, one JSON line:
//  - median_s: an empty kernel, then cudaStreamSynchronize (the n = 1 rows);
//  - scalar_median_s: a one-thread kernel writing 8 bytes, an 8-byte copy of them
//    into pinned host memory, then cudaStreamSynchronize (a reduction returned as
//    a Python float).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

__global__ void empty_kernel() {}
__global__ void scalar_kernel(double *out) { *out = 1.0; }

// The median seconds per call of `call` over `rounds` rounds.
template <typename F>
double median_per_call(F call, int rounds, int per_round, double *min_s) {
    std::vector<double> per_call;
    for (int r = 0; r < rounds; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < per_round; ++i) call();
        auto t1 = std::chrono::steady_clock::now();
        per_call.push_back(std::chrono::duration<double>(t1 - t0).count() / per_round);
    }
    std::sort(per_call.begin(), per_call.end());
    *min_s = per_call[0];
    return per_call[rounds / 2];
}

int main() {
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
        std::printf("{\"status\": \"error\", \"why\": \"%s\"}\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    double *scalar = nullptr, *pinned = nullptr;
    if (cudaMalloc(&scalar, sizeof(double)) != cudaSuccess || cudaMallocHost(&pinned, sizeof(double)) != cudaSuccess) {
        std::printf("{\"status\": \"error\", \"why\": \"%s\"}\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    auto launch = [&] {
        empty_kernel<<<1, 1, 0, s>>>();
        cudaStreamSynchronize(s);
    };
    auto scalar_back = [&] {
        scalar_kernel<<<1, 1, 0, s>>>(scalar);
        cudaMemcpyAsync(pinned, scalar, sizeof(double), cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s);
    };
    const int warm = 2000, rounds = 31, per_round = 2000;
    for (int i = 0; i < warm; ++i) {
        launch();
        scalar_back();
    }
    double min_s = 0, scalar_min_s = 0;
    const double median = median_per_call(launch, rounds, per_round, &min_s);
    const double scalar_median = median_per_call(scalar_back, rounds, per_round, &scalar_min_s);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess || *pinned != 1.0) {
        std::printf("{\"status\": \"error\", \"why\": \"%s\"}\n",
                    e != cudaSuccess ? cudaGetErrorString(e) : "the scalar did not come back");
        return 1;
    }
    std::printf("{\"status\": \"ok\", \"median_s\": %.9e, \"min_s\": %.9e, \"scalar_median_s\": %.9e, "
                "\"scalar_min_s\": %.9e, \"rounds\": %d, \"calls_per_round\": %d}\n",
                median, min_s, scalar_median, scalar_min_s, rounds, per_round);
    return 0;
}
