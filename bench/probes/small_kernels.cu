// Probe (session 3, second and third rounds): the trace of a 4096 x 4096 float64
// matrix (4096 strided reads) in several kernel shapes (a thread-block cluster
// too), each timed as the library uses
// it (launch + stream synchronize, host clock); whether a launch that may overlap
// (PDL attribute) costs more for a lone kernel; and tiles of 1, 2 or 4 packs per
// thread with PDL at n = 1e6, 2^26 and 1e8. bench/NOTES.md records the outcome.
// Build and run (from the repository root, after `make lib CUDA_ARCH=90`):
//   nvcc -O3 -std=c++17 -arch=sm_90 bench/probes/small_kernels.cu -IvectorAdd \
//        build/libvectoradd.a -o /tmp/small && /tmp/small
#include <cooperative_groups.h>

#include "probe_common.cuh"
#include "vectorAdd.h"


__device__ __forceinline__ void pdl_wait() {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

// One block, U independent strided loads in flight per thread, no second level.
template <int Threads, int U>
__global__ void trace_one_block(const char *base, long long n, long long stride, double *out) {
    double acc[U] = {};
    for (long long i0 = threadIdx.x; i0 < n; i0 += (long long)Threads * U) {
        double v[U];
#pragma unroll
        for (int k = 0; k < U; ++k) {
            long long i = i0 + (long long)k * Threads;
            v[k] = i < n ? *(const double *)(base + i * stride) : 0.0;
        }
#pragma unroll
        for (int k = 0; k < U; ++k) acc[k] += v[k];
    }
    double t = 0;
#pragma unroll
    for (int k = 0; k < U; ++k) t += acc[k];
    t = block_sum(t);
    if (threadIdx.x == 0) *out = t;
}

// Many blocks, one read a thread, the last block to finish adds the partials
// (the library's strided shape).
__global__ void trace_ticket(const char *base, long long n, long long stride, double *partials,
                             unsigned *counter, double *out) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    double t = i < n ? *(const double *)(base + i * stride) : 0.0;
    t = block_sum(t);
    if (!last_block_to_finish(t, partials, counter)) return;
    double total = threadIdx.x < gridDim.x ? __ldcg(&partials[threadIdx.x]) : 0.0;
    total = block_sum(total);
    if (threadIdx.x == 0) { *out = total; *counter = 0; }
}

// One cluster of 8 blocks x 512, the blocks' totals added through distributed
// shared memory (no partials in global memory, no fence, no ticket).
__global__ void trace_cluster(const char *base, long long n, long long stride, double *out) {
    double t = 0;
    for (long long i = (long long)blockIdx.x * 512 + threadIdx.x; i < n; i += 8 * 512)
        t += *(const double *)(base + i * stride);
    t = block_sum(t);
    __shared__ double total;
    if (threadIdx.x == 0) total = t;
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();
    if (cluster.block_rank() == 0 && threadIdx.x == 0) {
        double sum = 0;
        for (unsigned r = 0; r < 8; ++r) sum += *cluster.map_shared_rank(&total, r);
        *out = sum;
    }
    cluster.sync();
}

__global__ void add_one(const double *a, const double *b, double *o) {
    pdl_wait();
    if (threadIdx.x == 0) o[0] = a[0] + b[0];
}

// The library's tile shape, dividing (the slowest of the four operations).
template <int U>
__global__ void divide_tiles(const D2 *a, const D2 *b, D2 *o, long long groups) {
    pdl_wait();
    long long base = (long long)blockIdx.x * blockDim.x * U + threadIdx.x;
    D2 va[U], vb[U];
#pragma unroll
    for (int k = 0; k < U; ++k) if (base + k * blockDim.x < groups) { va[k] = a[base + k * blockDim.x]; vb[k] = b[base + k * blockDim.x]; }
#pragma unroll
    for (int k = 0; k < U; ++k) if (base + k * blockDim.x < groups) o[base + k * blockDim.x] = D2{va[k].x / vb[k].x, va[k].y / vb[k].y};
}

int main() {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const long long side = 4096, nbig = 100000000LL;
    double *m, *a, *b, *o, *res, *partials;
    unsigned *counter;
    CHECK(cudaMalloc(&m, side * side * 8));
    CHECK(cudaMemset(m, 0, side * side * 8));
    CHECK(cudaMalloc(&a, nbig * 8));
    CHECK(cudaMalloc(&b, nbig * 8));
    CHECK(cudaMalloc(&o, nbig * 8));
    CHECK(cudaMemset(a, 0x3f, nbig * 8));
    CHECK(cudaMemset(b, 0x40, nbig * 8));
    CHECK(cudaMalloc(&res, 64));
    CHECK(cudaMalloc(&partials, 4096 * 8));
    CHECK(cudaMalloc(&counter, 64));
    CHECK(cudaMemset(counter, 0, 64));
    const long long stride = (side + 1) * 8;
    const int K = 3000;

    std::printf("== trace 4096x4096 float64, launch + cudaStreamSynchronize (host clock) ==\n");
    std::printf("%-52s %7.2f us\n", "empty-ish kernel (add n=1) <<<>>> + sync",
                host_us(K, [&] { add_one<<<1, 32, 0, s>>>(a, b, o); cudaStreamSynchronize(s); }));
    std::printf("%-52s %7.2f us\n", "same, cudaLaunchKernelEx with PDL attribute + sync",
                host_us(K, [&] { launch_pdl(s, 1, 32, add_one, (const double *)a, (const double *)b, o); cudaStreamSynchronize(s); }));
    std::printf("%-52s %7.2f us\n", "<<<>>> host cost alone (no sync)",
                host_us(K, [&] { add_one<<<1, 32, 0, s>>>(a, b, o); }));
    cudaStreamSynchronize(s);
    std::printf("%-52s %7.2f us\n", "cudaLaunchKernelEx + PDL host cost alone",
                host_us(K, [&] { launch_pdl(s, 1, 32, add_one, (const double *)a, (const double *)b, o); }));
    cudaStreamSynchronize(s);
    std::printf("%-52s %7.2f us\n", "ticket, 16 blocks x 256 (library shape)",
                host_us(K, [&] { trace_ticket<<<16, 256, 0, s>>>((const char *)m, side, stride, partials, counter, res); cudaStreamSynchronize(s); }));
    std::printf("%-52s %7.2f us\n", "cluster of 8 blocks x 512, DSMEM total",
                host_us(K, [&] {
                    cudaLaunchConfig_t cfg = {};
                    cfg.gridDim = dim3(8);
                    cfg.blockDim = dim3(512);
                    cfg.stream = s;
                    cudaLaunchAttribute attr[1];
                    attr[0].id = cudaLaunchAttributeClusterDimension;
                    attr[0].val.clusterDim.x = 8;
                    attr[0].val.clusterDim.y = 1;
                    attr[0].val.clusterDim.z = 1;
                    cfg.attrs = attr;
                    cfg.numAttrs = 1;
                    cudaLaunchKernelEx(&cfg, trace_cluster, (const char *)m, side, stride, res);
                    cudaStreamSynchronize(s);
                }));
    std::printf("%-52s %7.2f us\n", "ticket, 16 blocks x 256 (again, for drift)",
                host_us(K, [&] { trace_ticket<<<16, 256, 0, s>>>((const char *)m, side, stride, partials, counter, res); cudaStreamSynchronize(s); }));
    std::printf("%-52s %7.2f us\n", "one block 1024 x 4 loads",
                host_us(K, [&] { trace_one_block<1024, 4><<<1, 1024, 0, s>>>((const char *)m, side, stride, res); cudaStreamSynchronize(s); }));
    std::printf("%-52s %7.2f us\n", "one block 512 x 8 loads",
                host_us(K, [&] { trace_one_block<512, 8><<<1, 512, 0, s>>>((const char *)m, side, stride, res); cudaStreamSynchronize(s); }));
    std::printf("%-52s %7.2f us\n", "one block 256 x 16 loads",
                host_us(K, [&] { trace_one_block<256, 16><<<1, 256, 0, s>>>((const char *)m, side, stride, res); cudaStreamSynchronize(s); }));
    double r = 0;
    va_array v = {};
    v.data = m;
    v.dtype = VA_FLOAT64;
    v.ndim = 2;
    v.shape[0] = v.shape[1] = side;
    v.strides[0] = side * 8;
    v.strides[1] = 8;
    std::printf("%-52s %7.2f us\n", "va_trace (library today)", host_us(K, [&] { va_trace(0, &v, &r); }));

    std::printf("\n== divide, tiles with PDL, back to back (events), 8 rotating sets ==\n");
    for (long long n : {1000000LL, 1LL << 26, nbig}) {
        const long long g = n / 2;
        const int sets = n <= 1000000 ? 8 : 1;
        auto at = [&](double *p, int i) { return (D2 *)(p + (long long)(i % sets) * 12 * 1000000); };
        for (int u : {1, 2, 4}) {
            auto kernel = u == 1 ? divide_tiles<1> : u == 2 ? divide_tiles<2> : divide_tiles<4>;
            unsigned grid = (unsigned)((g + 256 * u - 1) / (256 * u));
            double us = event_us(s, n <= 1000000 ? 200 : 20, [&](int i) {
                launch_pdl(s, grid, 256, kernel, (const D2 *)at(a, i), (const D2 *)at(b, i), at(o, i), g);
            });
            std::printf("n=%-10lld U%d + PDL %36s %8.2f us %6.2f TB/s\n", n, u, "", us, 24.0 * n / us / 1e6);
        }
    }
    va_shutdown();
    return 0;
}
