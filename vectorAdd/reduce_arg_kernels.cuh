// The kernels of reductions to a position (domain INDEX: argmax, argmin). The
// functor says only which value wins (`static bool better(x, y)`: x displaces
// y); ties go to the lower index, which makes the combine associative and
// commutative, so any split of the work gives NumPy's first occurrence. The
// reduced elements are walked in logical C order (the plan keeps it), so the
// index is the flat index over the reduced axes.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>

#include "reduce_axes_kernels.cuh"

namespace va {

template <typename T>
struct ArgPair {
    T v;
    int64_t i;  // -1: no element yet
};

template <typename Op, typename T>
__device__ __forceinline__ ArgPair<T> arg_combine(ArgPair<T> a, ArgPair<T> b) {
    if (b.i < 0) return a;
    if (a.i < 0) return b;
    if (Op::better(a.v, b.v)) return a;
    if (Op::better(b.v, a.v)) return b;
    return a.i <= b.i ? a : b;
}

// W threads per (output, chunk); chunk `s` of output `o` covers reduced indices
// [s * chunk, (s + 1) * chunk). One chunk: the index is written to the output;
// several: the pair to partials[o * splits + s].
template <typename Op, typename T, int W>
__global__ void __launch_bounds__(kReduceThreads)
arg_kernel(const char *in, char *out, AxesDims kept, AxesDims reduced, int64_t outputs, int64_t count,
           int64_t chunk, int64_t splits, ArgPair<T> *partials) {
    follow_previous_grid();
    using S = StoredT<T>;
    constexpr int per_block = kReduceThreads / W;
    const int lane = static_cast<int>(threadIdx.x) % W;
    const int64_t total = outputs * splits;
    // Uniform across the W threads of a group (the block's syncs need it).
    for (int64_t g = static_cast<int64_t>(blockIdx.x) * per_block + threadIdx.x / W; g < total;
         g += static_cast<int64_t>(gridDim.x) * per_block) {
        const int64_t o = g / splits, s = g - o * splits;
        int64_t in_offset, out_offset;
        group_offsets(kept, o, &in_offset, &out_offset);
        const int64_t begin = s * chunk, end = begin + chunk < count ? begin + chunk : count;
        ArgPair<T> acc{T(), -1};
        for (int64_t i = begin + lane; i < end; i += W) {
            int64_t off, unused;
            group_offsets(reduced, i, &off, &unused);
            const T v = from_stored<T>(*reinterpret_cast<const S *>(in + in_offset + off));
            acc = arg_combine<Op>(acc, ArgPair<T>{v, i});
        }
        if constexpr (W == 32) {
            for (int offset = 16; offset > 0; offset >>= 1) {
                const ArgPair<T> other{shuffle_down(acc.v, offset),
                                       static_cast<int64_t>(__shfl_down_sync(0xffffffffu, static_cast<long long>(acc.i), offset))};
                acc = arg_combine<Op>(acc, other);
            }
        } else {
            __shared__ T values[kReduceThreads];
            __shared__ int64_t indices[kReduceThreads];
            values[threadIdx.x] = acc.v;
            indices[threadIdx.x] = acc.i;
            __syncthreads();
            for (int half = kReduceThreads / 2; half > 0; half >>= 1) {
                if (lane < half) {
                    acc = arg_combine<Op>(acc, ArgPair<T>{values[lane + half], indices[lane + half]});
                    values[lane] = acc.v;
                    indices[lane] = acc.i;
                }
                __syncthreads();
            }
        }
        if (lane == 0) {
            if (splits == 1) *reinterpret_cast<int64_t *>(out + out_offset) = acc.i;
            else partials[g] = acc;
        }
    }
}

template <typename Op, typename T>
__global__ void __launch_bounds__(kReduceThreads)
arg_combine_kernel(const ArgPair<T> *partials, int64_t splits, char *out, AxesDims kept, int64_t outputs) {
    follow_previous_grid();
    for (int64_t o = static_cast<int64_t>(blockIdx.x) * kReduceThreads + threadIdx.x; o < outputs;
         o += static_cast<int64_t>(gridDim.x) * kReduceThreads) {
        ArgPair<T> acc{T(), -1};
        for (int64_t s = 0; s < splits; ++s) acc = arg_combine<Op>(acc, partials[o * splits + s]);
        int64_t unused, out_offset;
        group_offsets(kept, o, &unused, &out_offset);
        *reinterpret_cast<int64_t *>(out + out_offset) = acc.i;
    }
}

template <typename Op, typename T, int W>
va_status launch_arg_groups(const AxesCall &c, const AxesDims &kept, const AxesDims &reduced, int64_t chunk,
                            int64_t splits, ArgPair<T> *partials) {
    constexpr int per_block = kReduceThreads / W;
    const int64_t groups = c.plan.outputs * splits;
    const int64_t blocks = std::min<int64_t>((groups + per_block - 1) / per_block, kMaxGrid);
    VA_CUDA_CHECK(launch_kernel(c.device, arg_kernel<Op, T, W>, static_cast<unsigned>(blocks), kReduceThreads,
                                c.stream, c.plan.in, c.plan.out, kept, reduced, c.plan.outputs, c.plan.reduced,
                                chunk, splits, partials));
    return VA_SUCCESS;
}

template <typename Op, typename T>
va_status launch_arg_typed(const AxesCall &c) {
    const AxesDims kept = kept_dims(c.plan), reduced = reduced_dims(c.plan);
    const int64_t outputs = c.plan.outputs, count = c.plan.reduced;
    // Few outputs over many elements: chunks of at least 16 elements a thread,
    // enough of them to fill the GPU once.
    const int64_t target = static_cast<int64_t>(multiprocessor_count(c.device)) * 8;
    int64_t splits = 1;
    if (outputs < target && count >= 2 * kReduceThreads * 16)
        splits = std::min<int64_t>((target + outputs - 1) / outputs, count / (kReduceThreads * 16));
    const int64_t chunk = (count + splits - 1) / splits;
    splits = (count + chunk - 1) / chunk;
    if (splits == 1)
        return chunk >= 4096 ? launch_arg_groups<Op, T, kReduceThreads>(c, kept, reduced, chunk, 1, nullptr)
                             : launch_arg_groups<Op, T, 32>(c, kept, reduced, chunk, 1, nullptr);
    DeviceBuffer partials(c.device, c.stream);
    VA_CHECK(partials.allocate(static_cast<size_t>(outputs * splits) * sizeof(ArgPair<T>)));
    auto *p = reinterpret_cast<ArgPair<T> *>(partials.get());
    const va_status st = launch_arg_groups<Op, T, kReduceThreads>(c, kept, reduced, chunk, splits, p);
    if (st != VA_SUCCESS) return st;
    const int64_t blocks = std::min<int64_t>((outputs + kReduceThreads - 1) / kReduceThreads, kMaxGrid);
    VA_CUDA_CHECK(launch_kernel(c.device, arg_combine_kernel<Op, T>, static_cast<unsigned>(blocks), kReduceThreads,
                                c.stream, static_cast<const ArgPair<T> *>(p), splits, c.plan.out, kept, outputs));
    return VA_SUCCESS;
}

// The pair a warp holds, combined down to lane 0.
template <typename Op, typename T>
__device__ __forceinline__ ArgPair<T> warp_arg(ArgPair<T> acc) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        const ArgPair<T> other{shuffle_down(acc.v, offset),
                               static_cast<int64_t>(__shfl_down_sync(0xffffffffu, static_cast<long long>(acc.i), offset))};
        acc = arg_combine<Op>(acc, other);
    }
    return acc;
}

template <typename Op, typename T>
__device__ ArgPair<T> block_arg(ArgPair<T> acc) {
    __shared__ T values[kReduceThreads / 32];
    __shared__ int64_t indices[kReduceThreads / 32];
    acc = warp_arg<Op>(acc);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) {
        values[warp] = acc.v;
        indices[warp] = acc.i;
    }
    __syncthreads();
    if (warp == 0) {
        acc = lane < kReduceThreads / 32 ? ArgPair<T>{values[lane], indices[lane]} : ArgPair<T>{T(), -1};
        acc = warp_arg<Op>(acc);
    }
    __syncthreads();
    return acc;
}

// Element i (value v) after the ones `acc` has seen, all of lower index: only a
// strictly better value displaces it, so ties keep the first.
template <typename Op, typename T>
__device__ __forceinline__ void arg_take(ArgPair<T> &acc, T v, int64_t i) {
    if (acc.i < 0 || Op::better(v, acc.v)) acc = ArgPair<T>{v, i};
}

// Packs in flight a thread in arg_full_kernel, and its launcher's tile. Four: each
// slot holds a value and its index; the value reductions' eight (kReducePacks) has
// not been tried here (argmax and argmin meet their rows at four).
constexpr int kArgReducePacks = 4;

// Every element of a contiguous run in one pass, as reduce_kernel sums: each
// block over its own run of `span` packs of G (kArgReducePacks 16-byte loads in
// flight a thread, one pair per load slot), a block tree, and the last block to
// finish combining the blocks' pairs into the index.
template <typename Op, typename T, int G>
__global__ void __launch_bounds__(kReduceThreads)
arg_full_kernel(const char *data, int64_t n, int64_t span, ArgPair<T> *partials, unsigned int *counter,
                int64_t *result) {
    follow_previous_grid();
    using S = StoredT<T>;
    constexpr int U = kArgReducePacks;
    const auto *packs = reinterpret_cast<const Pack<S, G> *>(data);
    const auto *elems = reinterpret_cast<const S *>(data);
    const int64_t groups = n / G;
    const int64_t begin = static_cast<int64_t>(blockIdx.x) * span;
    const int64_t end = begin + span < groups ? begin + span : groups;
    ArgPair<T> slot[U];
#pragma unroll
    for (int k = 0; k < U; ++k) slot[k] = ArgPair<T>{T(), -1};
    for (int64_t base = begin + threadIdx.x; base < end; base += kReduceThreads * U) {
        Pack<S, G> p[U];
#pragma unroll
        for (int k = 0; k < U; ++k)
            if (base + k * kReduceThreads < end) p[k] = packs[base + k * kReduceThreads];
#pragma unroll
        for (int k = 0; k < U; ++k)
            if (base + k * kReduceThreads < end)
#pragma unroll
                for (int j = 0; j < G; ++j)
                    arg_take<Op>(slot[k], from_stored<T>(p[k].v[j]), (base + k * kReduceThreads) * G + j);
    }
    ArgPair<T> acc = slot[0];
#pragma unroll
    for (int k = 1; k < U; ++k) acc = arg_combine<Op>(acc, slot[k]);
    if (blockIdx.x == gridDim.x - 1)
        for (int64_t i = groups * G + threadIdx.x; i < n; i += kReduceThreads)
            acc = arg_combine<Op>(acc, ArgPair<T>{from_stored<T>(elems[i]), i});
    acc = block_arg<Op>(acc);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *result = acc.i;
        return;
    }
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        __threadfence();  // the pair is visible before the ticket is taken
        last = (atomicAdd(counter, 1u) == gridDim.x - 1);
    }
    __syncthreads();
    if (!last) return;
    ArgPair<T> total{T(), -1};
    for (int b = threadIdx.x; b < static_cast<int>(gridDim.x); b += kReduceThreads)
        total = arg_combine<Op>(total, ArgPair<T>{load_partial(&partials[b].v), load_partial(&partials[b].i)});
    total = block_arg<Op>(total);
    if (threadIdx.x == 0) {
        *result = total.i;
        *counter = 0;
    }
}

// The full reduction of `n` contiguous elements at `data` to one index: one even
// wave of blocks, each over a contiguous run, at most as many as the scratch holds
// pairs (the value reductions deal their tiles round-robin since session 23; not
// tried here: argmax and argmin met their rows on the H200 as they are).
template <typename Op, typename T, int G>
va_status launch_arg_contiguous(const AxesCall &c, const char *data, int64_t n) {
    constexpr auto kernel = arg_full_kernel<Op, T, G>;
    const int64_t groups = n / G;
    const int64_t step = static_cast<int64_t>(kReduceThreads) * kArgReducePacks;
    const int64_t wave = static_cast<int64_t>(multiprocessor_count(c.device)) * resident_blocks<kernel>(kReduceThreads);
    const int64_t room = static_cast<int64_t>(kMaxBlocks * sizeof(int64_t) / sizeof(ArgPair<T>));
    const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>({(groups + step - 1) / step, wave, room}));
    const int64_t span = std::max<int64_t>(step, ((groups + blocks - 1) / blocks + step - 1) / step * step);
    const int64_t grid = std::max<int64_t>(1, (groups + span - 1) / span);
    VA_CUDA_CHECK(launch_kernel(c.device, kernel, static_cast<unsigned>(grid), kReduceThreads, c.stream, data, n,
                                span, static_cast<ArgPair<T> *>(c.scratch.partials), c.scratch.counter,
                                reinterpret_cast<int64_t *>(c.plan.out)));
    return VA_SUCCESS;
}

template <typename Op, int Part>
va_status launch_arg_axes(const AxesCall &c) {
    const va_status st = with_compute_type<VA_DOMAIN_INDEX, Part>(c.dtype, [&](auto t) {
        using T = decltype(t);
        using S = StoredT<T>;
        const AxesPlan &p = c.plan;
        // Every element, one contiguous run in C order (the plan keeps the order).
        if (p.nkept == 0 && p.reduced > 0 && c.scratch.partials != nullptr &&
            (p.nreduced == 0 || (p.nreduced == 1 && p.reduced_in[0] == static_cast<int64_t>(sizeof(S))))) {
            constexpr int G = static_cast<int>(16 / sizeof(S));
            if (reinterpret_cast<uintptr_t>(p.in) % 16 == 0) return launch_arg_contiguous<Op, T, G>(c, p.in, p.reduced);
            return launch_arg_contiguous<Op, T, 1>(c, p.in, p.reduced);
        }
        return launch_arg_typed<Op, T>(c);
    });
    if (st == VA_ERROR_UNSUPPORTED_DTYPE) VA_FAIL(st);
    return st;
}

// Every element of c.a, in C order, to one int64 index at c.result. Partial
// results of chunks (the host pipeline's) have no meaning for a position.
template <typename Op, int Part>
va_status launch_arg_full(const ReduceCall &c) {
    if (c.to_accumulator || c.n == 0) VA_FAIL(VA_ERROR_INVALID_VALUE);
    AxesCall call = {};
    call.device = c.device;
    call.stream = c.stream;
    call.dtype = c.a->dtype;
    call.scratch = c.scratch;
    AxesPlan &p = call.plan;
    p.in = static_cast<const char *>(c.a->data);
    p.out = static_cast<char *>(c.result);
    p.outputs = 1;
    p.reduced = c.n;
    for (int d = 0; d < c.a->ndim; ++d) {
        if (c.a->shape[d] == 1) continue;
        // Merge into the dim outside when it steps over exactly this one's run.
        if (p.nreduced > 0 && p.reduced_in[p.nreduced - 1] == c.a->strides[d] * c.a->shape[d]) {
            p.reduced_extent[p.nreduced - 1] *= c.a->shape[d];
            p.reduced_in[p.nreduced - 1] = c.a->strides[d];
            continue;
        }
        p.reduced_extent[p.nreduced] = c.a->shape[d];
        p.reduced_in[p.nreduced] = c.a->strides[d];
        ++p.nreduced;
    }
    return launch_arg_axes<Op, Part>(call);
}

}  // namespace va
