// Probe (session 23): the H200 rows where the result is narrower than the input
// (isnan and greater: float64 -> bool; imag: complex128 -> float64), and
// floor_divide's float64 arithmetic. The library (one pack of G = 16 / widest
// bytes a thread: two float64 -> two bools, one complex -> one float64) against
// tiles with more elements a thread (wider stores), and floor_divide's
// functor against the same steps with one division instead of two. CUDA events
// over 50 back-to-back launches, median of 7 interleaved rounds.
// Build and run (from the repository root, after `make lib CUDA_ARCH=90`):
//   nvcc -O3 -std=c++17 -arch=sm_90 bench/probes/narrow_outputs.cu -IvectorAdd \
//        build/libvectoradd.a -o /tmp/narrow && /tmp/narrow
#include <cstdint>
#include <cstring>
#include <string>

#include "probe_common.cuh"
#include "probe_views.cuh"

template <int G>
struct alignas(G) Bytes {
    uint8_t v[G];
};
template <int G>
struct alignas(8 * G) Doubles {
    double v[G];
};

__device__ __forceinline__ void pdl() {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;");
}

// G float64 a thread (G / 2 16-byte loads), one G-byte store. Cmp: 0 isnan, 1 x > -10.
template <int G, int Cmp>
__global__ void narrow_bool(const D2 *x, Bytes<G> *o, long long threads) {
    pdl();
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    D2 v[G / 2];
#pragma unroll
    for (int k = 0; k < G / 2; ++k) v[k] = x[t * (G / 2) + k];
    Bytes<G> r;
#pragma unroll
    for (int k = 0; k < G / 2; ++k) {
        r.v[2 * k] = Cmp == 0 ? (v[k].x != v[k].x) : (v[k].x > -10.0);
        r.v[2 * k + 1] = Cmp == 0 ? (v[k].y != v[k].y) : (v[k].y > -10.0);
    }
    o[t] = r;
}

// G complex128 a thread (G 16-byte loads), one 8G-byte store of their imaginary parts.
template <int G>
__global__ void narrow_imag(const D2 *x, Doubles<G> *o, long long threads) {
    pdl();
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    D2 v[G];
#pragma unroll
    for (int k = 0; k < G; ++k) v[k] = x[t * G + k];
    Doubles<G> r;
#pragma unroll
    for (int k = 0; k < G; ++k) r.v[k] = v[k].y;
    o[t] = r;
}

// NumPy's npy_divmod quotient, step for step (the library's functor, with its
// exact fmod inlined): two divisions.
__device__ __forceinline__ double fmod_exact(double a, double b, double q) {
    if (!(fabs(q) < 4503599627370496.0) || !(fabs(b) <= 1.7976931348623157e+308) || b == 0.0) return fmod(a, b);
    double n = trunc(q);
    double r = fma(-n, b, a);
    if (r != 0.0 && ((r < 0.0) != (a < 0.0))) {
        n -= copysign(1.0, n);
        r = fma(-n, b, a);
    }
    return r == 0.0 ? copysign(0.0, a) : r;
}
__device__ __forceinline__ double floordiv_two(double a, double b) {
    if (b == 0.0) return a / b;
    const double mod = fmod_exact(a, b, a / b);
    double div = (a - mod) / b;
    if (mod != 0.0 && ((b < 0.0) != (mod < 0.0))) div -= 1.0;
    if (div != 0.0) {
        double f = floor(div);
        if (div - f > 0.5) f += 1.0;
        return f;
    }
    return copysign(0.0, a / b);
}
// The same value from one division where the truncated quotient is below 2^50
// (there NumPy's (a - mod) / b lands within a quarter of it, so its floor-and-round
// gives it back exactly); the two-division steps elsewhere.
__device__ __forceinline__ double floordiv_one(double a, double b) {
    const double q = a / b;
    if (!(fabs(q) < 1125899906842624.0) || !(fabs(b) <= 1.7976931348623157e+308) || b == 0.0)
        return floordiv_two(a, b);
    double n = trunc(q);
    double r = fma(-n, b, a);
    if (r != 0.0 && ((r < 0.0) != (a < 0.0))) {
        n -= copysign(1.0, n);
        r = fma(-n, b, a);
    }
    if (r != 0.0 && ((b < 0.0) != (r < 0.0))) return n - 1.0;
    return n != 0.0 ? n : copysign(0.0, q);
}

template <int Which>
__global__ void floordiv_tile(const D2 *a, const D2 *b, D2 *o, long long groups) {
    pdl();
    const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    const D2 x = a[g], y = b[g];
    o[g] = Which == 0 ? D2{floordiv_two(x.x, y.x), floordiv_two(x.y, y.y)}
                      : D2{floordiv_one(x.x, y.x), floordiv_one(x.y, y.y)};
}

int main() {
    void *lib_stream = nullptr;
    if (va_stream(0, &lib_stream) != VA_SUCCESS) return 1;
    cudaStream_t s = (cudaStream_t)lib_stream;
    const long long n = 1LL << 26;
    double *a = nullptr, *b = nullptr, *o = nullptr, *c = nullptr;
    CHECK(cudaMalloc(&a, n * 8));
    CHECK(cudaMalloc(&b, n * 8));
    CHECK(cudaMalloc(&o, n * 8));
    CHECK(cudaMalloc(&c, n * 16));
    {
        std::vector<double> h(n);
        for (long long i = 0; i < n; ++i) h[i] = ((double)((i * 2654435761u) % 2000003) - 1000001.0) * 1e-4;
        CHECK(cudaMemcpy(a, h.data(), n * 8, cudaMemcpyHostToDevice));
        for (long long i = 0; i < n; ++i) h[i] = ((double)((i * 40503u + 7) % 1999) - 999.5) * 1e-2;
        CHECK(cudaMemcpy(b, h.data(), n * 8, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(c, a, n * 8, cudaMemcpyDeviceToDevice));
        CHECK(cudaMemcpy(c + n, b, n * 8, cudaMemcpyDeviceToDevice));
    }
    va_op isnan_op, greater_op, imag_op, fdiv_op;
    if (va_op_find("isnan", &isnan_op) != VA_SUCCESS || va_op_find("greater", &greater_op) != VA_SUCCESS ||
        va_op_find("imag", &imag_op) != VA_SUCCESS || va_op_find("floor_divide", &fdiv_op) != VA_SUCCESS)
        return 1;
    const va_array va = va_vector(a, VA_FLOAT64, n), vb = va_vector(b, VA_FLOAT64, n),
                   vbool = va_vector(o, VA_BOOL, n), vo = va_vector(o, VA_FLOAT64, n),
                   vc = va_vector(c, VA_COMPLEX128, n);
    const va_array pair[2] = {va, vb};
    struct Row { std::string name; std::vector<double> us; };
    std::vector<Row> rows;
    auto row = [&](const char *name) { rows.push_back({name, {}}); return rows.size() - 1; };
    const int k = 50;
    auto grid = [&](long long threads) { return (unsigned)((threads + 255) / 256); };
    const D2 *pa = (const D2 *)a, *pb = (const D2 *)b, *pc = (const D2 *)c;
    const size_t r_copy = row("cudaMemcpyAsync D2D of 2^26 float64 (x 9/16: isnan's bytes)");
    const size_t r_lib_isnan = row("library isnan, 2^26 float64");
    const size_t r_isnan2 = row("isnan, 2 a thread (the library's shape)");
    const size_t r_isnan4 = row("isnan, 4 a thread");
    const size_t r_isnan8 = row("isnan, 8 a thread");
    const size_t r_isnan16 = row("isnan, 16 a thread");
    const size_t r_lib_gt = row("library greater(x, y) float64 arrays");
    const size_t r_gt2 = row("x > -10, 2 a thread");
    const size_t r_gt8 = row("x > -10, 8 a thread");
    const size_t r_lib_imag = row("library imag, 2^26 complex128");
    const size_t r_imag1 = row("imag, 1 a thread (the library's shape)");
    const size_t r_imag2 = row("imag, 2 a thread");
    const size_t r_imag4 = row("imag, 4 a thread");
    const size_t r_lib_fd = row("library floor_divide, 2^26 float64");
    const size_t r_fd2 = row("floor_divide tile, two divisions (the library's steps)");
    const size_t r_fd1 = row("floor_divide tile, one division");
    for (int round = 0; round < 7; ++round) {
        rows[r_copy].us.push_back(9.0 / 16.0 * event_us(s, k, [&](int) {
            cudaMemcpyAsync(o, a, n * 8, cudaMemcpyDeviceToDevice, s);
        }));
        rows[r_lib_isnan].us.push_back(event_us(s, k, [&](int) { va_elementwise(0, isnan_op, 1, &va, nullptr, &vbool); }));
        rows[r_isnan2].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(n / 2), 256, narrow_bool<2, 0>, pa, (Bytes<2> *)o, n / 2); }));
        rows[r_isnan4].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(n / 4), 256, narrow_bool<4, 0>, pa, (Bytes<4> *)o, n / 4); }));
        rows[r_isnan8].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(n / 8), 256, narrow_bool<8, 0>, pa, (Bytes<8> *)o, n / 8); }));
        rows[r_isnan16].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(n / 16), 256, narrow_bool<16, 0>, pa, (Bytes<16> *)o, n / 16); }));
        rows[r_lib_gt].us.push_back(event_us(s, k, [&](int) { va_elementwise(0, greater_op, 2, pair, nullptr, &vbool); }));
        rows[r_gt2].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(n / 2), 256, narrow_bool<2, 1>, pa, (Bytes<2> *)o, n / 2); }));
        rows[r_gt8].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(n / 8), 256, narrow_bool<8, 1>, pa, (Bytes<8> *)o, n / 8); }));
        rows[r_lib_imag].us.push_back(event_us(s, k, [&](int) { va_elementwise(0, imag_op, 1, &vc, nullptr, &vo); }));
        rows[r_imag1].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(n), 256, narrow_imag<1>, pc, (Doubles<1> *)o, n); }));
        rows[r_imag2].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(n / 2), 256, narrow_imag<2>, pc, (Doubles<2> *)o, n / 2); }));
        rows[r_imag4].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(n / 4), 256, narrow_imag<4>, pc, (Doubles<4> *)o, n / 4); }));
        rows[r_lib_fd].us.push_back(event_us(s, k, [&](int) { va_elementwise(0, fdiv_op, 2, pair, nullptr, &vo); }));
        rows[r_fd2].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(n / 2), 256, floordiv_tile<0>, pa, pb, (D2 *)o, n / 2); }));
        rows[r_fd1].us.push_back(event_us(s, k, [&](int) { launch_pdl(s, grid(n / 2), 256, floordiv_tile<1>, pa, pb, (D2 *)o, n / 2); }));
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGetLastError());
    // The one-division quotient against the library's, over the probe's values.
    {
        CHECK(cudaMemsetAsync(o, 0, n * 8, s));
        va_elementwise(0, fdiv_op, 2, pair, nullptr, &vo);
        std::vector<double> lib(n), one(n);
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaMemcpy(lib.data(), o, n * 8, cudaMemcpyDeviceToHost));
        launch_pdl(s, grid(n / 2), 256, floordiv_tile<1>, pa, pb, (D2 *)o, n / 2);
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaMemcpy(one.data(), o, n * 8, cudaMemcpyDeviceToHost));
        long long differ = 0;
        for (long long i = 0; i < n; ++i) differ += std::memcmp(&lib[i], &one[i], 8) != 0;
        std::printf("floor_divide one division against the library: %lld of %lld differ in any bit\n", differ, n);
    }
    std::printf("%-60s %10s %10s\n", "case (events, 50 back to back)", "median us", "best us");
    for (Row &r : rows) {
        std::sort(r.us.begin(), r.us.end());
        std::printf("%-60s %10.2f %10.2f\n", r.name.c_str(), r.us[r.us.size() / 2], r.us[0]);
    }
    return 0;
}
