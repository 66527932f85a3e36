// Probe (session 20): where searchsorted's time goes (issue 26's row, 1e7 float64
// queries into 1e6 sorted), and whether a breadth-first (Eytzinger) copy of the
// sorted array helps: its upper levels are contiguous, so a warp's loads at a
// level touch a few cache lines instead of one line a thread, and the hot part of
// the tree is 8 bytes a node in L1 rather than a 128-byte line a node.
// Build and run (repository root):
//   nvcc -O3 -std=c++17 -arch=sm_90 bench/probes/searchsorted.cu -o /tmp/ss && /tmp/ss
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorName(e_));           \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

__device__ __forceinline__ bool less(double a, double b) { return a < b || (b != b && a == a); }

// The binary search of the library's kernel before session 20 (search.cu).
__device__ __forceinline__ int64_t lower_bound(const double *__restrict__ s, int64_t n, double v) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (less(s[mid], v)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// A branching search, grid-stride (the library's shape).
__global__ void search_now(const double *__restrict__ s, int64_t n, const double *__restrict__ q, int64_t count,
                           int64_t *__restrict__ out) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x)
        out[i] = lower_bound(s, n, q[i]);
}

// One query a thread, a full grid (PyTorch's shape).
__global__ void search_full(const double *__restrict__ s, int64_t n, const double *__restrict__ q, int64_t count,
                            int64_t *__restrict__ out) {
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < count) out[i] = lower_bound(s, n, q[i]);
}

// e[k], k in [1, 2^h): node k of a complete tree of height h laid out breadth first;
// its in-order rank r holds s[min(r, n - 1)] (the padding repeats the last value,
// which leaves every lower and upper bound below n unchanged).
__global__ void build_tree(const double *__restrict__ s, int64_t n, int h, double *__restrict__ e) {
    const int64_t size = (int64_t{1} << h);
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x + 1; k < size; k += (int64_t)gridDim.x * blockDim.x) {
        const int d = 63 - __clzll(k);
        const int64_t r = ((2 * (k - (int64_t{1} << d)) + 1) << (h - 1 - d)) - 1;
        e[k] = s[r < n ? r : n - 1];
    }
}

// After h steps k - 2^h is the number of tree nodes below v: the lower bound.
template <bool Grid>
__global__ void search_tree(const double *__restrict__ e, int h, int64_t n, const double *__restrict__ q,
                            int64_t count, int64_t *__restrict__ out) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    const int64_t step = Grid ? (int64_t)gridDim.x * blockDim.x : count;
    for (; i < count; i += step) {
        const double v = q[i];
        uint32_t k = 1;
        for (int d = 0; d < h; ++d) k = 2 * k + (less(e[k], v) ? 1u : 0u);
        const int64_t r = (int64_t)k - (int64_t{1} << h);
        out[i] = r < n ? r : n;
    }
}

// The same, four levels at a time from one 128-byte line: node k's descendants four
// levels down are 16k .. 16k + 15; prefetching that line while walking the four
// levels overlaps its latency with theirs.
__global__ void search_tree_prefetch(const double *__restrict__ e, int h, int64_t n, const double *__restrict__ q,
                                     int64_t count, int64_t *__restrict__ out) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x) {
        const double v = q[i];
        uint32_t k = 1;
        int d = 0;
        for (; d + 4 <= h; d += 4) {
            if (16 * (uint64_t)k < (uint64_t{1} << h)) asm volatile("prefetch.global.L1 [%0];" ::"l"(e + 16 * k));
#pragma unroll
            for (int j = 0; j < 4; ++j) k = 2 * k + (less(e[k], v) ? 1u : 0u);
        }
        for (; d < h; ++d) k = 2 * k + (less(e[k], v) ? 1u : 0u);
        const int64_t r = (int64_t)k - (int64_t{1} << h);
        out[i] = r < n ? r : n;
    }
}

// The tree search with the queries and results streamed past L1 (evict first), so
// they do not push the tree's upper levels out.
__global__ void search_tree_stream(const double *__restrict__ e, int h, int64_t n, const double *__restrict__ q,
                                   int64_t count, int64_t *__restrict__ out) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x) {
        const double v = __ldcs(q + i);
        uint32_t k = 1;
        for (int d = 0; d < h; ++d) k = 2 * k + (less(e[k], v) ? 1u : 0u);
        const int64_t r = (int64_t)k - (int64_t{1} << h);
        __stcs(reinterpret_cast<long long *>(out + i), (long long)(r < n ? r : n));
    }
}

// A perfect 5-ary tree of height H, four keys a node (one 32-byte sector), breadth
// first: key j of node p at depth d holds rank (5p + j + 1) * 5^(H-1-d) - 1.
__global__ void build_btree(const double *__restrict__ s, int64_t n, int H, double *__restrict__ t, int64_t nodes) {
    for (int64_t b = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; b < nodes; b += (int64_t)gridDim.x * blockDim.x) {
        int64_t first = 0, width = 1;
        int d = 0;
        while (b >= first + width) { first += width; width *= 5; ++d; }
        int64_t scale = 1;
        for (int j = d + 1; j < H; ++j) scale *= 5;
        const int64_t p = b - first;
        for (int j = 0; j < 4; ++j) {
            const int64_t r = (5 * p + j + 1) * scale - 1;
            t[4 * b + j] = s[r < n ? r : n - 1];
        }
    }
}

__global__ void search_btree(const double *__restrict__ t, int H, int64_t n, const double *__restrict__ q,
                             int64_t count, int64_t *__restrict__ out) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x) {
        const double v = __ldcs(q + i);
        int64_t b = 0, r = 0;
        for (int d = 0; d < H; ++d) {
            const double4_32a k = *reinterpret_cast<const double4_32a *>(t + 4 * b);
            const int c = (int)less(k.x, v) + (int)less(k.y, v) + (int)less(k.z, v) + (int)less(k.w, v);
            b = 5 * b + 1 + c;
            r = 5 * r + c;
        }
        __stcs(reinterpret_cast<long long *>(out + i), (long long)(r < n ? r : n));
    }
}

template <typename F>
float time_ms(F launch, cudaEvent_t a, cudaEvent_t b) {
    std::vector<float> t;
    for (int rep = 0; rep < 15; ++rep) {
        cudaEventRecord(a);
        launch();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main() {
    const int64_t n = 1000000, count = 10000000;
    std::mt19937_64 rng(26);
    std::normal_distribution<double> nd;
    std::vector<double> hs(n), hq(count);
    for (auto &x : hs) x = nd(rng);
    for (auto &x : hq) x = nd(rng);
    std::sort(hs.begin(), hs.end());
    int h = 1;
    while ((int64_t{1} << h) - 1 < n) ++h;
    double *s, *q, *e;
    int64_t *o0, *o1;
    CK(cudaMalloc(&s, n * 8));
    CK(cudaMalloc(&q, count * 8));
    CK(cudaMalloc(&e, (int64_t{1} << h) * 8));
    CK(cudaMalloc(&o0, count * 8));
    CK(cudaMalloc(&o1, count * 8));
    CK(cudaMemcpy(s, hs.data(), n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(q, hq.data(), count * 8, cudaMemcpyHostToDevice));
    int sms = 0, per_sm = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s, %d SMs, n %lld, queries %lld, tree height %d\n", prop.name, sms, (long long)n,
                (long long)count, h);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    const int T = 256;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, search_now, T, 0));
    const unsigned resident = sms * per_sm, full = (unsigned)((count + T - 1) / T);
    std::vector<int64_t> ref(count), got(count);
    search_now<<<resident, T>>>(s, n, q, count, o0);
    CK(cudaMemcpy(ref.data(), o0, count * 8, cudaMemcpyDeviceToHost));
    auto check = [&](const char *name, float ms) {
        CK(cudaMemcpy(got.data(), o1, count * 8, cudaMemcpyDeviceToHost));
        int64_t bad = 0;
        for (int64_t i = 0; i < count; ++i) bad += got[i] != ref[i];
        std::printf("%-40s %8.1f us  mismatches %lld\n", name, ms * 1e3, (long long)bad);
        return 0;
    };
    float ms;
    ms = time_ms([&] { search_now<<<resident, T>>>(s, n, q, count, o1); }, a, b);
    check("now: branching, resident grid", ms);
    ms = time_ms([&] { search_full<<<full, T>>>(s, n, q, count, o1); }, a, b);
    check("branching, full grid", ms);
    ms = time_ms([&] { build_tree<<<resident, T>>>(s, n, h, e); }, a, b);
    std::printf("%-40s %8.1f us\n", "build the breadth-first tree", ms * 1e3);
    ms = time_ms([&] { search_tree<true><<<resident, T>>>(e, h, n, q, count, o1); }, a, b);
    check("tree, resident grid", ms);
    ms = time_ms([&] { search_tree<false><<<full, T>>>(e, h, n, q, count, o1); }, a, b);
    check("tree, full grid", ms);
    ms = time_ms([&] { search_tree_prefetch<<<resident, T>>>(e, h, n, q, count, o1); }, a, b);
    check("tree + prefetch of 4 levels, resident", ms);
    ms = time_ms([&] { search_tree_stream<<<resident, T>>>(e, h, n, q, count, o1); }, a, b);
    check("tree, queries streamed (ldcs/stcs)", ms);
    CK(cudaFuncSetAttribute(search_tree_stream, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
    ms = time_ms([&] { search_tree_stream<<<resident, T>>>(e, h, n, q, count, o1); }, a, b);
    check("tree, streamed, carveout 0", ms);
    {
        int H = 1;
        int64_t keys = 4;
        while (keys < n) { keys = keys * 5 + 4; ++H; }
        const int64_t nodes = keys / 4;
        double *t;
        CK(cudaMalloc(&t, nodes * 32));
        ms = time_ms([&] { build_btree<<<resident, T>>>(s, n, H, t, nodes); }, a, b);
        std::printf("%-40s %8.1f us  (height %d, %lld keys)\n", "build the 5-ary tree", ms * 1e3, H, (long long)keys);
        ms = time_ms([&] { search_btree<<<resident, T>>>(t, H, n, q, count, o1); }, a, b);
        check("5-ary tree, streamed", ms);
        CK(cudaFuncSetAttribute(search_btree, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
        ms = time_ms([&] { search_btree<<<resident, T>>>(t, H, n, q, count, o1); }, a, b);
        check("5-ary tree, streamed, carveout 0", ms);
    }
    ms = time_ms([&] {
        build_tree<<<resident, T>>>(s, n, h, e);
        search_tree<true><<<resident, T>>>(e, h, n, q, count, o1);
    }, a, b);
    check("build + tree search (one call)", ms);
    CK(cudaDeviceSynchronize());
    return 0;
}
