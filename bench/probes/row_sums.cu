// Probe: shapes of the row kernel of sum(axis=-1) on a 10^4 x 10^4 float64
// matrix (each output reads one contiguous 80 KB row), timed with CUDA events in
// a back-to-back loop on one GPU, against a full-matrix sum of the same bytes
// (the streaming reference). bench/NOTES.md records the outcome.
// Build and run: nvcc -O3 -arch=sm_90 -std=c++17 row_sums.cu -o rs && ./rs
#include <cmath>

#include "probe_common.cuh"

// W threads per row, B threads per block (B / W rows per block), U packs of two
// doubles in flight per thread. Grid: one block per B / W rows, or (Persist) one
// even wave of blocks, each looping over its share of rows.
template <int W, int B, int U, bool Persist>
__global__ void __launch_bounds__(B) rows(const D2 *m, double *out, long long nrows, long long packs_per_row,
                                          long long rows_per_block) {
    constexpr int per_block = B / W;
    __shared__ double part[B / 32];
    const int lane = threadIdx.x % W, group = threadIdx.x / W;
    long long first = (long long)blockIdx.x * per_block, last = first + per_block;
    if (Persist) {
        first = (long long)blockIdx.x * rows_per_block;
        last = first + rows_per_block < nrows ? first + rows_per_block : nrows;
    }
    for (long long r0 = first; r0 < last; r0 += per_block) {
        const long long r = r0 + group;
        double acc[U];
#pragma unroll
        for (int k = 0; k < U; ++k) acc[k] = 0.0;
        if (r < last && r < nrows) {
            const D2 *row = m + r * packs_per_row;
            for (long long p = lane; p < packs_per_row; p += (long long)W * U) {
                D2 v[U];
#pragma unroll
                for (int k = 0; k < U; ++k)
                    if (p + k * W < packs_per_row) v[k] = row[p + k * W];
                    else v[k] = D2{0.0, 0.0};
#pragma unroll
                for (int k = 0; k < U; ++k) acc[k] += v[k].x + v[k].y;
            }
        }
        double s = 0.0;
#pragma unroll
        for (int k = 0; k < U; ++k) s += acc[k];
        for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
        if (W > 32) {
            if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
            __syncthreads();
            if (lane == 0) {
                for (int k = 1; k < W / 32; ++k) s += part[threadIdx.x / 32 + k];
            }
            __syncthreads();
        }
        if (lane == 0 && r < last && r < nrows) out[r] = s;
    }
}

// The full-matrix sum (the library's contiguous reduce: one even wave of blocks,
// each over a contiguous run, then the last block combines).
__global__ void __launch_bounds__(256) full(const D2 *m, long long groups, long long span, double *partials,
                                            unsigned *counter, double *out) {
    const long long begin = (long long)blockIdx.x * span;
    const long long end = begin + span < groups ? begin + span : groups;
    double acc[4] = {0, 0, 0, 0};
    for (long long b = begin + threadIdx.x; b < end; b += 256 * 4) {
        D2 v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) v[k] = b + k * 256 < end ? m[b + k * 256] : D2{0, 0};
#pragma unroll
        for (int k = 0; k < 4; ++k) acc[k] += v[k].x + v[k].y;
    }
    double s = block_sum(acc[0] + acc[1] + acc[2] + acc[3]);
    if (last_block_to_finish(s, partials, counter)) {
        double t = 0;
        for (unsigned i = threadIdx.x; i < gridDim.x; i += 256) t += partials[i];
        t = block_sum(t);
        if (threadIdx.x == 0) { *out = t; *counter = 0; }
    }
}

template <typename F>
float per_launch_us(F launch, int reps = 50) {
    cudaEvent_t s, e;
    cudaEventCreate(&s);
    cudaEventCreate(&e);
    for (int i = 0; i < 5; ++i) launch();
    cudaEventRecord(s);
    for (int i = 0; i < reps; ++i) launch();
    cudaEventRecord(e);
    cudaEventSynchronize(e);
    float ms = 0;
    cudaEventElapsedTime(&ms, s, e);
    return ms * 1000.0f / reps;
}

template <int W, int B, int U, bool Persist>
int run_rows(const D2 *m, double *out, long long nrows, long long ppr, int sms, const double *ref) {
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rows<W, B, U, Persist>, B, 0));
    const long long per_block = B / W;
    long long grid = (nrows + per_block - 1) / per_block, rpb = 0;
    if (Persist) {
        const long long wave = (long long)sms * per_sm;
        // Each block's share a whole number of its row groups.
        rpb = ((nrows + wave - 1) / wave + per_block - 1) / per_block * per_block;
        grid = (nrows + rpb - 1) / rpb;
    }
    const float us = per_launch_us([&] { rows<W, B, U, Persist><<<(unsigned)grid, B>>>(m, out, nrows, ppr, rpb); });
    CHECK(cudaGetLastError());
    std::vector<double> got(nrows);
    CHECK(cudaMemcpy(got.data(), out, nrows * sizeof(double), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (long long i = 0; i < nrows; ++i) worst = std::max(worst, std::abs(got[i] - ref[i]));
    std::printf("rows W=%4d B=%4d U=%d %-7s grid %6lld (%d/SM): %7.1f us  %.2f TB/s  max err %.1e\n", W, B, U,
                Persist ? "persist" : "", grid, per_sm, us, nrows * ppr * 16.0 / us / 1e6, worst);
    return 0;
}

int main() {
    const long long side = 10000, ppr = side / 2, n = side * side;
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    std::vector<double> h(n);
    unsigned long long x = 12345;
    for (auto &v : h) { x = x * 6364136223846793005ull + 1442695040888963407ull; v = (double)(x >> 11) / 9007199254740992.0; }
    std::vector<double> ref(side, 0.0);
    for (long long r = 0; r < side; ++r)
        for (long long c = 0; c < side; ++c) ref[r] += h[r * side + c];
    D2 *m = nullptr;
    double *out = nullptr, *partials = nullptr;
    unsigned *counter = nullptr;
    CHECK(cudaMalloc(&m, n * 8));
    CHECK(cudaMalloc(&out, side * 8));
    CHECK(cudaMalloc(&partials, 65536 * 8));
    CHECK(cudaMalloc(&counter, 4));
    CHECK(cudaMemset(counter, 0, 4));
    CHECK(cudaMemcpy(m, h.data(), n * 8, cudaMemcpyHostToDevice));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s, %d SMs, %lld x %lld float64 (%.0f MB)\n", prop.name, sms, side, side, n * 8 / 1e6);

    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, full, 256, 0));
    const long long groups = n / 2, step = 1024, wave = (long long)sms * per_sm;
    const long long span = ((groups + wave - 1) / wave + step - 1) / step * step;
    const long long fgrid = (groups + span - 1) / span;
    const float fus = per_launch_us([&] { full<<<(unsigned)fgrid, 256>>>(m, groups, span, partials, counter, out); });
    std::printf("full sum, one wave (library)  grid %6lld: %7.1f us  %.2f TB/s\n", fgrid, fus, n * 8.0 / fus / 1e6);
    // The same kernel over fixed runs of k * 16 KB a block: many waves, as the row kernel.
    for (long long k : {1, 2, 3, 4, 5, 8, 16}) {
        const long long tspan = step * k, tgrid = (groups + tspan - 1) / tspan;
        const float tus = per_launch_us([&] { full<<<(unsigned)tgrid, 256>>>(m, groups, tspan, partials, counter, out); });
        double got = 0;
        CHECK(cudaMemcpy(&got, out, 8, cudaMemcpyDeviceToHost));
        std::printf("full sum, runs of %3lld KB      grid %6lld: %7.1f us  %.2f TB/s  (sum %.6f)\n", k * 16, tgrid, tus,
                    n * 8.0 / tus / 1e6, got);
    }

    int rc = 0;
    rc |= run_rows<256, 256, 4, false>(m, out, side, ppr, sms, ref.data());  // the library's shape
    rc |= run_rows<256, 256, 8, false>(m, out, side, ppr, sms, ref.data());
    rc |= run_rows<512, 512, 4, false>(m, out, side, ppr, sms, ref.data());
    rc |= run_rows<1024, 1024, 2, false>(m, out, side, ppr, sms, ref.data());
    rc |= run_rows<128, 256, 4, false>(m, out, side, ppr, sms, ref.data());
    rc |= run_rows<128, 128, 4, false>(m, out, side, ppr, sms, ref.data());
    rc |= run_rows<64, 256, 4, false>(m, out, side, ppr, sms, ref.data());
    rc |= run_rows<32, 256, 4, false>(m, out, side, ppr, sms, ref.data());
    rc |= run_rows<256, 256, 4, true>(m, out, side, ppr, sms, ref.data());
    rc |= run_rows<128, 256, 4, true>(m, out, side, ppr, sms, ref.data());
    rc |= run_rows<64, 256, 4, true>(m, out, side, ppr, sms, ref.data());
    rc |= run_rows<32, 256, 4, true>(m, out, side, ppr, sms, ref.data());
    rc |= run_rows<32, 256, 8, true>(m, out, side, ppr, sms, ref.data());
    rc |= run_rows<512, 512, 4, true>(m, out, side, ppr, sms, ref.data());
    return rc;
}
