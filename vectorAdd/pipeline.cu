#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

#include "cpu_affinity.cuh"
#include "pipeline.cuh"
#include "pipeline_trace.cuh"
#include "runtime.cuh"
#include "stream_copy.cuh"

namespace va {
namespace {

std::mutex g_create_mutex;
Pipeline *g_pipelines[kMaxDevices] = {};
SmallStaging *g_small[kMaxDevices] = {};

// The workers MYMODULE_HOST_WORKERS asks for (at most kMaxWorkers), or 0 where
// it is not set; read once.
int asked_workers() {
    static const int asked = static_cast<int>(std::min<long long>(env_count("MYMODULE_HOST_WORKERS"), kMaxWorkers));
    return asked;
}

// Half the hardware threads (the staging copy is bound by memory, not by
// cores), at most 12 unless MYMODULE_HOST_WORKERS asks for more (16 at most).
// 12 a GPU on a 32-CPU two-H100 host: add of 1e9 host float64 396 ms on one GPU
// and 290 ms on two, against 456 and 331 with 8 and 427 and 299 with 16, in one
// run (bench/NOTES.md, session 13); a 16-CPU host keeps 8.
int worker_count() {
    static const int count = [] {
        if (asked_workers() > 0) return asked_workers();
        const unsigned hw = std::thread::hardware_concurrency();
        return static_cast<int>(std::max(1u, std::min<unsigned>(12, hw == 0 ? 1 : hw / 2)));
    }();
    return count;
}

}  // namespace

int reduction_workers(const Pipeline &p) {
    // A reduction moves one stream of bytes up and nothing back: eight workers'
    // memcpy (about 58 GB/s on the H200 hosts) already outruns one link's 53-55
    // GB/s of chunk-sized copies, and more only contend for the host's memory. On
    // a 32-CPU two-H200 host (12 workers a GPU by default) sum of 1e9 host float64
    // took 152.4-152.6 ms on one GPU and 81.9-87.7 on two with 8 workers, against
    // 155.3-157.2 and 95.6-96.4 with 12 (session 28, two runs; bench/NOTES.md),
    // while add on two GPUs wants its 12 (196-200 ms against 235-253). Which
    // worker takes a chunk changes no bit. An asked MYMODULE_HOST_WORKERS is kept.
    return asked_workers() > 0 ? p.workers : std::min(p.workers, kOneLinkWorkers);
}

int elementwise_workers(const Pipeline &p, int sharing) {
    // One GPU's link favours fewer workers in larger chunks, several GPUs staging
    // at once favour more in smaller ones (their rings share one cache). On a
    // 32-CPU two-H200 host add of two 1e9 host float64 arrays into a pinned out=
    // took 321.5 ms on one GPU with 8 workers (2 MiB chunks by the rule), against
    // 331.2 with 10 and 333.6 with 12 (1.5 MiB), while on both GPUs 12 took 209.3
    // against 220.2 with 8 (session 40; session 28 saw the same). A 16-CPU host
    // has 8 workers and does not change. An asked MYMODULE_HOST_WORKERS is kept.
    if (asked_workers() > 0 || sharing > 1) return p.workers;
    return std::min(p.workers, kOneLinkWorkers);
}

int stage_slots() {
    static const int slots = [] {
        const long long asked = env_count("MYMODULE_STAGE_SLOTS");
        return asked > 0 ? static_cast<int>(std::min<long long>(asked, kMaxStageSlots)) : 2;
    }();
    return slots;
}

namespace {

va_status build_worker(StageWorker &w) {
    VA_CUDA_CHECK(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking));
    w.nslots = stage_slots();
    for (int k = 0; k < w.nslots; ++k) {
        StageSlot &s = w.slots[k];
        const size_t inputs_bytes = kPipelineInputs * chunk_bytes();
        VA_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void **>(&s.pinned_in), inputs_bytes, cudaHostAllocPortable));
        VA_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&s.dev_in), inputs_bytes));
        VA_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&s.dev_out), chunk_bytes()));
        VA_CUDA_CHECK(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming));
    }
    void *scratch = nullptr;
    VA_CUDA_CHECK(cudaMalloc(&scratch, kReduceScratchBytes));
    w.scratch = scratch_at(scratch);
    VA_CUDA_CHECK(cudaMemset(scratch, 0, kReduceScratchBytes));
    return VA_SUCCESS;
}

void destroy_worker(StageWorker &w) {
    for (StageSlot &s : w.slots) {
        if (s.pinned_in) cudaFreeHost(s.pinned_in);
        if (s.dev_in) cudaFree(s.dev_in);
        if (s.dev_out) cudaFree(s.dev_out);
        if (s.done) cudaEventDestroy(s.done);
    }
    if (w.scratch.partials) cudaFree(w.scratch.partials);
    if (w.stream) cudaStreamDestroy(w.stream);
    w = StageWorker();
    cudaGetLastError();
}

}  // namespace

void shutdown_pipelines() {
    std::lock_guard<std::mutex> lock(g_create_mutex);
    for (int d = 0; d < kMaxDevices; ++d) {
        if (g_pipelines[d] != nullptr) {
            DeviceScope scope(d);
            for (int w = 0; w < g_pipelines[d]->workers; ++w) destroy_worker(g_pipelines[d]->worker[w]);
            delete g_pipelines[d];
            g_pipelines[d] = nullptr;
        }
        if (g_small[d] != nullptr) {
            cudaFreeHost(g_small[d]->host);
            delete g_small[d];
            g_small[d] = nullptr;
        }
    }
    cudaGetLastError();
}

va_status pipeline_for(int device, Pipeline **pipeline) {
    std::lock_guard<std::mutex> lock(g_create_mutex);
    if (g_pipelines[device] == nullptr) {
        Pipeline *p = new (std::nothrow) Pipeline();
        if (p == nullptr) VA_FAIL(VA_ERROR_OUT_OF_MEMORY);
        p->workers = worker_count();
        if (persistent_workers()) p->pool.reset(new (std::nothrow) WorkerPool(device, p->workers - 1));
        for (int w = 0; w < p->workers; ++w) {
            va_status st = build_worker(p->worker[w]);
            if (st != VA_SUCCESS) {
                for (int k = 0; k <= w; ++k) destroy_worker(p->worker[k]);
                delete p;
                return st;
            }
        }
        g_pipelines[device] = p;
    }
    *pipeline = g_pipelines[device];
    return VA_SUCCESS;
}

va_status small_staging_for(int device, SmallStaging **staging) {
    std::lock_guard<std::mutex> lock(g_create_mutex);
    if (g_small[device] == nullptr) {
        SmallStaging *s = new (std::nothrow) SmallStaging();
        if (s == nullptr) VA_FAIL(VA_ERROR_OUT_OF_MEMORY);
        cudaError_t err = cudaHostAlloc(reinterpret_cast<void **>(&s->host), kSmallBytes,
                                        cudaHostAllocPortable | cudaHostAllocMapped);
        if (err == cudaSuccess)
            err = cudaHostGetDevicePointer(reinterpret_cast<void **>(&s->mapped), s->host, 0);
        if (err != cudaSuccess) {
            if (s->host) cudaFreeHost(s->host);
            delete s;
            VA_CUDA_CHECK(err);
        }
        g_small[device] = s;
    }
    *staging = g_small[device];
    return VA_SUCCESS;
}

namespace {

// Runs body(i) for i in [0, count) on as many threads, thread i with
// device_of(i) current; the caller's thread is 0, the others `pool`'s where it
// has them (may be null), else new ones. *pooled says which, where asked.
va_status run_threads(int count, const std::function<int(int)> &device_of,
                      const std::function<va_status(int)> &body, WorkerPool *pool, bool *pooled) {
    std::vector<va_status> status(count, VA_SUCCESS);
    std::vector<va_error_info> info(count);
    std::vector<int> order(count, 0);  // when each failed, 1 first
    std::atomic<int> failures{0};
    auto run = [&](int w) {
        DeviceScope scope(device_of(w));
        status[w] = scope.status() == cudaSuccess
                        ? body(w)
                        : record_cuda(scope.status(), __FILE__, __LINE__);
        if (status[w] != VA_SUCCESS) {
            va_last_error(&info[w]);
            order[w] = ++failures;
        }
    };
    const bool on_pool = pool != nullptr && pool->run(count, run);
    if (pooled != nullptr) *pooled = on_pool;
    if (!on_pool) {
        std::vector<std::thread> threads;
        std::vector<int> inline_workers;
        for (int w = 1; w < count; ++w) {
            try {
                threads.emplace_back([&run, &device_of, w] {
                    if (bind_workers()) bind_to_device_cpus(device_of(w));
                    run(w);
                });
            } catch (...) {  // no thread to be had: that share runs here
                inline_workers.push_back(w);
            }
        }
        run(0);
        for (int w : inline_workers) run(w);
        for (std::thread &t : threads) t.join();
    }
    int chosen = -1;
    for (int w = 0; w < count; ++w) {
        if (status[w] == VA_SUCCESS) continue;
        const bool oom = status[w] == VA_ERROR_OUT_OF_MEMORY;
        if (chosen < 0) {
            chosen = w;
            continue;
        }
        const bool chosen_oom = status[chosen] == VA_ERROR_OUT_OF_MEMORY;
        if ((chosen_oom && !oom) || (chosen_oom == oom && order[w] < order[chosen])) chosen = w;
    }
    if (chosen < 0) return VA_SUCCESS;
    restore_error(info[chosen]);
    return status[chosen];
}

}  // namespace

va_status run_workers(Pipeline &p, int device, int workers, const std::function<va_status(int)> &body) {
    bool pooled = false;
    const va_status st = run_threads(workers, [device](int) { return device; }, body, p.pool.get(), &pooled);
    // Which threads ran the call: the tests hold the default (kept) to it.
    if (workers > 1)
        trace_note("GPU %d: %d workers on %s", device, workers,
                   pooled ? "kept threads" : "threads started for this call");
    return st;
}

va_status run_on_devices(const int *devices, int count, const std::function<va_status(int)> &body) {
    return run_threads(count, [devices](int i) { return devices[i]; }, body, nullptr, nullptr);
}

namespace {
// MYMODULE_CHUNK_BYTES (64 KiB to 64 MiB, whole pages), or 0 where not set.
size_t asked_chunk_bytes() {
    static const size_t bytes = [] {
        const long long asked = env_count("MYMODULE_CHUNK_BYTES");
        if (asked == 0) return size_t(0);
        const long long clamped = std::min<long long>(std::max<long long>(asked, 64 << 10), 64 << 20);
        return static_cast<size_t>(clamped) / 4096 * 4096;
    }();
    return bytes;
}
}  // namespace

size_t chunk_bytes() {
    const size_t asked = asked_chunk_bytes();
    return asked != 0 ? asked : size_t(4) << 20;
}

size_t elementwise_chunk_bytes(int sharing, int workers) {
    // The staging ring (GPUs staging at once x workers x slots x inputs buffers)
    // within a quarter of the CPU's last-level cache, in steps of 512 KiB between
    // 1 and 4 MiB a buffer: the staged lines may then still be in the cache when
    // the GPU's DMA reads them. On an H200 host
    // (16 CPUs, 8 workers, L3 300 MiB) add of two 1e9 float64 arrays into a
    // pinned out= took 326-329 ms in 2 MiB chunks (a 64 MiB ring), 357-366 in 1
    // MiB, 319-354 in 3, 445-519 in 6 and 8 (session 26); on a 16-CPU H100 host,
    // 383-400 ms in 1 MiB against 430-437 in 2 and 524-547 in 4 (session 21;
    // bench/NOTES.md). On a two-H200 host (32 CPUs, 12 workers a GPU, the same
    // L3) one GPU's add took 349 ms in 1.5 MiB chunks against 368 in 1 MiB, while
    // two GPUs sharing a call took 196 ms in 1 MiB against 208 in 1.5 and 252 in 2
    // (session 28): the rings of every GPU staging at once share the one cache.
    // Reductions keep 4 MiB: their bits depend on the chunking, and sum lost in
    // smaller chunks on both hosts. The factors are bounded (kMaxDevices x
    // kMaxWorkers x kMaxStageSlots x kPipelineInputs): the product cannot overflow.
    const size_t asked = asked_chunk_bytes();
    if (asked != 0) return asked;
    const size_t buffers = static_cast<size_t>(std::max(sharing, 1)) * static_cast<size_t>(std::max(workers, 1)) *
                           static_cast<size_t>(stage_slots()) * static_cast<size_t>(kPipelineInputs);
    const size_t step = size_t(512) << 10;
    const size_t fit = last_level_cache_bytes() / 4 / buffers / step * step;
    return std::min<size_t>(std::max<size_t>(fit, size_t(1) << 20), size_t(4) << 20);
}

size_t stage_block_bytes() {
    static const size_t bytes = static_cast<size_t>(env_count("MYMODULE_STAGE_BLOCK_BYTES"));
    return bytes;
}

bool stage_streaming(int sharing, int workers, size_t chunk_staged_bytes) {
    static const int forced = [] {
        const char *v = std::getenv("MYMODULE_STAGE_COPY");
        if (v != nullptr && std::strcmp(v, "stream") == 0) return 1;
        if (v != nullptr && std::strcmp(v, "memcpy") == 0) return 0;
        return -1;
    }();
    if (stage_block_bytes() != 0) return false;  // a memcpy in pieces was asked
    if (forced >= 0) return forced == 1;
    // Non-temporal stores skip the read of each destination line, which pays only
    // where the ring's lines would have left the cache before the DMA engine reads
    // them: then every staged byte costs DRAM a read, a write and a read again.
    // Where the ring fits the last-level cache, the memcpy's lines are rewritten
    // and read by the DMA engine (its reads snoop the cache) without reaching
    // DRAM, and non-temporal stores throw that away. On a 32-CPU two-H200 host
    // (12 workers a GPU, L3 300 MiB; rings of 48 to 192 MiB) add of 1e9 host
    // float64 took 371 ms on one GPU and 200 on two with a memcpy, against 415
    // and 313 with non-temporal stores; sum 157 and 93 against 173 and 139
    // (session 28). On a 32-CPU two-H100 host, whose cache size was not recorded,
    // 4 MiB chunks of add (a 192 MiB ring a GPU) went the other way: 396 ms
    // against 460 (session 13; bench/NOTES.md). An unknown cache size keeps the memcpy. The factors are
    // bounded (kMaxDevices x kMaxWorkers x kMaxStageSlots x two 64 MiB buffers),
    // so the product cannot overflow.
    const size_t cache = last_level_cache_bytes();
    const size_t ring = static_cast<size_t>(sharing) * static_cast<size_t>(workers) *
                        static_cast<size_t>(stage_slots()) * chunk_staged_bytes;
    return cache != 0 && ring > cache;
}

void stage_copy(char *dst, const char *src, size_t bytes, bool streaming) {
    const size_t block = stage_block_bytes();
    if (streaming) {
        stream_copy(dst, src, bytes);
        return;
    }
    if (block == 0 || block >= bytes) {
        std::memcpy(dst, src, bytes);
        return;
    }
    for (size_t done = 0; done < bytes; done += block)
        std::memcpy(dst + done, src + done, std::min(block, bytes - done));
}

size_t split_piece_bytes() {
    static const size_t bytes = [] {
        const long long parsed = env_count("MYMODULE_SPLIT_BYTES");
        // 16 MiB: about 300 us of PCIe at 55 GB/s, against the 50 to 100 us a
        // GPU's share costs to start (its threads, its first chunk's latency).
        return parsed > 0 ? static_cast<size_t>(parsed) : size_t(16) << 20;
    }();
    return bytes;
}

int split_count(size_t bytes, int ndevices) {
    const size_t pieces = bytes / split_piece_bytes();
    return static_cast<int>(std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(ndevices), pieces)));
}

namespace {
// Four chunks a worker, at least 65536 elements, at most `most_bytes` of the widest.
int64_t chunk_of(int64_t n, size_t widest, int workers, size_t most_bytes) {
    const int64_t most = static_cast<int64_t>(most_bytes / widest);
    int64_t want = (n + 4 * workers - 1) / (4 * workers);
    want = std::max<int64_t>(want, 65536);
    want = (want + 255) / 256 * 256;  // chunk starts stay 16-byte aligned
    return std::min(want, most);
}
}  // namespace

int64_t reduce_chunk_elements(int64_t n, size_t size) {
    // 64 chunks a call below the size cap (4 MiB chunks from 32 Mi elements of
    // 8 bytes): enough for the workers of several GPUs to overlap copies and
    // kernels, few enough that a chunk's fixed costs stay small.
    return chunk_of(n, size, 16, chunk_bytes());
}

int64_t chunk_elements(int64_t n, size_t widest, int workers, int sharing) {
    return chunk_of(n, widest, workers, elementwise_chunk_bytes(sharing, workers));
}

}  // namespace va
