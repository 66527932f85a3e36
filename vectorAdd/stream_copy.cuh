// A host memcpy whose stores bypass the CPU caches (non-temporal), for the
// staging of host data into pinned buffers that only the GPU's DMA engine reads
// next. A plain memcpy of a 4 MiB chunk uses ordinary stores: every destination
// line is read from DRAM before it is written (read for ownership) and the data
// then sits in the cache where the DMA engine does not look. On a host whose
// memory bandwidth bounds the pipeline (two GPUs fed from one socket, issue 27)
// that read is a third of the staging's DRAM traffic.
#pragma once

#include <cstddef>

namespace va {

// Copies `bytes` from src to dst with non-temporal stores where the CPU has them
// (x86-64: SSE2), a plain memcpy elsewhere; the stores are globally visible when
// it returns (a store fence), so a DMA queued afterwards reads the new bytes.
void stream_copy(char *dst, const char *src, size_t bytes);

}  // namespace va
