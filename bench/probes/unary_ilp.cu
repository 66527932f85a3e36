// Issue 25 probe: why PyTorch's float64 arctan (and arcsin, log1p) runs at the copy
// ceiling while ours runs at 70 % of it, and why its 8-byte-in, 1-byte-out kernels
// (isnan, x > c) beat ours by 10 %. Our contiguous kernel gives each thread one
// 16-byte pack (2 doubles) and each block one tile of 256 packs. The variants here
// give each thread U packs of G elements, the packs of a thread 256 packs apart
// (coalesced), loads issued before any math. Same data, CUDA events, median of 15.
// Build: nvcc -O3 -std=c++17 -arch=native unary_ilp.cu -o unary_ilp
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

constexpr int kThreads = 256;

template <typename T, int G>
struct alignas(sizeof(T) * G) Pack {
    T v[G];
};

struct Atan { __device__ double operator()(double x) const { return atan(x); } using Out = double; };
struct Asin { __device__ double operator()(double x) const { return asin(x); } using Out = double; };
struct Log1p { __device__ double operator()(double x) const { return log1p(x); } using Out = double; };
struct Acos { __device__ double operator()(double x) const { return acos(0.25 * x); } using Out = double; };
struct Sinh { __device__ double operator()(double x) const { return sinh(x); } using Out = double; };
struct Asinh { __device__ double operator()(double x) const { return asinh(x); } using Out = double; };
struct Tanh { __device__ double operator()(double x) const { return tanh(x); } using Out = double; };
struct Atanh { __device__ double operator()(double x) const { return atanh(0.25 * x); } using Out = double; };
struct Acosh { __device__ double operator()(double x) const { return acosh(1.0 + fabs(x)); } using Out = double; };
struct Copy { __device__ double operator()(double x) const { return x; } using Out = double; };
struct IsFinite { __device__ bool operator()(double x) const { return isfinite(x); } using Out = bool; };
struct Greater { __device__ bool operator()(double x) const { return x > -10.0; } using Out = bool; };

template <typename Op, int G, int U>
__global__ void __launch_bounds__(kThreads) unary(const double *in, typename Op::Out *out, int64_t n) {
    using Out = typename Op::Out;
    const int64_t groups = n / G;
    const int64_t base = static_cast<int64_t>(blockIdx.x) * kThreads * U + threadIdx.x;
    Pack<double, G> p[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const int64_t g = base + static_cast<int64_t>(u) * kThreads;
        if (g < groups) p[u] = reinterpret_cast<const Pack<double, G> *>(in)[g];
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
        const int64_t g = base + static_cast<int64_t>(u) * kThreads;
        Pack<Out, G> r;
#pragma unroll
        for (int j = 0; j < G; ++j) r.v[j] = Op{}(p[u].v[j]);
        if (g < groups) reinterpret_cast<Pack<Out, G> *>(out)[g] = r;
    }
}

// PyTorch's shape (its vectorized_elementwise_kernel, session 25's ncu: 128 threads, four
// 16-byte packs a thread, 46 registers): B threads a block, U packs of G a thread B packs
// apart, 32-bit positions, and no bounds test in the blocks that are whole.
template <typename Op, int G, int U, int B>
__global__ void __launch_bounds__(B) unary_blocked(const double *in, typename Op::Out *out, int groups) {
    using Out = typename Op::Out;
    const int base = static_cast<int>(blockIdx.x) * B * U + static_cast<int>(threadIdx.x);
    const auto *src = reinterpret_cast<const Pack<double, G> *>(in);
    auto *dst = reinterpret_cast<Pack<Out, G> *>(out);
    Pack<double, G> p[U];
    if ((static_cast<int>(blockIdx.x) + 1) * B * U <= groups) {
#pragma unroll
        for (int u = 0; u < U; ++u) p[u] = src[base + u * B];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            Pack<Out, G> r;
#pragma unroll
            for (int j = 0; j < G; ++j) r.v[j] = Op{}(p[u].v[j]);
            dst[base + u * B] = r;
        }
        return;
    }
    for (int u = 0; u < U; ++u) {
        const int g = base + u * B;
        if (g >= groups) return;
        Pack<Out, G> r;
        const Pack<double, G> q = src[g];
#pragma unroll
        for (int j = 0; j < G; ++j) r.v[j] = Op{}(q.v[j]);
        dst[g] = r;
    }
}

// Median us of 15 rounds (after 2 warm-up rounds) of 5 back-to-back launch() calls.
template <typename Launch>
float median_us(Launch launch) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> t;
    for (int r = 0; r < 17; ++r) {
        cudaEventRecord(a);
        for (int k = 0; k < 5; ++k) launch();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        if (r >= 2) t.push_back(ms * 1000.0f / 5);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <typename Op, int G, int U, int B>
float time_blocked(const double *in, void *out, int64_t n) {
    using Out = typename Op::Out;
    const int groups = static_cast<int>(n / G);
    const unsigned blocks = static_cast<unsigned>((groups + B * U - 1) / (B * U));
    return median_us([&] { unary_blocked<Op, G, U, B><<<blocks, B>>>(in, static_cast<Out *>(out), groups); });
}

template <typename Op>
void blocked_row(const char *name, const double *in, void *out, int64_t n) {
    std::printf("%-9s", name);
#define W(G, U, B) std::printf("  G%dU%dB%d %7.1f", G, U, B, time_blocked<Op, G, U, B>(in, out, n));
    W(2, 1, 256) W(2, 2, 128) W(2, 4, 128) W(2, 4, 256) W(2, 8, 128) W(1, 8, 128) W(4, 2, 128)
#undef W
    std::printf("   (blocked, us)\n");
}

template <typename Op, int G, int U>
float time_variant(const double *in, void *out, int64_t n) {
    using Out = typename Op::Out;
    const int64_t groups = n / G;
    const unsigned blocks = static_cast<unsigned>((groups + kThreads * U - 1) / (kThreads * U));
    return median_us([&] { unary<Op, G, U><<<blocks, kThreads>>>(in, static_cast<Out *>(out), n); });
}

template <typename Op>
void row(const char *name, const double *in, void *out, int64_t n) {
    std::printf("%-9s", name);
#define V(G, U) std::printf("  G%dU%d %7.1f", G, U, time_variant<Op, G, U>(in, out, n));
    V(2, 1) V(2, 2) V(2, 4) V(4, 1) V(4, 2) V(8, 1) V(16, 1)
#undef V
    std::printf("   (us, median of 15 x 5 launches)\n");
}

int main() {
    const int64_t n = int64_t(1) << 26;
    std::vector<double> host(n);
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int64_t i = 0; i < n; ++i) {  // standard-normal-ish: sum of uniforms, centred
        double acc = 0;
        for (int k = 0; k < 4; ++k) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            acc += static_cast<double>(s >> 11) * (1.0 / 9007199254740992.0);
        }
        host[i] = (acc - 2.0) * 1.7320508075688772;
    }
    double *in = nullptr;
    void *out = nullptr;
    if (cudaMalloc(&in, n * sizeof(double)) != cudaSuccess || cudaMalloc(&out, n * sizeof(double)) != cudaSuccess) {
        std::printf("cudaMalloc failed\n");
        return 1;
    }
    cudaMemcpy(in, host.data(), n * sizeof(double), cudaMemcpyHostToDevice);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    std::printf("%s, n = 2^26 float64; G: elements a pack, U: packs a thread (ours today: G2U1 for "
                "both kinds)\n", prop.name);
    row<Copy>("copy", in, out, n);
    row<Atan>("arctan", in, out, n);
    row<Asin>("arcsin", in, out, n);
    row<Log1p>("log1p", in, out, n);
    row<Sinh>("sinh", in, out, n);
    row<Asinh>("arcsinh", in, out, n);
    row<Tanh>("tanh", in, out, n);
    row<Atanh>("atanh/4", in, out, n);
    row<Acosh>("acosh1+|", in, out, n);
    // PyTorch's shape and its neighbours (session 25), the functions that run past the copy rate.
    blocked_row<Copy>("copy", in, out, n);
    blocked_row<Sinh>("sinh", in, out, n);
    blocked_row<Acos>("arccos", in, out, n);
    blocked_row<Atan>("arctan", in, out, n);
    row<IsFinite>("isfinite", in, out, n);
    row<Greater>("x>-10", in, out, n);
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("status: %s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
