#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <mutex>

#include "pipeline_trace.cuh"
#include "runtime.cuh"

namespace va {
namespace {

std::mutex g_print_mutex;  // one call's line is not cut by another's

double ms(int64_t ns) { return static_cast<double>(ns) * 1e-6; }

}  // namespace

bool trace_enabled() {
    static const bool on = env_flag("MYMODULE_PIPELINE_TRACE");
    return on;
}

CallTrace::CallTrace(const char *what, int device, int64_t n, int64_t chunk, int64_t nchunks,
                     int workers, bool streaming)
    : on_(trace_enabled()), what_(what), device_(device), n_(n), chunk_(chunk), nchunks_(nchunks),
      streaming_(streaming) {
    if (!on_) return;
    workers_.resize(static_cast<size_t>(std::max(workers, 0)));
    t0_ = trace_now();
}

CallTrace::~CallTrace() {
    if (!on_ || workers_.empty()) return;
    const double wall = ms(trace_now() - t0_);
    WorkerTrace sum, most;
    for (const WorkerTrace &w : workers_) {
        sum.start += w.start, most.start = std::max(most.start, w.start);
        sum.stage += w.stage, most.stage = std::max(most.stage, w.stage);
        sum.wait += w.wait, most.wait = std::max(most.wait, w.wait);
        sum.enqueue += w.enqueue, most.enqueue = std::max(most.enqueue, w.enqueue);
        sum.drain += w.drain, most.drain = std::max(most.drain, w.drain);
        sum.bytes += w.bytes;
    }
    const double k = 1.0 / static_cast<double>(workers_.size());
    // Staging bandwidth: bytes over the summed memcpy time of all workers, per
    // worker, and over the call's wall time, all workers together.
    const double per_worker = sum.stage > 0 ? static_cast<double>(sum.bytes) / static_cast<double>(sum.stage) : 0.0;
    const double overall = wall > 0 ? static_cast<double>(sum.bytes) / (wall * 1e6) : 0.0;
    std::lock_guard<std::mutex> lock(g_print_mutex);
    std::fprintf(stderr,
                 "[myModule pipeline] GPU %d %s n=%lld: %lld chunks of %lld, %zu workers, %s, wall %.2f ms;"
                 " per worker mean/max ms: start %.2f/%.2f, memcpy %.2f/%.2f, slot wait %.2f/%.2f,"
                 " enqueue %.2f/%.2f, drain %.2f/%.2f; memcpy %.2f GB/s a worker, %.1f GB/s staged"
                 " over the wall\n",
                 device_, what_, static_cast<long long>(n_), static_cast<long long>(nchunks_),
                 static_cast<long long>(chunk_), workers_.size(),
                 streaming_ ? "non-temporal staging" : "memcpy staging", wall, ms(sum.start) * k, ms(most.start),
                 ms(sum.stage) * k, ms(most.stage), ms(sum.wait) * k, ms(most.wait), ms(sum.enqueue) * k,
                 ms(most.enqueue), ms(sum.drain) * k, ms(most.drain), per_worker, overall);
}

void trace_note(const char *format, ...) {
    if (!trace_enabled()) return;
    std::lock_guard<std::mutex> lock(g_print_mutex);
    std::fputs("[myModule pipeline] ", stderr);
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
    std::fputc('\n', stderr);
}

}  // namespace va
