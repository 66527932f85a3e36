// Probe (session 36): is host time between a launch and the wait hidden behind the
// kernel? n1_spin.diff found 500 ns of busy wait after the library's n = 1 launch
// paid almost in full by the add + synchronize() row, as if the GPU had not started
// the kernel before the wait began. Here, in C, with nothing else in the way:
//   launch; [flush]; busy wait of S ns; cudaStreamSynchronize
// for S from 0 to 6 us, the launch plain (<<<1, 1>>> of an empty kernel, the C floor's)
// or as the library launches (PDL, a one-element add in 256 threads), with or without a
// cudaStreamQuery right after the launch (which makes the driver hand over what it
// holds, where it holds anything). Median host time per iteration over 7 repeats of
// 2000 (500 cold), warm (nothing between iterations) and cold (8 MiB of other memory read
// between iterations, as a Python interpreter's work leaves the caches).
// If the GPU runs the kernel while the host waits, the time stays flat until S passes
// the kernel's latency; if it grows by S from the start, the wait began the work.
// Build and run (the device machine):
//   nvcc -O2 -std=c++17 -arch=sm_90 bench/probes/submit_latency.cu -o /tmp/submit_latency
//   /tmp/submit_latency
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <chrono>
#include <cstdio>
#include <vector>

#include "probe_common.cuh"  // launch_pdl

namespace {

__global__ void empty_kernel() {}
__global__ void one_add_pdl(const double *a, const double *b, double *o) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    if (blockIdx.x * blockDim.x + threadIdx.x < 1) o[0] = a[0] + b[0];
}

using Clock = std::chrono::steady_clock;

void spin(long long ns) {
    if (ns <= 0) return;
    const auto until = Clock::now() + std::chrono::nanoseconds(ns);
    while (Clock::now() < until) {
    }
}

std::vector<char> g_other(8 << 20, 1);
volatile long long g_sink = 0;

void pollute() {
    long long s = 0;
    for (size_t i = 0; i < g_other.size(); i += 64) s += g_other[i];
    g_sink = s;
}

template <typename Body>
double median_us(bool cold, Body body) {
    const int kCalls = cold ? 500 : 2000;  // the 8 MiB read costs about 0.4 ms
    for (int i = 0; i < 200; ++i) body();
    std::vector<double> per;
    for (int r = 0; r < 7; ++r) {
        double total = 0;
        for (int i = 0; i < kCalls; ++i) {
            if (cold) pollute();
            const auto t0 = Clock::now();
            body();
            total += std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
        }
        per.push_back(total / kCalls);
    }
    std::sort(per.begin(), per.end());
    return per[per.size() / 2];
}

}  // namespace

int main() {
    cudaStream_t stream = nullptr;
    double *buf = nullptr;
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
        cudaMalloc(&buf, 3 * sizeof(double)) != cudaSuccess || cudaMemset(buf, 0, 3 * sizeof(double)) != cudaSuccess) {
        std::printf("no GPU\n");
        return 1;
    }
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    std::printf("%s; host us per launch + [query] + busy wait S + cudaStreamSynchronize (median of 7 x 2000 warm, 7 x 500 cold)\n",
                prop.name);
    const long long spins[] = {0, 250, 500, 1000, 2000, 3000, 4000, 6000};
    std::printf("%-34s %-5s", "launch", "cache");
    for (long long s : spins) std::printf(" S=%-6lld", s);
    std::printf("\n");
    for (int pdl = 0; pdl < 2; ++pdl) {
        for (int query = 0; query < 2; ++query) {
            for (int cold = 0; cold < 2; ++cold) {
                std::printf("%-34s %-5s", (std::string(pdl ? "PDL add" : "<<<1,1>>> empty") +
                                           (query ? " + cudaStreamQuery" : "")).c_str(),
                            cold ? "cold" : "warm");
                for (long long s : spins) {
                    const double us = median_us(cold != 0, [&] {
                        if (pdl)
                            launch_pdl(stream, 1, 256, one_add_pdl, static_cast<const double *>(buf),
                                       static_cast<const double *>(buf + 1), buf + 2);
                        else
                            empty_kernel<<<1, 1, 0, stream>>>();
                        if (query) cudaStreamQuery(stream);
                        spin(s);
                        cudaStreamSynchronize(stream);
                    });
                    std::printf(" %-8.2f", us);
                }
                std::printf("\n");
                std::fflush(stdout);
            }
        }
    }
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) std::printf("CUDA error: %s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
