// Complex elementary functions whose textbook formulas (libcu++'s, as
// libc++'s) lose most of their digits in parts of the plane NumPy's (the C
// library's) do not: the inverse trigonometric and hyperbolic functions, tanh
// and tan, log near |z| = 1, log1p near 0. Finite arguments take Kahan's
// formulas ("Branch cuts for complex elementary functions", 1987), which add no
// two quantities of opposite sign; infinite and NaN ones take libcu++'s, which
// give C99 Annex G's values.
//
// Each is compiled once per component type and called from the kernels of its
// operation (VA_COMPLEX_OUTLINED): inlined, every kernel variant (packed,
// single, strided) of both complex types held its own copy, and the complex
// module's machine code came to 0.56 MB an architecture (session 18).
#pragma once

#include "complex.cuh"

namespace va {

// The wrappers of libcu++'s functions the operations call, outlined as the rest.
template <typename R>
VA_COMPLEX_OUTLINED complex<R> cexp(complex<R> z) { return cuda::std::exp(z); }
template <typename R>
VA_COMPLEX_OUTLINED complex<R> csin(complex<R> z) { return cuda::std::sin(z); }
template <typename R>
VA_COMPLEX_OUTLINED complex<R> ccos(complex<R> z) { return cuda::std::cos(z); }
template <typename R>
VA_COMPLEX_OUTLINED complex<R> csinh(complex<R> z) { return cuda::std::sinh(z); }
template <typename R>
VA_COMPLEX_OUTLINED complex<R> ccosh(complex<R> z) { return cuda::std::cosh(z); }

template <typename R>
__host__ __device__ __forceinline__ bool finite_parts(complex<R> z) {
    return isfinite(z.real()) && isfinite(z.imag());
}

// iz and -iz, exactly (a swap and a sign): f(z) = -i g(iz) for the pairs asinh/asin,
// atan/atanh, tan/tanh.
template <typename R>
__host__ __device__ __forceinline__ complex<R> times_i(complex<R> z) {
    return complex<R>(-z.imag(), z.real());
}
template <typename R>
__host__ __device__ __forceinline__ complex<R> times_minus_i(complex<R> z) {
    return complex<R>(z.imag(), -z.real());
}

// asin(z) = atan(Re z / Re(sqrt(1-z) sqrt(1+z))) + i asinh(Im(conj(sqrt(1-z)) sqrt(1+z))).
template <typename R>
VA_COMPLEX_OUTLINED complex<R> casin(complex<R> z) {
    if (!finite_parts(z)) return cuda::std::asin(z);
    const complex<R> m = csqrt(complex<R>(R(1) - z.real(), -z.imag()));
    const complex<R> p = csqrt(complex<R>(R(1) + z.real(), z.imag()));
    return complex<R>(atan2(z.real(), m.real() * p.real() - m.imag() * p.imag()),
                      asinh(m.real() * p.imag() - m.imag() * p.real()));
}

// acos(z) = 2 atan(Re sqrt(1-z) / Re sqrt(1+z)) + i asinh(Im(conj(sqrt(1+z)) sqrt(1-z))).
template <typename R>
VA_COMPLEX_OUTLINED complex<R> cacos(complex<R> z) {
    if (!finite_parts(z)) return cuda::std::acos(z);
    const complex<R> m = csqrt(complex<R>(R(1) - z.real(), -z.imag()));
    const complex<R> p = csqrt(complex<R>(R(1) + z.real(), z.imag()));
    return complex<R>(R(2) * atan2(m.real(), p.real()), asinh(p.real() * m.imag() - p.imag() * m.real()));
}

// acosh(z) = asinh(Re(conj(sqrt(z-1)) sqrt(z+1))) + 2i atan(Im sqrt(z-1) / Re sqrt(z+1)).
template <typename R>
VA_COMPLEX_OUTLINED complex<R> cacosh(complex<R> z) {
    if (!finite_parts(z)) return cuda::std::acosh(z);
    const complex<R> m = csqrt(complex<R>(z.real() - R(1), z.imag()));
    const complex<R> p = csqrt(complex<R>(z.real() + R(1), z.imag()));
    return complex<R>(asinh(m.real() * p.real() + m.imag() * p.imag()), R(2) * atan2(m.imag(), p.real()));
}

// asinh(z) = -i asin(iz).
template <typename R>
VA_COMPLEX_OUTLINED complex<R> casinh(complex<R> z) {
    if (!finite_parts(z)) return cuda::std::asinh(z);
    return times_minus_i(casin(times_i(z)));
}

// atanh(z) = log1p(4x / ((1-x)^2 + y^2)) / 4 + i atan2(2y, (1-x)(1+x) - y^2) / 2,
// for x >= 0 (where log1p's argument is not near -1); atanh(-z) = -atanh(z).
template <typename R>
VA_COMPLEX_OUTLINED complex<R> catanh(complex<R> z) {
    if (!finite_parts(z)) return cuda::std::atanh(z);
    if (signbit(z.real())) {
        const complex<R> w = catanh(complex<R>(-z.real(), -z.imag()));
        return complex<R>(-w.real(), -w.imag());
    }
    const R x = z.real(), y = z.imag(), one_minus = R(1) - x;
    return complex<R>(R(0.25) * log1p(R(4) * x / (one_minus * one_minus + y * y)),
                      R(0.5) * atan2(R(2) * y, one_minus * (R(1) + x) - y * y));
}

// atan(z) = -i atanh(iz).
template <typename R>
VA_COMPLEX_OUTLINED complex<R> catan(complex<R> z) {
    if (!finite_parts(z)) return cuda::std::atan(z);
    return times_minus_i(catanh(times_i(z)));
}

// tanh(x + iy) from t = tan y and s = sinh x (Kahan); past |x| = 22 (9 for
// float) it is +-1 and a vanishing imaginary part.
template <typename R>
VA_COMPLEX_OUTLINED complex<R> ctanh(complex<R> z) {
    if (!finite_parts(z)) return cuda::std::tanh(z);
    const R x = z.real(), y = z.imag();
    constexpr R big = std::is_same<R, float>::value ? R(9) : R(22);
    if (fabs(x) >= big) {
        const R e = exp(-fabs(x));
        return complex<R>(copysign(R(1), x), R(4) * sin(y) * cos(y) * e * e);
    }
    const R t = tan(y), beta = R(1) + t * t, s = sinh(x), rho = sqrt(R(1) + s * s);
    const R d = R(1) + beta * s * s;
    return complex<R>(beta * rho * s / d, t / d);
}

// tan(z) = -i tanh(iz).
template <typename R>
VA_COMPLEX_OUTLINED complex<R> ctan(complex<R> z) {
    if (!finite_parts(z)) return cuda::std::tan(z);
    return times_minus_i(ctanh(times_i(z)));
}

// log(z) = log|z| + i arg z; near |z| = 1, log|z| as log1p(|z|^2 - 1) / 2 with
// |z|^2 - 1 formed from x^2 - 1 = (x - 1)(x + 1), whose factors are exact there.
template <typename R>
VA_COMPLEX_OUTLINED complex<R> clog(complex<R> z) {
    if (!finite_parts(z)) return cuda::std::log(z);
    R a = fabs(z.real()), b = fabs(z.imag());
    if (a < b) {
        const R t = a;
        a = b;
        b = t;
    }
    const R h = hypot(a, b);
    const R re = (h > R(0.7) && h < R(1.4)) ? R(0.5) * log1p(fma(a - R(1), a + R(1), b * b)) : log(h);
    return complex<R>(re, atan2(z.imag(), z.real()));
}

// log1p(z) = log(1 + z), its real part near z = 0 as log1p(2x + x^2 + y^2) / 2
// (NumPy 2's, as exact there as the real log1p).
template <typename R>
VA_COMPLEX_OUTLINED complex<R> clog1p(complex<R> z) {
    const R x = z.real(), y = z.imag();
    if (!finite_parts(z) || !(fabs(x) < R(0.5) && fabs(y) < R(0.5)))
        return complex<R>(log(hypot(x + R(1), y)), atan2(y, x + R(1)));
    return complex<R>(R(0.5) * log1p(fma(x, R(2) + x, y * y)), atan2(y, x + R(1)));
}

// log(z) times k, part by part: NumPy's log2 and log10 (k = log_2 e, log_10 e).
template <typename R>
__host__ __device__ __forceinline__ complex<R> clog_scaled(complex<R> z, R k) {
    const complex<R> r = clog(z);
    return complex<R>(r.real() * k, r.imag() * k);
}

// NumPy's complex expm1 (umath's funcs): expm1(a) cos(b) - 2 sin^2(b / 2) + i exp(a) sin(b).
template <typename R>
VA_COMPLEX_OUTLINED complex<R> cexpm1(complex<R> z) {
    const R h = sin(z.imag() / R(2));
    return complex<R>(mul_rn(expm1(z.real()), cos(z.imag())) - mul_rn(R(2) * h, h), mul_rn(exp(z.real()), sin(z.imag())));
}

}  // namespace va
