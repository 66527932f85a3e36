// Moving host data through the GPU: a zero-copy staging area for small calls,
// and for large ones a pipeline of workers (CPU threads), each with its own
// stream and its slots of pinned and device buffers (two unless
// MYMODULE_STAGE_SLOTS asks otherwise), so that copying into
// pinned memory, uploads, kernels and downloads of different chunks overlap.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "ops.cuh"
#include "worker_pool.cuh"

namespace va {

constexpr int kMaxWorkers = 16;  // MYMODULE_HOST_WORKERS may ask for up to this many
// The workers that feed one GPU's link where nothing asked for a number: a
// reduction's, and an elementwise call's that one GPU stages alone (sessions 28
// and 40, bench/NOTES.md; reduction_workers and elementwise_workers say why).
constexpr int kOneLinkWorkers = 8;
constexpr size_t kSmallBytes = size_t(1) << 20;   // zero-copy staging per device
// Inputs a slot stages: operations with more take the plain upload route.
constexpr int kPipelineInputs = 2;
// Chunks a worker may have between its staging copy and the GPU's last copy
// back: stage_slots() of at most this many.
constexpr int kMaxStageSlots = 4;

// A chunk's inputs lie side by side in one pinned buffer and one device buffer
// (kPipelineInputs x chunk_bytes() each), so that one copy uploads them all.
struct StageSlot {
    char *pinned_in = nullptr;
    char *dev_in = nullptr;
    char *dev_out = nullptr;
    cudaEvent_t done = nullptr;  // the slot's last chunk has left the GPU
};

struct StageWorker {
    cudaStream_t stream = nullptr;
    StageSlot slots[kMaxStageSlots];
    int nslots = 0;  // built
    ReduceScratch scratch;
};

struct Pipeline {
    std::mutex busy;  // one pipelined call at a time per device: they share PCIe anyway
    int workers = 0;
    StageWorker worker[kMaxWorkers];
    std::unique_ptr<WorkerPool> pool;  // workers - 1 threads, where persistent_workers()
};

// Bytes of each buffer of a slot: 4 MiB, or MYMODULE_CHUNK_BYTES (64 KiB to
// 64 MiB, read once: the chunking of host reductions, and so their bits,
// depends on it).
size_t chunk_bytes();
// The most bytes of the widest element an elementwise chunk takes when `sharing`
// GPUs stage at once, each with `workers` workers: their staging rings together
// within a quarter of the CPU's last-level cache, 1 to 4 MiB in steps of 512 KiB
// (of the 4 MiB buffers), or MYMODULE_CHUNK_BYTES.
size_t elementwise_chunk_bytes(int sharing, int workers);
// The staging memcpy of a chunk goes in pieces of this many bytes (0: in one):
// MYMODULE_STAGE_BLOCK_BYTES. Small pieces keep glibc from non-temporal stores,
// so that the staged bytes may still be in the CPU's cache when the GPU reads
// them; a knob to measure, not a known win.
size_t stage_block_bytes();
// Whether a call stages with non-temporal stores (stream_copy.cuh) rather than a
// memcpy: where its staging ring (`sharing` GPUs staging at once, each with
// `workers` workers of stage_slots() slots, each slot `chunk_staged_bytes`) is
// larger than the CPU's last-level cache, or MYMODULE_STAGE_COPY=stream
// (=memcpy forces the memcpy, as MYMODULE_STAGE_BLOCK_BYTES does). Decided once
// per call and handed to stage_copy.
bool stage_streaming(int sharing, int workers, size_t chunk_staged_bytes);
// Copies `bytes` from src to the pinned dst, as stage_streaming decided (a
// memcpy goes in stage_block_bytes() pieces where set).
void stage_copy(char *dst, const char *src, size_t bytes, bool streaming);

// Workers of `p` a pipelined reduction uses: all where MYMODULE_HOST_WORKERS
// asked for them, else at most kOneLinkWorkers.
int reduction_workers(const Pipeline &p);
// Workers of `p` a pipelined elementwise call staged by `sharing` GPUs at once
// uses: all where MYMODULE_HOST_WORKERS asked for them or several GPUs share the
// call, else at most kOneLinkWorkers.
int elementwise_workers(const Pipeline &p, int sharing);

// Slots a worker: 2, or MYMODULE_STAGE_SLOTS (1 to kMaxStageSlots), read once.
int stage_slots();

// The pipeline of `device` (current), built on first use.
va_status pipeline_for(int device, Pipeline **pipeline);

// Pinned, device-mapped staging of kSmallBytes for `device`, with its lock.
struct SmallStaging {
    std::mutex busy;
    char *host = nullptr;
    char *mapped = nullptr;  // the same memory as the device addresses it
};
va_status small_staging_for(int device, SmallStaging **staging);

// The chunks of one pipelined call, handed to its workers one at a time as
// each is ready for another, not dealt out in advance: a worker whose copies run
// slower (another NUMA node, a busier core) takes fewer, and no worker waits at
// the end for the slowest one's share. Which worker runs a chunk changes nothing
// in the result (a reduction's partial c is stored at c).
class ChunkCounter {
public:
    explicit ChunkCounter(int64_t first) : next_(first) {}
    int64_t take() { return next_.fetch_add(1, std::memory_order_relaxed); }

private:
    std::atomic<int64_t> next_;
};

// Runs body(w) for w in [0, workers) on as many threads (the caller's is worker
// 0), each with `device` (p's) current: p's kept threads where it has them, else
// new ones. Returns the first failure, its details made the caller's last error.
// The caller holds p.busy.
va_status run_workers(Pipeline &p, int device, int workers, const std::function<va_status(int)> &body);

// Runs body(i) for i in [0, count) on as many threads (the caller's is 0), each
// with devices[i] current, and joins them all. The failure returned is the first
// in time, except that running out of memory never hides another failure: an
// out-of-memory status (which device="auto" answers by computing on the CPU)
// comes back only when every failure was one.
va_status run_on_devices(const int *devices, int count, const std::function<va_status(int)> &body);

// The smallest piece of host work (bytes moved) worth a GPU of its own: below
// twice this, one GPU does all of it. MYMODULE_SPLIT_BYTES overrides it.
size_t split_piece_bytes();
// How many of `ndevices` GPUs share host work that moves `bytes`.
int split_count(size_t bytes, int ndevices);

// Elements per chunk of a pipelined host reduction: a function of n and the
// element size alone, so that the chunks' partial results, and the order they
// are combined in, are the same whatever the number of GPUs and workers.
int64_t reduce_chunk_elements(int64_t n, size_t size);

// Elements per chunk: at most elementwise_chunk_bytes(sharing, workers) of the widest element, and small
// enough that every worker gets four chunks, so that filling and draining the
// pipeline is a small part of the call.
int64_t chunk_elements(int64_t n, size_t widest, int workers, int sharing);

}  // namespace va
