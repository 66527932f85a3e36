// Probe (written in session 22, not yet run): whether the load that brought the
// contiguous reductions to CUB's rate (reduce_kernels.cuh's load_streamed: past L1,
// 256-byte L2 prefetch) and more packs a thread move the elementwise rows that sit
// at 0.99-1.01x the faster peer on the H100 (add of 2^26 float64, clip). Each
// variant is the library's tile shape (one block per tile of U x 256 packs of 16
// bytes, PDL as the library launches), timed by CUDA events over 50 back-to-back
// launches, median of 7 interleaved rounds, beside the library's own add and a D2D
// copy. The in-place form (o == a) is timed too: the non-coherent load reads
// addresses the same kernel writes, which is safe only when each element is read
// by the thread that writes it, before it writes it.
// Build and run (from the repository root, after `make lib CUDA_ARCH=90`):
//   nvcc -O3 -std=c++17 -arch=sm_90 bench/probes/elementwise_loads.cu -IvectorAdd \
//        build/libvectoradd.a -o /tmp/ewl && /tmp/ewl
#include <string>

#include "probe_common.cuh"
#include "probe_views.cuh"

__device__ __forceinline__ D2 load_nc(const D2 *p) {
    D2 v;
    asm("ld.global.nc.L1::no_allocate.L2::256B.v2.f64 {%0, %1}, [%2];" : "=d"(v.x), "=d"(v.y) : "l"(p));
    return v;
}

template <int U, bool Streamed>
__global__ void add_tile(const D2 *a, const D2 *b, D2 *o, long long groups) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;");
    const long long base = (long long)blockIdx.x * blockDim.x * U + threadIdx.x;
    D2 x[U], y[U];
#pragma unroll
    for (int k = 0; k < U; ++k) {
        const long long i = base + (long long)k * blockDim.x;
        if (i < groups) {
            x[k] = Streamed ? load_nc(a + i) : a[i];
            y[k] = Streamed ? load_nc(b + i) : b[i];
        }
    }
#pragma unroll
    for (int k = 0; k < U; ++k) {
        const long long i = base + (long long)k * blockDim.x;
        if (i < groups) o[i] = D2{x[k].x + y[k].x, x[k].y + y[k].y};
    }
}

template <int U, bool Streamed>
__global__ void clip_tile(const D2 *a, D2 *o, double lo, double hi, long long groups) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;");
    const long long base = (long long)blockIdx.x * blockDim.x * U + threadIdx.x;
    D2 x[U];
#pragma unroll
    for (int k = 0; k < U; ++k) {
        const long long i = base + (long long)k * blockDim.x;
        if (i < groups) x[k] = Streamed ? load_nc(a + i) : a[i];
    }
#pragma unroll
    for (int k = 0; k < U; ++k) {
        const long long i = base + (long long)k * blockDim.x;
        if (i < groups) o[i] = D2{fmin(fmax(x[k].x, lo), hi), fmin(fmax(x[k].y, lo), hi)};
    }
}

int main() {
    void *lib_stream = nullptr;
    if (va_stream(0, &lib_stream) != VA_SUCCESS) return 1;
    cudaStream_t s = (cudaStream_t)lib_stream;
    const long long n = 1LL << 26, groups = n / 2;
    double *a = nullptr, *b = nullptr, *o = nullptr;
    CHECK(cudaMalloc(&a, n * 8));
    CHECK(cudaMalloc(&b, n * 8));
    CHECK(cudaMalloc(&o, n * 8));
    CHECK(cudaMemset(a, 0, n * 8));
    CHECK(cudaMemset(b, 0, n * 8));
    va_op add;
    if (va_op_find("add", &add) != VA_SUCCESS) return 1;
    const va_array va = va_vector(a, VA_FLOAT64, n), vb = va_vector(b, VA_FLOAT64, n),
                   vo = va_vector(o, VA_FLOAT64, n);
    const va_array in[2] = {va, vb};
    const D2 *pa = (const D2 *)a, *pb = (const D2 *)b;
    D2 *po = (D2 *)o, *inplace = (D2 *)a;
    struct Row { std::string name; std::vector<double> us; };
    std::vector<Row> rows;
    auto row = [&](const char *name) { rows.push_back({name, {}}); return rows.size() - 1; };
    const size_t r_copy = row("cudaMemcpyAsync D2D of 2^26 float64 (x 1.5: add's bytes)");
    const size_t r_lib = row("library add, 2^26 float64");
    const size_t r_u1 = row("add tile U1, plain loads");
    const size_t r_u1s = row("add tile U1, streamed loads");
    const size_t r_u2 = row("add tile U2, plain loads");
    const size_t r_u2s = row("add tile U2, streamed loads");
    const size_t r_u1s_in = row("add tile U1, streamed loads, in place (o == a)");
    const size_t r_c1 = row("clip tile U1, plain loads");
    const size_t r_c1s = row("clip tile U1, streamed loads");
    const size_t r_c2s = row("clip tile U2, streamed loads");
    const int k = 50;
    auto grid = [&](int u) { return (unsigned)((groups + 256LL * u - 1) / (256LL * u)); };
    for (int round = 0; round < 7; ++round) {
        rows[r_copy].us.push_back(1.5 * event_us(s, k, [&](int) {
            cudaMemcpyAsync(o, a, n * 8, cudaMemcpyDeviceToDevice, s);
        }));
        rows[r_lib].us.push_back(event_us(s, k, [&](int) { va_elementwise(0, add, 2, in, nullptr, &vo); }));
        rows[r_u1].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(1), 256, add_tile<1, false>, pa, pb, po, groups); }));
        rows[r_u1s].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(1), 256, add_tile<1, true>, pa, pb, po, groups); }));
        rows[r_u2].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(2), 256, add_tile<2, false>, pa, pb, po, groups); }));
        rows[r_u2s].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(2), 256, add_tile<2, true>, pa, pb, po, groups); }));
        rows[r_u1s_in].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(1), 256, add_tile<1, true>, pa, pb, inplace, groups); }));
        rows[r_c1].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(1), 256, clip_tile<1, false>, pa, po, -1.0, 1.0, groups); }));
        rows[r_c1s].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(1), 256, clip_tile<1, true>, pa, po, -1.0, 1.0, groups); }));
        rows[r_c2s].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(2), 256, clip_tile<2, true>, pa, po, -1.0, 1.0, groups); }));
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGetLastError());
    std::printf("%-60s %10s %10s\n", "case (events, 50 back to back)", "median us", "best us");
    for (Row &r : rows) {
        std::sort(r.us.begin(), r.us.end());
        std::printf("%-60s %10.2f %10.2f\n", r.name.c_str(), r.us[r.us.size() / 2], r.us[0]);
    }
    return 0;
}
