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

template <typename Op>
va_status launch_arg_axes(const AxesCall &c) {
    const va_status st = with_compute_type<VA_DOMAIN_INDEX>(c.dtype, [&](auto t) {
        return launch_arg_typed<Op, decltype(t)>(c);
    });
    if (st == VA_ERROR_UNSUPPORTED_DTYPE) VA_FAIL(st);
    return st;
}

// Every element of c.a, in C order, to one int64 index at c.result. Partial
// results of chunks (the host pipeline's) have no meaning for a position.
template <typename Op>
va_status launch_arg_full(const ReduceCall &c) {
    if (c.to_accumulator || c.n == 0) VA_FAIL(VA_ERROR_INVALID_VALUE);
    AxesCall call = {};
    call.device = c.device;
    call.stream = c.stream;
    call.dtype = c.a->dtype;
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
    return launch_arg_axes<Op>(call);
}

}  // namespace va
