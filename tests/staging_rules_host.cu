// The host pipeline's staging rules (vectorAdd/pipeline.cu) as the library computes
// them, printed for test_staging_rules_host.py to hold against its own reading of
// the CPU's cache and the knobs it set: which copy a call's ring gets, how large an
// elementwise chunk is for 1 to 4 GPUs staging at once, and how many workers a
// reduction and an elementwise call take. No GPU is touched.
#include <cstdio>

#include "cpu_affinity.cuh"
#include "pipeline.cuh"

int main() {
    std::printf("cache %zu\n", va::last_level_cache_bytes());
    for (int sharing : {1, 2, 4})
        for (int workers : {1, 8, 12, 16})
            for (size_t mib : {1, 4, 8, 64})
                std::printf("stream %d %d %zu %d\n", sharing, workers, mib << 20,
                            va::stage_streaming(sharing, workers, mib << 20) ? 1 : 0);
    for (int sharing = 1; sharing <= 4; ++sharing)
        for (int workers : {1, 8, 12, 16})
            std::printf("chunk %d %d %zu\n", sharing, workers, va::elementwise_chunk_bytes(sharing, workers));
    for (int workers : {1, 8, 12, 16}) {
        va::Pipeline p;
        p.workers = workers;
        std::printf("reduce %d %d\n", workers, va::reduction_workers(p));
        for (int sharing = 1; sharing <= 4; ++sharing)
            std::printf("elementwise %d %d %d\n", sharing, workers, va::elementwise_workers(p, sharing));
    }
    return 0;
}
