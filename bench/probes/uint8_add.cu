// Probe (session 33): why add of uint8, n = 2^28, moves 3.6 TB/s (0.86x the run's
// copy ceiling) where PyTorch moves 4.2 and float64 add reaches the ceiling. The
// library's kernel takes one 16-byte pack (16 elements) a thread and tests, per
// element, whether each input is a broadcast scalar. Variants of the same tile
// shape (256 threads, one block per tile of U x 256 packs), timed with CUDA events
// over back-to-back launches (median of 7 rounds), interleaved with the library's
// own call and a D2D copy:
//  - plain<U>: U packs a thread, the bytes added one by one as the compiler likes;
//  - masked: U = 1 with the library's per-element scalar select (a runtime mask);
//  - vadd4: U = 1, four bytes an instruction (__vadd4).
// Build and run (from the repository root, after `make lib CUDA_ARCH=90`):
//   nvcc -O3 -std=c++17 -arch=sm_90 bench/probes/uint8_add.cu -IvectorAdd \
//        build/release-sm_90/libvectoradd.a -o /tmp/u8 && /tmp/u8
#include <cstdint>
#include <functional>

#include "probe_common.cuh"
#include "probe_views.cuh"

struct alignas(16) B16 { uint8_t v[16]; };

template <int U>
__global__ void __launch_bounds__(256) plain(const B16 *a, const B16 *b, B16 *o, long long packs) {
    const long long base = (long long)blockIdx.x * 256 * U + threadIdx.x;
    B16 x[U], y[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
        if (base + u * 256 < packs) { x[u] = a[base + u * 256]; y[u] = b[base + u * 256]; }
#pragma unroll
    for (int u = 0; u < U; ++u) {
        if (base + u * 256 >= packs) continue;
        B16 r;
#pragma unroll
        for (int j = 0; j < 16; ++j) r.v[j] = (uint8_t)(x[u].v[j] + y[u].v[j]);
        o[base + u * 256] = r;
    }
}

__global__ void __launch_bounds__(256) masked(const B16 *a, const B16 *b, B16 *o, long long packs,
                                              unsigned mask) {
    const long long g = (long long)blockIdx.x * 256 + threadIdx.x;
    if (g >= packs) return;
    const B16 x = a[g], y = b[g];
    const uint8_t fa = *reinterpret_cast<const uint8_t *>(a), fb = *reinterpret_cast<const uint8_t *>(b);
    B16 r;
#pragma unroll
    for (int j = 0; j < 16; ++j) {
        const uint8_t p = (mask & 1u) ? fa : x.v[j];
        const uint8_t q = (mask & 2u) ? fb : y.v[j];
        r.v[j] = (uint8_t)(p + q);
    }
    o[g] = r;
}

__global__ void __launch_bounds__(256) vadd4(const uint4 *a, const uint4 *b, uint4 *o, long long packs) {
    const long long g = (long long)blockIdx.x * 256 + threadIdx.x;
    if (g >= packs) return;
    const uint4 x = a[g], y = b[g];
    o[g] = make_uint4(__vadd4(x.x, y.x), __vadd4(x.y, y.y), __vadd4(x.z, y.z), __vadd4(x.w, y.w));
}

__global__ void fill(uint8_t *p, long long n, unsigned seed) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        p[i] = (uint8_t)((i * 2654435761u) >> 13 ^ seed);
}

#define VA_OK(x) do { va_status st_ = (x); if (st_ != VA_SUCCESS) { \
    std::printf("%s:%d status %d\n", __FILE__, __LINE__, (int)st_); return 1; } } while (0)

int main() {
    const long long n = 1LL << 28, packs = n / 16;
    void *a = nullptr, *b = nullptr, *o = nullptr, *ref = nullptr;
    VA_OK(va_malloc(0, n, &a));
    VA_OK(va_malloc(0, n, &b));
    VA_OK(va_malloc(0, n, &o));
    VA_OK(va_malloc(0, n, &ref));
    void *ls = nullptr;
    VA_OK(va_stream(0, &ls));
    cudaStream_t s = (cudaStream_t)ls;
    fill<<<1024, 256, 0, s>>>((uint8_t *)a, n, 7);
    fill<<<1024, 256, 0, s>>>((uint8_t *)b, n, 99);
    va_op add;
    VA_OK(va_op_find("add", &add));
    const va_array va = va_vector(a, VA_UINT8, n), vb = va_vector(b, VA_UINT8, n), vo = va_vector(o, VA_UINT8, n),
                   vr = va_vector(ref, VA_UINT8, n);
    VA_OK(va_binary(0, add, &va, &vb, &vr));
    CHECK(cudaStreamSynchronize(s));
    const unsigned grid1 = (unsigned)((packs + 255) / 256);
    const auto *A = (const B16 *)a, *B = (const B16 *)b;
    auto *O = (B16 *)o;
    struct Row { const char *name; std::vector<double> us; };
    std::vector<Row> rows = {{"library add (va_binary)", {}}, {"D2D copy of one input (cudaMemcpyAsync)", {}},
                             {"plain U=1", {}}, {"plain U=2", {}}, {"plain U=4", {}},
                             {"masked U=1 (mask 0 at run time)", {}}, {"vadd4 U=1", {}}};
    const int k = 20;
    int bad = 0;
    for (int round = 0; round < 3; ++round) {
        rows[0].us.push_back(event_us(s, k, [&](int) { va_binary(0, add, &va, &vb, &vo); }));
        rows[1].us.push_back(event_us(s, k, [&](int) { cudaMemcpyAsync(o, a, n, cudaMemcpyDeviceToDevice, s); }));
        const std::vector<std::function<void()>> kernels = {
            [&] { plain<1><<<grid1, 256, 0, s>>>(A, B, O, packs); },
            [&] { plain<2><<<(grid1 + 1) / 2, 256, 0, s>>>(A, B, O, packs); },
            [&] { plain<4><<<(grid1 + 3) / 4, 256, 0, s>>>(A, B, O, packs); },
            [&] { masked<<<grid1, 256, 0, s>>>(A, B, O, packs, 0u); },
            [&] { vadd4<<<grid1, 256, 0, s>>>((const uint4 *)a, (const uint4 *)b, (uint4 *)o, packs); }};
        for (size_t i = 0; i < kernels.size(); ++i) {
            cudaMemsetAsync(o, 0, n, s);
            rows[2 + i].us.push_back(event_us(s, k, [&](int) { kernels[i](); }));
            CHECK(cudaStreamSynchronize(s));
            // every variant's result against the library's
            std::vector<uint8_t> h1(4096), h2(4096);
            CHECK(cudaMemcpy(h1.data(), (uint8_t *)o + n - 4096, 4096, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(h2.data(), (uint8_t *)ref + n - 4096, 4096, cudaMemcpyDeviceToHost));
            bad += h1 != h2;
        }
    }
    CHECK(cudaGetLastError());
    std::printf("%-44s %s   (TB/s: bytes read + written, 3 B an element; the copy 2 B)\n", "uint8, n = 2^28",
                "us per launch, three rounds");
    for (size_t i = 0; i < rows.size(); ++i) {
        const double bytes = i == 1 ? 2.0 * n : 3.0 * n;
        std::printf("%-44s", rows[i].name);
        for (double u : rows[i].us) std::printf(" %8.1f (%4.2f TB/s)", u, bytes / u / 1e6);
        std::printf("\n");
    }
    std::printf("variants differing from the library's result: %d\n", bad);
    return 0;
}
