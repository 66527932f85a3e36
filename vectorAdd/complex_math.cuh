// Complex elementary functions whose textbook formulas (libcu++'s, as
// libc++'s) lose most of their digits in parts of the plane NumPy's (the C
// library's) do not: the inverse trigonometric and hyperbolic functions, tanh
// and tan, log near |z| = 1, log1p near 0. Finite arguments take Kahan's
// formulas ("Branch cuts for complex elementary functions", 1987), which add no
// two quantities of opposite sign; infinite and NaN ones take libcu++'s, which
// give C99 Annex G's values. exp, sin, cos, sinh and cosh scale past exp's
// overflow, where libcu++'s gave inf for products NumPy keeps finite.
//
// Each is compiled once per component type and called from the kernels of its
// operation (VA_COMPLEX_OUTLINED): inlined, every kernel variant (packed,
// single, strided) of both complex types held its own copy, and the complex
// module's machine code came to 0.56 MB an architecture (session 18).
#pragma once

#include "complex.cuh"

namespace va {

template <typename R>
__host__ __device__ __forceinline__ bool finite_parts(complex<R> z) {
    return isfinite(z.real()) && isfinite(z.imag());
}

// The largest x whose exp(x) is finite (rounded down): past it exp(x), cosh(x) and
// sinh(x) overflow while their products with a cosine or sine below 1 need not.
template <typename R>
__host__ __device__ constexpr R exp_overflow_bound() {
    return sizeof(R) == 4 ? R(88.7228317f) : R(709.782712893383973);
}

// exp(x) c for x past exp_overflow_bound, where the product may be finite (issue 26:
// exp, sin, cos, sinh, cosh of complex64 near |x| = 89 gave inf where NumPy gave
// 1e38), rounded about as often as exp(x) c: float through double; double as
// exp(x - 1024 ln 2) c 2^1024, x - 1024 ln2_hi exact (Sterbenz, x <= 2 * 709.78;
// ln2_hi has zeros enough in its last bits), ln2_lo carrying the rest of ln 2.
// Beyond 1419 only a c below 1e-308 keeps the product finite: halves of exp there.
template <typename R>
__host__ __device__ __forceinline__ R exp_times(R x, R c) {
    if constexpr (sizeof(R) == 4) {
        return static_cast<R>(exp(static_cast<double>(x)) * static_cast<double>(c));
    } else {
        constexpr R kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
        if (!(x <= R(1419.5))) {
            const R h = exp(x * R(0.5));
            return (h * c) * h;
        }
        const R r = (x - R(1024) * kLn2Hi) - R(1024) * kLn2Lo;
        return ldexp(exp(r) * c, 1024);
    }
}

// exp(z) = exp(x) (cos y + i sin y), cosh(z) = cosh x cos y + i sinh x sin y,
// sinh(z) = sinh x cos y + i cosh x sin y; past exp's overflow cosh |x| = sinh |x| =
// exp(|x|) / 2 to the last bit. A real z (y = 0) gives exact zeros, signed as the
// formulas' products: libcu++'s gave NaN for inf * 0 there (cos(96i), complex64).
template <typename R>
VA_COMPLEX_OUTLINED complex<R> cexp(complex<R> z) {
    const R x = z.real(), y = z.imag();
    if (!finite_parts(z)) return cuda::std::exp(z);
    if (y == R(0)) return complex<R>(exp(x), y);
    if (x <= exp_overflow_bound<R>()) return cuda::std::exp(z);
    return complex<R>(exp_times(x, cos(y)), exp_times(x, sin(y)));
}

template <typename R>
VA_COMPLEX_OUTLINED complex<R> ccosh(complex<R> z) {
    const R x = z.real(), y = z.imag(), ax = fabs(x);
    if (!finite_parts(z)) return cuda::std::cosh(z);
    if (y == R(0)) return complex<R>(cosh(x), copysign(R(0), x) * y);
    if (ax <= exp_overflow_bound<R>()) return cuda::std::cosh(z);
    return complex<R>(exp_times(ax, R(0.5) * cos(y)), copysign(R(1), x) * exp_times(ax, R(0.5) * sin(y)));
}

template <typename R>
VA_COMPLEX_OUTLINED complex<R> csinh(complex<R> z) {
    const R x = z.real(), y = z.imag(), ax = fabs(x);
    if (!finite_parts(z)) return cuda::std::sinh(z);
    if (y == R(0)) return complex<R>(sinh(x), y);
    if (ax <= exp_overflow_bound<R>()) return cuda::std::sinh(z);
    return complex<R>(copysign(R(1), x) * exp_times(ax, R(0.5) * cos(y)), exp_times(ax, R(0.5) * sin(y)));
}

// iz and -iz, exactly (a swap and a sign): f(z) = -i g(iz) for the pairs asinh/asin,
// atan/atanh, tan/tanh, sinh/sin, and cos(z) = cosh(iz).
template <typename R>
__host__ __device__ __forceinline__ complex<R> times_i(complex<R> z) {
    return complex<R>(-z.imag(), z.real());
}
template <typename R>
__host__ __device__ __forceinline__ complex<R> times_minus_i(complex<R> z) {
    return complex<R>(z.imag(), -z.real());
}

// As libcu++'s (and libc++'s) own, through the hyperbolic functions above.
template <typename R>
VA_COMPLEX_OUTLINED complex<R> csin(complex<R> z) {
    return times_minus_i(csinh(times_i(z)));
}
template <typename R>
VA_COMPLEX_OUTLINED complex<R> ccos(complex<R> z) {
    return ccosh(times_i(z));
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

// log |z| (a >= b >= 0) away from |z| = 1, from a^2 + b^2 without rounding (float:
// in double; double: each square's error by fma, the sum's by two-sum, then
// log(s + e) = log s + e / s): hypot's own error (CUDA's double hypot, 2 ULP)
// put log(z)'s real part 5 ULP from NumPy's near 0.48 (issue 26, H100). Squares
// that overflow, or whose errors fall below the normal range, take log(hypot).
template <typename R>
__host__ __device__ __forceinline__ R log_modulus(R a, R b) {
    if constexpr (sizeof(R) == 4) {
        return static_cast<R>(0.5 * log(static_cast<double>(a) * a + static_cast<double>(b) * b));
    } else {
        if (!(a > R(0x1p-450) && a < R(0x1p500))) return log(hypot(a, b));
        const R p = a * a, pe = fma(a, a, -p);
        const R q = b * b, qe = fma(b, b, -q);
        const R s = p + q, t = s - p, se = (p - (s - t)) + (q - t);
        return R(0.5) * (log(s) + (pe + qe + se) / s);
    }
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
    const R re = (h > R(0.7) && h < R(1.4)) ? R(0.5) * log1p(fma(a - R(1), a + R(1), b * b)) : log_modulus(a, b);
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
