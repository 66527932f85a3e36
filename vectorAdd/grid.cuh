// Grid sizes for the library's two kernel shapes: one tile of packs per block
// (every block a tile, the hardware schedules the waves) and grid-stride loops
// over a resident grid (more blocks would only run as a second, partial wave).
#pragma once

#include <algorithm>
#include <cstdint>

#include "runtime.cuh"

namespace va {

// Blocks of `per_block` items covering `items` (at least one, for a tail).
inline unsigned tiles_for(int64_t items, int64_t per_block) {
    return static_cast<unsigned>(std::max<int64_t>(1, (items + per_block - 1) / per_block));
}

// A grid-stride kernel's grid: enough blocks of `threads` for the work, at most
// as many as can be resident at once.
template <auto Kernel>
unsigned resident_grid_for(int device, int64_t work_items, int threads) {
    const int64_t cap =
        static_cast<int64_t>(multiprocessor_count(device)) * resident_blocks<Kernel>(threads);
    const int64_t blocks = (work_items + threads - 1) / threads;
    return static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, cap)));
}

}  // namespace va
