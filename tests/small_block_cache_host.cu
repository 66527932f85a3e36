// The host-side cache of small device blocks (vectorAdd/small_block_cache.cuh) on the
// CPU alone, for test_small_block_cache_host.py: 200000 random takes and keeps, in
// caches bounded by blocks, by bytes or by both, against a plain model (a list of
// blocks with their age): every take returns the block of its class kept last, every
// keep gives back the oldest blocks until the new one fits, or declines a block past
// the bounds; the counts match after every step; clear gives back what is left, oldest
// first. Then the case that made it: a cache full of 4096 other classes, and a loop of
// one new size, which pushes one block out and then takes and keeps the same block.
// Prints "ok" or the first failure; no GPU is touched.
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "host_expect.h"
#include "small_block_cache.cuh"

namespace {

struct Kept {
    size_t size;
    void *ptr;
    uint64_t age;
};

// What the cache must do, the slow way.
struct Model {
    Model(size_t bytes_bound, size_t blocks_bound) : max_bytes(bytes_bound), max_blocks(blocks_bound) {}
    size_t max_bytes, max_blocks, bytes = 0;
    uint64_t clock = 0;
    std::vector<Kept> kept;

    void *take(size_t size) {
        int best = -1;
        for (int i = 0; i < static_cast<int>(kept.size()); ++i)
            if (kept[i].size == size && (best < 0 || kept[i].age > kept[best].age)) best = i;
        if (best < 0) return nullptr;
        void *p = kept[best].ptr;
        bytes -= size;
        kept.erase(kept.begin() + best);
        return p;
    }
    bool keep(size_t size, void *ptr, std::vector<void *> &out) {
        if (size > max_bytes || max_blocks == 0) return false;
        while (kept.size() >= max_blocks || bytes + size > max_bytes) {
            int oldest = 0;
            for (int i = 1; i < static_cast<int>(kept.size()); ++i)
                if (kept[i].age < kept[oldest].age) oldest = i;
            out.push_back(kept[oldest].ptr);
            bytes -= kept[oldest].size;
            kept.erase(kept.begin() + oldest);
        }
        kept.push_back({size, ptr, ++clock});
        bytes += size;
        return true;
    }
};

void *fake(uintptr_t n) { return reinterpret_cast<void *>(n * 16); }

int random_steps(size_t max_bytes, size_t max_blocks, unsigned seed) {
    va::SmallBlockCache cache(max_bytes, max_blocks);
    Model model(max_bytes, max_blocks);
    std::mt19937 rng(seed);
    const size_t classes[] = {512, 1024, 1536, 4096, 65536, 3 * 65536};
    std::vector<std::pair<size_t, void *>> in_use;  // taken back out, to be kept again
    uintptr_t next = 1;
    for (int step = 0; step < 50000; ++step) {
        const size_t size = classes[rng() % 6];
        if (rng() % 2 == 0) {
            void *got = cache.take(size);
            void *want = model.take(size);
            EXPECT(got == want);
            if (got != nullptr) in_use.emplace_back(size, got);
        } else {
            size_t s = size;
            void *ptr = nullptr;
            if (!in_use.empty() && rng() % 2 == 0) {
                const size_t i = rng() % in_use.size();
                s = in_use[i].first;
                ptr = in_use[i].second;
                in_use[i] = in_use.back();
                in_use.pop_back();
            } else {
                ptr = fake(next++);
            }
            std::vector<void *> given, expected;
            const bool kept = cache.keep(s, ptr, [&given](void *p) { given.push_back(p); });
            EXPECT(kept == model.keep(s, ptr, expected));
            EXPECT(given == expected);
        }
        EXPECT(cache.blocks() == model.kept.size());
        EXPECT(cache.bytes() == model.bytes);
        EXPECT(cache.blocks() <= max_blocks && cache.bytes() <= max_bytes);
    }
    std::vector<void *> given;
    cache.clear([&given](void *p) { given.push_back(p); });
    EXPECT(given.size() == model.kept.size());
    for (size_t i = 0; i < given.size(); ++i) EXPECT(given[i] == model.kept[i].ptr);  // oldest first
    EXPECT(cache.blocks() == 0 && cache.bytes() == 0 && cache.take(512) == nullptr);
    // usable again after clear
    if (max_blocks > 0) EXPECT(cache.keep(512, fake(1), [](void *) {}) && cache.take(512) == fake(1));
    return 0;
}

}  // namespace

int main() {
    if (random_steps(size_t(1) << 40, 16, 1) != 0) return 1;  // bounded by blocks
    if (random_steps(5 * 65536, 4096, 2) != 0) return 1;      // by bytes
    if (random_steps(4 * 65536, 12, 3) != 0) return 1;        // by both
    if (random_steps(1024, 0, 4) != 0) return 1;              // keeps nothing

    // A block past the bounds is declined whole, nothing given back.
    va::SmallBlockCache small(4096, 8);
    int given = 0;
    EXPECT(small.keep(1024, fake(1), [&given](void *) { ++given; }));
    EXPECT(!small.keep(8192, fake(2), [&given](void *) { ++given; }));
    EXPECT(given == 0 && small.blocks() == 1);

    // Full of 4096 other classes, then a loop of one new size (session 37's case).
    va::SmallBlockCache cache(size_t(1) << 40, 4096);
    int out = 0;
    for (uintptr_t k = 0; k < 4200; ++k) cache.keep((k + 2) * 512, fake(k + 1), [&out](void *) { ++out; });
    EXPECT(cache.blocks() == 4096 && out == 4200 - 4096);
    out = 0;
    void *block = fake(100000);
    for (int round = 0; round < 1000; ++round) {
        void *got = cache.take(100 * 512 * 1000);
        EXPECT(got == (round == 0 ? nullptr : block));
        EXPECT(cache.keep(100 * 512 * 1000, block, [&out](void *) { ++out; }));
    }
    EXPECT(out == 1 && cache.blocks() == 4096);
    std::printf("ok\n");
    return 0;
}
