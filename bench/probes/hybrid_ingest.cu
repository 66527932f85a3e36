// Issue 25 probe: can pinning part of a pageable host array in place, while the
// staging workers copy the rest, move it to the GPU faster than staging alone?
// The host rows (sum of 1e9 NumPy float64: 0.91x of CuPy's pinned bound on the
// H200, add 0.83x) are bound by the staging copy's rate (50-97 GB/s over runs),
// and pinning the whole array costs more than it saves (23-27 GB/s, session 13).
// Pinning runs in the kernel and reads no data, so one pinning thread beside the
// copying ones might add its rate to theirs. Uploads of one 8 GB array (as NumPy
// allocates it: anonymous mmap, huge pages asked for, touched) into a device
// buffer, three ways, median of 3 each, interleaved:
//   stage  : W workers, 4 MiB chunks, two pinned buffers each (the pipeline's way);
//   hybrid : the same workers from the front, one thread from the back pinning
//            64 MiB pieces (cudaHostRegisterReadOnly), copying each from where it
//            lies and unpinning it once its copy is done; they meet where they meet;
//   bound  : the array pinned beforehand, 64 MiB copies on 4 streams (CuPy's bound).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 hybrid_ingest.cu -o hybrid_ingest -lpthread
// Run:   ./hybrid_ingest [bytes, default 8e9]
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "../../vectorAdd/stream_copy.cu"

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); std::exit(1); } } while (0)

static double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

constexpr size_t kChunk = size_t(4) << 20;
constexpr size_t kPiece = size_t(64) << 20;
constexpr size_t kDevRing = size_t(256) << 20;  // device destination, reused (the bytes are not kept)

struct Worker {
    cudaStream_t stream;
    char *pinned[2];
    cudaEvent_t done[2];
};

struct Shared {
    const char *src;
    size_t bytes;
    char *dev;
    std::atomic<size_t> front{0};  // next byte a staging worker takes
    std::atomic<size_t> back{0};   // bytes at the end the pinning thread has taken
    std::atomic<size_t> staged{0}, pinned{0};
};

// Claims the next chunk from the front; false when the two ends have met.
static bool claim_front(Shared &s, size_t *off, size_t *len) {
    size_t f = s.front.fetch_add(kChunk);
    size_t limit = s.bytes - s.back.load();
    if (f >= limit) return false;
    *off = f;
    *len = std::min(kChunk, limit - f);
    return true;
}

static void stage_worker(Shared &s, Worker &w, bool nt) {
    size_t off = 0, len = 0;
    int k = 0;
    while (claim_front(s, &off, &len)) {
        CHECK(cudaEventSynchronize(w.done[k]));
        if (nt) va::stream_copy(w.pinned[k], s.src + off, len);
        else std::memcpy(w.pinned[k], s.src + off, len);
        CHECK(cudaMemcpyAsync(s.dev + off % kDevRing, w.pinned[k], len, cudaMemcpyHostToDevice, w.stream));
        CHECK(cudaEventRecord(w.done[k], w.stream));
        s.staged += len;
        k ^= 1;
    }
    CHECK(cudaStreamSynchronize(w.stream));
}

// Pins pieces from the back while the front has not reached them; copies each
// from where it lies; unpins those whose copies are done, the rest at the end.
static void pin_worker(Shared &s, cudaStream_t stream) {
    struct Done { char *p; cudaEvent_t ev; };
    std::deque<Done> live;
    for (;;) {
        size_t b = s.back.load();
        if (b + kPiece > s.bytes) break;
        const size_t start = s.bytes - b - kPiece;
        // Reserve the piece only if the front is still before it.
        if (s.front.load() + kChunk * 4 > start) break;
        s.back.store(b + kPiece);
        if (s.front.load() > start) { s.back.store(b); break; }  // lost the race: give it back
        char *p = const_cast<char *>(s.src) + start;
        CHECK(cudaHostRegister(p, kPiece, cudaHostRegisterReadOnly));
        CHECK(cudaMemcpyAsync(s.dev + start % kDevRing, p, kPiece, cudaMemcpyHostToDevice, stream));
        cudaEvent_t ev;
        CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        CHECK(cudaEventRecord(ev, stream));
        live.push_back({p, ev});
        s.pinned += kPiece;
        while (!live.empty() && cudaEventQuery(live.front().ev) == cudaSuccess) {
            CHECK(cudaHostUnregister(live.front().p));
            CHECK(cudaEventDestroy(live.front().ev));
            live.pop_front();
        }
    }
    for (auto &d : live) {
        CHECK(cudaEventSynchronize(d.ev));
        CHECK(cudaHostUnregister(d.p));
        CHECK(cudaEventDestroy(d.ev));
    }
}

static double upload(const char *src, size_t bytes, char *dev, std::vector<Worker> &workers, int nworkers,
                     bool hybrid, bool nt, cudaStream_t pin_stream, double *pinned_share) {
    Shared s;
    s.src = src;
    s.bytes = bytes;
    s.dev = dev;
    const double t0 = now_ms();
    std::vector<std::thread> pool;
    for (int w = 0; w < nworkers; ++w) pool.emplace_back([&, w] { stage_worker(s, workers[w], nt); });
    if (hybrid) pin_worker(s, pin_stream);
    for (auto &t : pool) t.join();
    const double ms = now_ms() - t0;
    *pinned_share = double(s.pinned.load()) / double(bytes);
    if (s.staged.load() + s.pinned.load() < bytes) std::printf("  !! short: %zu + %zu of %zu\n",
                                                               s.staged.load(), s.pinned.load(), bytes);
    return ms;
}

static double bound(char *src, size_t bytes, char *dev) {
    CHECK(cudaHostRegister(src, bytes, cudaHostRegisterReadOnly));
    cudaStream_t st[4];
    for (auto &x : st) CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    const double t0 = now_ms();
    int k = 0;
    for (size_t off = 0; off < bytes; off += kPiece, ++k)
        CHECK(cudaMemcpyAsync(dev + off % kDevRing, src + off, std::min(kPiece, bytes - off), cudaMemcpyHostToDevice,
                              st[k % 4]));
    for (auto &x : st) CHECK(cudaStreamSynchronize(x));
    const double ms = now_ms() - t0;
    for (auto &x : st) CHECK(cudaStreamDestroy(x));
    CHECK(cudaHostUnregister(src));
    return ms;
}

int main(int argc, char **argv) {
    const size_t bytes = (argc > 1 ? static_cast<size_t>(std::atof(argv[1])) : size_t(8000000000)) / kPiece * kPiece;
    CHECK(cudaFree(nullptr));
    char *src = static_cast<char *>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (src == MAP_FAILED) { std::printf("mmap failed\n"); return 1; }
    madvise(src, bytes, MADV_HUGEPAGE);
    {
        std::vector<std::thread> t;
        for (int k = 0; k < 16; ++k)
            t.emplace_back([=] { std::memset(src + bytes / 16 * k, 1 + k, k == 15 ? bytes - bytes / 16 * 15 : bytes / 16); });
        for (auto &x : t) x.join();
    }
    char *dev = nullptr;
    CHECK(cudaMalloc(&dev, kDevRing));
    std::vector<Worker> workers(16);
    for (auto &w : workers) {
        CHECK(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking));
        for (int k = 0; k < 2; ++k) {
            CHECK(cudaHostAlloc(reinterpret_cast<void **>(&w.pinned[k]), kChunk, cudaHostAllocPortable));
            CHECK(cudaEventCreateWithFlags(&w.done[k], cudaEventDisableTiming));
        }
    }
    cudaStream_t pin_stream;
    CHECK(cudaStreamCreateWithFlags(&pin_stream, cudaStreamNonBlocking));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s, %u CPUs, one array of %.2f GB, pageable (huge pages asked for), uploaded\n", prop.name,
                std::thread::hardware_concurrency(), bytes / 1e9);
    struct Mode { const char *name; int workers; bool hybrid, nt; };
    const Mode modes[] = {{"stage  W=8 memcpy", 8, false, false}, {"hybrid W=8 memcpy", 8, true, false},
                          {"stage  W=8 nt", 8, false, true},      {"hybrid W=8 nt", 8, true, true},
                          {"hybrid W=6 memcpy", 6, true, false},  {"stage  W=12 nt", 12, false, true},
                          {"hybrid W=12 nt", 12, true, true}};
    std::vector<std::vector<double>> times(sizeof(modes) / sizeof(modes[0]));
    std::vector<double> shares(times.size()), bounds;
    for (int rep = 0; rep < 3; ++rep) {
        bounds.push_back(bound(src, bytes, dev));
        for (size_t m = 0; m < times.size(); ++m)
            times[m].push_back(upload(src, bytes, dev, workers, modes[m].workers, modes[m].hybrid, modes[m].nt,
                                      pin_stream, &shares[m]));
    }
    auto med = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
    const double b = med(bounds);
    std::printf("  %-20s %7.1f ms  %5.1f GB/s  (runs %.1f %.1f %.1f)\n", "bound (pinned)", b, bytes / b / 1e6,
                bounds[0], bounds[1], bounds[2]);
    for (size_t m = 0; m < times.size(); ++m) {
        const double t = med(times[m]);
        std::printf("  %-20s %7.1f ms  %5.1f GB/s  %.2fx of the bound; pinned share %.0f%% (runs %.1f %.1f %.1f)\n",
                    modes[m].name, t, bytes / t / 1e6, b / t, 100 * shares[m], times[m][0], times[m][1], times[m][2]);
    }
    return 0;
}
