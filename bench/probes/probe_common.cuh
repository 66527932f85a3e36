// Pieces shared by the C++ probes in this folder: a CUDA check that returns from
// main, a 16-byte pair of doubles, the library's elementwise tile shape, and the
// two timers (host clock per call; CUDA events per launch in a back-to-back loop).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)

struct alignas(16) D2 { double x, y; };

// One block per tile of U * blockDim.x packs (the library's shape). Pdl: wait for
// the previous grid before reading, then let the next grid launch at once (sm_90).
template <int U, bool Pdl = false>
__global__ void add_tiles(const D2 *a, const D2 *b, D2 *o, long long groups) {
    if constexpr (Pdl) {
        asm volatile("griddepcontrol.wait;" ::: "memory");
        asm volatile("griddepcontrol.launch_dependents;");
    }
    long long base = (long long)blockIdx.x * blockDim.x * U + threadIdx.x;
    D2 va[U], vb[U];
#pragma unroll
    for (int k = 0; k < U; ++k) if (base + k * blockDim.x < groups) { va[k] = a[base + k * blockDim.x]; vb[k] = b[base + k * blockDim.x]; }
#pragma unroll
    for (int k = 0; k < U; ++k) if (base + k * blockDim.x < groups) o[base + k * blockDim.x] = D2{va[k].x + vb[k].x, va[k].y + vb[k].y};
}

// Sum of v over the block (any blockDim.x up to 1024), in thread 0.
__device__ inline double block_sum(double v) {
    __shared__ double warp_sums[32];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.0;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    }
    __syncthreads();  // warp_sums may be reused by the next call
    return v;
}

// The ticket of a two-level sum (the library's shape): thread 0 publishes the
// block's partial; true in every thread of the block that finished last.
__device__ inline bool last_block_to_finish(double partial, double *partials, unsigned *counter) {
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = partial;
        __threadfence();
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    return last;
}

// A launch that may overlap the previous kernel on `s` (PDL, sm_90).
template <typename... P, typename... A>
inline void launch_pdl(cudaStream_t s, unsigned grid, unsigned block, void (*k)(P...), A... args) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.stream = s;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cudaLaunchKernelEx(&cfg, k, args...);
}

// Median over 7 repeats of the host time per iteration of `body` (k iterations).
template <typename F>
double host_us(int k, F body) {
    using Clock = std::chrono::steady_clock;
    for (int i = 0; i < k / 10 + 1; ++i) body();
    std::vector<double> t;
    for (int r = 0; r < 7; ++r) {
        auto t0 = Clock::now();
        for (int i = 0; i < k; ++i) body();
        t.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / k);
    }
    std::sort(t.begin(), t.end());
    return t[3];
}

// Median over 7 repeats of event time per launch for k back-to-back launches.
template <typename F>
double event_us(cudaStream_t s, int k, F launch) {
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int i = 0; i < 5; ++i) launch(i);
    std::vector<double> t;
    for (int r = 0; r < 7; ++r) {
        cudaEventRecord(e0, s);
        for (int i = 0; i < k; ++i) launch(i);
        cudaEventRecord(e1, s);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        t.push_back(ms * 1000.0 / k);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    std::sort(t.begin(), t.end());
    return t[3];
}
