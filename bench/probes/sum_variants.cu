// Probe (session 22): the full sum of 1e8 float64 (and 2^26 complex128) on the
// device, the library's kernel against CUB's DeviceReduce (what CuPy runs) and
// against variants of the library's kernel shape: packs in flight per thread (U),
// threads a block, waves of blocks, and the load's cache hints (plain; .cs
// streaming; L1 no-allocate with a 256-byte L2 prefetch). Each timed by CUDA
// events over 50 back-to-back launches, median of 7, the variants interleaved
// round by round. bench/NOTES.md records the outcome.
// Session 23 added tiles dealt round-robin to the blocks (tile t to block
// t % grid) beside the contiguous run per block, and every variant run over the
// complex128 bytes too (2^30 bytes: a power of two, as the H100's 1e8 was not).
// Build and run (from the repository root, after `make lib CUDA_ARCH=90`):
//   nvcc -O3 -std=c++17 -arch=sm_90 bench/probes/sum_variants.cu -IvectorAdd \
//        build/libvectoradd.a -o /tmp/sumv && /tmp/sumv
#include <cub/cub.cuh>

#include <string>

#include "probe_common.cuh"
#include "probe_views.cuh"

enum Hint { kPlain, kStreaming, kNoAllocate256 };

template <int H>
__device__ __forceinline__ double2 load2(const double2 *p) {
    if constexpr (H == kPlain) return *p;
    else if constexpr (H == kStreaming) return __ldcs(p);
    else {
        double2 v;
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v2.f64 {%0, %1}, [%2];"
                     : "=d"(v.x), "=d"(v.y) : "l"(p));
        return v;
    }
}

// Complex: the pair is one element (re, im) and adds as a pair; real: two elements.
template <int U, int Threads, int H, bool RoundRobin>
__global__ void __launch_bounds__(Threads) sum_packs(const double2 *packs, long long groups, long long span,
                                                     double2 *partials, unsigned *counter, double2 *result) {
    double2 acc[U];
#pragma unroll
    for (int k = 0; k < U; ++k) acc[k] = {0.0, 0.0};
    if constexpr (RoundRobin) {
        const long long tile = (long long)Threads * U, whole = groups / tile;
        long long t = blockIdx.x;
        for (; t < whole; t += gridDim.x) {
            const long long base = t * tile + threadIdx.x;
            double2 p[U];
#pragma unroll
            for (int k = 0; k < U; ++k) p[k] = load2<H>(packs + base + k * Threads);
#pragma unroll
            for (int k = 0; k < U; ++k) acc[k].x += p[k].x, acc[k].y += p[k].y;
        }
        if (t == whole)
            for (long long base = whole * tile + threadIdx.x; base < groups; base += Threads) {
                const double2 p = load2<H>(packs + base);
                acc[0].x += p.x, acc[0].y += p.y;
            }
    } else {
        const long long begin = (long long)blockIdx.x * span;
        const long long end = begin + span < groups ? begin + span : groups;
        long long base = begin + threadIdx.x;
        // Whole tiles unguarded, then the guarded rest.
        for (; base + (long long)(U - 1) * Threads < end; base += (long long)Threads * U) {
            double2 p[U];
#pragma unroll
            for (int k = 0; k < U; ++k) p[k] = load2<H>(packs + base + k * Threads);
#pragma unroll
            for (int k = 0; k < U; ++k) acc[k].x += p[k].x, acc[k].y += p[k].y;
        }
        for (; base < end; base += Threads) {
            const double2 p = load2<H>(packs + base);
            acc[0].x += p.x, acc[0].y += p.y;
        }
    }
    double2 v = acc[0];
#pragma unroll
    for (int k = 1; k < U; ++k) v.x += acc[k].x, v.y += acc[k].y;
    __shared__ double2 warp_sums[Threads / 32];
    for (int off = 16; off > 0; off >>= 1) {
        v.x += __shfl_down_sync(0xffffffffu, v.x, off);
        v.y += __shfl_down_sync(0xffffffffu, v.y, off);
    }
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    __shared__ bool last;
    if (threadIdx.x == 0) {
        double2 t = {0.0, 0.0};
        for (int w = 0; w < Threads / 32; ++w) t.x += warp_sums[w].x, t.y += warp_sums[w].y;
        partials[blockIdx.x] = t;
        __threadfence();
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();  // warp_sums are read before the last block reuses them
    if (!last) return;
    // The last block adds the partials, every thread a share, then as above.
    double2 t = {0.0, 0.0};
    for (unsigned b = threadIdx.x; b < gridDim.x; b += Threads) {
        const double2 q = __ldcg(partials + b);
        t.x += q.x, t.y += q.y;
    }
    for (int off = 16; off > 0; off >>= 1) {
        t.x += __shfl_down_sync(0xffffffffu, t.x, off);
        t.y += __shfl_down_sync(0xffffffffu, t.y, off);
    }
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = t;
    __syncthreads();
    if (threadIdx.x == 0) {
        double2 u = {0.0, 0.0};
        for (int w = 0; w < Threads / 32; ++w) u.x += warp_sums[w].x, u.y += warp_sums[w].y;
        *result = u;
        *counter = 0;
    }
}

struct Variant {
    std::string name;
    void (*kernel)(const double2 *, long long, long long, double2 *, unsigned *, double2 *);
    int threads, u, waves;
};

template <int U, int Threads, int H, bool RoundRobin = false>
Variant variant(const char *hint, int waves) {
    char name[96];
    std::snprintf(name, sizeof(name), "U%d x %d threads, %d wave(s), %s%s", U, Threads, waves, hint,
                  RoundRobin ? ", round-robin" : "");
    return {name, sum_packs<U, Threads, H, RoundRobin>, Threads, U, waves};
}

int main() {
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    void *lib_stream = nullptr;
    if (va_stream(0, &lib_stream) != VA_SUCCESS) return 1;
    cudaStream_t s = (cudaStream_t)lib_stream;
    const long long n = 100000000;  // float64 elements (1e8); complex128: n / 2 elements... see below
    double *data = nullptr, *out = nullptr;
    double2 *partials = nullptr;
    unsigned *counter = nullptr;
    CHECK(cudaMalloc(&data, n * 8));
    CHECK(cudaMalloc(&out, 64));
    CHECK(cudaMalloc(&partials, 65536 * sizeof(double2)));
    CHECK(cudaMalloc(&counter, 4));
    CHECK(cudaMemset(counter, 0, 4));
    {
        std::vector<double> h(n);
        for (long long i = 0; i < n; ++i) h[i] = (double)((i * 2654435761u) % 1000) * 1e-3;
        CHECK(cudaMemcpy(data, h.data(), n * 8, cudaMemcpyHostToDevice));
    }
    const long long groups = n / 2;
    std::vector<Variant> vs = {
        variant<4, 256, kPlain>("plain", 1),
        variant<4, 256, kStreaming>("streaming", 1),
        variant<4, 256, kNoAllocate256>("L1 no-allocate, L2 256B", 1),
        variant<8, 256, kPlain>("plain", 1),
        variant<8, 256, kNoAllocate256>("L1 no-allocate, L2 256B", 1),
        variant<4, 512, kPlain>("plain", 1),
        variant<4, 256, kPlain>("plain", 2),
        variant<4, 256, kStreaming>("streaming", 2),
        variant<8, 256, kPlain>("plain", 2),
        variant<8, 256, kStreaming>("streaming", 2),
        variant<8, 256, kNoAllocate256>("L1 no-allocate, L2 256B", 2),
        variant<4, 256, kPlain, true>("plain", 1),
        variant<4, 256, kStreaming, true>("streaming", 1),
        variant<8, 256, kPlain, true>("plain", 1),
        variant<8, 256, kStreaming, true>("streaming", 1),
        variant<8, 256, kNoAllocate256, true>("L1 no-allocate, L2 256B", 1),
        variant<4, 256, kPlain, true>("plain", 2),
        variant<8, 256, kPlain, true>("plain", 2),
        variant<8, 256, kStreaming, true>("streaming", 2),
    };
    // CUB, as CuPy calls it.
    void *cub_tmp = nullptr;
    size_t cub_bytes = 0;
    cub::DeviceReduce::Sum(nullptr, cub_bytes, data, out, n, s);
    CHECK(cudaMalloc(&cub_tmp, cub_bytes));
    va_op sum;
    if (va_op_find("sum", &sum) != VA_SUCCESS) return 1;
    const va_array a = va_vector(data, VA_FLOAT64, n);
    const va_array r = va_scalar_view(out + 4, VA_FLOAT64);
    const int32_t axis0 = 0;
    // complex128 of 2^26 elements: 1 GiB, the same bytes as CUB's sum over
    // the same memory read as pairs.
    const long long nc = 1LL << 26;
    double *cdata = nullptr;
    CHECK(cudaMalloc(&cdata, nc * 16));
    // The same kind of values as the real input (a memset's zeros could move less power).
    for (long long off = 0; off < 2 * nc; off += n)
        CHECK(cudaMemcpy(cdata + off, data, std::min(n, 2 * nc - off) * 8, cudaMemcpyDeviceToDevice));
    const va_array ca = va_vector(cdata, VA_COMPLEX128, nc);
    const va_array cr = va_scalar_view(out + 6, VA_COMPLEX128);

    struct Row { std::string name; std::vector<double> us; };
    std::vector<Row> rows;
    auto add_row = [&](const std::string &name) { rows.push_back({name, {}}); return rows.size() - 1; };
    const size_t r_cub = add_row("CUB DeviceReduce::Sum, 1e8 float64");
    const size_t r_lib = add_row("library va_reduce_axes sum, 1e8 float64");
    std::vector<size_t> r_v;
    for (const Variant &v : vs) r_v.push_back(add_row(v.name + ", 1e8 float64"));
    const size_t r_ccub = add_row("CUB DeviceReduce::Sum of 2^27 doubles (the complex128 bytes)");
    const size_t r_clib = add_row("library va_reduce_axes sum, 2^26 complex128");
    std::vector<size_t> r_cv;
    for (const Variant &v : vs) r_cv.push_back(add_row(v.name + ", pairs of 2^26 complex128"));
    const int k = 50;
    auto launch_variant = [&](const Variant &v, const double2 *p, long long g) {
        const long long step = (long long)v.threads * v.u;
        int per_sm = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.kernel, v.threads, 0);
        const long long wave = (long long)sms * per_sm * v.waves;
        const long long blocks = std::max(1LL, std::min((g + step - 1) / step, wave));
        const long long span = std::max(step, ((g + blocks - 1) / blocks + step - 1) / step * step);
        const long long grid = (g + span - 1) / span;
        v.kernel<<<(unsigned)grid, v.threads, 0, s>>>(p, g, span, partials, counter, (double2 *)out);
    };
    for (int round = 0; round < 7; ++round) {
        rows[r_cub].us.push_back(event_us(s, k, [&](int) { cub::DeviceReduce::Sum(cub_tmp, cub_bytes, data, out, n, s); }));
        rows[r_lib].us.push_back(event_us(s, k, [&](int) { va_reduce_axes(0, sum, &a, 1, &axis0, &r); }));
        for (size_t i = 0; i < vs.size(); ++i)
            rows[r_v[i]].us.push_back(event_us(s, k, [&](int) { launch_variant(vs[i], (const double2 *)data, groups); }));
        rows[r_ccub].us.push_back(event_us(s, k, [&](int) { cub::DeviceReduce::Sum(cub_tmp, cub_bytes, cdata, out, 2 * nc, s); }));
        rows[r_clib].us.push_back(event_us(s, k, [&](int) { va_reduce_axes(0, sum, &ca, 1, &axis0, &cr); }));
        for (size_t i = 0; i < vs.size(); ++i)
            rows[r_cv[i]].us.push_back(event_us(s, k, [&](int) { launch_variant(vs[i], (const double2 *)cdata, nc); }));
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGetLastError());
    double got[8];
    CHECK(cudaMemcpy(got, out, 64, cudaMemcpyDeviceToHost));
    std::printf("%-70s %10s %10s\n", "case (events, 50 back to back)", "median us", "best us");
    for (Row &row : rows) {
        std::sort(row.us.begin(), row.us.end());
        std::printf("%-70s %10.2f %10.2f\n", row.name.c_str(), row.us[row.us.size() / 2], row.us[0]);
    }
    std::printf("results: cub/variant pair %.6f %.6f, library %.6f\n", got[0], got[1], got[4]);
    return 0;
}
