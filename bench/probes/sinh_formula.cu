// Issue 25 probe (written in session 24, not yet run on a GPU): float64 sinh runs at
// 1.04-1.07x PyTorch's time on the H200 (311-315 us for 2^26 against 294-299) in
// every shape of bench/probes/unary_ilp.cu, while exp and expm1 run at the copy
// rate (252-257 us). Does sinh written with them,
//   |x| < 0.5:        t = expm1(|x|),  (t + t / (t + 1)) / 2
//   0.5 <= |x| < 709: e = exp(|x|),    e / 2 - 0.5 / e
//   beyond:           h = exp(|x| / 2), (h / 2) * h
// (sign restored), run at the copy rate within the op's 4 ULP of NumPy? The same
// formula in NumPy with glibc's exp and expm1 stayed within 2.2 ULP of the true
// value (long double), NumPy's own sinh within 0.86. CUDA's exp and expm1 are
// documented to 1 ULP, so this probe measures both: time (CUDA events, median of 15
// x 5 launches, one 16-byte pack a thread as the library's kernel) and the largest
// ULP distance from glibc's sinh (NumPy's) and from long double sinhl. Timed by
// probe_common.cuh's event_us (median of 7 repeats of 5 back-to-back launches).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 sinh_formula.cu -o sinh_formula
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "probe_common.cuh"

constexpr int kThreads = 256;

struct LibSinh {
    __device__ double operator()(double x) const { return sinh(x); }
};

struct ExpSinh {
    __device__ double operator()(double x) const {
        const double a = fabs(x);
        double r;
        if (a < 0.5) {
            const double t = expm1(a);
            r = 0.5 * (t + t / (t + 1.0));
        } else if (a < 709.0) {
            const double e = exp(a);
            r = 0.5 * e - 0.5 / e;
        } else {
            const double h = exp(0.5 * a);
            r = (0.5 * h) * h;
        }
        return copysign(r, x);
    }
};

template <typename Op>
__global__ void __launch_bounds__(kThreads) unary(const D2 *in, D2 *out, int64_t packs) {
    const int64_t g = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    if (g >= packs) return;
    const D2 p = in[g];
    out[g] = D2{Op{}(p.x), Op{}(p.y)};
}

template <typename Op>
double time_op(const double *in, double *out, int64_t n) {
    const int64_t packs = n / 2;
    const unsigned blocks = static_cast<unsigned>((packs + kThreads - 1) / kThreads);
    return event_us(0, 5, [&](int) {
        unary<Op><<<blocks, kThreads>>>(reinterpret_cast<const D2 *>(in), reinterpret_cast<D2 *>(out), packs);
    });
}

// ULP distance of y from the reference r, counted at r's magnitude.
static double ulps(double y, long double r) {
    if (std::isnan(y) && std::isnan(static_cast<double>(r))) return 0;
    const double rd = static_cast<double>(r);
    if (std::isinf(rd) || std::isinf(y)) return (y == rd) ? 0 : INFINITY;
    const double spacing = std::nextafter(std::fabs(rd), INFINITY) - std::fabs(rd);
    return static_cast<double>(std::fabs(static_cast<long double>(y) - r) / spacing);
}

int main() {
    const int64_t n = int64_t(1) << 26;
    std::vector<double> host(n);
    uint64_t s = 0x9E3779B97F4A7C15ull;
    auto uniform = [&] {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        return static_cast<double>(s >> 11) * (1.0 / 9007199254740992.0);
    };
    for (int64_t i = 0; i < n; ++i) {  // standard-normal-ish (the bench's values), then the edges
        double acc = 0;
        for (int k = 0; k < 4; ++k) acc += uniform();
        host[i] = (acc - 2.0) * 1.7320508075688772;
    }
    const double edges[][2] = {{0.0, 1e-300}, {1e-10, 1e-5}, {0.45, 0.55}, {0.3, 1.2}, {15, 25},
                               {700, 709.5}, {708.9, 710.47}, {710.47, 711}};
    const int64_t per_edge = 1 << 20;
    for (int e = 0; e < 8; ++e)
        for (int64_t i = 0; i < per_edge; ++i)
            host[(e + 1) * per_edge * 4 + i] = (i & 1 ? -1 : 1) * (edges[e][0] + (edges[e][1] - edges[e][0]) * uniform());
    double *in = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&in, n * sizeof(double)));
    CHECK(cudaMalloc(&out, n * sizeof(double)));
    CHECK(cudaMemcpy(in, host.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    std::printf("%s, n = 2^26 float64, one 16-byte pack a thread\n", prop.name);
    std::vector<double> got(n);
    auto report = [&](const char *name, double us) {
        cudaMemcpy(got.data(), out, n * sizeof(double), cudaMemcpyDeviceToHost);
        double worst_glibc = 0, worst_true = 0, at_glibc = 0, at_true = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double x = host[i];
            const double g = ulps(got[i], static_cast<long double>(std::sinh(x)));
            const double t = ulps(got[i], sinhl(static_cast<long double>(x)));
            if (g > worst_glibc) { worst_glibc = g; at_glibc = x; }
            if (t > worst_true) { worst_true = t; at_true = x; }
        }
        std::printf("%-26s %7.1f us   max %.2f ULP from glibc sinh (at %.17g), %.2f from sinhl (at %.17g)\n",
                    name, us, worst_glibc, at_glibc, worst_true, at_true);
    };
    double us = time_op<LibSinh>(in, out, n);
    report("sinh (CUDA's, the library)", us);
    us = time_op<ExpSinh>(in, out, n);
    report("exp/expm1 formula", us);
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("status: %s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
