// The floors the small calls are held to, timed per call by the host clock as the
// Python rows are, on a non-blocking stream of their own:
//  - an empty kernel, then cudaStreamSynchronize (the n = 1 rows);
//  - a one-thread kernel writing 8 bytes, an 8-byte copy of them into pinned host
//    memory, then cudaStreamSynchronize (a reduction returned as a Python float).
// Two ways to run it, from one source:
//  - an executable (bench/c_floor.py compiles and runs it in the same run as the
//    rows): the median of rounds in a process of its own, one JSON line;
//  - a shared library (built with -shared): launch_floor_round() times one round
//    inside the caller's process, so the bench can interleave floor rounds with the
//    repeats of the rows it judges. Rounds minutes apart, or in another process,
//    differ by up to 10% on one host (bench/NOTES.md, sessions 24-31): pairing them
//    with the rows takes the host's drift out of the ratio.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

__global__ void empty_kernel() {}
__global__ void scalar_kernel(double *out) { *out = 1.0; }

namespace {

struct FloorState {
    cudaStream_t stream = nullptr;
    double *scalar = nullptr;
    double *pinned = nullptr;
    cudaError_t error = cudaSuccess;
};

// Created on the first round; never freed (the process ends with it).
FloorState &state() {
    static FloorState s = [] {
        FloorState f;
        f.error = cudaStreamCreateWithFlags(&f.stream, cudaStreamNonBlocking);
        if (f.error == cudaSuccess) f.error = cudaMalloc(&f.scalar, sizeof(double));
        if (f.error == cudaSuccess) f.error = cudaMallocHost(&f.pinned, sizeof(double));
        return f;
    }();
    return s;
}

void launch_and_wait(FloorState &f) {
    empty_kernel<<<1, 1, 0, f.stream>>>();
    cudaStreamSynchronize(f.stream);
}

void scalar_back(FloorState &f) {
    scalar_kernel<<<1, 1, 0, f.stream>>>(f.scalar);
    cudaMemcpyAsync(f.pinned, f.scalar, sizeof(double), cudaMemcpyDeviceToHost, f.stream);
    cudaStreamSynchronize(f.stream);
}

}  // namespace

// Seconds a call over one round of `calls` calls: which = 0 the launch floor,
// 1 the scalar floor. A negative value is the CUDA error that stopped it
// (cudaErrorUnknown where the scalar did not come back).
extern "C" double launch_floor_round(int which, int calls) {
    FloorState &f = state();
    if (f.error != cudaSuccess) return -(double)f.error;
    if (calls < 1) calls = 1;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) {
        if (which == 0) launch_and_wait(f); else scalar_back(f);
    }
    auto t1 = std::chrono::steady_clock::now();
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && which == 1 && *f.pinned != 1.0) e = cudaErrorUnknown;
    if (e != cudaSuccess) return -(double)e;
    return std::chrono::duration<double>(t1 - t0).count() / calls;
}

namespace {

// The median seconds a call over `rounds` rounds, and the least.
bool median_round(int which, int rounds, int calls, double *median, double *least) {
    std::vector<double> per_call;
    for (int r = 0; r < rounds; ++r) {
        const double t = launch_floor_round(which, calls);
        if (t < 0) return false;
        per_call.push_back(t);
    }
    std::sort(per_call.begin(), per_call.end());
    *least = per_call[0];
    *median = per_call[rounds / 2];
    return true;
}

void print_error(const char *why) { std::printf("{\"status\": \"error\", \"why\": \"%s\"}\n", why); }

}  // namespace

int main() {
    const int warm = 2000, rounds = 31, calls = 2000;
    const double launch = launch_floor_round(0, warm), scalar = launch_floor_round(1, warm);
    if (launch < 0 || scalar < 0) {
        const double failed = launch < 0 ? launch : scalar;
        print_error(cudaGetErrorString(static_cast<cudaError_t>(static_cast<int>(-failed))));
        return 1;
    }
    double median = 0, least = 0, scalar_median = 0, scalar_least = 0;
    if (!median_round(0, rounds, calls, &median, &least) ||
        !median_round(1, rounds, calls, &scalar_median, &scalar_least)) {
        print_error("a round failed");
        return 1;
    }
    std::printf("{\"status\": \"ok\", \"median_s\": %.9e, \"min_s\": %.9e, \"scalar_median_s\": %.9e, "
                "\"scalar_min_s\": %.9e, \"rounds\": %d, \"calls_per_round\": %d}\n",
                median, least, scalar_median, scalar_least, rounds, calls);
    return 0;
}
