// The floor a call of one element is held to (bench/c_floor.py compiles and runs
// it in the same run as the rows it serves): an empty kernel launched on a
// non-blocking stream, then cudaStreamSynchronize, timed per call by the host
// clock as the Python rows are. Prints one JSON line; the median of rounds.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

__global__ void empty_kernel() {}

int main() {
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
        std::printf("{\"status\": \"error\", \"why\": \"%s\"}\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    const int warm = 2000, rounds = 31, per_round = 2000;
    for (int i = 0; i < warm; ++i) {
        empty_kernel<<<1, 1, 0, s>>>();
        cudaStreamSynchronize(s);
    }
    std::vector<double> per_call;
    for (int r = 0; r < rounds; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < per_round; ++i) {
            empty_kernel<<<1, 1, 0, s>>>();
            cudaStreamSynchronize(s);
        }
        auto t1 = std::chrono::steady_clock::now();
        per_call.push_back(std::chrono::duration<double>(t1 - t0).count() / per_round);
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::printf("{\"status\": \"error\", \"why\": \"%s\"}\n", cudaGetErrorString(e));
        return 1;
    }
    std::sort(per_call.begin(), per_call.end());
    std::printf("{\"status\": \"ok\", \"median_s\": %.9e, \"min_s\": %.9e, \"rounds\": %d, \"calls_per_round\": %d}\n",
                per_call[rounds / 2], per_call[0], rounds, per_round);
    return 0;
}
