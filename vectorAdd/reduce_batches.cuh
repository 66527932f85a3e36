// A pipelined reduction's upload in batches of several chunks: the workers
// stage pieces of consecutive chunks side by side into a ring of batches, and
// whichever worker stages a batch's last piece queues its one copy and the
// reductions of its chunks. The link pays a fixed gap for each copy, and a
// reduction has no download to share it with, so fewer and larger copies move
// its bytes faster, while the ring stays the size (and in the CPU's cache) of
// the per-worker slots it replaces.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pipeline.cuh"

namespace va {

// Chunks [c0, c1) (of `chunk` elements) of a C-contiguous host array of n
// elements to reduce with `op` on one GPU; chunk c's partial result goes to
// partials + (c - c0) * acc_size (device memory of that GPU).
struct HostReduction {
    va_op op;
    const char *data;
    va_dtype dtype;
    size_t size;  // bytes an element
    int64_t n, chunk, c0, c1;
    char *partials;
    size_t acc_size;
};

// Chunks a batch asked for: 4, or MYMODULE_REDUCE_BATCH_CHUNKS (1 to 64; 1
// uploads a chunk at a time from each worker's own slots), read once.
int reduce_batch_chunks();

// Chunks a batch of `r` gets: reduce_batch_chunks(), as many as a worker's
// region holds at most, and few enough that the call has 16 batches; at least 1.
int64_t batch_chunks(const HostReduction &r, size_t region_bytes);

// Batches in the ring of a pipeline with `workers` workers (one worker's region
// each): at most 4.
int ring_batches(int workers);

// Reduces r's chunks through the batch ring of pipeline `p` on `device`
// (current) with its first `workers` workers, `per_batch` chunks a batch
// (batch_chunks), the staging copy as `streaming` says (stage_streaming). The
// caller holds p.busy.
va_status reduce_in_batches(int device, Pipeline &p, int workers, int64_t per_batch, bool streaming,
                            const HostReduction &r);

}  // namespace va
