// Probe (session 27, issue 25): the host pipeline's pinned H2D copies are one
// staged chunk each (2-4 MiB), and h2d_granularity.py measured such copies at
// 51.5-53.5 GB/s where 1 GiB copies move 59 GB/s on the same link. Here the
// staging alone (pageable -> pinned memcpy by W threads, then H2D), no kernels:
//   per-chunk: as the library does it: each worker owns S slots of one chunk,
//     copies chunk c into a free slot and queues the slot's H2D on its stream;
//   batched:   chunks staged by the same workers into a ring of R batch buffers
//     of K chunks; the worker that stages a batch's last chunk queues the one
//     H2D of the whole batch (K chunks), so the link sees copies K times larger
//     for the same bytes of pinned memory in flight (R * K * chunk).
// Each case runs twice: alone, and "+down" with a D2H of half the bytes queued at the
// start on a stream of its own in pieces of the chunk (add's result comes back per
// chunk in the library, so +down is a rougher stand-in). Source: as NumPy allocates a large array
// (anonymous mmap, huge pages asked, touched). Wall clock, median of rounds.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 staged_batches.cu -o staged_batches -lpthread
// Run:   ./staged_batches [GB up, default 8] [rounds, default 3]
// The link-only rows (cudaMemcpyBatchAsync) first ran in session 28 on a two-H200
// host (bench/results/session28/call1-*): 2 MiB copies in batches 55.2 GB/s, 4 MiB
// copies one at a time 53.4, 256 MiB copies 56.9; one run.
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

static double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static char *numpy_like(size_t bytes) {
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { std::printf("mmap failed\n"); std::exit(1); }
    madvise(p, bytes, MADV_HUGEPAGE);
    double *d = static_cast<double *>(p);
    for (size_t i = 0; i < bytes / sizeof(double); ++i) d[i] = static_cast<double>(i & 1023);
    return static_cast<char *>(p);
}

struct Setup {
    const char *src;
    size_t total;      // bytes up
    char *dev;         // device buffer of the ring's size (bytes land by ring position)
    char *dev_down;    // device source of the D2H
    char *host_down;   // pinned destination of the D2H (total / 2)
    bool down;
};

// The D2H of half the bytes, in chunk pieces, issued at the start on its own stream.
static void queue_down(const Setup &s, size_t chunk, size_t ring, cudaStream_t st) {
    if (!s.down) return;
    for (size_t off = 0; off < s.total / 2; off += chunk) {
        const size_t len = std::min(chunk, s.total / 2 - off);
        CHECK(cudaMemcpyAsync(s.host_down + off, s.dev_down + off % ring, len, cudaMemcpyDeviceToHost, st));
    }
}

// Runs body(w) on `workers` threads (device 0 current in each) while +down's D2H runs,
// then drain(); the wall ms from the first copy queued to the last one done.
template <typename Body, typename Drain>
static double time_workers(const Setup &s, size_t chunk, size_t ring, int workers, Body body, Drain drain) {
    cudaStream_t down;
    CHECK(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
    CHECK(cudaDeviceSynchronize());
    const double t0 = now_ms();
    queue_down(s, chunk, ring, down);
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w)
        threads.emplace_back([&, w] {
            CHECK(cudaSetDevice(0));
            body(w);
        });
    for (auto &t : threads) t.join();
    drain();
    CHECK(cudaStreamSynchronize(down));
    const double ms = now_ms() - t0;
    CHECK(cudaStreamDestroy(down));
    return ms;
}

// (Restructured after session 27's runs, the same steps: time_workers took the setup
// the two schemes repeated.)
// The library's way: W workers, S slots of one chunk each a worker, its own stream.
static double per_chunk(const Setup &s, int workers, int slots, size_t chunk) {
    const size_t nchunks = (s.total + chunk - 1) / chunk;
    const size_t ring = size_t(workers) * slots * chunk;
    std::vector<char *> pinned(size_t(workers) * slots);
    std::vector<cudaEvent_t> done(pinned.size());
    std::vector<cudaStream_t> streams(workers);
    for (size_t i = 0; i < pinned.size(); ++i) {
        CHECK(cudaMallocHost(&pinned[i], chunk));
        std::memset(pinned[i], 0, chunk);
        CHECK(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
        CHECK(cudaEventRecord(done[i], 0));
    }
    for (auto &st : streams) CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    std::atomic<size_t> next{0};
    const double ms = time_workers(s, chunk, ring, workers, [&](int w) {
        int it = 0;
        for (size_t c = next++; c < nchunks; c = next++, ++it) {
            const size_t k = size_t(w) * slots + it % slots;
            CHECK(cudaEventSynchronize(done[k]));
            const size_t len = std::min(chunk, s.total - c * chunk);
            std::memcpy(pinned[k], s.src + c * chunk, len);
            CHECK(cudaMemcpyAsync(s.dev + k * chunk, pinned[k], len, cudaMemcpyHostToDevice, streams[w]));
            CHECK(cudaEventRecord(done[k], streams[w]));
        }
        CHECK(cudaStreamSynchronize(streams[w]));
    }, [] {});
    for (size_t i = 0; i < pinned.size(); ++i) {
        CHECK(cudaFreeHost(pinned[i]));
        CHECK(cudaEventDestroy(done[i]));
    }
    for (auto &st : streams) CHECK(cudaStreamDestroy(st));
    return ms;
}

// Batches of K chunks in a ring of R buffers: the worker that stages a batch's last
// chunk queues its one H2D (on the batch's stream) and records the batch's event;
// a worker waits for that event before staging into the buffer's next batch.
static double batched(const Setup &s, int workers, int batches, int per_batch, size_t chunk) {
    const size_t nchunks = (s.total + chunk - 1) / chunk;
    const size_t batch_bytes = chunk * per_batch;
    const size_t nbatches = (nchunks + per_batch - 1) / per_batch;
    const size_t ring = batch_bytes * batches;
    std::vector<char *> pinned(batches);
    std::vector<cudaEvent_t> done(batches);
    std::vector<cudaStream_t> streams(batches);
    for (int i = 0; i < batches; ++i) {
        CHECK(cudaMallocHost(&pinned[i], batch_bytes));
        std::memset(pinned[i], 0, batch_bytes);
        CHECK(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
        CHECK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
    }
    // staged[b]: chunks of batch b copied so far; issued[r]: batches of buffer r queued.
    std::vector<std::atomic<int>> staged(nbatches);
    for (auto &x : staged) x = 0;
    std::vector<std::atomic<size_t>> issued(batches);
    for (auto &x : issued) x = 0;
    std::atomic<size_t> next{0};
    const double ms = time_workers(s, chunk, ring, workers, [&](int) {
        for (size_t c = next++; c < nchunks; c = next++) {
            const size_t b = c / per_batch, r = b % batches, round = b / batches;
            // The buffer's previous batch must be queued (then its copy done)
            // before this batch writes over it.
            while (issued[r].load(std::memory_order_acquire) < round) std::this_thread::yield();
            if (round > 0) CHECK(cudaEventSynchronize(done[r]));
            const size_t len = std::min(chunk, s.total - c * chunk);
            std::memcpy(pinned[r] + (c % per_batch) * chunk, s.src + c * chunk, len);
            const int last = static_cast<int>(std::min<size_t>(per_batch, nchunks - b * per_batch));
            if (staged[b].fetch_add(1, std::memory_order_acq_rel) + 1 == last) {
                const size_t bytes = std::min(batch_bytes, s.total - b * batch_bytes);
                CHECK(cudaMemcpyAsync(s.dev + r * batch_bytes, pinned[r], bytes, cudaMemcpyHostToDevice,
                                      streams[r]));
                CHECK(cudaEventRecord(done[r], streams[r]));
                issued[r].store(round + 1, std::memory_order_release);
            }
        }
    }, [&] {
        for (auto &st : streams) CHECK(cudaStreamSynchronize(st));
    });
    for (int i = 0; i < batches; ++i) {
        CHECK(cudaFreeHost(pinned[i]));
        CHECK(cudaEventDestroy(done[i]));
        CHECK(cudaStreamDestroy(streams[i]));
    }
    return ms;
}

// The link alone, from pinned memory (no staging): `total` bytes in `piece`-byte copies
// from a 1 GiB pinned buffer, queued one cudaMemcpyAsync each or `per_call` at a time
// through cudaMemcpyBatchAsync (the driver sees a batch, maybe as one transfer), or
// whole 1 GiB copies (piece == 1 GiB: the bench's bound).
static double link_only(const Setup &s, char *pinned, size_t piece, size_t per_call) {
    const size_t big = size_t(1) << 30;
    const size_t count = s.total / piece;
    cudaStream_t st;
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    std::vector<void *> dsts(count);
    std::vector<const void *> srcs(count);
    std::vector<size_t> sizes(count, piece);
    for (size_t i = 0; i < count; ++i) {
        dsts[i] = s.dev + (i * piece) % (512 * kMiB);
        srcs[i] = pinned + (i * piece) % big;
    }
    cudaMemcpyAttributes attr = {};
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    attr.srcLocHint.type = cudaMemLocationTypeHost;
    attr.dstLocHint.type = cudaMemLocationTypeDevice;
    attr.dstLocHint.id = 0;
    size_t attr_index = 0;
    CHECK(cudaDeviceSynchronize());
    const double t0 = now_ms();
    if (per_call <= 1) {
        for (size_t i = 0; i < count; ++i)
            CHECK(cudaMemcpyAsync(dsts[i], srcs[i], piece, cudaMemcpyHostToDevice, st));
    } else {
        for (size_t i = 0; i < count; i += per_call) {
            const size_t n = std::min(per_call, count - i);
            CHECK(cudaMemcpyBatchAsync(dsts.data() + i, srcs.data() + i, sizes.data() + i, n, &attr,
                                       &attr_index, 1, st));
        }
    }
    CHECK(cudaStreamSynchronize(st));
    const double ms = now_ms() - t0;
    CHECK(cudaStreamDestroy(st));
    return ms;
}

template <typename F>
static double median_of(int rounds, F f) {
    std::vector<double> t;
    f();  // warm: pinned allocations, first touches
    for (int r = 0; r < rounds; ++r) t.push_back(f());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char **argv) {
    const double gb = argc > 1 ? std::atof(argv[1]) : 8.0;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
    Setup s{};
    s.total = static_cast<size_t>(gb * 1e9) / (16 * kMiB) * (16 * kMiB);
    s.src = numpy_like(s.total);
    const size_t dev_bytes = 512 * kMiB;
    CHECK(cudaMalloc(&s.dev, dev_bytes));
    CHECK(cudaMalloc(&s.dev_down, dev_bytes));
    CHECK(cudaMallocHost(&s.host_down, s.total / 2));
    std::memset(s.host_down, 0, s.total / 2);
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("%s, %.2f GB up (staged from pageable memory), median of %d\n", prop.name, s.total / 1e9, rounds);
    {
        // The device buffer is 512 MiB: the 1 GiB copies land on half of it twice.
        char *pinned = nullptr;
        CHECK(cudaMallocHost(&pinned, size_t(1) << 30));
        std::memset(pinned, 1, size_t(1) << 30);
        auto row = [&](const char *name, double ms) {
            std::printf("%-58s       %8.1f ms %6.1f GB/s up\n", name, ms, s.total / ms / 1e6);
        };
        row("link only: 256 MiB copies, cudaMemcpyAsync each (a stand-in for 1 GiB)",
            median_of(rounds, [&] { return link_only(s, pinned, 256 * kMiB, 1); }));
        row("link only: 4 MiB copies, cudaMemcpyAsync each",
            median_of(rounds, [&] { return link_only(s, pinned, 4 * kMiB, 1); }));
        row("link only: 4 MiB copies, cudaMemcpyBatchAsync of 256",
            median_of(rounds, [&] { return link_only(s, pinned, 4 * kMiB, 256); }));
        row("link only: 2 MiB copies, cudaMemcpyBatchAsync of 512",
            median_of(rounds, [&] { return link_only(s, pinned, 2 * kMiB, 512); }));
        CHECK(cudaFreeHost(pinned));
    }
    for (bool down : {false, true}) {
        s.down = down;
        const char *tag = down ? "+down" : "     ";
        auto row = [&](const char *name, double ms) {
            std::printf("%-58s %s %8.1f ms %6.1f GB/s up\n", name, tag, ms, s.total / ms / 1e6);
        };
        row("per-chunk, 8 workers x 2 slots x 4 MiB (64 MiB ring)",
            median_of(rounds, [&] { return per_chunk(s, 8, 2, 4 * kMiB); }));
        row("per-chunk, 8 workers x 2 slots x 2 MiB (32 MiB ring)",
            median_of(rounds, [&] { return per_chunk(s, 8, 2, 2 * kMiB); }));
        row("batched, 8 workers, 4 x 16 MiB of 2 MiB chunks (64 MiB ring)",
            median_of(rounds, [&] { return batched(s, 8, 4, 8, 2 * kMiB); }));
        row("batched, 8 workers, 3 x 16 MiB of 2 MiB chunks (48 MiB ring)",
            median_of(rounds, [&] { return batched(s, 8, 3, 8, 2 * kMiB); }));
        row("batched, 8 workers, 4 x 32 MiB of 4 MiB chunks (128 MiB ring)",
            median_of(rounds, [&] { return batched(s, 8, 4, 8, 4 * kMiB); }));
        row("batched, 8 workers, 2 x 32 MiB of 2 MiB chunks (64 MiB ring)",
            median_of(rounds, [&] { return batched(s, 8, 2, 16, 2 * kMiB); }));
        row("batched, 8 workers, 4 x 64 MiB of 4 MiB chunks (256 MiB ring)",
            median_of(rounds, [&] { return batched(s, 8, 4, 16, 4 * kMiB); }));
    }
    return 0;
}
