// Probe (session 38; run in session 39): the shapes of a write-only kernel against the copy
// engine's memset, for make bench's zeros(1e8) float64 row. The library fills zeros
// with cudaMemsetAsync (vectorAdd/fill.cu) and took 180-184 us in sessions 31-38,
// PyTorch's fill kernel 174-178 us (1.02-1.05x; the row asks <= 1.05x). Other values
// (ones, full, arange) go through write_packed: one 16-byte store a thread, a block a
// tile. Timed with CUDA events, kernels back to back on one stream, the median of 7
// repeats of 20 launches each; bytes written per second. Session 39: the kernels with
// the library's grid wait (tiles_dep) showed that one pack a thread costs 238-240 us
// with it, 2-4 packs 172-174: the library's write_packed now stores 4 (kFillPacks).
// Build and run: nvcc -O3 -std=c++17 -arch=sm_90 fill_variants.cu -o fv && ./fv
#include <cuda_runtime.h>

#include <cstdint>

#include "probe_common.cuh"

namespace {

constexpr int kThreads = 256;

struct Zero {
    __device__ double operator()(long long) const { return 0.0; }
};

// arange(n) * 0.5 + 1, rounded as the library rounds (no FMA contraction).
struct Ramp {
    __device__ double operator()(long long i) const { return __dadd_rn(1.0, __dmul_rn(static_cast<double>(i), 0.5)); }
};

// U packs a thread, a block a tile of U * kThreads packs, the packs of one thread
// kThreads apart (coalesced across the warp); U = 1 is the library's write_packed.
template <int U, bool Streaming, typename V>
__global__ void __launch_bounds__(kThreads) tiles(D2 *out, long long packs, V value) {
    const long long base = static_cast<long long>(blockIdx.x) * kThreads * U + threadIdx.x;
#pragma unroll
    for (int k = 0; k < U; ++k) {
        const long long g = base + static_cast<long long>(k) * kThreads;
        if (g < packs) {
            const D2 p{value(2 * g), value(2 * g + 1)};
            if constexpr (Streaming) __stcs(reinterpret_cast<double2 *>(out + g), make_double2(p.x, p.y));
            else out[g] = p;
        }
    }
}

// tiles<U, false> beginning as every library kernel begins (follow_previous_grid:
// wait for the grid before, then let the next one launch). Session 39: the
// library's write_packed (U = 1 then) took 241 us under ncu where tiles U1 took 173.
template <int U, typename V>
__global__ void __launch_bounds__(kThreads) tiles_dep(D2 *out, long long packs, V value) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    const long long base = static_cast<long long>(blockIdx.x) * kThreads * U + threadIdx.x;
#pragma unroll
    for (int k = 0; k < U; ++k) {
        const long long g = base + static_cast<long long>(k) * kThreads;
        if (g < packs) out[g] = D2{value(2 * g), value(2 * g + 1)};
    }
}

// Launched as the library launches: with programmatic stream serialization (PDL,
// probe_common.cuh's launch_pdl) or not.
template <int U, typename V>
void launch_dep(cudaStream_t s, D2 *out, long long packs, V value, bool pdl) {
    const long long per_block = static_cast<long long>(kThreads) * U;
    const unsigned grid = static_cast<unsigned>((packs + per_block - 1) / per_block);
    if (pdl) launch_pdl(s, grid, kThreads, tiles_dep<U, V>, out, packs, value);
    else tiles_dep<U, V><<<grid, kThreads, 0, s>>>(out, packs, value);
}

// A grid of resident blocks striding over every pack.
template <typename V>
__global__ void __launch_bounds__(kThreads) striding(D2 *out, long long packs, V value) {
    const long long step = static_cast<long long>(gridDim.x) * kThreads;
    for (long long g = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x; g < packs; g += step)
        out[g] = D2{value(2 * g), value(2 * g + 1)};
}

template <int U, bool Streaming, typename V>
void launch_tiles(cudaStream_t s, D2 *out, long long packs, V value) {
    const long long per_block = static_cast<long long>(kThreads) * U;
    tiles<U, Streaming, V><<<static_cast<unsigned>((packs + per_block - 1) / per_block), kThreads, 0, s>>>(out, packs, value);
}

}  // namespace

int main() {
    const long long n = 100000000;  // make bench's row: 1e8 float64, 800 MB
    const long long packs = n / 2;
    const double bytes = 8.0 * n;
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s, %d SMs; %lld float64 (%.0f MB) written a launch\n", prop.name, sms, n, bytes / 1e6);
    D2 *out = nullptr, *src = nullptr;
    CHECK(cudaMalloc(&out, 8 * n));
    CHECK(cudaMalloc(&src, 8 * n));
    CHECK(cudaMemset(src, 0, 8 * n));
    cudaStream_t s = nullptr;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, striding<Zero>, kThreads, 0));
    const unsigned resident = static_cast<unsigned>(sms * per_sm);
    auto report = [&](const char *name, double us, double moved) {
        std::printf("%-44s %8.1f us %6.2f TB/s\n", name, us, moved / us / 1e6);
    };
    for (int round = 0; round < 2; ++round) {
        std::printf("-- round %d\n", round);
        report("copy D2D (cudaMemcpyAsync: read + write)", event_us(s, 20, [&](int) {
            cudaMemcpyAsync(out, src, 8 * n, cudaMemcpyDeviceToDevice, s); }), 2 * bytes);
        report("zeros: cudaMemsetAsync (the library)", event_us(s, 20, [&](int) {
            cudaMemsetAsync(out, 0, 8 * n, s); }), bytes);
        report("zeros: tiles U1 (write_packed's shape)", event_us(s, 20, [&](int) {
            launch_tiles<1, false>(s, out, packs, Zero{}); }), bytes);
        report("zeros: tiles U2", event_us(s, 20, [&](int) { launch_tiles<2, false>(s, out, packs, Zero{}); }), bytes);
        report("zeros: tiles U4", event_us(s, 20, [&](int) { launch_tiles<4, false>(s, out, packs, Zero{}); }), bytes);
        report("zeros: tiles U1, streaming stores", event_us(s, 20, [&](int) {
            launch_tiles<1, true>(s, out, packs, Zero{}); }), bytes);
        report("zeros: tiles U4, streaming stores", event_us(s, 20, [&](int) {
            launch_tiles<4, true>(s, out, packs, Zero{}); }), bytes);
        report("zeros: resident grid, striding", event_us(s, 20, [&](int) {
            striding<<<resident, kThreads, 0, s>>>(out, packs, Zero{}); }), bytes);
        report("zeros: tiles U1 + grid wait, plain launch", event_us(s, 20, [&](int) {
            launch_dep<1>(s, out, packs, Zero{}, false); }), bytes);
        report("zeros: tiles U1 + grid wait, PDL launch", event_us(s, 20, [&](int) {
            launch_dep<1>(s, out, packs, Zero{}, true); }), bytes);
        report("zeros: tiles U2 + grid wait, PDL launch", event_us(s, 20, [&](int) {
            launch_dep<2>(s, out, packs, Zero{}, true); }), bytes);
        report("zeros: tiles U4 + grid wait, PDL launch", event_us(s, 20, [&](int) {
            launch_dep<4>(s, out, packs, Zero{}, true); }), bytes);
        report("zeros: tiles U8 + grid wait, PDL launch", event_us(s, 20, [&](int) {
            launch_dep<8>(s, out, packs, Zero{}, true); }), bytes);
        report("ramp: tiles U4 + grid wait, PDL launch", event_us(s, 20, [&](int) {
            launch_dep<4>(s, out, packs, Ramp{}, true); }), bytes);
        report("ramp: tiles U1 (arange's shape)", event_us(s, 20, [&](int) {
            launch_tiles<1, false>(s, out, packs, Ramp{}); }), bytes);
        report("ramp: tiles U4", event_us(s, 20, [&](int) { launch_tiles<4, false>(s, out, packs, Ramp{}); }), bytes);
        report("ramp: resident grid, striding", event_us(s, 20, [&](int) {
            striding<<<resident, kThreads, 0, s>>>(out, packs, Ramp{}); }), bytes);
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGetLastError());
    return 0;
}
