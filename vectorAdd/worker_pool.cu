#include <unistd.h>

#include "cpu_affinity.cuh"
#include "runtime.cuh"
#include "worker_pool.cuh"

namespace va {

bool persistent_workers() {
    static const bool on = env_flag("MYMODULE_PERSISTENT_WORKERS", true);
    return on;
}

WorkerPool::WorkerPool(int device, int threads) : owner_pid_(static_cast<long>(getpid())) {
    for (int i = 1; i <= threads; ++i) {
        try {
            threads_.emplace_back([this, device, i] {
                if (bind_workers()) bind_to_device_cpus(device);
                loop(i);
            });
        } catch (...) {  // fewer threads than asked: run() declines larger calls
            break;
        }
    }
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    // A forked child holds the parent's std::thread objects without their
    // threads: joining them there would wait forever.
    if (static_cast<long>(getpid()) != owner_pid_) {
        for (std::thread &t : threads_) t.detach();
        return;
    }
    for (std::thread &t : threads_) t.join();
}

void WorkerPool::loop(int index) {
    uint64_t seen = 0;
    for (;;) {
        const std::function<void(int)> *task = nullptr;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            if (index >= count_) continue;  // not needed in this run
            task = task_;
        }
        (*task)(index);
        std::lock_guard<std::mutex> lock(mutex_);
        if (--pending_ == 0) finished_.notify_one();
    }
}

bool WorkerPool::run(int count, const std::function<void(int)> &task) {
    if (count - 1 > static_cast<int>(threads_.size()) || static_cast<long>(getpid()) != owner_pid_) return false;
    if (count > 1) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            task_ = &task;
            count_ = count;
            pending_ = count - 1;
            ++generation_;
        }
        wake_.notify_all();
    }
    task(0);
    if (count > 1) {
        std::unique_lock<std::mutex> lock(mutex_);
        finished_.wait(lock, [&] { return pending_ == 0; });
    }
    return true;
}

}  // namespace va
