// The kernels of a reduction, instantiated for its combine functor (a type) and
// each input type: one launch, a warp-shuffle tree in each block, and the last
// block to finish combining the blocks' partials, its result written straight
// to where the caller wants it (pinned host memory, or device memory).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "elementwise_kernels.cuh"

namespace va {

constexpr int kReduceThreads = 256;
// The tile of a contiguous full reduction: eight 16-byte packs a thread (128 bytes
// in flight), issued together; tiles are dealt to the blocks round-robin (tile t
// to block t % grid) over two waves of blocks, so the whole grid sweeps the input
// front to back. With a contiguous run per block (sessions 21-22), block starts a
// fixed distance apart met the memory's interleave: on an H200 the eight-pack
// runs took 196 us for a sum of 1e8 float64 where CUB took 182, while on an H100
// they matched it. Dealt round-robin with streaming loads: 180.2 (CUB 182.1) on
// the H200, 257.0 (CUB 261.6) on the H100; complex128 of 2^26 240.3 (241.7) and
// 344.0 (349.4) (bench/NOTES.md, session 23).
constexpr int kReducePacks = 8;
constexpr int64_t kReduceTile = static_cast<int64_t>(kReduceThreads) * kReducePacks;
constexpr int kReduceWaves = 2;

// A load of input read once: marked evict-first (ld.global.cs), so the stream
// of packs does not push other lines out of the caches. The L1-bypassing load
// with a 256-byte L2 prefetch that session 22 took was 7% slower on the H200.
template <typename P>
__device__ __forceinline__ P load_streamed(const P *p) {
    if constexpr ((sizeof(P) == 16 || sizeof(P) == 8) && alignof(P) == sizeof(P)) {
        using V = PackWord<sizeof(P)>;  // uint4 or uint2 here
        const V v = __ldcs(reinterpret_cast<const V *>(p));
        P r;
        memcpy(&r, &v, sizeof(P));
        return r;
    }
    else {
        return *p;
    }
}

// Whether a reduction's functor divides its result by the count (mean's
// `static constexpr bool averages = true`), and the result it finishes with.
template <typename Op, typename = void>
struct Averages : std::false_type {};
template <typename Op>
struct Averages<Op, std::void_t<decltype(Op::averages)>> : std::integral_constant<bool, Op::averages> {};

// The result of an accumulator over `count` elements: mean's divides.
// A complex mean divides as NumPy's does, by count + 0i (complex.cuh).
template <typename Op, typename Acc>
__host__ __device__ __forceinline__ Acc finish(Acc acc, int64_t count) {
    if constexpr (Averages<Op>::value && is_complex_v<Acc>) return cdiv(acc, Acc(static_cast<RealT<Acc>>(count)));
    else if constexpr (Averages<Op>::value) return acc / static_cast<Acc>(count);
    else return acc;
}

// Whether a reduction's functor takes each element as its truth value
// (count_nonzero's `static constexpr bool reads_truth = true`: 2.5 counts 1, NaN
// counts, as NumPy's); an element otherwise enters its accumulator by a cast.
template <typename Op, typename = void>
struct ReadsTruth : std::false_type {};
template <typename Op>
struct ReadsTruth<Op, std::void_t<decltype(Op::reads_truth)>> : std::integral_constant<bool, Op::reads_truth> {};

template <typename Op, typename Acc, typename T>
__device__ __forceinline__ Acc lift(StoredT<T> v) {
    if constexpr (ReadsTruth<Op>::value) return static_cast<Acc>(convert_to<bool>(from_stored<T>(v)));
    else return convert_to<Acc>(from_stored<T>(v));
}

template <typename A>
__device__ __forceinline__ A shuffle_down(A v, int offset) {
    if constexpr (is_complex_v<A>) return A(shuffle_down(v.real(), offset), shuffle_down(v.imag(), offset));
    else if constexpr (sizeof(A) < 4) return static_cast<A>(__shfl_down_sync(0xffffffffu, static_cast<int>(v), offset));
    else return __shfl_down_sync(0xffffffffu, v, offset);
}

// Another block's partial, read past the (possibly stale) L1.
template <typename A>
__device__ __forceinline__ A load_partial(const A *p) {
    if constexpr (is_complex_v<A>) {
        const RealT<A> *parts = reinterpret_cast<const RealT<A> *>(p);
        return A(__ldcg(parts), __ldcg(parts + 1));
    } else if constexpr (sizeof(A) < 4) {
        return static_cast<A>(*reinterpret_cast<const volatile A *>(p));
    } else {
        return __ldcg(p);
    }
}

template <typename Op, typename Acc>
__device__ Acc block_reduce(Acc v) {
    const Op op{};
    __shared__ Acc warp_partials[kReduceThreads / 32];
    for (int offset = 16; offset > 0; offset >>= 1) v = op(v, shuffle_down(v, offset));
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_partials[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < kReduceThreads / 32) ? warp_partials[lane] : Op::template neutral<Acc>();
        for (int offset = 16; offset > 0; offset >>= 1) v = op(v, shuffle_down(v, offset));
    }
    __syncthreads();  // warp_partials may be reused by the caller's next reduction
    return v;
}

// Where a strided reduction finds element i: one stride (a 1-d view such as a
// trace's diagonal), or an n-d walk. Contiguous ones take neither (kernel
// parameters stay small: a Walk is over 1 KB).
struct ContiguousLayout {};
struct Stride1 {
    int64_t bytes;
};
__device__ __forceinline__ int64_t element_offset(const Stride1 &s, int64_t i) { return i * s.bytes; }
__device__ __forceinline__ int64_t element_offset(const Walk &w, int64_t i) { return walk_offset(w, 0, i); }

// G > 0: contiguous, read in packs of G; G == 0: strided, found with `layout`.
template <typename Op, typename T, typename Acc, int G, typename Out, typename Layout>
__global__ void __launch_bounds__(kReduceThreads)
reduce_kernel(const char *data, int64_t n, Layout layout, Acc *partials, unsigned int *counter,
              Out *result, Out *mirror, bool finalize) {
    follow_previous_grid();
    const Op op{};
    using S = StoredT<T>;
    const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
    const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    Acc acc = Op::template neutral<Acc>();
    if constexpr (G > 0) {
        // Whole tiles of U packs a thread, dealt round-robin, with no bounds test
        // (all U loads issued before the first combine; one accumulator per pack so
        // the combines of one tile don't wait on each other), then the last partial
        // tile in the block whose turn it is, then the elements after the last pack.
        constexpr int U = kReducePacks;
        const auto *packs = reinterpret_cast<const Pack<S, G> *>(data);
        const auto *elems = reinterpret_cast<const S *>(data);
        const int64_t groups = n / G;
        const int64_t whole = groups / kReduceTile;
        Acc lane_acc[U];
#pragma unroll
        for (int k = 0; k < U; ++k) lane_acc[k] = Op::template neutral<Acc>();
        int64_t t = blockIdx.x;
        for (; t < whole; t += gridDim.x) {
            const int64_t base = t * kReduceTile + threadIdx.x;
            Pack<S, G> p[U];
#pragma unroll
            for (int k = 0; k < U; ++k) p[k] = load_streamed(packs + base + k * kReduceThreads);
#pragma unroll
            for (int k = 0; k < U; ++k)
#pragma unroll
                for (int j = 0; j < G; ++j) lane_acc[k] = op(lane_acc[k], lift<Op, Acc, T>(p[k].v[j]));
        }
        if (t == whole)
            for (int64_t i = whole * kReduceTile + threadIdx.x; i < groups; i += kReduceThreads) {
                const Pack<S, G> q = load_streamed(packs + i);
#pragma unroll
                for (int j = 0; j < G; ++j) lane_acc[0] = op(lane_acc[0], lift<Op, Acc, T>(q.v[j]));
            }
#pragma unroll
        for (int k = 0; k < U; ++k) acc = op(acc, lane_acc[k]);
        if (blockIdx.x == gridDim.x - 1)
            for (int64_t i = groups * G + threadIdx.x; i < n; i += kReduceThreads)
                acc = op(acc, lift<Op, Acc, T>(elems[i]));
    } else {
        for (int64_t i = tid; i < n; i += nthreads)
            acc = op(acc, lift<Op, Acc, T>(*reinterpret_cast<const S *>(data + element_offset(layout, i))));
    }
    acc = block_reduce<Op>(acc);
    if (gridDim.x == 1) {  // small inputs: no partials, no ticket
        if (threadIdx.x == 0) {
            const Out value = static_cast<Out>(finalize ? finish<Op>(acc, n) : acc);
            *result = value;
            if (mirror != nullptr) *mirror = value;
        }
        return;
    }
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        __threadfence();  // the partial is visible before the ticket is taken
        last = (atomicAdd(counter, 1u) == gridDim.x - 1);
    }
    __syncthreads();
    if (!last) return;
    Acc total = Op::template neutral<Acc>();
    for (int i = threadIdx.x; i < static_cast<int>(gridDim.x); i += kReduceThreads)
        total = op(total, load_partial(&partials[i]));
    total = block_reduce<Op>(total);
    if (threadIdx.x == 0) {
        const Out value = static_cast<Out>(finalize ? finish<Op>(total, n) : total);
        *result = value;
        if (mirror != nullptr) *mirror = value;
        *counter = 0;
    }
}

// A contiguous reduction over `groups` packs of G: kReduceWaves waves of blocks
// (fewer for fewer tiles), each taking every grid-th tile.
template <typename Op, typename T, typename Acc, int G, typename Out>
va_status launch_contiguous_reduce(const ReduceCall &c, int64_t groups, Out *result) {
    constexpr auto kernel = reduce_kernel<Op, T, Acc, G, Out, ContiguousLayout>;
    const int64_t waves = static_cast<int64_t>(multiprocessor_count(c.device)) *
                          resident_blocks<kernel>(kReduceThreads) * kReduceWaves;
    const int64_t grid = std::max<int64_t>(
        1, std::min<int64_t>({(groups + kReduceTile - 1) / kReduceTile, waves, static_cast<int64_t>(kMaxBlocks)}));
    VA_CUDA_CHECK(launch_kernel(c.device, kernel, static_cast<unsigned>(grid), kReduceThreads, c.stream,
                                static_cast<const char *>(c.a->data), c.n, ContiguousLayout(),
                                static_cast<Acc *>(c.scratch.partials), c.scratch.counter, result,
                                static_cast<Out *>(c.mirror), !c.to_accumulator));
    return VA_SUCCESS;
}

template <typename Op, typename T, typename Acc, typename Out>
va_status launch_reduce_to(const ReduceCall &c, Out *result) {
    const va_array *views[1] = {c.a};
    Walk walk;
    make_walk(views, 1, &walk);
    using S = StoredT<T>;
    // One complex element a load (8 or 16 bytes): one instantiation fewer for
    // complex64, whose code is the complex module's bulk (reduce_axes_kernels.cuh).
    constexpr int G = is_complex_v<T> ? 1 : static_cast<int>(16 / sizeof(S));
    const bool contiguous = walk.ndim == 0 ||
                            (walk.ndim == 1 && walk.strides[0][0] == static_cast<int64_t>(sizeof(S)));
    const char *data = static_cast<const char *>(c.a->data);
    auto *partials = static_cast<Acc *>(c.scratch.partials);
    if (contiguous) {
        if (reinterpret_cast<uintptr_t>(data) % (sizeof(S) * G) == 0)
            return launch_contiguous_reduce<Op, T, Acc, G, Out>(c, c.n / G, result);
        return launch_contiguous_reduce<Op, T, Acc, 1, Out>(c, c.n, result);
    }
    // Strided reads (a trace's diagonal) are latency-bound: one element a thread
    // while that fills the GPU, so every read is in flight at once.
    const int64_t per_block = c.n <= static_cast<int64_t>(kReduceThreads) * kMaxBlocks ? kReduceThreads : kReduceThreads * 4;
    const int64_t cap = std::min<int64_t>(kMaxBlocks, static_cast<int64_t>(multiprocessor_count(c.device)) * 16);
    const unsigned blocks = static_cast<unsigned>(
        std::max<int64_t>(1, std::min<int64_t>((c.n + per_block - 1) / per_block, cap)));
    if (walk.ndim == 1)
        VA_CUDA_CHECK(launch_kernel(c.device, reduce_kernel<Op, T, Acc, 0, Out, Stride1>, blocks,
                                    kReduceThreads, c.stream, data, c.n, Stride1{walk.strides[0][0]}, partials, c.scratch.counter, result,
                                    static_cast<Out *>(c.mirror), !c.to_accumulator));
    else
        VA_CUDA_CHECK(launch_kernel(c.device, reduce_kernel<Op, T, Acc, 0, Out, Walk>, blocks,
                                    kReduceThreads, c.stream, data, c.n, walk, partials,
                                    c.scratch.counter, result, static_cast<Out *>(c.mirror),
                                    !c.to_accumulator));
    return VA_SUCCESS;
}

// Reductions to a position (reduce_arg_kernels.cuh).
template <typename Op, int Part>
va_status launch_arg_full(const ReduceCall &c);

// The launcher a reduction's declaration instantiates: every input type of its
// domain in dtype part Part.
template <typename Op, va_domain D, int Part>
va_status launch_reduction(const ReduceCall &c) {
    if constexpr (D == VA_DOMAIN_INDEX) {
        return launch_arg_full<Op, Part>(c);
    } else {
        const va_status st = with_compute_type<D, Part, true>(c.a->dtype, [&](auto t) {
            using T = decltype(t);
            using Acc = AccOf<D, T>;
            using R = ResultOf<D, T>;
            if (c.to_accumulator) return launch_reduce_to<Op, T, Acc>(c, static_cast<Acc *>(c.result));
            return launch_reduce_to<Op, T, Acc>(c, reinterpret_cast<StoredT<R> *>(c.result));
        });
        if (st == VA_ERROR_UNSUPPORTED_DTYPE) VA_FAIL(st);
        return st;
    }
}

}  // namespace va
