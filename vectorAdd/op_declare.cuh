// What a file of ops/ or user_ops/ includes to declare an operation: a functor
// type and one macro that names it. The same file is read twice by the build:
//  - compiled on its own, the macro instantiates the operation's kernels for
//    every compute type of its domain and defines its launcher;
//  - included into op_table.cu (VA_OP_TABLE defined), the macro adds the
//    operation's row to the table (its va_op_info, with result dtypes derived
//    from the functor's own types, and its launcher's address).
// docs/adding-a-kernel.md is the tutorial.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "complex_math.cuh"
#include "op_registry.cuh"
#include "op_types.cuh"

namespace va {

// IEEE tests that stay exact without fast-math, on host and device.
template <typename T>
__host__ __device__ __forceinline__ bool is_nan(T x) {
    if constexpr (std::is_floating_point<T>::value) return x != x;
    else if constexpr (is_complex_v<T>) return is_nan(x.real()) || is_nan(x.imag());
    else return false;
}

// Integer arithmetic that wraps like NumPy's, without signed-overflow UB: in the
// unsigned type of T's width, or unsigned int for types narrower than int (which
// C++ would otherwise promote to int, where uint16 * uint16 can overflow).
template <typename T>
using WrapT = typename std::conditional<(sizeof(T) < sizeof(unsigned)), unsigned,
                                        typename std::make_unsigned<T>::type>::type;
template <typename T>
__host__ __device__ __forceinline__ T wrap_add(T x, T y) {
    return static_cast<T>(static_cast<WrapT<T>>(x) + static_cast<WrapT<T>>(y));
}
template <typename T>
__host__ __device__ __forceinline__ T wrap_sub(T x, T y) {
    return static_cast<T>(static_cast<WrapT<T>>(x) - static_cast<WrapT<T>>(y));
}
template <typename T>
__host__ __device__ __forceinline__ T wrap_mul(T x, T y) {
    return static_cast<T>(static_cast<WrapT<T>>(x) * static_cast<WrapT<T>>(y));
}

// x < 0, which an unsigned T never is (written out, the comparison warns).
template <typename T>
__host__ __device__ __forceinline__ bool is_negative(T x) {
    if constexpr (std::is_signed<T>::value) return x < T(0);
    else return false;
}

// Whether q = RN(a / b) is below `limit` in magnitude with b finite and nonzero:
// where the short routes of fmod and floor_divide hold.
template <typename T>
__host__ __device__ __forceinline__ bool quotient_is_short(T q, T b, T limit) {
    constexpr T finite = std::is_same<T, float>::value ? T(3.40282347e+38f) : T(1.7976931348623157e+308);
    return fabs(q) < limit && fabs(b) <= finite && b != T(0);
}
// n = trunc(a / b) and a - n * b exactly, from q = RN(a / b) where
// quotient_is_short(q, b, 2^(digits - 1)).
template <typename T>
__host__ __device__ __forceinline__ T truncated_remainder(T a, T b, T q, T &n) {
    n = trunc(q);
    T r = fma(-n, b, a);
    if (r != T(0) && ((r < T(0)) != (a < T(0)))) {
        n -= copysign(T(1), n);
        r = fma(-n, b, a);
    }
    return r;
}
// fmod(a, b), exact as the C library's, without its long division where the
// quotient is below 2^(digits - 1). There n = trunc(RN(a / b)) is the true
// truncated quotient t or one past it (rounding is monotonic and t is
// representable, so RN(a / b) never falls below t), and a - n * b in one fma is
// exact when n is t (fmod's value is representable). One past, that value is
// nonzero with the sign opposite to a's, and n steps back once. A zero takes
// a's sign, as fmod's. inf, NaN, a zero or non-finite divisor and larger
// quotients take fmod itself. tests/test_divmod_host.py holds floor_divide and
// remainder through it to NumPy bit for bit, on the CPU and on the GPU.
template <typename T>
__host__ __device__ __forceinline__ T exact_fmod(T a, T b) {
    constexpr T limit = std::is_same<T, float>::value ? T(8388608.0f) : T(4503599627370496.0);
    const T q = a / b;
    if (!quotient_is_short(q, b, limit)) return fmod(a, b);
    T n;
    const T r = truncated_remainder(a, b, q, n);
    return r == T(0) ? copysign(T(0), a) : r;
}

// The lowest and highest values of T (-inf and +inf for floats): the neutral
// starting points of max and min.
template <typename T>
__host__ __device__ __forceinline__ T highest() {
    if constexpr (std::is_same<T, bool>::value) return true;
    else if constexpr (std::is_floating_point<T>::value) return HUGE_VAL;
    else if constexpr (std::is_unsigned<T>::value) return static_cast<T>(~static_cast<uint64_t>(0));
    else return static_cast<T>((static_cast<uint64_t>(1) << (8 * sizeof(T) - 1)) - 1);
}
template <typename T>
__host__ __device__ __forceinline__ T lowest() {
    if constexpr (std::is_same<T, bool>::value) return false;
    else if constexpr (std::is_floating_point<T>::value) return -HUGE_VAL;
    else if constexpr (std::is_unsigned<T>::value) return T(0);
    else return static_cast<T>(-highest<T>() - 1);
}

template <int Counter>
struct OpRow;  // one specialisation per declaration, in op_table.cu

// A functor's host check (a static constexpr const char *host_check), or "".
VA_OPTIONAL_MEMBER_(HostCheck, host_check, const char *, "")

// A functor's ULP floor (a static constexpr double ulp_floor), or 0: ULP are
// counted at max(|result|, ulp_floor) (va_op_info).
VA_OPTIONAL_MEMBER_(UlpFloor, ulp_floor, double, 0.0)

// The row of an elementwise declaration: result dtypes and fixed inputs from
// the functor's own types, for each compute type of its domain.
template <typename Op, va_domain D, int NIN, int NP>
OpEntry elementwise_row(const char *name, const char *args, const char *reference,
                        const char *pyop, int ulp, const char *doc,
                        va_status (*launch)(const ElementwiseCall &)) {
    OpEntry e = {};
    e.info = va_op_info{name, VA_KIND_ELEMENTWISE, NIN, NP, args, reference, pyop, doc,
                        HostCheck<Op>::value, D, ulp, 1, {}, {}, UlpFloor<Op>::value,
                        ComplexUlp<Op>::value, ComplexUlpFloor<Op>::value};
    for (int t = 0; t < VA_DTYPE_COUNT; ++t) e.info.result[t] = VA_DTYPE_COUNT;
    for (int k = 0; k < VA_MAX_INPUTS; ++k) e.info.fixed_input[k] = VA_DTYPE_COUNT;
    auto fill = [&](auto t) {
        using T = decltype(t);
        using L = typename InputsOf<Op, T, NIN>::type;
        e.info.result[DtypeOf<T>::value] = DtypeOf<typename OutOf<Op, T, NP, L>::type>::value;
        return VA_SUCCESS;
    };
    for (int t = 0; t < VA_DTYPE_COUNT; ++t)
        with_compute_type<D, kEveryPart, ComplexUlp<Op>::present>(static_cast<va_dtype>(t), fill);
    // An input whose type does not follow the compute type is fixed.
    using L32 = typename InputsOf<Op, int32_t, NIN>::type;
    using L64 = typename InputsOf<Op, double, NIN>::type;
    auto fixed = [&](auto index) {
        constexpr int k = decltype(index)::value;
        if constexpr (k < NIN) {
            using A = typename TypeAt<k, L32>::type;
            if (std::is_same<A, typename TypeAt<k, L64>::type>::value) e.info.fixed_input[k] = DtypeOf<A>::value;
        }
    };
    fixed(std::integral_constant<int, 0>());
    fixed(std::integral_constant<int, 1>());
    fixed(std::integral_constant<int, 2>());
    fixed(std::integral_constant<int, 3>());
    e.elementwise = launch;
    return e;
}

template <typename Op, va_domain D>
OpEntry reduction_row(const char *name, const char *reference, const char *pyop, int has_identity,
                      int ulp, const char *doc, va_status (*launch)(const ReduceCall &),
                      va_status (*launch_axes)(const AxesCall &)) {
    OpEntry e = {};
    e.info = va_op_info{name, VA_KIND_REDUCTION, 1, 0, "a", reference, pyop, doc, "", D, ulp,
                        has_identity, {}, {}, 0.0, ulp, 0.0};
    for (int t = 0; t < VA_DTYPE_COUNT; ++t) {
        e.info.result[t] = VA_DTYPE_COUNT;
        e.accumulator[t] = VA_DTYPE_COUNT;
    }
    for (int k = 0; k < VA_MAX_INPUTS; ++k) e.info.fixed_input[k] = VA_DTYPE_COUNT;
    auto fill = [&](auto t) {
        using T = decltype(t);
        e.info.result[DtypeOf<T>::value] = DtypeOf<ResultOf<D, T>>::value;
        e.accumulator[DtypeOf<T>::value] = DtypeOf<AccOf<D, T>>::value;
        return VA_SUCCESS;
    };
    for (int t = 0; t < VA_DTYPE_COUNT; ++t) with_compute_type<D, kEveryPart, true>(static_cast<va_dtype>(t), fill);
    e.reduce = launch;
    e.reduce_axes = launch_axes;
    return e;
}

// The row of a user's own kernel: one dtype, for its inputs and its output.
inline OpEntry raw_row(const char *name, const char *args, int nin, int nparams, va_dtype dtype,
                       const char *doc, va_status (*launch)(const RawCall &)) {
    OpEntry e = {};
    e.info = va_op_info{name, VA_KIND_RAW, nin, nparams, args, "", "", doc, "", VA_DOMAIN_FIXED, 0, 1, {}, {},
                        0.0, 0, 0.0};
    for (int t = 0; t < VA_DTYPE_COUNT; ++t) e.info.result[t] = VA_DTYPE_COUNT;
    for (int k = 0; k < VA_MAX_INPUTS; ++k) e.info.fixed_input[k] = VA_DTYPE_COUNT;
    e.info.result[dtype] = dtype;
    e.raw = launch;
    e.default_block = 256;
    return e;
}

// The row of a user's kernel template: a loop for each compute type of domain D,
// its inputs converted to that type (NumPy's promotion), its output that type.
template <va_domain D>
OpEntry raw_typed_row(const char *name, const char *args, int nin, int nparams, const char *doc,
                      va_status (*launch)(const RawCall &)) {
    OpEntry e = raw_row(name, args, nin, nparams, VA_FLOAT64, doc, launch);
    e.info.domain = D;
    e.info.result[VA_FLOAT64] = VA_DTYPE_COUNT;
    for (int t = 0; t < VA_DTYPE_COUNT; ++t)
        with_compute_type<D>(static_cast<va_dtype>(t), [&](auto v) {
            e.info.result[DtypeOf<decltype(v)>::value] = DtypeOf<decltype(v)>::value;
            return VA_SUCCESS;
        });
    return e;
}

}  // namespace va

// The row each macro adds, as an expression (the table and a module both use it).
#define VA_ELEMENTWISE_ROW_(NAME, FUNCTOR, ARGS, NPARAMS, DOMAIN, REFERENCE, PYOP, ULP, DOC)  \
    (::va::elementwise_row<FUNCTOR, VA_DOMAIN_##DOMAIN, ::va::count_args(ARGS) - (NPARAMS),    \
                           (NPARAMS)>(#NAME, ARGS, REFERENCE, PYOP, ULP, DOC,                 \
                                      &::va::entries::NAME##_elementwise))
#define VA_REDUCTION_ROW_(NAME, FUNCTOR, DOMAIN, REFERENCE, HAS_IDENTITY, ULP, DOC)          \
    (::va::reduction_row<FUNCTOR, VA_DOMAIN_##DOMAIN>(#NAME, REFERENCE, "", HAS_IDENTITY, ULP, \
                                                     DOC, &::va::entries::NAME##_reduce,      \
                                                     &::va::entries::NAME##_reduce_axes))
#define VA_RAW_KERNEL_ROW_(NAME, ARGS, NPARAMS, DTYPE, DOC)                                  \
    (::va::raw_row(#NAME, ARGS, ::va::count_args(ARGS) - (NPARAMS), (NPARAMS), VA_##DTYPE,    \
                   DOC, &::va::entries::NAME##_raw))
#define VA_RAW_KERNEL_TYPED_ROW_(NAME, ARGS, NPARAMS, DOMAIN, DOC)                           \
    (::va::raw_typed_row<VA_DOMAIN_##DOMAIN>(#NAME, ARGS, ::va::count_args(ARGS) - (NPARAMS), \
                                            (NPARAMS), DOC, &::va::entries::NAME##_raw))

#ifdef VA_OP_TABLE

#ifdef VA_USER_ROW
// A file of user_ops/ read for its row alone, in a translation unit of its own
// (so that its names never meet another file's): the row is the function
// VA_USER_ROW, which op_table.cu calls (user_rows.inc lists them).
#define VA_OP_ROW_(NAME, MAKE)                                                            \
    namespace va {                                                                        \
    OpEntry VA_USER_ROW() { return MAKE; }                                                \
    }
#else
#define VA_OP_ROW_(NAME, MAKE)                                                            \
    namespace va {                                                                        \
    template <>                                                                           \
    struct OpRow<__COUNTER__> {                                                           \
        static OpEntry make() { return MAKE; }                                            \
    };                                                                                    \
    }
#endif

// An elementwise operation: NAME (a C identifier, also the Python name), its
// functor, its argument names (the first NPARAMS are scalars, the rest arrays),
// its domain (va_domain without the prefix: ALL, NUMBER, ARITHMETIC, FLOAT, TRUE_DIVIDE,
// INTEGER, SHIFT),
// its NumPy counterpart, the Python operator it provides ("" for none), how many
// ULP it may differ from NumPy (0: bit-identical), and its description.
#define VA_ELEMENTWISE(NAME, FUNCTOR, ARGS, NPARAMS, DOMAIN, REFERENCE, PYOP, ULP, DOC)    \
    namespace va { namespace entries {                                                    \
    va_status NAME##_elementwise(const ElementwiseCall &);                                \
    } }                                                                                   \
    VA_OP_ROW_(NAME, VA_ELEMENTWISE_ROW_(NAME, FUNCTOR, ARGS, NPARAMS, DOMAIN, REFERENCE,  \
                                         PYOP, ULP, DOC))

// A reduction over all elements or a set of axes: NAME, its combine functor
// (with a static template neutral<A>(), and `static constexpr bool averages =
// true` when the result is divided by the count, as mean's; or, for domain
// INDEX, only `static bool better(x, y)`: x displaces y, as argmax's), its
// domain (SUM: bool and signed integers into int64, unsigned ones into uint64;
// SAME; MEAN; INDEX), its NumPy counterpart, its Python
// operator (""), whether an empty input has an answer (0 for max and min:
// NumPy raises), ULP, and its description.
#define VA_REDUCTION(NAME, FUNCTOR, DOMAIN, REFERENCE, HAS_IDENTITY, ULP, DOC)               \
    namespace va { namespace entries {                                                    \
    va_status NAME##_reduce(const ReduceCall &);                                          \
    va_status NAME##_reduce_axes(const AxesCall &);                                       \
    } }                                                                                   \
    VA_OP_ROW_(NAME, VA_REDUCTION_ROW_(NAME, FUNCTOR, DOMAIN, REFERENCE, HAS_IDENTITY, ULP, DOC))

// A user's own kernel: NAME (the Python name), KERNEL (a __global__ function
// taking va::RawArgs; keep it in an anonymous namespace, as the file is read
// twice), its argument names (the first NPARAMS are scalars), its one dtype
// (va_dtype without the prefix: FLOAT64, INT32, ...), and its description. The
// output has the first array's shape.
#define VA_RAW_KERNEL(NAME, KERNEL, ARGS, NPARAMS, DTYPE, DOC)                               \
    namespace va { namespace entries {                                                    \
    va_status NAME##_raw(const RawCall &);                                                \
    } }                                                                                   \
    VA_OP_ROW_(NAME, VA_RAW_KERNEL_ROW_(NAME, ARGS, NPARAMS, DTYPE, DOC))

// A user's kernel template: KERNEL is a `template <typename T> __global__ void
// k(va::RawArgs)`, instantiated for each compute type of DOMAIN (ALL, NUMBER,
// ARITHMETIC, FLOAT, TRUE_DIVIDE, INTEGER, SHIFT, as VA_ELEMENTWISE's); the arrays are converted to
// the type NumPy's promotion of them gives, and the kernel runs as KERNEL<T>.
#define VA_RAW_KERNEL_TYPED(NAME, KERNEL, ARGS, NPARAMS, DOMAIN, DOC)                        \
    namespace va { namespace entries {                                                    \
    va_status NAME##_raw(const RawCall &);                                                \
    } }                                                                                   \
    VA_OP_ROW_(NAME, VA_RAW_KERNEL_TYPED_ROW_(NAME, ARGS, NPARAMS, DOMAIN, DOC))

#else  // the operation's own translation unit: its kernels

#include "raw_launch.cuh"
#include "reduce_arg_kernels.cuh"
#include "reduce_axes_kernels.cuh"
#include "reduce_kernels.cuh"

#define VA_RAW_KERNEL_LAUNCHER_(NAME, KERNEL)                                             \
    namespace va { namespace entries {                                                    \
    va_status NAME##_raw(const RawCall &call) { return launch_raw(call, KERNEL); }         \
    } }

#define VA_RAW_KERNEL_TYPED_LAUNCHER_(NAME, KERNEL, DOMAIN)                                \
    namespace va { namespace entries {                                                    \
    va_status NAME##_raw(const RawCall &call) {                                           \
        const va_status st = with_compute_type<VA_DOMAIN_##DOMAIN>(call.compute, [&](auto t) { \
            return launch_raw(call, KERNEL<decltype(t)>);                                 \
        });                                                                               \
        if (st == VA_ERROR_UNSUPPORTED_DTYPE) VA_FAIL(st);                                \
        return st;                                                                        \
    }                                                                                     \
    } }

// A launcher FN over CALL, instantiated as LAUNCH<ARGS..., part>. Compiled for
// one dtype part (VA_TYPE_PART, the op bundle's units), part 0 defines FN and
// hands the dtypes of parts 1 and 2 to FN_part1 and FN_part2, which those parts'
// units define; compiled whole (a user's file, a module), FN holds every dtype.
#if !defined(VA_TYPE_PART)
#define VA_PART_ENTRY_(FN, CALL, LAUNCH, ...)                                              \
    va_status FN(const CALL &call) { return LAUNCH<__VA_ARGS__, ::va::kEveryPart>(call); }
#elif VA_TYPE_PART == 0
#define VA_PART_ENTRY_(FN, CALL, LAUNCH, ...)                                              \
    va_status FN##_part1(const CALL &call);                                               \
    va_status FN##_part2(const CALL &call);                                               \
    va_status FN(const CALL &call) {                                                      \
        switch (::va::type_part(::va::routed_dtype(call))) {                              \
            case 1: return FN##_part1(call);                                              \
            case 2: return FN##_part2(call);                                              \
        }                                                                                 \
        return LAUNCH<__VA_ARGS__, 0>(call);                                              \
    }
#elif VA_TYPE_PART == 1 || VA_TYPE_PART == 2
#define VA_PART_ENTRY_CAT_(FN, PART) FN##_part##PART
#define VA_PART_ENTRY_NAME_(FN, PART) VA_PART_ENTRY_CAT_(FN, PART)
#define VA_PART_ENTRY_(FN, CALL, LAUNCH, ...)                                              \
    va_status VA_PART_ENTRY_NAME_(FN, VA_TYPE_PART)(const CALL &call) {                   \
        return LAUNCH<__VA_ARGS__, VA_TYPE_PART>(call);                                   \
    }
#else
#error "VA_TYPE_PART is 0, 1 or 2 (op_types.cuh, type_part)"
#endif

#define VA_ELEMENTWISE_LAUNCHER_(NAME, FUNCTOR, ARGS, NPARAMS, DOMAIN)                    \
    namespace va { namespace entries {                                                    \
    VA_PART_ENTRY_(NAME##_elementwise, ElementwiseCall, launch_elementwise, FUNCTOR,       \
                   VA_DOMAIN_##DOMAIN, ::va::count_args(ARGS) - (NPARAMS), (NPARAMS))     \
    } }

#define VA_REDUCTION_LAUNCHERS_(NAME, FUNCTOR, DOMAIN)                                    \
    namespace va { namespace entries {                                                    \
    VA_PART_ENTRY_(NAME##_reduce, ReduceCall, launch_reduction, FUNCTOR, VA_DOMAIN_##DOMAIN) \
    VA_PART_ENTRY_(NAME##_reduce_axes, AxesCall, launch_reduction_axes, FUNCTOR,           \
                   VA_DOMAIN_##DOMAIN)                                                    \
    } }

#ifdef VA_MODULE
// An operation library built outside the repository (myModule.load): each file
// is one translation unit holding both its kernels and its rows, which its
// static initialisation hands to the module's list (module_main.cu); names of
// one file never meet another file's.
namespace va {
int add_module_row(const OpEntry &row);
}
#define VA_MODULE_ROW_(NAME, MAKE)                                                        \
    namespace va { namespace entries {                                                    \
    static const int NAME##_module_row = ::va::add_module_row(MAKE);                      \
    } }

#define VA_RAW_KERNEL(NAME, KERNEL, ARGS, NPARAMS, DTYPE, DOC)                               \
    VA_RAW_KERNEL_LAUNCHER_(NAME, KERNEL)                                                 \
    VA_MODULE_ROW_(NAME, VA_RAW_KERNEL_ROW_(NAME, ARGS, NPARAMS, DTYPE, DOC))
#define VA_RAW_KERNEL_TYPED(NAME, KERNEL, ARGS, NPARAMS, DOMAIN, DOC)                        \
    VA_RAW_KERNEL_TYPED_LAUNCHER_(NAME, KERNEL, DOMAIN)                                   \
    VA_MODULE_ROW_(NAME, VA_RAW_KERNEL_TYPED_ROW_(NAME, ARGS, NPARAMS, DOMAIN, DOC))
#define VA_ELEMENTWISE(NAME, FUNCTOR, ARGS, NPARAMS, DOMAIN, REFERENCE, PYOP, ULP, DOC)    \
    VA_ELEMENTWISE_LAUNCHER_(NAME, FUNCTOR, ARGS, NPARAMS, DOMAIN)                        \
    VA_MODULE_ROW_(NAME, VA_ELEMENTWISE_ROW_(NAME, FUNCTOR, ARGS, NPARAMS, DOMAIN,         \
                                             REFERENCE, PYOP, ULP, DOC))
#define VA_REDUCTION(NAME, FUNCTOR, DOMAIN, REFERENCE, HAS_IDENTITY, ULP, DOC)               \
    VA_REDUCTION_LAUNCHERS_(NAME, FUNCTOR, DOMAIN)                                        \
    VA_MODULE_ROW_(NAME, VA_REDUCTION_ROW_(NAME, FUNCTOR, DOMAIN, REFERENCE, HAS_IDENTITY, \
                                           ULP, DOC))

#else  // built into the library: op_table.cu reads the file once more for its row

#define VA_RAW_KERNEL(NAME, KERNEL, ARGS, NPARAMS, DTYPE, DOC) VA_RAW_KERNEL_LAUNCHER_(NAME, KERNEL)
#define VA_RAW_KERNEL_TYPED(NAME, KERNEL, ARGS, NPARAMS, DOMAIN, DOC)                        \
    VA_RAW_KERNEL_TYPED_LAUNCHER_(NAME, KERNEL, DOMAIN)
#define VA_ELEMENTWISE(NAME, FUNCTOR, ARGS, NPARAMS, DOMAIN, REFERENCE, PYOP, ULP, DOC)    \
    VA_ELEMENTWISE_LAUNCHER_(NAME, FUNCTOR, ARGS, NPARAMS, DOMAIN)
#define VA_REDUCTION(NAME, FUNCTOR, DOMAIN, REFERENCE, HAS_IDENTITY, ULP, DOC)               \
    VA_REDUCTION_LAUNCHERS_(NAME, FUNCTOR, DOMAIN)

#endif  // VA_MODULE
#endif  // VA_OP_TABLE
