// The kernels of a reduction over a set of axes (planned by reduce_axes.cu into
// kept and reduced dim groups), instantiated for the combine functor and each
// input type, as the full reduction's are:
//  - rows: the reduced elements are the fast side (C-order sum(axis=-1)): a warp
//    or a block per output, 16-byte packs where the run is contiguous;
//  - columns: a kept dim is the fast side (C-order sum(axis=0)): threads map to
//    neighbouring outputs so each row is read coalesced, and the reduced extent
//    is cut into fixed chunks across blocks whose partials a second kernel
//    combines in chunk order (deterministic; no float atomics);
//  - everything reduced: the full reduction's one-launch kernel.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <type_traits>

#include "memory.cuh"
#include "reduce_kernels.cuh"

namespace va {

// One dim group as a kernel parameter, outermost first.
struct AxesDims {
    int n;
    int64_t extent[VA_MAX_NDIM];
    int64_t in[VA_MAX_NDIM];
    int64_t out[VA_MAX_NDIM];
};

// The byte offsets (input, output) of linear index i of a group.
__device__ __forceinline__ void group_offsets(const AxesDims &d, int64_t i, int64_t *in, int64_t *out) {
    int64_t a = 0, b = 0;
    for (int k = d.n - 1; k > 0; --k) {
        const int64_t q = i / d.extent[k];
        const int64_t r = i - q * d.extent[k];
        a += r * d.in[k];
        b += r * d.out[k];
        i = q;
    }
    if (d.n > 0) {
        a += i * d.in[0];
        b += i * d.out[0];
    }
    *in = a;
    *out = b;
}

template <typename Op, typename T, typename Acc>
__device__ __forceinline__ Acc load_as(const char *p) {
    return lift<Op, Acc, T>(*reinterpret_cast<const StoredT<T> *>(p));
}

// Blocks of the row kernel a SM (below): five of 256 threads where a SM holds
// 1536 or 2048 threads; Turing's hold 1024 (ptxas refuses a bound it cannot meet).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define VA_ROW_BLOCKS_PER_SM 4
#else
#define VA_ROW_BLOCKS_PER_SM 5
#endif

// Rows: W threads (a warp, or the whole block of kReduceThreads) per output.
// Contig: the reduced group is one run of contiguous elements.
// Five blocks a SM (48 registers): at the four that 52-62 registers allow, a
// block's tail (its tree, then the next row's first loads) leaves the memory
// system idle; sum(axis=1) of 10^4 x 10^4 float64 on an H200 took 185-188 us
// there and 180 here, mean(axis=1) 217 there (bench/NOTES.md, session 6).
template <typename Op, typename T, typename Acc, typename Out, int W, bool Contig>
__global__ void __launch_bounds__(kReduceThreads, VA_ROW_BLOCKS_PER_SM)
reduce_rows_kernel(const char *in, char *out, AxesDims kept, AxesDims reduced, int64_t outputs,
                   int64_t count) {
    follow_previous_grid();
    const Op op{};
    using S = StoredT<T>;
    constexpr int per_block = kReduceThreads / W;
    const int lane = static_cast<int>(threadIdx.x) % W;
    // Uniform across the W threads of an output (block_reduce needs the whole block).
    for (int64_t o = static_cast<int64_t>(blockIdx.x) * per_block + threadIdx.x / W; o < outputs;
         o += static_cast<int64_t>(gridDim.x) * per_block) {
        int64_t in_offset, out_offset;
        group_offsets(kept, o, &in_offset, &out_offset);
        const char *row = in + in_offset;
        Acc acc = Op::template neutral<Acc>();
        if constexpr (Contig) {
            constexpr int G = static_cast<int>(16 / sizeof(S));
            constexpr int U = 4;
            const auto *elems = reinterpret_cast<const S *>(row);
            // U accumulators a thread: elements before the first 16-byte boundary
            // into the first, whole rounds of U packs with no bound test and not
            // unrolled further (each adds live registers), the packs left, the tail.
            Acc part[U];
#pragma unroll
            for (int k = 0; k < U; ++k) part[k] = Op::template neutral<Acc>();
            int64_t head = static_cast<int64_t>((16 - (reinterpret_cast<uintptr_t>(row) & 15)) & 15) /
                           static_cast<int64_t>(sizeof(S));
            if (head > count) head = count;
            for (int64_t i = lane; i < head; i += W) part[0] = op(part[0], lift<Op, Acc, T>(elems[i]));
            const auto *packs = reinterpret_cast<const Pack<S, G> *>(elems + head);
            const int64_t npacks = (count - head) / G;
            int64_t p = lane;
#pragma unroll 1
            for (; p + (U - 1) * W < npacks; p += static_cast<int64_t>(W) * U) {
                Pack<S, G> v[U];
#pragma unroll
                for (int k = 0; k < U; ++k) v[k] = packs[p + k * W];
#pragma unroll
                for (int k = 0; k < U; ++k)
#pragma unroll
                    for (int j = 0; j < G; ++j) part[k] = op(part[k], lift<Op, Acc, T>(v[k].v[j]));
            }
            for (; p < npacks; p += W) {
                const Pack<S, G> v = packs[p];
#pragma unroll
                for (int j = 0; j < G; ++j) part[1] = op(part[1], lift<Op, Acc, T>(v.v[j]));
            }
            for (int64_t i = head + npacks * G + lane; i < count; i += W)
                part[2] = op(part[2], lift<Op, Acc, T>(elems[i]));
            acc = op(op(part[0], part[1]), op(part[2], part[3]));
        } else {
            for (int64_t i = lane; i < count; i += W) {
                int64_t off, unused;
                group_offsets(reduced, i, &off, &unused);
                acc = op(acc, load_as<Op, T, Acc>(row + off));
            }
        }
        if constexpr (W == 32) {
            for (int offset = 16; offset > 0; offset >>= 1) acc = op(acc, shuffle_down(acc, offset));
        } else {
            acc = block_reduce<Op>(acc);
        }
        if (lane == 0) {
            // Found again rather than held through the loops above (registers).
            group_offsets(kept, o, &in_offset, &out_offset);
            *reinterpret_cast<Out *>(out + out_offset) = static_cast<Out>(finish<Op>(acc, count));
        }
    }
}

// Columns: tx threads along the outputs, kReduceThreads / tx along the reduced
// elements of one chunk (chunk `split` of `chunk` elements); the block combines
// its rows in shared memory in a fixed order, then writes the output (one
// chunk) or its partial (partials[split * outputs + o]).
template <typename Op, typename T, typename Acc, typename Out>
__global__ void __launch_bounds__(kReduceThreads)
reduce_columns_kernel(const char *in, char *out, AxesDims kept, AxesDims reduced, int64_t outputs,
                      int64_t count, int64_t chunk, int64_t xblocks, int tx, Acc *partials) {
    follow_previous_grid();
    const Op op{};
    __shared__ Acc rows[kReduceThreads];
    const int64_t split = blockIdx.x / xblocks;
    const int col = static_cast<int>(threadIdx.x) % tx, ty = static_cast<int>(threadIdx.x) / tx;
    const int ny = kReduceThreads / tx;
    const int64_t o = (blockIdx.x - split * xblocks) * tx + col;
    const bool active = o < outputs;
    int64_t in_offset = 0, out_offset = 0;
    if (active) group_offsets(kept, o, &in_offset, &out_offset);
    const int64_t begin = split * chunk, end = begin + chunk < count ? begin + chunk : count;
    Acc acc = Op::template neutral<Acc>();
    if (active) {
        const char *base = in + in_offset;
        if (reduced.n == 1) {
            // Four rows in flight per thread, each into its own accumulator.
            const int64_t s = reduced.in[0];
            Acc a[4];
#pragma unroll
            for (int k = 0; k < 4; ++k) a[k] = Op::template neutral<Acc>();
            int64_t j = begin + ty;
            for (; j + 3 * ny < end; j += 4 * ny) {
                Acc v[4];
#pragma unroll
                for (int k = 0; k < 4; ++k) v[k] = load_as<Op, T, Acc>(base + (j + k * ny) * s);
#pragma unroll
                for (int k = 0; k < 4; ++k) a[k] = op(a[k], v[k]);
            }
            for (; j < end; j += ny) a[0] = op(a[0], load_as<Op, T, Acc>(base + j * s));
            acc = op(op(a[0], a[1]), op(a[2], a[3]));
        } else {
            for (int64_t j = begin + ty; j < end; j += ny) {
                int64_t off, unused;
                group_offsets(reduced, j, &off, &unused);
                acc = op(acc, load_as<Op, T, Acc>(base + off));
            }
        }
    }
    if (ny > 1) {
        rows[threadIdx.x] = acc;
        __syncthreads();
        if (ty != 0) return;
        for (int k = 1; k < ny; ++k) acc = op(acc, rows[k * tx + col]);
    }
    if (!active) return;
    if (partials == nullptr) *reinterpret_cast<Out *>(out + out_offset) = static_cast<Out>(finish<Op>(acc, count));
    else partials[split * outputs + o] = acc;
}

// The chunks' partials of each output, combined in chunk order.
template <typename Op, typename Acc, typename Out>
__global__ void __launch_bounds__(kReduceThreads)
combine_columns_kernel(const Acc *partials, int64_t splits, char *out, AxesDims kept, int64_t outputs,
                       int64_t count) {
    follow_previous_grid();
    const Op op{};
    for (int64_t o = static_cast<int64_t>(blockIdx.x) * kReduceThreads + threadIdx.x; o < outputs;
         o += static_cast<int64_t>(gridDim.x) * kReduceThreads) {
        Acc acc = Op::template neutral<Acc>();
        for (int64_t s = 0; s < splits; ++s) acc = op(acc, partials[s * outputs + o]);
        int64_t unused, out_offset;
        group_offsets(kept, o, &unused, &out_offset);
        *reinterpret_cast<Out *>(out + out_offset) = static_cast<Out>(finish<Op>(acc, count));
    }
}

inline AxesDims kept_dims(const AxesPlan &p) {
    AxesDims d = {};
    d.n = p.nkept;
    for (int k = 0; k < p.nkept; ++k) {
        d.extent[k] = p.kept_extent[k];
        d.in[k] = p.kept_in[k];
        d.out[k] = p.kept_out[k];
    }
    return d;
}
inline AxesDims reduced_dims(const AxesPlan &p) {
    AxesDims d = {};
    d.n = p.nreduced;
    for (int k = 0; k < p.nreduced; ++k) {
        d.extent[k] = p.reduced_extent[k];
        d.in[k] = p.reduced_in[k];
    }
    return d;
}

constexpr unsigned kMaxGrid = INT_MAX;

template <typename Op, typename T, typename Acc, typename Out, int W, bool Contig>
va_status launch_rows(const AxesCall &c, const AxesDims &kept, const AxesDims &reduced) {
    constexpr int per_block = kReduceThreads / W;
    const int64_t blocks = std::min<int64_t>((c.plan.outputs + per_block - 1) / per_block, kMaxGrid);
    VA_CUDA_CHECK(launch_kernel(c.device, reduce_rows_kernel<Op, T, Acc, Out, W, Contig>,
                                static_cast<unsigned>(blocks), kReduceThreads, c.stream, c.plan.in,
                                c.plan.out, kept, reduced, c.plan.outputs, c.plan.reduced));
    return VA_SUCCESS;
}

template <typename Op, typename T, typename Acc, typename Out>
va_status launch_columns(const AxesCall &c, const AxesDims &kept, const AxesDims &reduced) {
    constexpr auto kernel = reduce_columns_kernel<Op, T, Acc, Out>;
    const int64_t outputs = c.plan.outputs, count = c.plan.reduced;
    int tx = 32;
    while (tx < kReduceThreads && tx < outputs) tx *= 2;
    const int ny = kReduceThreads / tx;
    const int64_t xblocks = (outputs + tx - 1) / tx;
    // As many chunks as fit the GPU in one wave (a second, ragged wave would cost
    // as much as the first); each chunk at least 32 rows per thread row.
    const int64_t target = static_cast<int64_t>(multiprocessor_count(c.device)) * resident_blocks<kernel>(kReduceThreads);
    int64_t splits = 1;
    if (2 * xblocks <= target && count > 0) {
        const int64_t most = std::max<int64_t>(1, count / (static_cast<int64_t>(ny) * 32));
        splits = std::min<int64_t>({target / xblocks, most, kMaxGrid / xblocks});
    }
    const int64_t chunk = count > 0 ? (count + splits - 1) / splits : 0;
    if (count > 0) splits = (count + chunk - 1) / chunk;
    if (splits == 1) {
        VA_CUDA_CHECK(launch_kernel(c.device, kernel, static_cast<unsigned>(xblocks), kReduceThreads, c.stream,
                                    c.plan.in, c.plan.out, kept, reduced, outputs, count, chunk, xblocks, tx,
                                    static_cast<Acc *>(nullptr)));
        return VA_SUCCESS;
    }
    DeviceBuffer partials(c.device, c.stream);
    VA_CHECK(partials.allocate(static_cast<size_t>(splits * outputs) * sizeof(Acc)));
    auto *p = reinterpret_cast<Acc *>(partials.get());
    VA_CUDA_CHECK(launch_kernel(c.device, kernel, static_cast<unsigned>(xblocks * splits), kReduceThreads,
                                c.stream, c.plan.in, c.plan.out, kept, reduced, outputs, count, chunk, xblocks,
                                tx, p));
    const int64_t blocks = std::min<int64_t>((outputs + kReduceThreads - 1) / kReduceThreads, kMaxGrid);
    VA_CUDA_CHECK(launch_kernel(c.device, combine_columns_kernel<Op, Acc, Out>, static_cast<unsigned>(blocks),
                                kReduceThreads, c.stream, static_cast<const Acc *>(p), splits, c.plan.out, kept,
                                outputs, count));
    return VA_SUCCESS;
}

// The reduced dimensions of the plan as an array view starting at `data`: one
// output's group, for the full reduction's kernel.
inline va_array reduced_group(const AxesPlan &p, va_dtype dtype, const char *data) {
    va_array view = {};
    view.data = const_cast<char *>(data);
    view.dtype = dtype;
    view.ndim = p.nreduced;
    for (int k = 0; k < p.nreduced; ++k) {
        view.shape[k] = p.reduced_extent[k];
        view.strides[k] = p.reduced_in[k];
    }
    return view;
}

template <typename Op, typename T, typename Acc, typename Out>
va_status launch_axes_typed(const AxesCall &c) {
    const AxesPlan &p = c.plan;
    if (p.nkept == 0) {
        // Everything reduced: the full reduction's kernel over the merged group.
        const va_array view = reduced_group(p, c.dtype, p.in);
        const ReduceCall rc{c.device, c.stream, &view, p.reduced, c.scratch, p.out, false, c.mirror};
        VA_CHECK((launch_reduce_to<Op, T, Acc>(rc, reinterpret_cast<Out *>(p.out))));
        if (c.mirror_written != nullptr) *c.mirror_written = c.mirror != nullptr;
        return VA_SUCCESS;
    }
    const AxesDims kept = kept_dims(p), reduced = reduced_dims(p);
    const int64_t fast_kept = p.kept_in[p.nkept - 1];
    const int64_t fast_reduced = p.nreduced > 0 ? p.reduced_in[p.nreduced - 1] : INT64_MAX;
    if (p.outputs <= 16 && p.reduced >= (int64_t(1) << 20) && fast_reduced < fast_kept) {
        // A few long rows (shape (2, 10**8) over axis 1): a block per row would leave
        // the GPU nearly idle, so each row is a full reduction of its own, one after
        // the other on the stream (they share the scratch).
        for (int64_t o = 0; o < p.outputs; ++o) {
            int64_t in_offset = 0, out_offset = 0, i = o;
            for (int k = p.nkept - 1; k >= 0; --k) {
                const int64_t r = i % p.kept_extent[k];
                i /= p.kept_extent[k];
                in_offset += r * p.kept_in[k];
                out_offset += r * p.kept_out[k];
            }
            const va_array view = reduced_group(p, c.dtype, p.in + in_offset);
            const ReduceCall rc{c.device, c.stream, &view, p.reduced, c.scratch, p.out + out_offset, false};
            VA_CHECK((launch_reduce_to<Op, T, Acc>(rc, reinterpret_cast<Out *>(p.out + out_offset))));
        }
        return VA_SUCCESS;
    }
    if (p.reduced >= 16 && fast_reduced < fast_kept) {
        // Packs need every row to start on an element boundary.
        constexpr int64_t size = static_cast<int64_t>(sizeof(StoredT<T>));
        bool contig = p.nreduced == 1 && fast_reduced == size && reinterpret_cast<uintptr_t>(p.in) % size == 0;
        for (int k = 0; k < p.nkept; ++k) contig = contig && p.kept_in[k] % size == 0;
        // Complex elements are 8 or 16 bytes already: packs gain them little, and
        // their kernels' machine code is the largest of the complex module.
        if constexpr (is_complex_v<T>) {
            if (p.reduced >= 4096) return launch_rows<Op, T, Acc, Out, kReduceThreads, false>(c, kept, reduced);
            return launch_rows<Op, T, Acc, Out, 32, false>(c, kept, reduced);
        } else {
            if (p.reduced >= 4096)
                return contig ? launch_rows<Op, T, Acc, Out, kReduceThreads, true>(c, kept, reduced)
                              : launch_rows<Op, T, Acc, Out, kReduceThreads, false>(c, kept, reduced);
            return contig ? launch_rows<Op, T, Acc, Out, 32, true>(c, kept, reduced)
                          : launch_rows<Op, T, Acc, Out, 32, false>(c, kept, reduced);
        }
    }
    return launch_columns<Op, T, Acc, Out>(c, kept, reduced);
}

template <typename Op, int Part>
va_status launch_arg_axes(const AxesCall &c);

// The launcher a reduction's declaration instantiates for axes (dtype part Part).
template <typename Op, va_domain D, int Part>
va_status launch_reduction_axes(const AxesCall &c) {
    if constexpr (D == VA_DOMAIN_INDEX) {
        return launch_arg_axes<Op, Part>(c);
    } else {
        const va_status st = with_compute_type<D, Part, true>(c.dtype, [&](auto t) {
            using T = decltype(t);
            return launch_axes_typed<Op, T, AccOf<D, T>, StoredT<ResultOf<D, T>>>(c);
        });
        if (st == VA_ERROR_UNSUPPORTED_DTYPE) VA_FAIL(st);
        return st;
    }
}

}  // namespace va
