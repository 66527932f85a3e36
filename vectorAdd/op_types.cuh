// Compile-time facts about operations: C++ types and their va_dtype, the input
// types an operation reads for a compute type, its result type, and the domains
// (which compute types an operation has loops for).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "complex.cuh"
#include "vectorAdd.h"

namespace va {

template <typename T>
struct DtypeOf;
template <> struct DtypeOf<bool> { static constexpr va_dtype value = VA_BOOL; };
template <> struct DtypeOf<int32_t> { static constexpr va_dtype value = VA_INT32; };
template <> struct DtypeOf<int64_t> { static constexpr va_dtype value = VA_INT64; };
template <> struct DtypeOf<float> { static constexpr va_dtype value = VA_FLOAT32; };
template <> struct DtypeOf<double> { static constexpr va_dtype value = VA_FLOAT64; };
template <> struct DtypeOf<int8_t> { static constexpr va_dtype value = VA_INT8; };
template <> struct DtypeOf<int16_t> { static constexpr va_dtype value = VA_INT16; };
template <> struct DtypeOf<uint8_t> { static constexpr va_dtype value = VA_UINT8; };
template <> struct DtypeOf<uint16_t> { static constexpr va_dtype value = VA_UINT16; };
template <> struct DtypeOf<uint32_t> { static constexpr va_dtype value = VA_UINT32; };
template <> struct DtypeOf<uint64_t> { static constexpr va_dtype value = VA_UINT64; };
template <> struct DtypeOf<complex<float>> { static constexpr va_dtype value = VA_COMPLEX64; };
template <> struct DtypeOf<complex<double>> { static constexpr va_dtype value = VA_COMPLEX128; };

// The C++ type of a va_dtype (bool's, as computed with; it is stored as a byte).
template <va_dtype D> struct CppType;
template <> struct CppType<VA_BOOL> { using type = bool; };
template <> struct CppType<VA_INT8> { using type = int8_t; };
template <> struct CppType<VA_INT16> { using type = int16_t; };
template <> struct CppType<VA_INT32> { using type = int32_t; };
template <> struct CppType<VA_INT64> { using type = int64_t; };
template <> struct CppType<VA_UINT8> { using type = uint8_t; };
template <> struct CppType<VA_UINT16> { using type = uint16_t; };
template <> struct CppType<VA_UINT32> { using type = uint32_t; };
template <> struct CppType<VA_UINT64> { using type = uint64_t; };
template <> struct CppType<VA_FLOAT32> { using type = float; };
template <> struct CppType<VA_FLOAT64> { using type = double; };
template <> struct CppType<VA_COMPLEX64> { using type = complex<float>; };
template <> struct CppType<VA_COMPLEX128> { using type = complex<double>; };

// How an element of T lies in memory: bool as one byte that may hold any value
// (NumPy's bool is 0 or 1, but a foreign buffer need not be), read as != 0.
template <typename T> struct Stored { using type = T; };
template <> struct Stored<bool> { using type = uint8_t; };
template <typename T> using StoredT = typename Stored<T>::type;

template <typename T>
__host__ __device__ __forceinline__ T from_stored(StoredT<T> v) {
    if constexpr (std::is_same<T, bool>::value) return v != 0;
    else return v;
}
template <typename T>
__host__ __device__ __forceinline__ StoredT<T> to_stored(T v) {
    return static_cast<StoredT<T>>(v);
}

// v as To, as NumPy's casts give it on x86-64 hosts, where a float goes to an
// integer through the processor's truncating conversion, whose "integer
// indefinite" (the minimum) stands for NaN and anything out of its range (a plain
// cast on the GPU would saturate instead):
//  - integers narrower than 32 bits and int32: through 32 bits, the low bits kept;
//  - int64: through 64 bits;
//  - uint32 and uint64: values from 2^(w-1) on go through the signed conversion
//    less 2^(w-1), the top bit flipped back, as compilers emit it.
// Anything to bool is != 0. A real value becomes a complex one with +0 for its
// imaginary part; a complex one becomes a real one by its real part (NumPy's
// cast, which warns on the host).
template <typename S, typename U>
__host__ __device__ __forceinline__ U unsigned_from_float(double x) {
    constexpr double half = static_cast<double>(U(1) << (sizeof(U) * 8 - 1));
    constexpr U top = U(1) << (sizeof(U) * 8 - 1);
    if (x >= half) {
        const double y = x - half;
        return (y < half ? static_cast<U>(static_cast<S>(y)) : top) ^ top;
    }
    return x >= -half ? static_cast<U>(static_cast<S>(x)) : top;
}
template <typename To, typename From>
__host__ __device__ __forceinline__ To convert_to(From v) {
    if constexpr (is_complex_v<To>) {
        using R = RealT<To>;
        if constexpr (is_complex_v<From>) return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
        else if constexpr (std::is_same<From, bool>::value) return To(v ? R(1) : R(0), R(0));
        else return To(static_cast<R>(v), R(0));
    } else if constexpr (is_complex_v<From>) {
        if constexpr (std::is_same<To, bool>::value) return v.real() != 0 || v.imag() != 0;
        else return convert_to<To>(v.real());
    } else if constexpr (std::is_same<To, bool>::value) {
        return v != From(0);
    } else if constexpr (std::is_integral<To>::value && std::is_floating_point<From>::value) {
        const double x = static_cast<double>(v);
        if constexpr (std::is_same<To, uint32_t>::value) {
            return unsigned_from_float<int32_t, uint32_t>(x);
        } else if constexpr (std::is_same<To, uint64_t>::value) {
            return unsigned_from_float<int64_t, uint64_t>(x);
        } else if constexpr (sizeof(To) <= 4) {
            if (!(x >= -2147483648.0 && x < 2147483648.0)) return static_cast<To>(INT32_MIN);
            return static_cast<To>(static_cast<int32_t>(x));
        } else {
            if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return static_cast<To>(INT64_MIN);
            return static_cast<To>(static_cast<int64_t>(x));
        }
    } else {
        return static_cast<To>(v);
    }
}

__host__ __device__ constexpr bool is_integer_dtype(va_dtype t) {
    return t == VA_INT8 || t == VA_INT16 || t == VA_INT32 || t == VA_INT64 || t == VA_UINT8 ||
           t == VA_UINT16 || t == VA_UINT32 || t == VA_UINT64;
}
__host__ __device__ constexpr bool is_unsigned_dtype(va_dtype t) {
    return t == VA_UINT8 || t == VA_UINT16 || t == VA_UINT32 || t == VA_UINT64;
}
__host__ __device__ constexpr bool is_float_dtype(va_dtype t) { return t == VA_FLOAT32 || t == VA_FLOAT64; }
__host__ __device__ constexpr bool is_complex_dtype(va_dtype t) { return t == VA_COMPLEX64 || t == VA_COMPLEX128; }

// The compute types an operation of a domain has loops for. Complex ones are
// the domain's where NumPy has complex loops; an elementwise operation has them
// only where its functor says so too (ComplexUlp, op_declare.cuh).
constexpr bool domain_has(va_domain domain, va_dtype t) {
    switch (domain) {
        case VA_DOMAIN_ALL: case VA_DOMAIN_SUM: case VA_DOMAIN_MEAN:
            return t == VA_BOOL || is_integer_dtype(t) || is_float_dtype(t) || is_complex_dtype(t);
        // LOGICAL and COUNT read a complex input as bool, converted first
        // (va_op_dtypes): their own complex kernels would be a third of the
        // complex module (bench/NOTES.md, session 18).
        case VA_DOMAIN_SAME: case VA_DOMAIN_INDEX: case VA_DOMAIN_LOGICAL: case VA_DOMAIN_COUNT:
            return t == VA_BOOL || is_integer_dtype(t) || is_float_dtype(t);
        case VA_DOMAIN_NUMBER: case VA_DOMAIN_ARITHMETIC:
            return is_integer_dtype(t) || is_float_dtype(t) || is_complex_dtype(t);
        case VA_DOMAIN_FLOAT: case VA_DOMAIN_TRUE_DIVIDE:
            return is_float_dtype(t) || is_complex_dtype(t);
        case VA_DOMAIN_INTEGER:
            return t == VA_BOOL || is_integer_dtype(t);
        case VA_DOMAIN_SHIFT:
            return is_integer_dtype(t);
        case VA_DOMAIN_FIXED: return false;  // one dtype, in the row
        case VA_DOMAIN_MAX_ENUM: break;
    }
    return false;
}

// A functor's complex loops: `static constexpr int complex_ulp = N` declares
// them, within N ULP of NumPy's (counted at the larger magnitude of the
// expected value's two parts); without it an operation has none.
template <typename Op, typename = void>
struct ComplexUlp {
    static constexpr bool present = false;
    static constexpr int value = 0;
};
template <typename Op>
struct ComplexUlp<Op, std::void_t<decltype(Op::complex_ulp)>> {
    static constexpr bool present = true;
    static constexpr int value = Op::complex_ulp;
};

// TRAIT<Op>::value: a functor's optional `static constexpr` MEMBER, or DEFAULT (the
// declaration's optional fields, docs/adding-a-kernel.md).
#define VA_OPTIONAL_MEMBER_(TRAIT, MEMBER, TYPE, DEFAULT)                               \
    template <typename Op, typename = void>                                            \
    struct TRAIT {                                                                     \
        static constexpr TYPE value = DEFAULT;                                         \
    };                                                                                 \
    template <typename Op>                                                             \
    struct TRAIT<Op, std::void_t<decltype(Op::MEMBER)>> {                              \
        static constexpr TYPE value = Op::MEMBER;                                      \
    };

// Where the complex ULP are counted at no less than a scale (complex_ulp_floor):
// as ulp_floor for the real loops, for a result NumPy itself computes no better.
VA_OPTIONAL_MEMBER_(ComplexUlpFloor, complex_ulp_floor, double, 0.0)

// Whether an operation's result for compute type T is zero bytes whatever the
// input (numpy.imag of a real array, isnan of an integer): the functor's optional
// `template <typename T> static constexpr bool zero_result`. Such a result is
// written by the copy engine's memset and nothing is read (elementwise_kernels.cuh).
template <typename Op, typename T, typename = void>
struct ZeroResult : std::false_type {};
template <typename Op, typename T>
struct ZeroResult<Op, T, std::void_t<decltype(Op::template zero_result<T>)>>
    : std::integral_constant<bool, Op::template zero_result<T>> {};

// How many 16-byte packs a thread of the contiguous kernel takes for compute type
// T: the functor's optional `template <typename T> static constexpr int
// packs_per_thread` (1, 2 or 4), else 1. More suit functions whose math outweighs
// their bytes (float64 sinh, arccos, arctan): the per-thread work (position,
// bounds, the grid-dependency wait) is paid once for more elements, as PyTorch's
// kernels pay it once for eight (bench/NOTES.md, sessions 25 and 27).
template <typename Op, typename T, typename = void>
struct PacksPerThread : std::integral_constant<int, 1> {};
template <typename Op, typename T>
struct PacksPerThread<Op, T, std::void_t<decltype(Op::template packs_per_thread<T>)>>
    : std::integral_constant<int, Op::template packs_per_thread<T>> {
    static_assert(Op::template packs_per_thread<T> == 1 || Op::template packs_per_thread<T> == 2 ||
                      Op::template packs_per_thread<T> == 4,
                  "packs_per_thread is 1, 2 or 4");
};

// The packs_per_thread of functors whose float64 math outweighs their bytes (the
// float64 rows of bench/probes/unary_ilp.cu, session 25: sinh 310 -> 303 us, arccos
// 275 -> 256, arcsinh 535 -> 475 for 2^26 on an H200); other types keep one pack.
template <typename T>
inline constexpr int kTwoPacksForFloat64 = std::is_same_v<T, double> ? 2 : 1;
// Four for float64 sinh, whose per-thread work was still ~10 instructions an element
// above PyTorch's with two (ncu, bench/NOTES.md, session 27).
template <typename T>
inline constexpr int kFourPacksForFloat64 = std::is_same_v<T, double> ? 4 : 1;

// A list of input types.
template <typename... A>
struct Inputs {
    static constexpr int size = sizeof...(A);
};

template <int I, typename L> struct TypeAt;
template <typename A, typename... R> struct TypeAt<0, Inputs<A, R...>> { using type = A; };
template <int I, typename A, typename... R>
struct TypeAt<I, Inputs<A, R...>> { using type = typename TypeAt<I - 1, Inputs<R...>>::type; };

template <typename T, size_t> using Always = T;
template <typename T, size_t... I>
Inputs<Always<T, I>...> repeat_inputs(std::index_sequence<I...>);

// What an operation reads for compute type T: Op::inputs<T> where it declares
// one (where: Inputs<bool, T, T>), else N inputs of T.
template <typename Op, typename T, int N, typename = void>
struct InputsOf {
    using type = decltype(repeat_inputs<T>(std::make_index_sequence<N>()));
};
template <typename Op, typename T, int N>
struct InputsOf<Op, T, N, std::void_t<typename Op::template inputs<T>>> {
    using type = typename Op::template inputs<T>;
    static_assert(type::size == N, "inputs<T> must list every array input");
};

// The result type of an elementwise operation: what its functor returns when
// called with NP parameters of T and its inputs.
template <typename Op, typename T, int NP, typename L> struct OutOf;
template <typename Op, typename T, int NP, typename... A>
struct OutOf<Op, T, NP, Inputs<A...>> {
    template <size_t... P>
    static auto call(std::index_sequence<P...>)
        -> decltype(std::declval<const Op &>()(std::declval<Always<T, P>>()..., std::declval<A>()...));
    using type = decltype(call(std::make_index_sequence<NP>()));
};

// Reductions: the accumulator and result types of a domain. SUM: bool and
// signed integers into int64, unsigned ones into uint64, floats accumulate in
// double and complex numbers in complex128; MEAN: in double (complex128), floats
// and complex numbers give their own type, the rest float64; INDEX: the input
// type, an int64 result; LOGICAL: bool throughout; COUNT: int64 throughout (the
// kernels read each element as its truth value, see ReadsTruth).
// NumPy's sum and prod of an integer: int64 for bool and signed types, uint64
// for unsigned ones.
template <typename T>
using SumIntOf = typename std::conditional<std::is_unsigned<T>::value && !std::is_same<T, bool>::value,
                                           uint64_t, int64_t>::type;
template <typename T>
constexpr bool is_inexact_v = std::is_floating_point<T>::value || is_complex_v<T>;
// The double-precision type of an inexact T: double, or complex128.
template <typename T>
using WideOf = typename std::conditional<is_complex_v<T>, complex<double>, double>::type;
template <va_domain D, typename T>
using AccOf = typename std::conditional<
    D == VA_DOMAIN_SUM,
    typename std::conditional<is_inexact_v<T>, WideOf<T>, SumIntOf<T>>::type,
    typename std::conditional<
        D == VA_DOMAIN_MEAN, WideOf<T>,
        typename std::conditional<
            D == VA_DOMAIN_LOGICAL, bool,
            typename std::conditional<D == VA_DOMAIN_COUNT, int64_t, T>::type>::type>::type>::type;
template <va_domain D, typename T>
using ResultOf = typename std::conditional<
    D == VA_DOMAIN_SUM,
    typename std::conditional<is_inexact_v<T>, T, SumIntOf<T>>::type,
    typename std::conditional<
        D == VA_DOMAIN_MEAN,
        typename std::conditional<is_inexact_v<T>, T, double>::type,
        typename std::conditional<
            D == VA_DOMAIN_INDEX || D == VA_DOMAIN_COUNT, int64_t,
            typename std::conditional<D == VA_DOMAIN_LOGICAL, bool, T>::type>::type>::type>::type;

// Names in a declaration's argument list ("alpha,x,y" has three).
constexpr int count_args(const char *s) {
    int n = 1;
    for (; *s != '\0'; ++s) n += (*s == ',');
    return n;
}

// The op bundle is compiled once for each part of the dtypes (VA_TYPE_PART,
// Makefile): a CUDA module is loaded whole on the first launch of any of its
// kernels, so bool, float32 and float64 are a module of their own (what a float
// program loads, masks and their reductions included: two thirds of the module
// that also held int32 and int64), the eight integer dtypes another and the two
// complex ones a third, each loaded only when one of its dtypes is first used
// (bench/NOTES.md, sessions 17, 18 and 34: the integers compress best together,
// which keeps the release wheel within its size). kEveryPart: one unit holding
// every dtype (a user's operation, the table).
constexpr int kEveryPart = -1;
constexpr int kTypeParts = 3;
constexpr int type_part(va_dtype d) {
    switch (d) {
        case VA_BOOL: case VA_FLOAT32: case VA_FLOAT64: return 0;
        case VA_INT8: case VA_INT16: case VA_INT32: case VA_INT64:
        case VA_UINT8: case VA_UINT16: case VA_UINT32: case VA_UINT64:
            return 1;
        case VA_COMPLEX64: case VA_COMPLEX128: return 2;
        case VA_DTYPE_COUNT: case VA_DTYPE_MAX_ENUM: break;
    }
    return 0;
}

// Whether a launcher of domain D compiled for dtype part Part has a loop for d;
// Complex: whether the operation has complex loops at all (a user's kernel
// template, written for real types, has none).
template <va_domain D, int Part, bool Complex = false>
constexpr bool instantiates(va_dtype d) {
    return domain_has(D, d) && (Complex || !is_complex_dtype(d)) &&
           (Part == kEveryPart || type_part(d) == Part);
}

// Calls fn(T{}) for the C++ type of `dtype` when the domain has it and, unless
// Part is kEveryPart, the dtype is of that part (and, for a complex dtype, when
// Complex: the operation has complex loops).
template <va_domain D, int Part = kEveryPart, bool Complex = false, typename Fn>
va_status with_compute_type(va_dtype dtype, Fn &&fn) {
    switch (dtype) {
        case VA_BOOL: if constexpr (instantiates<D, Part, Complex>(VA_BOOL)) return fn(bool{}); break;
        case VA_INT32: if constexpr (instantiates<D, Part, Complex>(VA_INT32)) return fn(int32_t{}); break;
        case VA_INT64: if constexpr (instantiates<D, Part, Complex>(VA_INT64)) return fn(int64_t{}); break;
        case VA_FLOAT32: if constexpr (instantiates<D, Part, Complex>(VA_FLOAT32)) return fn(float{}); break;
        case VA_FLOAT64: if constexpr (instantiates<D, Part, Complex>(VA_FLOAT64)) return fn(double{}); break;
        case VA_INT8: if constexpr (instantiates<D, Part, Complex>(VA_INT8)) return fn(int8_t{}); break;
        case VA_INT16: if constexpr (instantiates<D, Part, Complex>(VA_INT16)) return fn(int16_t{}); break;
        case VA_UINT8: if constexpr (instantiates<D, Part, Complex>(VA_UINT8)) return fn(uint8_t{}); break;
        case VA_UINT16: if constexpr (instantiates<D, Part, Complex>(VA_UINT16)) return fn(uint16_t{}); break;
        case VA_UINT32: if constexpr (instantiates<D, Part, Complex>(VA_UINT32)) return fn(uint32_t{}); break;
        case VA_UINT64: if constexpr (instantiates<D, Part, Complex>(VA_UINT64)) return fn(uint64_t{}); break;
        case VA_COMPLEX64:
            if constexpr (instantiates<D, Part, Complex>(VA_COMPLEX64)) return fn(complex<float>{});
            break;
        case VA_COMPLEX128:
            if constexpr (instantiates<D, Part, Complex>(VA_COMPLEX128)) return fn(complex<double>{});
            break;
        case VA_DTYPE_COUNT: case VA_DTYPE_MAX_ENUM: break;
    }
    return VA_ERROR_UNSUPPORTED_DTYPE;
}

}  // namespace va
