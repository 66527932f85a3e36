// Worker threads kept from one pipelined call to the next (the default;
// MYMODULE_PERSISTENT_WORKERS=0 starts them in every call instead): a call wakes
// sleeping threads rather than starting new ones. Starting seven to eleven threads,
// one after another from the caller's, took 0.2-0.3 ms before a pipelined call's
// workers ran on the H200 hosts, against 0.03-0.05 ms to wake kept ones (session 31):
// a small part of a 1e9-element call and a large one of a call of a few megabytes.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace va {

// Whether pipelines keep their worker threads: unless MYMODULE_PERSISTENT_WORKERS=0,
// read once.
bool persistent_workers();

class WorkerPool {
public:
    // `threads` threads, each bound to `device`'s CPUs where bind_workers() says so.
    WorkerPool(int device, int threads);
    ~WorkerPool();  // wakes and joins every thread
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    // Runs task(w) for w in [1, count) on the pool's threads and task(0) on the
    // caller's, and returns when all have returned. False, having run nothing,
    // where the pool cannot: more tasks than threads + 1, threads that failed to
    // start, or a process forked since the pool was made (its threads stayed in
    // the parent). One run at a time (the pipeline's lock).
    bool run(int count, const std::function<void(int)> &task);

private:
    void loop(int index);

    std::mutex mutex_;
    std::condition_variable wake_, finished_;
    uint64_t generation_ = 0;  // runs started
    int count_ = 0;            // tasks of the current run
    int pending_ = 0;          // tasks of the current run not yet returned, the caller's aside
    bool stop_ = false;
    const std::function<void(int)> *task_ = nullptr;
    long owner_pid_ = 0;
    std::vector<std::thread> threads_;
};

}  // namespace va
