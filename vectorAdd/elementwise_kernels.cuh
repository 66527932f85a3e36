// The kernels of an elementwise operation, instantiated for its functor type
// (never an int to switch on) and each compute type of its domain:
//  - contiguous: every input already of the type the functor reads, contiguous
//    or one broadcast element, 16-byte packs where aligned;
//  - general: any layout (strided, reversed, broadcast, n-d) and any input
//    dtypes, each input cast to the type the functor reads as it is loaded
//    (one kernel per compute type instead of one per pair of input dtypes).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "error.cuh"
#include "launch.cuh"
#include "layout.cuh"
#include "op_registry.cuh"
#include "op_types.cuh"
#include "runtime.cuh"
#if defined(VA_TYPE_PART)
#include "memory.cuh"
#include "ops.cuh"
#endif

namespace va {

constexpr int kElementwiseThreads = 256;

// G elements of T read or written as one access of sizeof(T) * G bytes.
template <typename T, int G>
struct alignas(sizeof(T) * G) Pack {
    T v[G];
};

// The bytes of a pack as the widest words that divide them. Loaded as these and
// taken apart only where the math reads them: loaded as a Pack of one-byte
// elements, each load was split into its bytes at once, and the next input's
// load waited for it (add of uint8 at 0.86x the copy ceiling, session 33).
template <size_t Bytes>
using PackWord = std::conditional_t<Bytes % 16 == 0, uint4,
                 std::conditional_t<Bytes % 8 == 0, uint2,
                 std::conditional_t<Bytes % 4 == 0, uint32_t,
                 std::conditional_t<Bytes % 2 == 0, uint16_t, uint8_t>>>>;
template <typename P>
struct alignas(alignof(P)) PackBits {
    PackWord<sizeof(P)> w[sizeof(P) / sizeof(PackWord<sizeof(P)>)];
    __device__ __forceinline__ P unpack() const {
        static_assert(sizeof(PackBits) == sizeof(P) && alignof(PackBits) == alignof(P),
                      "a pack's words are its bytes, no more, no fewer");
        P p;
        memcpy(&p, this, sizeof(P));
        return p;
    }
};

struct InputPointers {
    const char *p[VA_MAX_INPUTS];
};
struct InputDtypes {
    va_dtype d[VA_MAX_INPUTS];
};
template <typename T>
struct ParamValues {
    T v[VA_MAX_PARAMS];
};

// A value of each input's type, addressed by position.
template <size_t I, typename A>
struct Slot {
    A v;
};
template <typename Seq, typename... A> struct SlotsImpl;
template <size_t... I, typename... A>
struct SlotsImpl<std::index_sequence<I...>, A...> : Slot<I, A>... {};
template <typename... A>
using Slots = SlotsImpl<std::index_sequence_for<A...>, A...>;
template <size_t I, typename A>
__device__ __forceinline__ A &slot(Slot<I, A> &s) { return s.v; }

// An element stored as dtype `d` at p, converted to A.
template <typename A>
__device__ __forceinline__ A load_as(const char *p, va_dtype d) {
    switch (d) {
        case VA_BOOL: return convert_to<A>(*reinterpret_cast<const uint8_t *>(p) != 0);
        case VA_INT32: return convert_to<A>(*reinterpret_cast<const int32_t *>(p));
        case VA_INT64: return convert_to<A>(*reinterpret_cast<const int64_t *>(p));
        case VA_FLOAT32: return convert_to<A>(*reinterpret_cast<const float *>(p));
        case VA_FLOAT64: return convert_to<A>(*reinterpret_cast<const double *>(p));
        case VA_INT8: return convert_to<A>(*reinterpret_cast<const int8_t *>(p));
        case VA_INT16: return convert_to<A>(*reinterpret_cast<const int16_t *>(p));
        case VA_UINT8: return convert_to<A>(*reinterpret_cast<const uint8_t *>(p));
        case VA_UINT16: return convert_to<A>(*reinterpret_cast<const uint16_t *>(p));
        case VA_UINT32: return convert_to<A>(*reinterpret_cast<const uint32_t *>(p));
        case VA_UINT64: return convert_to<A>(*reinterpret_cast<const uint64_t *>(p));
        case VA_COMPLEX64: return convert_to<A>(*reinterpret_cast<const complex<float> *>(p));
        case VA_COMPLEX128: return convert_to<A>(*reinterpret_cast<const complex<double> *>(p));
        case VA_DTYPE_COUNT: case VA_DTYPE_MAX_ENUM: break;
    }
    return A();
}

template <typename Op, typename T, int NP, typename L> struct Apply;
template <typename Op, typename T, int NP, typename... A>
struct Apply<Op, T, NP, Inputs<A...>> {
    using Out = typename OutOf<Op, T, NP, Inputs<A...>>::type;
    template <size_t... P, size_t... I>
    __device__ static __forceinline__ Out call(const Op &op, const ParamValues<T> &params,
                                               Slots<A...> &x, std::index_sequence<P...>,
                                               std::index_sequence<I...>) {
        return op(params.v[P]..., slot<I>(x)...);
    }
    __device__ static __forceinline__ Out run(const Op &op, const ParamValues<T> &params,
                                              Slots<A...> &x) {
        return call(op, params, x, std::make_index_sequence<NP>(),
                    std::index_sequence_for<A...>());
    }
};

template <typename Op, typename T, int NP, int G, typename L> struct Contiguous;
template <typename Op, typename T, int NP, int G, typename... A>
struct Contiguous<Op, T, NP, G, Inputs<A...>> {
    using Ap = Apply<Op, T, NP, Inputs<A...>>;
    using Out = typename Ap::Out;

    // Packs g0, g0 + kElementwiseThreads / U, ... of the block's tile: all loads
    // issued before the math. A pack past the end (the last tile's) is read as
    // zeros and not stored, so the math has no test around it; the others are
    // told apart by a 32-bit count of this thread's packs left.
    // kScalars false: no input is a broadcast element (the mask is 0), and no
    // instruction tests it.
    template <int U, bool kScalars, size_t... I>
    __device__ static __forceinline__ void tile(const InputPointers &in, unsigned scalars,
                                                const ParamValues<T> &params, StoredT<Out> *out,
                                                int64_t n, std::index_sequence<I...>) {
        constexpr int kStride = kElementwiseThreads / U;
        const unsigned mask = kScalars ? scalars : 0u;
        const Op op{};
        const int64_t groups = static_cast<int64_t>(static_cast<uint64_t>(n) / G);  // n >= 0
        const int64_t g0 = static_cast<int64_t>(blockIdx.x) * kElementwiseThreads + threadIdx.x;
        if (g0 >= groups) return;
        const int64_t rest = groups - g0;
        const int left = rest < kElementwiseThreads ? static_cast<int>(rest) : kElementwiseThreads;
        bool live[U];
        Slots<PackBits<Pack<StoredT<A>, G>>...> packs[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            live[u] = u == 0 || u * kStride < left;
            ((((mask >> I) & 1u) == 0
                  ? (void)(slot<I>(packs[u]) =
                               live[u] ? (reinterpret_cast<const PackBits<Pack<StoredT<A>, G>> *>(in.p[I]) +
                                          g0)[u * kStride]
                                       : PackBits<Pack<StoredT<A>, G>>{})
                  : (void)0),
             ...);
        }
        Slots<A...> first;  // read only where its mask bit is set
        ((((mask >> I) & 1u) != 0
              ? (void)(slot<I>(first) = from_stored<A>(*reinterpret_cast<const StoredT<A> *>(in.p[I])))
              : (void)0),
         ...);
        auto *mine = reinterpret_cast<Pack<StoredT<Out>, G> *>(out) + g0;
#pragma unroll
        for (int u = 0; u < U; ++u) {
            Pack<StoredT<Out>, G> r;
#pragma unroll
            for (int j = 0; j < G; ++j) {
                Slots<A...> x;
                ((slot<I>(x) = ((mask >> I) & 1u) ? slot<I>(first)
                                                  : from_stored<A>(slot<I>(packs[u]).unpack().v[j])),
                 ...);
                r.v[j] = to_stored<Out>(Ap::run(op, params, x));
            }
            if (live[u]) mine[u * kStride] = r;
        }
    }

    // Functors of several packs a thread (the costly float64 math) take a tile
    // with no scalar tests when the mask is 0: those tests were ~10 instructions
    // an element of float64 sinh more than PyTorch's kernel for the same math
    // (bench/NOTES.md, session 27). The others keep one body, their code size.
    template <int U, size_t... I>
    __device__ static __forceinline__ void body(const InputPointers &in, unsigned scalars,
                                                const ParamValues<T> &params, StoredT<Out> *out,
                                                int64_t n, std::index_sequence<I...> seq) {
        if constexpr (U > 1) {
            if (scalars == 0) return tile<U, false>(in, scalars, params, out, n, seq);
        }
        tile<U, true>(in, scalars, params, out, n, seq);
    }
};

// Every block a tile of kElementwiseThreads packs, taken by kElementwiseThreads / U
// threads (U packs each, PacksPerThread): the hardware schedules the waves
// (bench/NOTES.md, changes 2 and 9).
template <typename Op, typename T, int NP, int G, int U, typename L>
__global__ void __launch_bounds__(kElementwiseThreads)
elementwise_contiguous(InputPointers in, unsigned scalars, ParamValues<T> params,
                       StoredT<typename Contiguous<Op, T, NP, G, L>::Out> *out, int64_t n) {
    follow_previous_grid();
    Contiguous<Op, T, NP, G, L>::template body<U>(in, scalars, params, out, n,
                                                  std::make_index_sequence<L::size>());
}

template <typename Op, typename T, int NP, typename L> struct General;
template <typename Op, typename T, int NP, typename... A>
struct General<Op, T, NP, Inputs<A...>> {
    using Ap = Apply<Op, T, NP, Inputs<A...>>;
    using Out = typename Ap::Out;

    template <size_t... I>
    __device__ static __forceinline__ void body(const InputPointers &in, const InputDtypes &dt,
                                                const ParamValues<T> &params, char *out,
                                                int64_t n, const Walk &walk,
                                                std::index_sequence<I...>) {
        constexpr int kViews = sizeof...(A) + 1;
        const Op op{};
        const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
        for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
             i += nthreads) {
            int64_t offset[kViews] = {};
            if (walk.ndim == 1) {
#pragma unroll
                for (int v = 0; v < kViews; ++v) offset[v] = i * walk.strides[v][0];
            } else {
                int64_t index = i;
                for (int d = walk.ndim - 1; d >= 0; --d) {
                    const int64_t extent = walk.shape[d];
                    const int64_t k = index % extent;
                    index /= extent;
#pragma unroll
                    for (int v = 0; v < kViews; ++v) offset[v] += k * walk.strides[v][d];
                }
            }
            Slots<A...> x;
            ((slot<I>(x) = load_as<A>(in.p[I] + offset[I + 1], dt.d[I])), ...);
            *reinterpret_cast<StoredT<Out> *>(out + offset[0]) = to_stored<Out>(Ap::run(op, params, x));
        }
    }
};

template <typename Op, typename T, int NP, typename L>
__global__ void __launch_bounds__(kElementwiseThreads)
elementwise_general(InputPointers in, InputDtypes dt, ParamValues<T> params, char *out, int64_t n,
                    Walk walk) {
    follow_previous_grid();
    General<Op, T, NP, L>::body(in, dt, params, out, n, walk, std::make_index_sequence<L::size>());
}

// A grid-stride kernel's grid: enough blocks for the work, at most as many as
// can be resident at once (more would run as a second, partial wave).
template <auto Kernel>
unsigned resident_grid(int device, int64_t work_items, int threads) {
    const int64_t cap = static_cast<int64_t>(multiprocessor_count(device)) * resident_blocks<Kernel>(threads);
    const int64_t blocks = (work_items + threads - 1) / threads;
    return static_cast<unsigned>(std::max<int64_t>(1, std::min(blocks, cap)));
}

// Blocks of tiles covering `groups` packs (at least one).
inline unsigned tile_grid(int64_t groups) {
    return static_cast<unsigned>(
        std::max<int64_t>(1, (groups + kElementwiseThreads - 1) / kElementwiseThreads));
}

template <int I, typename L>
constexpr size_t size_at() { return sizeof(StoredT<typename TypeAt<I, L>::type>); }
template <typename L, size_t... I>
constexpr size_t widest_input(std::index_sequence<I...>) {
    size_t w = 1;
    ((w = std::max(w, size_at<I, L>())), ...);
    return w;
}
template <typename Op, typename T, int NP, typename L>
va_status launch_typed(const ElementwiseCall &c);

#if defined(VA_TYPE_PART)
// A complex operation of the library's over strided, broadcast or mixed-dtype
// operands: each such input converted into a contiguous buffer of the type the
// functor reads (contiguous_as), the contiguous kernel run, a strided output
// written back from a buffer. More passes than one general kernel would make, for
// layouts complex code seldom meets: a general kernel for each complex operation
// and type was 41% of the complex module's machine code, which the release wheel
// has no room for (bench/NOTES.md, session 18). A user's file, compiled whole,
// keeps its general kernels.
template <typename Op, typename T, int NP, typename L>
va_status launch_staged(const ElementwiseCall &c, const va_dtype *in_dtypes) {
    using Out = typename OutOf<Op, T, NP, L>::type;
    DeviceBuffer b0(c.device, c.stream), b1(c.device, c.stream), b2(c.device, c.stream), b3(c.device, c.stream);
    DeviceBuffer *buffers[VA_MAX_INPUTS] = {&b0, &b1, &b2, &b3};
    va_array in[VA_MAX_INPUTS];
    for (int k = 0; k < L::size; ++k)
        VA_CHECK(contiguous_view_as(c.device, c.stream, &c.in[k], c.n, in_dtypes[k], buffers[k], &in[k]));
    va_array out = *c.out;
    DeviceBuffer staged_out(c.device, c.stream);
    const bool direct = va_is_c_contiguous(c.out) != 0;
    if (!direct) {
        VA_CHECK(staged_out.allocate(static_cast<size_t>(c.n) * sizeof(StoredT<Out>)));
        out.data = staged_out.get();
        int64_t step = static_cast<int64_t>(sizeof(StoredT<Out>));
        for (int d = out.ndim - 1; d >= 0; --d) {
            out.strides[d] = step;
            step *= out.shape[d];
        }
    }
    ElementwiseCall packed = c;
    packed.in = in;
    packed.out = &out;
    VA_CHECK((launch_typed<Op, T, NP, L>(packed)));
    return direct ? VA_SUCCESS : convert_on_stream(c.device, c.stream, &out, c.out, c.n);
}
#endif

template <typename Op, typename T, int NP, typename L>
va_status launch_typed(const ElementwiseCall &c) {
    using Out = typename OutOf<Op, T, NP, L>::type;
    constexpr int N = L::size;
    const va_array *views[kMaxViews] = {c.out};
    for (int k = 0; k < N; ++k) views[k + 1] = &c.in[k];
    Walk walk;
    make_walk(views, N + 1, &walk);
    // The output steps one element through the walk of all views.
    const bool out_contiguous =
        walk.ndim == 0 || (walk.ndim == 1 && walk.strides[0][0] == static_cast<int64_t>(sizeof(StoredT<Out>)));
    // A contiguous result that is zeros whatever the input: the copy engine's memset
    // writes it at the write bound (imag of 2^26 float64 on the H200: 160 us as a
    // kernel, CuPy's memset 120), and no input is read.
    if constexpr (ZeroResult<Op, T>::value) {
        if (out_contiguous) {
            VA_CUDA_CHECK(cudaMemsetAsync(c.out->data, 0, static_cast<size_t>(c.n) * sizeof(StoredT<Out>), c.stream));
            return VA_SUCCESS;
        }
    }
    InputPointers ptrs = {};
    InputDtypes dtypes = {};
    for (int k = 0; k < N; ++k) {
        ptrs.p[k] = static_cast<const char *>(c.in[k].data);
        dtypes.d[k] = c.in[k].dtype;
    }
    ParamValues<T> params = {};
    const int nparams = NP;
    for (int k = 0; k < nparams; ++k) params.v[k] = static_cast<T>(c.params[k]);

    // Contiguous: each input already of the type the functor reads, stepping one
    // element or not at all; the output stepping one element.
    constexpr va_dtype kInDtypes[] = {DtypeOf<typename TypeAt<0, L>::type>::value,
                                      DtypeOf<typename TypeAt<(N > 1 ? 1 : 0), L>::type>::value,
                                      DtypeOf<typename TypeAt<(N > 2 ? 2 : 0), L>::type>::value,
                                      DtypeOf<typename TypeAt<(N > 3 ? 3 : 0), L>::type>::value};
    bool contiguous = out_contiguous;
    unsigned scalars = 0;
    for (int k = 0; k < N && contiguous; ++k) {
        const int64_t step = walk.ndim == 0 ? 0 : walk.strides[k + 1][0];
        if (c.in[k].dtype != kInDtypes[k]) contiguous = false;
        else if (step == 0 && walk.ndim == 1) scalars |= 1u << k;
        else if (walk.ndim == 1 && step != static_cast<int64_t>(va_dtype_size(kInDtypes[k]))) contiguous = false;
    }
    if (contiguous) {
        // A pack a thread: 16 bytes of the widest of inputs and result, and at least
        // four bytes of a narrower result (float64 -> bool: four elements, two loads,
        // one 4-byte store; two a thread left the H200 at 161 us for isnan of 2^26
        // where four took 137, bench/NOTES.md session 23). Complex operations take
        // one element a thread (8 or 16 bytes a load): one kernel instead of two for
        // complex64 (the complex module's size, session 18).
        constexpr size_t kWidest = std::max(sizeof(StoredT<Out>), widest_input<L>(std::make_index_sequence<N>()));
        constexpr int G = is_complex_v<T> ? 1 : static_cast<int>(std::max(16 / kWidest, 4 / sizeof(StoredT<Out>)));
        bool packed = reinterpret_cast<uintptr_t>(c.out->data) % (sizeof(StoredT<Out>) * G) == 0;
        for (int k = 0; k < N; ++k)
            if (!((scalars >> k) & 1u) &&
                reinterpret_cast<uintptr_t>(ptrs.p[k]) % (va_dtype_size(kInDtypes[k]) * G) != 0)
                packed = false;
        auto *out = static_cast<StoredT<Out> *>(c.out->data);
        int64_t done = 0;
        if (packed && c.n >= G) {
            constexpr int U = PacksPerThread<Op, T>::value;
            VA_CUDA_CHECK(launch_kernel(c.device, elementwise_contiguous<Op, T, NP, G, U, L>,
                                        tile_grid(c.n / G), kElementwiseThreads / U, c.stream, ptrs,
                                        scalars, params, out, c.n));
            done = c.n / G * G;
        }
        // What no whole pack holds (all of it where unaligned; else fewer than G
        // elements, in a launch of their own: a tail path inside the packed kernel,
        // scheduled together with it, took float64 arctan's to 58 registers, half
        // the SM's threads, from 22).
        if (done < c.n) {
            InputPointers rest = ptrs;
            for (int k = 0; k < N; ++k)
                if (!((scalars >> k) & 1u)) rest.p[k] += done * static_cast<int64_t>(va_dtype_size(kInDtypes[k]));
            VA_CUDA_CHECK(launch_kernel(c.device, elementwise_contiguous<Op, T, NP, 1, 1, L>,
                                        tile_grid(c.n - done), kElementwiseThreads, c.stream, rest,
                                        scalars, params, out + done, c.n - done));
        }
        return VA_SUCCESS;
    }
#if defined(VA_TYPE_PART)
    if constexpr (is_complex_v<T>) {
        return launch_staged<Op, T, NP, L>(c, kInDtypes);
    } else
#endif
    {
        constexpr auto kernel = elementwise_general<Op, T, NP, L>;
        VA_CUDA_CHECK(launch_kernel(c.device, kernel, resident_grid<kernel>(c.device, c.n, kElementwiseThreads),
                                    kElementwiseThreads, c.stream, ptrs, dtypes, params,
                                    static_cast<char *>(c.out->data), c.n, walk));
        return VA_SUCCESS;
    }
}

// The launcher a declaration instantiates: every compute type of its domain
// in dtype part Part (op_types.cuh).
template <typename Op, va_domain D, int NIN, int NP, int Part>
va_status launch_elementwise(const ElementwiseCall &c) {
    const va_status st = with_compute_type<D, Part, ComplexUlp<Op>::present>(c.compute, [&](auto t) {
        using T = decltype(t);
        return launch_typed<Op, T, NP, typename InputsOf<Op, T, NIN>::type>(c);
    });
    if (st == VA_ERROR_UNSUPPORTED_DTYPE) VA_FAIL(st);
    return st;
}

}  // namespace va
