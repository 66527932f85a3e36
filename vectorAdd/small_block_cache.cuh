// Free small device blocks of one device, kept for reuse (memory.cu's host-side
// cache): take() hands out the block of a size class kept last; keep() takes a block
// in and, when the cache is full, gives back the blocks kept longest ago (of any
// class) to make room for it. Bounded in bytes and in blocks. Every operation is
// O(1); once the cache's nodes exist (the first keep) and a class has been seen, none
// allocates host memory, so a loop of one size takes and keeps the same block.
//
// Why it gives back the oldest rather than refusing the newest: a program that once
// made blocks of many sizes filled the cache with them, and every later small call of a
// new size then went to the driver's pool twice a call (an n = 1 add + wait at 1.21x the
// C floor on an H200, against 1.07-1.08x; bench/NOTES.md, session 37).
//
// Not thread-safe: memory.cu holds its lock around every call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace va {

class SmallBlockCache {
public:
    SmallBlockCache(size_t max_bytes, size_t max_blocks) : max_bytes_(max_bytes), max_blocks_(max_blocks) {}

    size_t bytes() const { return bytes_; }
    size_t blocks() const { return blocks_; }

    // The block of class `size` kept last, or nullptr when the cache holds none.
    void *take(size_t size) {
        const auto found = classes_.find(size);
        if (found == classes_.end() || found->second.newest == kNone) return nullptr;
        const int32_t k = found->second.newest;
        void *ptr = nodes_[k].ptr;
        unlink(k, found->second);
        return ptr;
    }

    // Keeps `ptr`, a block of class `size`; give_back(void *) receives each block
    // pushed out to make room. False (nothing kept, nothing given back) when the block
    // alone is past the cache's bounds.
    template <typename GiveBack>
    bool keep(size_t size, void *ptr, GiveBack &&give_back) {
        if (size > max_bytes_ || max_blocks_ == 0) return false;
        if (nodes_.empty()) make_nodes();
        while (blocks_ >= max_blocks_ || bytes_ + size > max_bytes_) {
            const int32_t oldest = oldest_;
            void *out = nodes_[oldest].ptr;
            unlink(oldest, classes_[nodes_[oldest].size]);
            give_back(out);
        }
        const int32_t k = free_;
        free_ = nodes_[k].next_in_class;
        ClassEnds &ends = classes_[size];
        nodes_[k] = Node{ptr, size, ends.newest, kNone, newest_, kNone};
        if (ends.newest != kNone) nodes_[ends.newest].next_in_class = k;
        else ends.oldest = k;
        ends.newest = k;
        if (newest_ != kNone) nodes_[newest_].newer = k;
        else oldest_ = k;
        newest_ = k;
        bytes_ += size;
        blocks_ += 1;
        return true;
    }

    // Gives back every block, oldest first, and empties the cache.
    template <typename GiveBack>
    void clear(GiveBack &&give_back) {
        for (int32_t k = oldest_; k != kNone; k = nodes_[k].newer) give_back(nodes_[k].ptr);
        classes_.clear();
        nodes_.clear();
        oldest_ = newest_ = free_ = kNone;
        bytes_ = blocks_ = 0;
    }

private:
    static constexpr int32_t kNone = -1;
    // A kept block, in two lists: its class's (prev_in_class older, next_in_class
    // newer; next_in_class also links the free nodes) and the whole cache's by age.
    struct Node {
        void *ptr;
        size_t size;
        int32_t prev_in_class, next_in_class;
        int32_t older, newer;
    };
    struct ClassEnds {
        int32_t oldest = kNone, newest = kNone;
    };

    void make_nodes() {
        nodes_.resize(max_blocks_);
        for (size_t k = 0; k < max_blocks_; ++k)
            nodes_[k].next_in_class = k + 1 < max_blocks_ ? static_cast<int32_t>(k + 1) : kNone;
        free_ = 0;
    }

    // Takes node k out of both lists and onto the free ones.
    void unlink(int32_t k, ClassEnds &ends) {
        Node &n = nodes_[k];
        if (n.prev_in_class != kNone) nodes_[n.prev_in_class].next_in_class = n.next_in_class;
        else ends.oldest = n.next_in_class;
        if (n.next_in_class != kNone) nodes_[n.next_in_class].prev_in_class = n.prev_in_class;
        else ends.newest = n.prev_in_class;
        if (n.older != kNone) nodes_[n.older].newer = n.newer;
        else oldest_ = n.newer;
        if (n.newer != kNone) nodes_[n.newer].older = n.older;
        else newest_ = n.older;
        bytes_ -= n.size;
        blocks_ -= 1;
        n.next_in_class = free_;
        free_ = k;
    }

    size_t max_bytes_, max_blocks_;
    size_t bytes_ = 0, blocks_ = 0;
    std::vector<Node> nodes_;
    std::unordered_map<size_t, ClassEnds> classes_;
    int32_t oldest_ = kNone, newest_ = kNone, free_ = kNone;
};

}  // namespace va
