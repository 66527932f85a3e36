// Issue 27's first question: can host (NumPy) arrays reach one or two GPUs
// without the CPU copying them into pinned staging buffers? The library's
// pipeline copies every byte once on the CPU (pageable -> pinned), and with two
// GPUs those copies stay at the single-GPU rate (about 57 GB/s of memcpy on an
// H200 x2 host, bench/results/host-pipeline-probe-nvidia-h200-x2-2026-11-23.log),
// so add of 1e9 float64 ran 0.91x one GPU. Here, on buffers allocated as NumPy
// allocates large arrays (anonymous mmap, MADV_HUGEPAGE, touched):
//   1. the staging memcpy's rate with 1..16 threads;
//   2. the price of pinning the user's memory in place (cudaHostRegister), whole
//      and in pieces from several threads, and of unpinning it;
//   3. DMA rates from/to registered memory, one GPU and both at once;
//   4. add of n float64 end to end through registered memory on 1 and 2 GPUs
//      (register + copies + kernel + unregister), checked against the CPU.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 host_register.cu -o host_register -lpthread
// Run:   ./host_register [n, default 1e9] [staging: part 1 alone]
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

// The library's staging copy with non-temporal stores, compiled in.
#include "../../vectorAdd/stream_copy.cu"

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); std::exit(1); } } while (0)

static double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// As NumPy's allocator gives a large array: fresh anonymous pages, huge pages asked for.
static double *numpy_like(size_t n) {
    const size_t bytes = n * sizeof(double);
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { std::printf("mmap failed\n"); std::exit(1); }
    madvise(p, bytes, MADV_HUGEPAGE);
    return static_cast<double *>(p);
}

static void parallel(int threads, const std::function<void(int)> &body) {
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(body, t);
    body(0);
    for (auto &th : pool) th.join();
}

__global__ void add_kernel(const double *a, const double *b, double *o, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        o[i] = a[i] + b[i];
}

// Pageable -> pinned copies of `bytes` of src by `threads` threads, each into a
// 4 MiB pinned buffer of its own (the pipeline's chunk).
static double staging_rate(const char *src, size_t bytes, int threads, bool nt) {
    const size_t chunk = size_t(4) << 20;
    std::vector<char *> pinned(threads);
    for (auto &p : pinned) CHECK(cudaMallocHost(&p, chunk));
    const double t0 = now_ms();
    parallel(threads, [&](int t) {
        const size_t nchunks = (bytes + chunk - 1) / chunk;
        for (size_t c = t; c < nchunks; c += threads) {
            const size_t len = std::min(chunk, bytes - c * chunk);
            if (nt) va::stream_copy(pinned[t], src + c * chunk, len);
            else std::memcpy(pinned[t], src + c * chunk, len);
        }
    });
    const double ms = now_ms() - t0;
    for (auto p : pinned) CHECK(cudaFreeHost(p));
    return bytes / ms / 1e6;
}

// Registers [p, p + bytes) in pieces of `piece` bytes from `threads` threads
// (piece 0: one call). Returns ms.
static double register_range(char *p, size_t bytes, size_t piece, int threads, unsigned flags) {
    const double t0 = now_ms();
    if (piece == 0) {
        CHECK(cudaHostRegister(p, bytes, flags));
    } else {
        const size_t pieces = (bytes + piece - 1) / piece;
        parallel(threads, [&](int t) {
            for (size_t k = t; k < pieces; k += threads)
                CHECK(cudaHostRegister(p + k * piece, std::min(piece, bytes - k * piece), flags));
        });
    }
    return now_ms() - t0;
}

static double unregister_range(char *p, size_t bytes, size_t piece, int threads) {
    const double t0 = now_ms();
    if (piece == 0) {
        CHECK(cudaHostUnregister(p));
    } else {
        const size_t pieces = (bytes + piece - 1) / piece;
        parallel(threads, [&](int t) {
            for (size_t k = t; k < pieces; k += threads) CHECK(cudaHostUnregister(p + k * piece));
        });
    }
    return now_ms() - t0;
}

// DMA of [lo, hi) of each GPU's share, H2D from src or D2H into dst, 4 streams a
// GPU, 64 MiB copies. Returns GB/s over the wall.
static double dma_rate(int gpus, char *host, size_t bytes, bool to_device) {
    const size_t piece = size_t(64) << 20;
    std::vector<char *> dev(gpus);
    for (int g = 0; g < gpus; ++g) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaMalloc(&dev[g], piece * 4));
    }
    const double t0 = now_ms();
    parallel(gpus, [&](int g) {
        CHECK(cudaSetDevice(g));
        cudaStream_t s[4];
        for (auto &x : s) CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
        const size_t lo = bytes * g / gpus, hi = bytes * (g + 1) / gpus;
        int k = 0;
        for (size_t off = lo; off < hi; off += piece, ++k) {
            const size_t len = std::min(piece, hi - off);
            if (to_device) CHECK(cudaMemcpyAsync(dev[g] + (k % 4) * piece, host + off, len, cudaMemcpyHostToDevice, s[k % 4]));
            else CHECK(cudaMemcpyAsync(host + off, dev[g] + (k % 4) * piece, len, cudaMemcpyDeviceToHost, s[k % 4]));
        }
        for (auto &x : s) { CHECK(cudaStreamSynchronize(x)); CHECK(cudaStreamDestroy(x)); }
    });
    const double ms = now_ms() - t0;
    for (int g = 0; g < gpus; ++g) { CHECK(cudaSetDevice(g)); CHECK(cudaFree(dev[g])); }
    return bytes / ms / 1e6;
}

struct AddTimes { double reg, compute, unreg; };

// out = a + b through registered memory on `gpus` GPUs: each GPU takes a
// contiguous share, 4 streams, chunks of `chunk` elements; registration of each
// GPU's share of the three arrays is done by that GPU's thread (pieces of
// `piece` bytes, `reg_threads` threads per GPU).
static AddTimes add_registered(int gpus, double *a, double *b, double *o, size_t n, size_t chunk,
                               size_t piece, int reg_threads) {
    std::vector<double *> dev(gpus);
    for (int g = 0; g < gpus; ++g) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaMalloc(&dev[g], chunk * sizeof(double) * 3 * 4));
        CHECK(cudaDeviceSynchronize());
    }
    std::vector<double> reg(gpus), comp(gpus), unreg(gpus);
    const double t0 = now_ms();
    parallel(gpus, [&](int g) {
        CHECK(cudaSetDevice(g));
        const size_t lo = n * g / gpus, hi = n * (g + 1) / gpus;
        const size_t bytes = (hi - lo) * sizeof(double);
        double t = now_ms();
        register_range(reinterpret_cast<char *>(a + lo), bytes, piece, reg_threads, cudaHostRegisterReadOnly);
        register_range(reinterpret_cast<char *>(b + lo), bytes, piece, reg_threads, cudaHostRegisterReadOnly);
        register_range(reinterpret_cast<char *>(o + lo), bytes, piece, reg_threads, cudaHostRegisterDefault);
        reg[g] = now_ms() - t;
        t = now_ms();
        cudaStream_t s[4];
        for (auto &x : s) CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
        int k = 0;
        for (size_t i = lo; i < hi; i += chunk, ++k) {
            const size_t len = std::min(chunk, hi - i);
            double *da = dev[g] + (k % 4) * chunk * 3, *db = da + chunk, *dc = db + chunk;
            cudaStream_t st = s[k % 4];
            CHECK(cudaMemcpyAsync(da, a + i, len * sizeof(double), cudaMemcpyHostToDevice, st));
            CHECK(cudaMemcpyAsync(db, b + i, len * sizeof(double), cudaMemcpyHostToDevice, st));
            add_kernel<<<1024, 256, 0, st>>>(da, db, dc, (long long)len);
            CHECK(cudaMemcpyAsync(o + i, dc, len * sizeof(double), cudaMemcpyDeviceToHost, st));
        }
        for (auto &x : s) { CHECK(cudaStreamSynchronize(x)); CHECK(cudaStreamDestroy(x)); }
        comp[g] = now_ms() - t;
        t = now_ms();
        unregister_range(reinterpret_cast<char *>(a + lo), bytes, piece, reg_threads);
        unregister_range(reinterpret_cast<char *>(b + lo), bytes, piece, reg_threads);
        unregister_range(reinterpret_cast<char *>(o + lo), bytes, piece, reg_threads);
        unreg[g] = now_ms() - t;
    });
    const double wall = now_ms() - t0;
    for (int g = 0; g < gpus; ++g) { CHECK(cudaSetDevice(g)); CHECK(cudaFree(dev[g])); }
    AddTimes r{*std::max_element(reg.begin(), reg.end()), *std::max_element(comp.begin(), comp.end()),
               *std::max_element(unreg.begin(), unreg.end())};
    std::printf("  add on %d GPU(s), piece %zu MiB x %d threads: wall %.1f ms (register %.1f, copies+kernels %.1f, "
                "unregister %.1f) = %.1f GB/s of 24 B/element\n",
                gpus, piece >> 20, reg_threads, wall, r.reg, r.compute, r.unreg, n * 24.0 / wall / 1e6);
    return r;
}

int main(int argc, char **argv) {
    const size_t n = argc > 1 ? static_cast<size_t>(std::atof(argv[1])) : size_t(1000000000);
    const size_t bytes = n * sizeof(double);
    int ngpu = 0;
    CHECK(cudaGetDeviceCount(&ngpu));
    for (int g = 0; g < ngpu; ++g) { CHECK(cudaSetDevice(g)); CHECK(cudaFree(nullptr)); }
    std::printf("n = %zu float64 (%.2f GB an array), %d GPU(s), %u CPUs\n", n, bytes / 1e9, ngpu,
                std::thread::hardware_concurrency());
    double *a = numpy_like(n), *b = numpy_like(n), *o = numpy_like(n);
    const double tt = now_ms();
    parallel(16, [&](int t) {
        for (size_t i = n * t / 16; i < n * (t + 1) / 16; ++i) { a[i] = double(i % 1000) * 0.5; b[i] = 1.0 + double(i % 7); o[i] = 0; }
    });
    std::printf("touch 3 arrays: %.1f ms\n", now_ms() - tt);

    std::printf("1. staging memcpy (pageable -> 4 MiB pinned), one array:\n");
    for (int th : {1, 2, 4, 8, 16, 24, 32})
        std::printf("  %2d threads: memcpy %.1f GB/s, non-temporal %.1f GB/s\n", th,
                    staging_rate(reinterpret_cast<char *>(a), bytes, th, false),
                    staging_rate(reinterpret_cast<char *>(a), bytes, th, true));
    if (argc > 2 && std::strcmp(argv[2], "staging") == 0) return 0;

    std::printf("2. pinning in place (one array, %.2f GB):\n", bytes / 1e9);
    struct { size_t piece; int threads; unsigned flags; const char *name; } modes[] = {
        {0, 1, cudaHostRegisterDefault, "whole, default"},
        {0, 1, cudaHostRegisterReadOnly, "whole, read-only"},
        {size_t(64) << 20, 1, cudaHostRegisterDefault, "64 MiB pieces, 1 thread"},
        {size_t(64) << 20, 4, cudaHostRegisterDefault, "64 MiB pieces, 4 threads"},
        {size_t(64) << 20, 8, cudaHostRegisterDefault, "64 MiB pieces, 8 threads"},
        {size_t(256) << 20, 8, cudaHostRegisterDefault, "256 MiB pieces, 8 threads"},
    };
    for (auto &m : modes) {
        const double r = register_range(reinterpret_cast<char *>(a), bytes, m.piece, m.threads, m.flags);
        const double u = unregister_range(reinterpret_cast<char *>(a), bytes, m.piece, m.threads);
        std::printf("  %-26s register %.1f ms (%.1f GB/s), unregister %.1f ms\n", m.name, r, bytes / r / 1e6, u);
    }

    std::printf("3. DMA from/to registered memory (one array):\n");
    register_range(reinterpret_cast<char *>(a), bytes, 0, 1, cudaHostRegisterDefault);
    for (int g = 1; g <= ngpu && g <= 2; ++g) {
        std::printf("  %d GPU(s): H2D %.1f GB/s, D2H %.1f GB/s\n", g, dma_rate(g, reinterpret_cast<char *>(a), bytes, true),
                    dma_rate(g, reinterpret_cast<char *>(a), bytes, false));
    }
    unregister_range(reinterpret_cast<char *>(a), bytes, 0, 1);
    // restore a (the D2H test wrote device garbage into it)
    parallel(16, [&](int t) { for (size_t i = n * t / 16; i < n * (t + 1) / 16; ++i) a[i] = double(i % 1000) * 0.5; });

    std::printf("4. add end to end through registered memory:\n");
    const size_t chunk = size_t(4) << 20;  // elements
    for (int g = 1; g <= ngpu && g <= 2; ++g) {
        for (int rep = 0; rep < 2; ++rep) {
            add_registered(g, a, b, o, n, chunk, 0, 1);
            add_registered(g, a, b, o, n, chunk, size_t(256) << 20, 4);
        }
        size_t bad = 0;
        for (size_t i = 0; i < n; i += 997) bad += o[i] != a[i] + b[i];
        std::printf("  check: %zu wrong of %zu sampled\n", bad, n / 997 + 1);
        std::memset(o, 0, bytes);
    }
    return 0;
}
