// nonzero on device memory: the C-order positions of the nonzero elements of a
// view (NaN counts, -0.0 does not, as NumPy's truth). How many there are decides
// the outputs' size, so the work is split around one host wait: a count pass
// (each tile of the flat index counts its own, then one block turns the counts
// into each tile's first output position and the total, written straight into
// pinned memory), then, once the caller has sized its outputs, a write pass in
// which each tile ranks its nonzero elements by warp ballots and writes their
// coordinates (or byte offsets, for a boolean-mask gather) at its position.
// Both passes read the input through its strides: no packed copy. A complex
// input is the exception: both passes read its bool conversion, made by the count
// pass into the scratch after the tile counts (count_nonzero reads complex the same
// way): complex count and write kernels of their own were 64 KB of every
// architecture's binary for a rare call (issue 26).
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "dispatch.cuh"
#include "error.cuh"
#include "launch.cuh"
#include "layout.cuh"
#include "memory.cuh"
#include "op_types.cuh"
#include "ops.cuh"
#include "runtime.cuh"

namespace va {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
// A tile is kRounds rows of kThreads consecutive elements: each thread reads one
// element a row (the rows coalesce for any dtype and layout), and a warp's row is
// ranked by one ballot.
constexpr int kRounds = 16;
constexpr int64_t kTile = static_cast<int64_t>(kThreads) * kRounds;
constexpr int kScanThreads = 1024;
constexpr unsigned kFullMask = 0xffffffffu;
static_assert(kRounds * kWarps % 32 == 0, "a tile's row counts are scanned by one warp, in equal shares");

// Inclusive prefix sum of v over a warp's lanes.
template <typename V>
__device__ __forceinline__ V warp_inclusive_sum(V v, int lane) {
    for (int o = 1; o < 32; o *= 2) {
        const V up = __shfl_up_sync(kFullMask, v, o);
        if (lane >= o) v += up;
    }
    return v;
}

// The input as the kernels read it: its dimensions merged where memory allows
// (make_walk), so a contiguous or evenly strided view is one dimension.
struct Source {
    const char *data;
    int32_t ndim;
    int64_t shape[VA_MAX_NDIM];
    int64_t strides[VA_MAX_NDIM];
};

// Where each nonzero element's position goes: coords[d][k] its index along
// axis d of the input's own shape (NULL: not wanted), offsets[k] the sum of
// those indices times weights[d] (NULL: not wanted).
struct Targets {
    int32_t ndim;
    int64_t shape[VA_MAX_NDIM];
    int64_t *coords[VA_MAX_NDIM];
    int64_t weights[VA_MAX_NDIM];
    int64_t *offsets;
};

struct Plan {
    int64_t n;
    int64_t tiles;
    bool one_dim;  // the walk is at most one dimension: element i is at i * strides[0]
    va_dtype source_dtype;
    Source source;
};

// NumPy's truth of an element; bools are read as bytes (any nonzero byte is true).
template <typename T>
__device__ __forceinline__ bool truth_at(const char *p) {
    if constexpr (std::is_same<T, bool>::value) return *reinterpret_cast<const unsigned char *>(p) != 0;
    else return *reinterpret_cast<const T *>(p) != T(0);
}

template <typename T, bool OneDim>
__device__ __forceinline__ bool nonzero_at(const Source &s, int64_t i) {
    if constexpr (OneDim) {
        return truth_at<T>(s.data + i * s.strides[0]);
    } else {
        int64_t offset = 0;
        for (int d = s.ndim - 1; d >= 0; --d) {
            const int64_t extent = s.shape[d];
            offset += (i % extent) * s.strides[d];
            i /= extent;
        }
        return truth_at<T>(s.data + offset);
    }
}

// A whole tile of contiguous, 16-byte-aligned elements counted 16 bytes a load:
// only the count matters here, not which thread saw which element, and byte
// loads one element a thread left the count pass at a third of the memory's
// speed for bool (55 us for 2**26 on the H100, session 17).
template <typename T>
__device__ __forceinline__ int count_tile_packed(const char *tile) {
    using E = typename std::conditional<std::is_same<T, bool>::value, unsigned char, T>::type;
    constexpr int kPerLoad = 16 / static_cast<int>(sizeof(E));
    struct alignas(16) Load {
        E v[kPerLoad];
    };
    const Load *loads = reinterpret_cast<const Load *>(tile);
    int count = 0;
#pragma unroll
    for (int j = 0; j < static_cast<int>(sizeof(E)); ++j) {
        const Load l = loads[j * kThreads + threadIdx.x];
#pragma unroll
        for (int e = 0; e < kPerLoad; ++e) count += l.v[e] != E(0);
    }
    return count;
}

template <typename T, bool OneDim>
__global__ void __launch_bounds__(kThreads) count_tiles(Source s, int64_t n, bool packed, int64_t *tile_counts) {
    follow_previous_grid();
    __shared__ int warp_sums[kWarps];
    const int64_t first = static_cast<int64_t>(blockIdx.x) * kTile;
    const int64_t base = first + threadIdx.x;
    int count = 0;
    if (OneDim && packed && first + kTile <= n) {
        count = count_tile_packed<T>(s.data + first * static_cast<int64_t>(sizeof(T)));
    } else {
#pragma unroll
        for (int r = 0; r < kRounds; ++r) {
            const int64_t i = base + static_cast<int64_t>(r) * kThreads;
            if (i < n && nonzero_at<T, OneDim>(s, i)) ++count;
        }
    }
    for (int o = 16; o > 0; o /= 2) count += __shfl_down_sync(kFullMask, count, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = count;
    __syncthreads();
    if (threadIdx.x == 0) {
        int total = 0;
        for (int w = 0; w < kWarps; ++w) total += warp_sums[w];
        tile_counts[blockIdx.x] = total;
    }
}

// counts[0..tiles) become each tile's first output position (an exclusive
// scan, in place) and counts[tiles] and *total the sum. One block: the tiles
// are few (one per 4096 elements), and a second launch would cost more. The
// counts go through shared memory a chunk at a time, read and written
// coalesced with every load of a chunk in flight at once: a thread walking its
// own run of counts waited on each load in turn (43 us for 16384 tiles on the
// H100, session 17).
constexpr int kScanPerThread = 4;
constexpr int kScanChunk = kScanThreads * kScanPerThread;

__global__ void __launch_bounds__(kScanThreads) scan_tiles(int64_t *counts, int64_t tiles, int64_t *total) {
    follow_previous_grid();
    __shared__ int64_t chunk[kScanChunk];
    __shared__ int64_t warp_sums[kScanThreads / 32];
    __shared__ int64_t running_total;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int64_t carry = 0;
    for (int64_t base = 0; base < tiles; base += kScanChunk) {
#pragma unroll
        for (int j = 0; j < kScanPerThread; ++j) {
            const int64_t k = base + j * kScanThreads + threadIdx.x;
            chunk[j * kScanThreads + threadIdx.x] = k < tiles ? counts[k] : 0;
        }
        __syncthreads();
        int64_t v[kScanPerThread];
        int64_t sum = 0;
#pragma unroll
        for (int j = 0; j < kScanPerThread; ++j) {
            v[j] = chunk[threadIdx.x * kScanPerThread + j];
            sum += v[j];
        }
        int64_t inclusive = warp_inclusive_sum(sum, lane);
        if (lane == 31) warp_sums[warp] = inclusive;
        __syncthreads();
        if (warp == 0) {
            const int64_t mine = warp_sums[lane];
            int64_t running = warp_inclusive_sum(mine, lane);
            warp_sums[lane] = running - mine;
        }
        __syncthreads();
        int64_t prefix = carry + warp_sums[warp] + inclusive - sum;
#pragma unroll
        for (int j = 0; j < kScanPerThread; ++j) {
            chunk[threadIdx.x * kScanPerThread + j] = prefix;
            prefix += v[j];
        }
        // The last thread's prefix is the running total after this chunk.
        if (threadIdx.x == kScanThreads - 1) running_total = prefix;
        __syncthreads();
        carry = running_total;
#pragma unroll
        for (int j = 0; j < kScanPerThread; ++j) {
            const int64_t k = base + j * kScanThreads + threadIdx.x;
            if (k < tiles) counts[k] = chunk[j * kScanThreads + threadIdx.x];
        }
        __syncthreads();  // chunk, warp_sums and running_total are rewritten by the next round
    }
    if (threadIdx.x == 0) {
        counts[tiles] = carry;
        *total = carry;
    }
}

__device__ __forceinline__ void write_position(const Targets &t, int64_t i, int64_t pos) {
    int64_t offset = 0;
    for (int d = t.ndim - 1; d > 0; --d) {
        const int64_t extent = t.shape[d];
        const int64_t c = i % extent;
        i /= extent;
        if (t.coords[d] != nullptr) t.coords[d][pos] = c;
        offset += c * t.weights[d];
    }
    if (t.ndim > 0) {  // what is left of the flat index is the first axis's index
        if (t.coords[0] != nullptr) t.coords[0][pos] = i;
        offset += i * t.weights[0];
    }
    if (t.offsets != nullptr) t.offsets[pos] = offset;
}

// A whole tile of one-byte elements (bool, int8, uint8: masks), contiguous and
// aligned to 16 bytes, written 16 elements a thread: one load each, the block's
// exclusive scan of the threads' counts, then each thread's positions in order.
// The row-by-row ballots below read a byte a thread and took 163 us for 2**26
// bool on the H100 (session 17).
__device__ __forceinline__ void write_tile_bytes(const char *tile, int64_t first, int64_t start,
                                                 const Targets &t) {
    __shared__ int warp_offsets[kWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint4 v = reinterpret_cast<const uint4 *>(tile)[threadIdx.x];
    const unsigned words[4] = {v.x, v.y, v.z, v.w};
    unsigned bits = 0;  // bit k: byte k of this thread's 16 (little-endian words) is nonzero
#pragma unroll
    for (int w = 0; w < 4; ++w)
#pragma unroll
        for (int b = 0; b < 4; ++b)
            if ((words[w] >> (8 * b)) & 0xffu) bits |= 1u << (4 * w + b);
    const int count = __popc(bits);
    int inclusive = warp_inclusive_sum(count, lane);
    if (lane == 31) warp_offsets[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        const int mine = lane < kWarps ? warp_offsets[lane] : 0;
        int running = warp_inclusive_sum(mine, lane);
        if (lane < kWarps) warp_offsets[lane] = running - mine;
    }
    __syncthreads();
    int64_t pos = start + warp_offsets[warp] + (inclusive - count);
    const int64_t mine_first = first + 16 * static_cast<int64_t>(threadIdx.x);
    while (bits != 0u) {
        const int k = __ffs(static_cast<int>(bits)) - 1;
        bits &= bits - 1u;
        write_position(t, mine_first + k, pos++);
    }
}

template <typename T, bool OneDim>
__global__ void __launch_bounds__(kThreads)
write_tiles(Source s, int64_t n, bool packed, const int64_t *tile_starts, Targets t) {
    follow_previous_grid();
    if constexpr (OneDim && sizeof(T) == 1) {
        const int64_t first = static_cast<int64_t>(blockIdx.x) * kTile;
        if (packed && first + kTile <= n) {
            write_tile_bytes(s.data + first, first, tile_starts[blockIdx.x], t);
            return;
        }
    }
    // ranks[r * kWarps + w]: how many nonzero elements precede warp w's share of
    // row r inside the tile (rows, then warps: the C order of the elements).
    __shared__ int ranks[kRounds * kWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t base = static_cast<int64_t>(blockIdx.x) * kTile + threadIdx.x;
    unsigned ballots[kRounds];
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
        const int64_t i = base + static_cast<int64_t>(r) * kThreads;
        ballots[r] = __ballot_sync(kFullMask, i < n && nonzero_at<T, OneDim>(s, i));
        if (lane == 0) ranks[r * kWarps + warp] = __popc(ballots[r]);
    }
    __syncthreads();
    if (warp == 0) {
        constexpr int kShare = kRounds * kWarps / 32;
        int v[kShare];
        int sum = 0;
#pragma unroll
        for (int j = 0; j < kShare; ++j) {
            v[j] = ranks[lane * kShare + j];
            sum += v[j];
        }
        int inclusive = warp_inclusive_sum(sum, lane);
        int running = inclusive - sum;
#pragma unroll
        for (int j = 0; j < kShare; ++j) {
            ranks[lane * kShare + j] = running;
            running += v[j];
        }
    }
    __syncthreads();
    const int64_t start = tile_starts[blockIdx.x];
    const unsigned below = (1u << lane) - 1u;
#pragma unroll
    for (int r = 0; r < kRounds; ++r) {
        if ((ballots[r] >> lane) & 1u) {
            const int64_t pos = start + ranks[r * kWarps + warp] + __popc(ballots[r] & below);
            write_position(t, base + static_cast<int64_t>(r) * kThreads, pos);
        }
    }
}

va_status plan_of(const va_array *a, Plan *plan) {
    std::memset(plan, 0, sizeof(*plan));
    VA_CHECK(validate(a, &plan->n));
    plan->tiles = (plan->n + kTile - 1) / kTile;
    // One block a tile: past 2**31 - 1 tiles (8.8e12 elements) the grid cannot say it.
    if (plan->tiles > INT32_MAX) VA_FAIL(VA_ERROR_INVALID_VALUE);
    Walk walk;
    const va_array *views[1] = {a};
    make_walk(views, 1, &walk);
    plan->source.data = static_cast<const char *>(a->data);
    plan->source_dtype = a->dtype;
    plan->source.ndim = walk.ndim;
    for (int d = 0; d < walk.ndim; ++d) {
        plan->source.shape[d] = walk.shape[d];
        plan->source.strides[d] = walk.strides[0][d];
    }
    plan->one_dim = walk.ndim <= 1;  // a 0-d walk (one element) has strides[0] == 0
    return VA_SUCCESS;
}

// Where a complex input's bool conversion lies in the scratch: after the tile
// counts, on a 16-byte boundary (the count pass loads whole tiles 16 bytes a time).
int64_t truth_offset(const Plan &p) { return ((p.tiles + 1) * static_cast<int64_t>(sizeof(int64_t)) + 15) / 16 * 16; }

// The array the passes read, from a's own plan: `a`, or for complex its C-ordered
// bool view in the scratch (filled by the count pass, `convert`).
va_status readable_plan(int device, cudaStream_t stream, const va_array *a, void *scratch, bool convert,
                        Plan *plan) {
    if (!is_complex_dtype(a->dtype) || plan->n == 0) return VA_SUCCESS;
    va_array truth = *a;
    truth.data = static_cast<char *>(scratch) + truth_offset(*plan);
    truth.dtype = VA_BOOL;
    int64_t step = 1;
    for (int d = truth.ndim - 1; d >= 0; --d) {
        truth.strides[d] = step;
        step *= truth.shape[d];
    }
    if (convert) VA_CHECK(convert_on_stream(device, stream, a, &truth, plan->n));
    return plan_of(&truth, plan);
}

// Elements side by side from a 16-byte boundary: whole tiles load 16 bytes at a time.
template <typename T>
bool packed_tiles(const Plan &p) {
    return p.one_dim && p.source.strides[0] == static_cast<int64_t>(sizeof(T)) &&
           reinterpret_cast<uintptr_t>(p.source.data) % 16 == 0;
}

template <typename T, bool OneDim>
va_status launch_count(int device, cudaStream_t stream, const Plan &p, int64_t *counts, int64_t *total) {
    VA_CUDA_CHECK(launch_kernel(device, count_tiles<T, OneDim>, static_cast<unsigned>(p.tiles), kThreads,
                                stream, p.source, p.n, packed_tiles<T>(p), counts));
    VA_CUDA_CHECK(launch_kernel(device, scan_tiles, 1u, kScanThreads, stream, counts, p.tiles, total));
    return VA_SUCCESS;
}

template <typename T, bool OneDim>
va_status launch_write(int device, cudaStream_t stream, const Plan &p, const int64_t *starts,
                       const Targets &t) {
    VA_CUDA_CHECK(launch_kernel(device, write_tiles<T, OneDim>, static_cast<unsigned>(p.tiles), kThreads,
                                stream, p.source, p.n, packed_tiles<T>(p), starts, t));
    return VA_SUCCESS;
}

}  // namespace
}  // namespace va

extern "C" {

va_status va_nonzero_scratch_bytes(const va_array *a, size_t *nbytes) {
    va::Plan plan;
    VA_CHECK(va::plan_of(a, &plan));
    if (nbytes == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    // tiles < 2**31, and n complex elements are 8n bytes or more in an int64 (validated):
    // no overflow; whole int64 entries (the caller allocates int64s).
    *nbytes = static_cast<size_t>(va::is_complex_dtype(a->dtype) ? va::truth_offset(plan) + (plan.n + 7) / 8 * 8
                                                                  : (plan.tiles + 1) * static_cast<int64_t>(sizeof(int64_t)));
    return VA_SUCCESS;
}

va_status va_nonzero_count(int device, const va_array *a, void *scratch, int64_t *count) {
    va::Plan plan;
    VA_CHECK(va::plan_of(a, &plan));
    if (count == nullptr || (plan.n > 0 && scratch == nullptr)) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    VA_CHECK(va::readable_plan(device, stream, a, scratch, true, &plan));
    if (plan.n == 0) {
        *count = 0;
        return VA_SUCCESS;
    }
    va::PinnedSlot slot;
    VA_CHECK(slot.acquire());
    int64_t *counts = static_cast<int64_t *>(scratch);
    int64_t *total = static_cast<int64_t *>(slot.device_address());
    VA_CHECK(va::dispatch_real_dtype(plan.source_dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return plan.one_dim ? va::launch_count<T, true>(device, stream, plan, counts, total)
                            : va::launch_count<T, false>(device, stream, plan, counts, total);
    }));
    // The one wait: the caller sizes its outputs by this count.
    VA_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::memcpy(count, slot.get(), sizeof(int64_t));
    return VA_SUCCESS;
}

va_status va_nonzero_write(int device, const va_array *a, const void *scratch, int64_t *const *coords,
                           const int64_t *weights, int64_t *offsets) {
    va::Plan plan;
    VA_CHECK(va::plan_of(a, &plan));
    if (offsets != nullptr && weights == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    if (plan.n > 0 && scratch == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    va::Targets t;
    std::memset(&t, 0, sizeof(t));
    t.ndim = a->ndim;
    bool wanted = offsets != nullptr;
    for (int d = 0; d < a->ndim; ++d) {
        t.shape[d] = a->shape[d];
        t.coords[d] = coords != nullptr ? coords[d] : nullptr;
        t.weights[d] = weights != nullptr ? weights[d] : 0;
        wanted = wanted || t.coords[d] != nullptr;
    }
    t.offsets = offsets;
    VA_ENTER_STREAM(device, scope, stream);
    if (plan.n == 0 || !wanted) return VA_SUCCESS;
    VA_CHECK(va::readable_plan(device, stream, a, const_cast<void *>(scratch), false, &plan));
    const int64_t *starts = static_cast<const int64_t *>(scratch);
    return va::dispatch_real_dtype(plan.source_dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return plan.one_dim ? va::launch_write<T, true>(device, stream, plan, starts, t)
                            : va::launch_write<T, false>(device, stream, plan, starts, t);
    });
}

}  // extern "C"
