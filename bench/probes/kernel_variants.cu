// Probe: candidate shapes of the contiguous elementwise and sum kernels, timed
// with CUDA events on one GPU in one run (bench/NOTES.md records the outcome).
// Build and run: nvcc -O3 -arch=sm_90 -std=c++17 kernel_variants.cu -o kv && ./kv
#include "probe_common.cuh"

// A: grid-stride, U packs in flight per thread (the library's current shape).
template <int U>
__global__ void add_gridstride(const D2 *a, const D2 *b, D2 *o, long long groups) {
    long long nt = (long long)gridDim.x * blockDim.x, tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long base = tid; base < groups; base += nt * U) {
        D2 va[U], vb[U];
#pragma unroll
        for (int k = 0; k < U; ++k) if (base + k * nt < groups) { va[k] = a[base + k * nt]; vb[k] = b[base + k * nt]; }
#pragma unroll
        for (int k = 0; k < U; ++k) if (base + k * nt < groups) o[base + k * nt] = D2{va[k].x + vb[k].x, va[k].y + vb[k].y};
    }
}

// B: one block per tile of U*256 packs, no loop: many waves, like CuPy's shape
// (add_tiles, probe_common.cuh).

// C: plain scalar one element per thread (CuPy's elementwise).
__global__ void add_scalar(const double *a, const double *b, double *o, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = a[i] + b[i];
}

template <typename F>
float time_it(F launch) {
    cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
    for (int i = 0; i < 3; ++i) launch();
    std::vector<float> t;
    for (int r = 0; r < 15; ++r) {
        cudaEventRecord(s); launch(); cudaEventRecord(e); cudaEventSynchronize(e);
        float ms; cudaEventElapsedTime(&ms, s, e); t.push_back(ms * 1000.f);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main() {
    int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    for (long long n : {1LL << 26, 100000000LL, 1000000LL}) {
        double *a, *b, *o;
        CHECK(cudaMalloc(&a, n * 8)); CHECK(cudaMalloc(&b, n * 8)); CHECK(cudaMalloc(&o, n * 8));
        cudaMemset(a, 1, n * 8); cudaMemset(b, 2, n * 8);
        long long g = n / 2;
        double bytes = 3.0 * n * 8;
        auto report = [&](const char *name, float us) { std::printf("n=%lld %-34s %9.1f us %6.2f TB/s\n", n, name, us, bytes / us / 1e6); };
        int per_sm = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, add_gridstride<4>, 256, 0);
        report("gridstride U4 occupancy grid", time_it([&] { add_gridstride<4><<<std::min<long long>(sms * per_sm, g / 1024 + 1), 256>>>((D2*)a, (D2*)b, (D2*)o, g); }));
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, add_gridstride<2>, 256, 0);
        report("gridstride U2 occupancy grid", time_it([&] { add_gridstride<2><<<std::min<long long>(sms * per_sm, g / 512 + 1), 256>>>((D2*)a, (D2*)b, (D2*)o, g); }));
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, add_gridstride<1>, 256, 0);
        report("gridstride U1 occupancy grid", time_it([&] { add_gridstride<1><<<std::min<long long>(sms * per_sm, g / 256 + 1), 256>>>((D2*)a, (D2*)b, (D2*)o, g); }));
        report("tiles U1 (one pack a thread)", time_it([&] { add_tiles<1><<<(g + 255) / 256, 256>>>((D2*)a, (D2*)b, (D2*)o, g); }));
        report("tiles U2", time_it([&] { add_tiles<2><<<(g + 511) / 512, 256>>>((D2*)a, (D2*)b, (D2*)o, g); }));
        report("tiles U4", time_it([&] { add_tiles<4><<<(g + 1023) / 1024, 256>>>((D2*)a, (D2*)b, (D2*)o, g); }));
        report("scalar one element a thread", time_it([&] { add_scalar<<<(n + 255) / 256, 256>>>(a, b, o, n); }));
        report("cudaMemcpy D2D (2n*8 bytes moved)", time_it([&] { cudaMemcpyAsync(o, a, n * 8, cudaMemcpyDeviceToDevice); }) * 1.5f);
        cudaFree(a); cudaFree(b); cudaFree(o);
    }
    return 0;
}
