// Where a pipelined host call spends its time, printed to stderr when
// MYMODULE_PIPELINE_TRACE is set: so that a benchmark run on a machine we
// cannot log into says whether the staging memcpy (host memory), the waits for
// a slot (PCIe or the GPU), thread start-up or the final drain bound the call.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

namespace va {

// Nanoseconds on a monotonic clock.
inline int64_t trace_now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

bool trace_enabled();

// One worker's share of a call; each worker writes only its own.
struct WorkerTrace {
    int64_t start = 0;    // from the call's start to the worker's first chunk
    int64_t stage = 0;    // memcpy into pinned buffers
    int64_t wait = 0;     // waiting for a slot's previous chunk to leave the GPU
    int64_t enqueue = 0;  // cudaMemcpyAsync, kernel launches, event records
    int64_t drain = 0;    // the final wait for the worker's stream
    int64_t chunks = 0;
    int64_t bytes = 0;    // staged by memcpy
};

// The times of one pipelined call on one GPU, reported when it ends. Does
// nothing unless tracing is on, so that it can stay in the hot path.
class CallTrace {
public:
    CallTrace(const char *what, int device, int64_t n, int64_t chunk, int64_t nchunks, int workers,
              bool streaming);
    ~CallTrace();
    CallTrace(const CallTrace &) = delete;
    CallTrace &operator=(const CallTrace &) = delete;

    bool on() const { return on_; }
    int64_t began() const { return t0_; }
    // Worker w's record (nullptr when tracing is off).
    WorkerTrace *worker(int w) { return on_ ? &workers_[static_cast<size_t>(w)] : nullptr; }

private:
    bool on_;
    const char *what_;
    int device_;
    int64_t n_, chunk_, nchunks_, t0_ = 0;
    bool streaming_;
    std::vector<WorkerTrace> workers_;
};

// Adds the time since `t` to *slot and moves t on, when slot is not null.
inline void trace_lap(int64_t *slot, int64_t &t) {
    if (slot == nullptr) return;
    const int64_t now = trace_now();
    *slot += now - t;
    t = now;
}

// A line of free text (the split of a call among GPUs, a reduction's combine).
void trace_note(const char *format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace va
