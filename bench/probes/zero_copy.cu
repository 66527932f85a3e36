// Probe (session 29, issue 25): the host rows' misses are the link's rate for
// chunk-sized copies. h2d_granularity.py (session 27) measured pinned H2D copies
// of 2 MiB at 51.3 GB/s and 4 MiB at 53.3, where 1 GiB copies (the bench's
// bound) move 59: each copy engine transfer pays a fixed gap. Here the kernel
// itself reads the staged chunk from pinned, device-mapped memory (and add
// writes its result straight into the pinned output), so no copy is queued at
// all; against the library's way (H2D copy, kernel, D2H copy).
//   part 1, the link alone: pinned ring -> GPU, no staging copy;
//   part 2, as the pipeline: W threads stage a pageable source chunk by chunk
//     into their slots (memcpy), then either queue copy + kernel (+ copy back),
//     or a kernel that reads (and writes) host memory in place.
// sum: 8 B up an element; add: 16 B up and 8 B down (into a pinned output).
//   part 3 ("joined" as the fourth argument, alone): add's two staged inputs side by
//     side in one pinned buffer and one device buffer, uploaded by one copy of
//     twice the bytes, against two copies (the same ring, half the copies).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 zero_copy.cu -o zero_copy -lpthread
// Run:   ./zero_copy [elements, default 1e9] [rounds, default 3] [workers, default 8] [joined]
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); std::exit(1); } } while (0)

static constexpr size_t kMiB = size_t(1) << 20;
struct alignas(16) D2 { double x, y; };

static double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static char *numpy_like(size_t bytes, double base) {
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { std::printf("mmap failed\n"); std::exit(1); }
    madvise(p, bytes, MADV_HUGEPAGE);
    double *d = static_cast<double *>(p);
    for (size_t i = 0; i < bytes / sizeof(double); ++i) d[i] = base + static_cast<double>(i & 1023);
    return static_cast<char *>(p);
}

// Each block sums U packs a thread per tile, over tiles grid-strided; thread 0
// adds the block's sum to partials[blockIdx.x] (the probe checks the total).
template <int U>
__global__ void sum_packs(const D2 *a, long long packs, double *partials) {
    double acc = 0.0;
    const long long tile = (long long)blockDim.x * U;
    for (long long base = (long long)blockIdx.x * tile; base < packs; base += (long long)gridDim.x * tile) {
        D2 v[U];
#pragma unroll
        for (int k = 0; k < U; ++k) {
            const long long i = base + threadIdx.x + (long long)k * blockDim.x;
            v[k] = i < packs ? a[i] : D2{0.0, 0.0};
        }
#pragma unroll
        for (int k = 0; k < U; ++k) acc += v[k].x + v[k].y;
    }
    __shared__ double warp_sums[32];
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        double s = 0.0;
        for (unsigned w = 0; w < blockDim.x / 32; ++w) s += warp_sums[w];
        partials[blockIdx.x] += s;
    }
}

template <int U>
__global__ void add_packs(const D2 *a, const D2 *b, D2 *o, long long packs) {
    const long long base = (long long)blockIdx.x * blockDim.x * U + threadIdx.x;
    D2 va[U], vb[U];
#pragma unroll
    for (int k = 0; k < U; ++k) {
        const long long i = base + (long long)k * blockDim.x;
        if (i < packs) { va[k] = a[i]; vb[k] = b[i]; }
    }
#pragma unroll
    for (int k = 0; k < U; ++k) {
        const long long i = base + (long long)k * blockDim.x;
        if (i < packs) o[i] = D2{va[k].x + vb[k].x, va[k].y + vb[k].y};
    }
}

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 4096;  // partials a stream

struct Kernels {
    int sum_u = 4;        // packs a thread in flight (1, 2, 4, 8)
    int sum_blocks = 0;   // grid of the sum (0: one tile a block, no striding)
};

static unsigned sum_grid(const Kernels &k, long long packs) {
    const long long tiles = (packs + (long long)kThreads * k.sum_u - 1) / ((long long)kThreads * k.sum_u);
    const long long most = k.sum_blocks > 0 ? k.sum_blocks : kMaxBlocks;
    return static_cast<unsigned>(std::max<long long>(1, std::min(tiles, most)));
}

static void launch_sum(const Kernels &k, const char *src, size_t bytes, double *partials, cudaStream_t st) {
    const long long packs = static_cast<long long>(bytes / sizeof(D2));
    const unsigned grid = sum_grid(k, packs);
    const D2 *a = reinterpret_cast<const D2 *>(src);
    switch (k.sum_u) {
        case 1: sum_packs<1><<<grid, kThreads, 0, st>>>(a, packs, partials); break;
        case 2: sum_packs<2><<<grid, kThreads, 0, st>>>(a, packs, partials); break;
        case 4: sum_packs<4><<<grid, kThreads, 0, st>>>(a, packs, partials); break;
        default: sum_packs<8><<<grid, kThreads, 0, st>>>(a, packs, partials); break;
    }
}

static void launch_add(const char *a, const char *b, char *o, size_t bytes, cudaStream_t st) {
    const long long packs = static_cast<long long>(bytes / sizeof(D2));
    const unsigned grid = static_cast<unsigned>((packs + kThreads * 2 - 1) / (kThreads * 2));
    add_packs<2><<<grid, kThreads, 0, st>>>(reinterpret_cast<const D2 *>(a), reinterpret_cast<const D2 *>(b),
                                             reinterpret_cast<D2 *>(o), packs);
}

// ---------------- part 1: the link alone ----------------
// `total` bytes of sum from a pinned ring (ring_bytes, chunk pieces) on `streams`
// streams: dma (copy then the kernel on device memory) or in place (the kernel on
// the pinned chunk).
static double link_sum(const Kernels &k, char *ring, size_t ring_bytes, char *dev, size_t total,
                       size_t chunk, int nstreams, int mix, double *partials) {
    std::vector<cudaStream_t> st(nstreams);
    for (auto &s : st) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMemset(partials, 0, sizeof(double) * kMaxBlocks * nstreams));
    CHECK(cudaDeviceSynchronize());
    const double t0 = now_ms();
    size_t i = 0;
    for (size_t off = 0; off < total; off += chunk, ++i) {
        const size_t len = std::min(chunk, total - off);
        const size_t at = off % ring_bytes;
        cudaStream_t s = st[i % nstreams];
        double *part = partials + (i % nstreams) * kMaxBlocks;
        if (mix > 0 && i % mix == 0) {
            launch_sum(k, ring + at, len, part, s);
        } else {
            CHECK(cudaMemcpyAsync(dev + at, ring + at, len, cudaMemcpyHostToDevice, s));
            launch_sum(k, dev + at, len, part, s);
        }
    }
    CHECK(cudaDeviceSynchronize());
    const double ms = now_ms() - t0;
    for (auto &s : st) CHECK(cudaStreamDestroy(s));
    return ms;
}

// ---------------- part 2: as the pipeline ----------------
struct Source {
    const char *a = nullptr, *b = nullptr;  // pageable inputs
    char *out = nullptr;                    // pinned output (add)
    size_t bytes = 0;                       // of each input
};

struct Slot {
    char *pin[2] = {nullptr, nullptr};
    char *dev[3] = {nullptr, nullptr, nullptr};
    cudaEvent_t done = nullptr;
};

struct Worker {
    cudaStream_t stream = nullptr;
    Slot slot[2];
    double *partials = nullptr;
};

struct Ring {
    std::vector<Worker> w;
    size_t chunk = 0;
    bool joined = false;  // pin[1] = pin[0] + chunk, dev[1] = dev[0] + chunk
    bool out_in_place = false;  // add's kernel writes the pinned output itself
};

static void build_ring(Ring &r, int workers, size_t chunk, bool joined = false) {
    r.w.assign(workers, Worker());
    r.chunk = chunk;
    r.joined = joined;
    for (auto &w : r.w) {
        CHECK(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking));
        CHECK(cudaMalloc(&w.partials, sizeof(double) * kMaxBlocks));
        for (auto &s : w.slot) {
            for (auto &p : s.pin) { CHECK(cudaHostAlloc(reinterpret_cast<void **>(&p), 2 * chunk, cudaHostAllocPortable | cudaHostAllocMapped)); std::memset(p, 0, 2 * chunk); }
            for (auto &d : s.dev) CHECK(cudaMalloc(&d, 2 * chunk));
            if (joined) {
                s.pin[1] = s.pin[0] + chunk;
                s.dev[1] = s.dev[0] + chunk;
            }
            CHECK(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming));
            CHECK(cudaEventRecord(s.done, w.stream));
        }
    }
    CHECK(cudaDeviceSynchronize());
}

static void free_ring(Ring &r) {
    for (auto &w : r.w) {
        for (auto &s : w.slot) {
            CHECK(cudaFreeHost(s.pin[0]));
            if (!r.joined) CHECK(cudaFreeHost(s.pin[1]));
            for (int d = 0; d < 3; ++d)
                if (d != 1 || !r.joined) CHECK(cudaFree(s.dev[d]));
            CHECK(cudaEventDestroy(s.done));
        }
        CHECK(cudaFree(w.partials));
        CHECK(cudaStreamDestroy(w.stream));
    }
    r.w.clear();
}

// One call: sum of src.a (add == false) or src.a + src.b into src.out.
static double pipeline_call(const Kernels &k, Ring &r, const Source &src, bool add, int mix,
                            double *total_out) {
    const size_t chunk = r.chunk, nchunks = (src.bytes + chunk - 1) / chunk;
    for (auto &w : r.w) CHECK(cudaMemsetAsync(w.partials, 0, sizeof(double) * kMaxBlocks, w.stream));
    CHECK(cudaDeviceSynchronize());
    std::atomic<size_t> next{0};
    const double t0 = now_ms();
    std::vector<std::thread> threads;
    for (size_t wi = 0; wi < r.w.size(); ++wi)
        threads.emplace_back([&, wi] {
            CHECK(cudaSetDevice(0));
            Worker &w = r.w[wi];
            int it = 0;
            for (size_t c = next++; c < nchunks; c = next++, ++it) {
                Slot &s = w.slot[it % 2];
                CHECK(cudaEventSynchronize(s.done));
                const size_t off = c * chunk, len = std::min(chunk, src.bytes - off);
                const bool in_place = mix > 0 && c % mix == 0;
                std::memcpy(s.pin[0], src.a + off, len);
                if (add) std::memcpy(s.pin[1], src.b + off, len);
                if (!add) {
                    if (in_place) {
                        launch_sum(k, s.pin[0], len, w.partials, w.stream);
                    } else {
                        CHECK(cudaMemcpyAsync(s.dev[0], s.pin[0], len, cudaMemcpyHostToDevice, w.stream));
                        launch_sum(k, s.dev[0], len, w.partials, w.stream);
                    }
                } else if (in_place) {
                    launch_add(s.pin[0], s.pin[1], src.out + off, len, w.stream);
                } else if (r.joined && len == chunk) {
                    CHECK(cudaMemcpyAsync(s.dev[0], s.pin[0], 2 * len, cudaMemcpyHostToDevice, w.stream));
                    launch_add(s.dev[0], s.dev[1], r.out_in_place ? src.out + off : s.dev[2], len, w.stream);
                    if (!r.out_in_place)
                        CHECK(cudaMemcpyAsync(src.out + off, s.dev[2], len, cudaMemcpyDeviceToHost, w.stream));
                } else {
                    CHECK(cudaMemcpyAsync(s.dev[0], s.pin[0], len, cudaMemcpyHostToDevice, w.stream));
                    CHECK(cudaMemcpyAsync(s.dev[1], s.pin[1], len, cudaMemcpyHostToDevice, w.stream));
                    launch_add(s.dev[0], s.dev[1], s.dev[2], len, w.stream);
                    CHECK(cudaMemcpyAsync(src.out + off, s.dev[2], len, cudaMemcpyDeviceToHost, w.stream));
                }
                CHECK(cudaEventRecord(s.done, w.stream));
            }
            CHECK(cudaStreamSynchronize(w.stream));
        });
    for (auto &t : threads) t.join();
    const double ms = now_ms() - t0;
    if (total_out != nullptr) {
        double total = 0.0;
        std::vector<double> host(kMaxBlocks);
        for (auto &w : r.w) {
            CHECK(cudaMemcpy(host.data(), w.partials, sizeof(double) * kMaxBlocks, cudaMemcpyDeviceToHost));
            for (double v : host) total += v;
        }
        *total_out = total;
    }
    return ms;
}

template <typename F>
static double median_of(int rounds, F f) {
    std::vector<double> t;
    f();
    for (int r = 0; r < rounds; ++r) t.push_back(f());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char **argv) {
    const double n_asked = argc > 1 ? std::atof(argv[1]) : 1e9;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
    const size_t n = static_cast<size_t>(n_asked) / (1 << 20) * (1 << 20);
    const size_t bytes = n * sizeof(double);
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s, %d SMs, n = %zu float64 (%.2f GB an input), median of %d, wall ms\n", prop.name,
                prop.multiProcessorCount, n, bytes / 1e9, rounds);
    double *partials = nullptr;
    CHECK(cudaMalloc(&partials, sizeof(double) * kMaxBlocks * 16));

    const bool joined_only = argc > 4 && std::strcmp(argv[4], "joined") == 0;
    // ---- part 1 ----
    if (!joined_only) {
        const size_t ring_bytes = size_t(1) << 30;
        char *ring = nullptr, *dev = nullptr;
        CHECK(cudaHostAlloc(reinterpret_cast<void **>(&ring), ring_bytes, cudaHostAllocPortable | cudaHostAllocMapped));
        std::memset(ring, 1, ring_bytes);
        CHECK(cudaMalloc(&dev, ring_bytes));
        auto row = [&](const char *what, double ms) {
            std::printf("link  %-60s %8.1f ms %6.1f GB/s\n", what, ms, bytes / ms / 1e6);
        };
        Kernels k;
        char name[160];
        // The in-place kernel's shapes (call 1): packs a thread in flight and grids.
        for (int u : {1, 2, 4, 8})
            for (int blocks : {0, prop.multiProcessorCount * 4, prop.multiProcessorCount * 16})
                for (size_t chunk : {4 * kMiB, 2 * kMiB}) {
                    k.sum_u = u;
                    k.sum_blocks = blocks;
                    std::snprintf(name, sizeof name, "kernel reads pinned, U=%d grid %s%d, %zu MiB, 8 streams", u,
                                  blocks == 0 ? "tiles<=" : "", blocks == 0 ? kMaxBlocks : blocks, chunk / kMiB);
                    row(name, median_of(rounds, [&] { return link_sum(k, ring, ring_bytes, dev, bytes, chunk, 8, 1, partials); }));
                }
        k = Kernels();
        // mix: 0 every piece copied then summed; 1 every piece read in place by the
        // kernel; m > 1 one piece in m read in place, the others copied (the two
        // ways share the link: the kernel's reads may fill the copies' gaps).
        for (size_t chunk : {size_t(1) << 30, 8 * kMiB, 4 * kMiB, 2 * kMiB})
            for (int mix : {0, 1, 2, 3, 4, 8}) {
                if (chunk == (size_t(1) << 30) && mix > 1) continue;
                std::snprintf(name, sizeof name, "%zu MiB pieces, 8 streams, %s %d", chunk / kMiB,
                              mix == 0 ? "all copied" : "in place 1 in", mix);
                row(name, median_of(rounds, [&] { return link_sum(k, ring, ring_bytes, dev, bytes, chunk, 8, mix, partials); }));
            }
        CHECK(cudaFreeHost(ring));
        CHECK(cudaFree(dev));
    }

    // ---- part 2 ----
    Source src;
    src.bytes = bytes;
    src.a = numpy_like(bytes, 0.0);
    src.b = numpy_like(bytes, 0.5);
    CHECK(cudaHostAlloc(reinterpret_cast<void **>(&src.out), bytes, cudaHostAllocPortable | cudaHostAllocMapped));
    std::memset(src.out, 0, bytes);
    double expect = 0.0;
    for (size_t i = 0; i < n; ++i) expect += static_cast<double>(i & 1023);
    const int workers = argc > 3 ? std::atoi(argv[3]) : 8;
    auto add_right = [&] {
        const double *o = reinterpret_cast<const double *>(src.out);
        bool right = o[n - 1] == 2.0 * ((n - 1) & 1023) + 0.5;
        for (size_t i = 0; i < n; i += 4099) right = right && o[i] == 2.0 * (i & 1023) + 0.5;
        std::memset(src.out, 0, bytes);
        return right;
    };
    if (joined_only) {
        // Interleaved rounds, so that both ways see the same machine.
        for (size_t chunk : {2 * kMiB, 1 * kMiB}) {
            Ring sep, joint, direct;
            build_ring(sep, workers, chunk, false);
            build_ring(joint, workers, chunk, true);
            build_ring(direct, workers, chunk, true);
            direct.out_in_place = true;
            Kernels k;
            for (int round = 0; round < 3; ++round)
                for (Ring *r : {&sep, &joint, &direct}) {
                    const double ms = median_of(rounds, [&] { return pipeline_call(k, *r, src, true, 0, nullptr); });
                    std::printf("pipe  add, %d workers, %zu KiB chunks, %-34s %8.1f ms %6.1f GB/s up (%s)\n",
                                workers, chunk >> 10,
                                !r->joined ? "a copy an input" : r->out_in_place ? "inputs in one copy, kernel writes out"
                                                                                : "inputs in one copy",
                                ms, 2 * bytes / ms / 1e6, add_right() ? "right" : "WRONG");
                }
            free_ring(sep);
            free_ring(joint);
            free_ring(direct);
        }
        return 0;
    }
    for (size_t chunk : {8 * kMiB, 4 * kMiB, 2 * kMiB}) {
        Ring r;
        build_ring(r, workers, chunk);
        Kernels k;
        for (int mix : {0, 1, 2, 3, 4, 8}) {
            char how[40];
            std::snprintf(how, sizeof how, mix == 0 ? "all copied" : "in place 1 in %d", mix);
            double total = 0.0;
            const double sum_ms = median_of(rounds, [&] { return pipeline_call(k, r, src, false, mix, &total); });
            std::printf("pipe  sum, %d workers, %zu MiB chunks, %-18s %8.1f ms %6.1f GB/s up (%s)\n", workers,
                        chunk / kMiB, how, sum_ms, bytes / sum_ms / 1e6, total == expect ? "right" : "WRONG");
            if (chunk == 8 * kMiB) continue;
            const double add_ms = median_of(rounds, [&] { return pipeline_call(k, r, src, true, mix, nullptr); });
            const bool right = add_right();
            std::printf("pipe  add, %d workers, %zu MiB chunks, %-18s %8.1f ms %6.1f GB/s up (%s)\n", workers,
                        chunk / kMiB, how, add_ms, 2 * bytes / add_ms / 1e6, right ? "right" : "WRONG");
        }
        free_ring(r);
    }
    return 0;
}
