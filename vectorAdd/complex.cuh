// The complex dtypes' C++ types (libcu++'s complex: NumPy's layout, real part
// first, aligned to the whole element) and the arithmetic NumPy's loops do on
// them, where C++'s operators differ (C99 Annex G recovery of infinities in *,
// a scaled division): results must match NumPy's, not the C library's.
#pragma once

#include <cuda/std/complex>
#include <type_traits>

namespace va {

template <typename R>
using complex = cuda::std::complex<R>;

// A complex function too large to copy into every kernel that calls it
// (complex_math.cuh says why).
#define VA_COMPLEX_OUTLINED __host__ __device__ __noinline__

template <typename T>
struct IsComplex : std::false_type {};
template <typename R>
struct IsComplex<complex<R>> : std::true_type {};
template <typename T>
constexpr bool is_complex_v = IsComplex<T>::value;

// The type of T's components: T itself for a real type.
template <typename T>
struct RealOf {
    using type = T;
};
template <typename R>
struct RealOf<complex<R>> {
    using type = R;
};
template <typename T>
using RealT = typename RealOf<T>::type;

// a * b rounded on its own: never contracted with a following addition into an
// fma (NumPy's loops round the products and the sum apart).
template <typename R>
__host__ __device__ __forceinline__ R mul_rn(R a, R b) {
#ifdef __CUDA_ARCH__
    if constexpr (std::is_same<R, float>::value) return __fmul_rn(a, b);
    else return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

// NumPy's complex product, as its vector loops (x86-64 with FMA) compute it:
// fma(ar, br, -ai bi) + fma(ar, bi, ai br) i, the second products rounded on
// their own; no recovery of infinities from NaN (C++'s operator* would).
// NumPy's scalar loop (strided inputs) rounds both products, within 2 ULP.
template <typename R>
__host__ __device__ __forceinline__ complex<R> cmul(complex<R> a, complex<R> b) {
    return complex<R>(fma(a.real(), b.real(), -mul_rn(a.imag(), b.imag())),
                      fma(a.real(), b.imag(), mul_rn(a.imag(), b.real())));
}

// NumPy's complex quotient (Smith's method, its loops' branches): the larger
// part of b divides the smaller, and a zero b divides each part of a by +0.
template <typename R>
__host__ __device__ __forceinline__ complex<R> cdiv(complex<R> a, complex<R> b) {
    const R br_abs = fabs(b.real()), bi_abs = fabs(b.imag());
    if (br_abs >= bi_abs) {
        if (br_abs == R(0) && bi_abs == R(0)) return complex<R>(a.real() / br_abs, a.imag() / br_abs);
        const R rat = b.imag() / b.real();
        const R scl = R(1) / (b.real() + mul_rn(b.imag(), rat));
        return complex<R>(mul_rn(a.real() + mul_rn(a.imag(), rat), scl),
                          mul_rn(a.imag() - mul_rn(a.real(), rat), scl));
    }
    const R rat = b.real() / b.imag();
    const R scl = R(1) / (b.imag() + mul_rn(b.real(), rat));
    return complex<R>(mul_rn(mul_rn(a.real(), rat) + a.imag(), scl),
                      mul_rn(mul_rn(a.imag(), rat) - a.real(), scl));
}

// NumPy's order of complex numbers: by real part, then by imaginary part. Its
// comparison ufuncs (less ... greater_equal, maximum, minimum) hold a pair with
// a NaN imaginary part unordered where the real parts differ (its CLT ... CGE).
template <typename R>
__host__ __device__ __forceinline__ bool ordered(complex<R> x, complex<R> y) {
    return !isnan(x.imag()) && !isnan(y.imag());
}
template <typename R>
__host__ __device__ __forceinline__ bool clt(complex<R> x, complex<R> y) {
    return (x.real() < y.real() && ordered(x, y)) || (x.real() == y.real() && x.imag() < y.imag());
}
template <typename R>
__host__ __device__ __forceinline__ bool cle(complex<R> x, complex<R> y) {
    return (x.real() < y.real() && ordered(x, y)) || (x.real() == y.real() && x.imag() <= y.imag());
}
template <typename R>
__host__ __device__ __forceinline__ bool cgt(complex<R> x, complex<R> y) { return clt(y, x); }
template <typename R>
__host__ __device__ __forceinline__ bool cge(complex<R> x, complex<R> y) { return cle(y, x); }

// NumPy's complex reciprocal: the larger part divides the smaller.
template <typename R>
__host__ __device__ __forceinline__ complex<R> creciprocal(complex<R> z) {
    const R a = z.real(), b = z.imag();
    if (fabs(b) <= fabs(a)) {
        const R r = b / a, d = a + mul_rn(b, r);
        return complex<R>(R(1) / d, -r / d);
    }
    const R r = a / b, d = mul_rn(a, r) + b;
    return complex<R>(r / d, R(-1) / d);
}

// The principal square root, from the larger of |z| and |a| (no cancellation),
// with C99 Annex G's special values; parts near overflow are scaled by 1/4
// first (the root then doubles).
template <typename R>
VA_COMPLEX_OUTLINED complex<R> csqrt(complex<R> z) {
    R a = z.real(), b = z.imag();
    if (a == R(0) && b == R(0)) return complex<R>(R(0), b);
    if (isinf(b)) return complex<R>(R(INFINITY), b);
    if (isnan(a)) return complex<R>(a, b - b + a);
    if (isinf(a)) {
        if (signbit(a)) return complex<R>(fabs(b - b), copysign(a, b));
        return complex<R>(a, copysign(b - b, b));
    }
    constexpr R big = std::is_same<R, float>::value ? R(7.3940e37f) : R(7.446288774449766e307);
    R scale = R(1);
    if (fabs(a) >= big || fabs(b) >= big) {
        a *= R(0.25);
        b *= R(0.25);
        scale = R(2);
    }
    if (a >= R(0)) {
        const R t = sqrt((a + hypot(a, b)) * R(0.5));
        return complex<R>(t * scale, b / (R(2) * t) * scale);
    }
    const R t = sqrt((-a + hypot(a, b)) * R(0.5));
    return complex<R>(fabs(b) / (R(2) * t) * scale, copysign(t, b) * scale);
}

// NumPy's complex sign (2.0): z / |z|, the unit of an infinite part alone, NaN
// for NaN or two infinite parts, 0 for 0.
template <typename R>
__host__ __device__ __forceinline__ complex<R> csign(complex<R> z) {
    const R a = z.real(), b = z.imag(), m = hypot(a, b);
    if (isnan(m)) return complex<R>(R(NAN), R(NAN));
    if (isinf(m)) {
        if (isinf(a) && isinf(b)) return complex<R>(R(NAN), R(NAN));
        if (isinf(a)) return complex<R>(a > R(0) ? R(1) : R(-1), R(0));
        return complex<R>(R(0), b > R(0) ? R(1) : R(-1));
    }
    if (m == R(0)) return complex<R>(R(0), R(0));
    return complex<R>(a / m, b / m);
}

// NumPy's complex power: 1 for a zero exponent; a zero base gives 0 for a
// positive real exponent, else NaN; integer exponents below 100 in magnitude by
// squaring (a negative one as the reciprocal of that product); the rest as
// exp(b log a).
template <typename R>
VA_COMPLEX_OUTLINED complex<R> cpow(complex<R> a, complex<R> b) {
    const R br = b.real(), bi = b.imag();
    if (br == R(0) && bi == R(0)) return complex<R>(R(1), R(0));
    if (a.real() == R(0) && a.imag() == R(0)) {
        if (br > R(0)) return complex<R>(R(0), R(0));  // NumPy 2: any exponent with Re > 0
        return complex<R>(R(NAN), R(NAN));
    }
    if (bi == R(0) && br > R(-100) && br < R(100) && br == trunc(br)) {
        long n = static_cast<long>(br);
        if (n == 1) return a;
        if (n == 2) return cmul(a, a);
        if (n == 3) return cmul(cmul(a, a), a);
        complex<R> acc(R(1), R(0)), p = a;
        if (n < 0) n = -n;
        for (long mask = 1;; mask <<= 1) {
            if (n & mask) acc = cmul(acc, p);
            if (n < (mask << 1)) break;
            p = cmul(p, p);
        }
        return br < R(0) ? cdiv(complex<R>(R(1), R(0)), acc) : acc;
    }
    return cuda::std::pow(a, b);
}

}  // namespace va
