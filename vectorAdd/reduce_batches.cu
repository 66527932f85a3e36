#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "op_registry.cuh"
#include "pipeline_trace.cuh"
#include "reduce_batches.cuh"
#include "runtime.cuh"

namespace va {
namespace {

constexpr int kMaxRingBatches = 4;
// A chunk is staged in this many pieces by as many workers, so that a batch's
// pieces finish close together and its copy waits less for the slowest.
constexpr int64_t kPiecesPerChunk = 2;

// What the workers of one call share. A ring place r holds batches r, r + R,
// r + 2R, ... (R places), one round at a time: round k's pieces are staged only
// after round k - 1's copy and reductions are queued (issued) and done
// (region_done).
struct RingState {
    std::atomic<int64_t> issued[kMaxRingBatches];  // rounds of place r queued
    std::atomic<int64_t> staged[kMaxRingBatches];  // pieces of place r's round staged
    std::atomic<bool> failed{false};               // a worker failed: the others stop waiting

    RingState() {
        for (int r = 0; r < kMaxRingBatches; ++r) {
            issued[r].store(0, std::memory_order_relaxed);
            staged[r].store(0, std::memory_order_relaxed);
        }
    }
};

// Batch geometry of one call, in elements from chunk c0's first.
struct Batches {
    int64_t elements;   // the call's
    int64_t per_batch;  // elements a whole batch
    int64_t piece;      // elements a piece
    int64_t pieces_per_batch;
    int64_t count;      // batches
    int64_t pieces;     // all of the call's

    int64_t begin(int64_t b) const { return b * per_batch; }
    int64_t length(int64_t b) const { return std::min(per_batch, elements - begin(b)); }
    int64_t pieces_of(int64_t b) const { return (length(b) + piece - 1) / piece; }
};

Batches geometry(const HostReduction &r, int64_t per_batch_chunks) {
    Batches g;
    g.elements = std::min(r.n, r.c1 * r.chunk) - r.c0 * r.chunk;
    g.per_batch = per_batch_chunks * r.chunk;
    g.piece = r.chunk / kPiecesPerChunk;  // chunks are whole multiples of 256 elements
    g.pieces_per_batch = per_batch_chunks * kPiecesPerChunk;
    g.count = (g.elements + g.per_batch - 1) / g.per_batch;
    g.pieces = (g.count - 1) * g.pieces_per_batch + g.pieces_of(g.count - 1);
    return g;
}

// Queues batch b's one upload from place `home`'s region and the reductions of
// its chunks on `worker`'s stream, then marks the region's round done there.
va_status issue_batch(int device, const HostReduction &r, const Batches &g, int64_t b, StageWorker &home,
                      StageWorker &worker) {
    const int64_t length = g.length(b);
    VA_CUDA_CHECK(cudaMemcpyAsync(home.dev_region, home.pinned_region, static_cast<size_t>(length) * r.size,
                                  cudaMemcpyHostToDevice, worker.stream));
    const int64_t first = r.c0 + g.begin(b) / r.chunk;
    for (int64_t at = 0; at < length; at += r.chunk) {
        const int64_t count = std::min(r.chunk, length - at);
        va_array view;
        std::memset(&view, 0, sizeof(view));
        view.data = home.dev_region + static_cast<size_t>(at) * r.size;
        view.dtype = r.dtype;
        view.ndim = 1;
        view.shape[0] = count;
        view.strides[0] = static_cast<int64_t>(r.size);
        const int64_t c = first + at / r.chunk;
        VA_CHECK(reduce_on_stream(device, worker.stream, r.op, &view, count, worker.scratch,
                                  r.partials + static_cast<size_t>(c - r.c0) * r.acc_size, true));
    }
    VA_CUDA_CHECK(cudaEventRecord(home.region_done, worker.stream));
    return VA_SUCCESS;
}

}  // namespace

int reduce_batch_chunks() {
    static const int chunks = [] {
        const long long asked = env_count("MYMODULE_REDUCE_BATCH_CHUNKS");
        return asked > 0 ? static_cast<int>(std::min<long long>(asked, 64)) : 4;
    }();
    return chunks;
}

int64_t batch_chunks(const HostReduction &r, size_t region_bytes) {
    const int64_t fits = static_cast<int64_t>(region_bytes / (static_cast<size_t>(r.chunk) * r.size));
    const int64_t enough = (r.c1 - r.c0) / 16;
    return std::max<int64_t>(1, std::min<int64_t>({reduce_batch_chunks(), fits, enough}));
}

int ring_batches(int workers) { return std::max(1, std::min(workers, kMaxRingBatches)); }

va_status reduce_in_batches(int device, Pipeline &p, int workers, int64_t per_batch, bool streaming,
                            const HostReduction &r) {
    const Batches g = geometry(r, per_batch);
    const int ring = ring_batches(p.workers);
    workers = static_cast<int>(std::min<int64_t>(std::min(workers, p.workers), g.pieces));
    CallTrace trace(op_entry(r.op)->info.name, device, g.elements, r.chunk, r.c1 - r.c0, workers, streaming);
    trace.batches_of(per_batch);
    RingState state;
    ChunkCounter next(0);
    return run_workers(device, workers, [&](int w) -> va_status {
        StageWorker &worker = p.worker[w];
        WorkerTrace *wt = trace.worker(w);
        int64_t t = wt != nullptr ? trace.began() : 0;
        trace_lap(wt != nullptr ? &wt->start : nullptr, t);
        auto run = [&]() -> va_status {
            for (int64_t u = next.take(); u < g.pieces; u = next.take()) {
                const int64_t b = u / g.pieces_per_batch, round = b / ring;
                const int place = static_cast<int>(b % ring);
                StageWorker &home = p.worker[place];
                // The place's previous round must be queued, then done, before
                // this round writes over its region.
                while (state.issued[place].load(std::memory_order_acquire) < round) {
                    if (state.failed.load(std::memory_order_relaxed)) return VA_SUCCESS;
                    std::this_thread::yield();
                }
                if (round > 0) VA_CUDA_CHECK(cudaEventSynchronize(home.region_done));
                trace_lap(wt != nullptr ? &wt->wait : nullptr, t);
                const int64_t at = (u % g.pieces_per_batch) * g.piece;
                const int64_t count = std::min(g.piece, g.length(b) - at);
                const size_t offset = static_cast<size_t>(at) * r.size;
                const size_t bytes = static_cast<size_t>(count) * r.size;
                stage_copy(home.pinned_region + offset,
                           r.data + static_cast<size_t>(r.c0 * r.chunk + g.begin(b)) * r.size + offset, bytes,
                           streaming);
                if (wt != nullptr) {
                    trace_lap(&wt->stage, t);
                    wt->bytes += static_cast<int64_t>(bytes);
                    ++wt->chunks;
                }
                if (state.staged[place].fetch_add(1, std::memory_order_acq_rel) + 1 == g.pieces_of(b)) {
                    state.staged[place].store(0, std::memory_order_relaxed);
                    VA_CHECK(issue_batch(device, r, g, b, home, worker));
                    state.issued[place].store(round + 1, std::memory_order_release);
                    trace_lap(wt != nullptr ? &wt->enqueue : nullptr, t);
                }
            }
            VA_CUDA_CHECK(cudaStreamSynchronize(worker.stream));
            trace_lap(wt != nullptr ? &wt->drain : nullptr, t);
            return VA_SUCCESS;
        };
        const va_status st = run();
        if (st != VA_SUCCESS) state.failed.store(true, std::memory_order_relaxed);
        // A worker that stopped early still lets what it queued finish before
        // the caller frees the partials.
        if (state.failed.load(std::memory_order_relaxed)) cudaStreamSynchronize(worker.stream);
        return st;
    });
}

}  // namespace va
