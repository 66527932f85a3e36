// The pipeline's kept worker threads (vectorAdd/worker_pool.cuh) on the CPU alone,
// for test_worker_pool_host.py: every task of every run runs exactly once and on its
// own thread, the caller's being task 0; a run waits for all of its tasks; runs of
// fewer tasks than threads leave the rest asleep; a run of more tasks than the pool
// has threads, or one in a forked child (whose pool's threads stayed in the
// parent), is declined with nothing run; the pool joins its threads when destroyed.
// Prints "ok" or the first failure; no GPU is touched.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "host_expect.h"
#include "worker_pool.cuh"

int main() {
    constexpr int kThreads = 7;
    const std::thread::id caller = std::this_thread::get_id();
    {
        va::WorkerPool pool(0, kThreads);
        std::vector<std::atomic<int>> ran(kThreads + 1);
        std::vector<std::thread::id> where(kThreads + 1);
        for (int round = 0; round < 2000; ++round) {
            const int count = 1 + round % (kThreads + 1);
            for (auto &r : ran) r.store(0);
            std::atomic<int> done{0};
            const bool accepted = pool.run(count, [&](int w) {
                ran[w].fetch_add(1);
                where[w] = std::this_thread::get_id();
                if (round % 97 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200 * w));
                done.fetch_add(1);
            });
            EXPECT(accepted);
            EXPECT(done.load() == count);  // run() returned after every task
            for (int w = 0; w <= kThreads; ++w) EXPECT(ran[w].load() == (w < count ? 1 : 0));
            EXPECT(where[0] == caller);
            for (int w = 1; w < count; ++w) {
                EXPECT(where[w] != caller);
                for (int v = 1; v < w; ++v) EXPECT(where[v] != where[w]);
            }
        }
        std::atomic<int> touched{0};
        EXPECT(!pool.run(kThreads + 2, [&](int) { touched.fetch_add(1); }));
        EXPECT(touched.load() == 0);
        std::fflush(stdout);
        const pid_t child = fork();
        if (child == 0) {
            const bool declined = !pool.run(2, [&](int) { touched.fetch_add(1); });
            _exit(declined && touched.load() == 0 ? 0 : 3);
        }
        int status = 0;
        EXPECT(child > 0 && waitpid(child, &status, 0) == child);
        EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        EXPECT(pool.run(kThreads + 1, [&](int) { touched.fetch_add(1); }));  // the parent's still works
        EXPECT(touched.load() == kThreads + 1);
    }  // joined here: a hang fails the test by its timeout
    std::printf("ok\n");
    return 0;
}
