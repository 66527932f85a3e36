"""The one comparison of floating results with NumPy's, used by every test that
holds a float result to NumPy (tests/test_checks_can_fail.py feeds it wrong
values and expects it to refuse them).

- ``assert_floats_match(got, expected, ulp=0 | tol=...)``: dtype and shape, then
  NaN, +inf and -inf exactly where NumPy has them, a zero's sign where both are
  zero (unless the contract leaves it open), then every finite pair within
  ``ulp`` units in the last place, or within an absolute bound ``tol``.
- ``ulp_distance(a, b)``: exact, as uint64: it cannot wrap, so ``2.0`` and
  ``-2.0`` are 2^63-odd ULP apart, not 0.
- ``assert_complex_match(got, expected, ulp, floor)``: complex results part by
  part: bit for bit for ulp 0 (NaN, infinities and zero signs where NumPy has
  them); else non-finite exactly where NumPy's are (inf and NaN alike: which an
  overflow gives follows the order of the operations), then each part within
  ``ulp`` ULP counted at the larger magnitude of NumPy's two parts (an error
  relative to |z|, as complex functions are specified), and at no less than
  ``floor``. A real result of complex arguments (absolute) is held to the same
  ``ulp``.
- ``assert_sum_matches(got, expected, x, axis, keepdims, mean)``: a float sum or
  mean is NumPy's own bits (the CPU path is NumPy's function) or within rounding
  of the exact sum: the library accumulates floats in double and rounds once
  (docs/SPEC.md), so the bound is one spacing of the result's dtype at the exact
  value plus n * u(double) * sum|x|. At n = 1517 float32 that is far below any
  element of the suite's sum data, so a sum that dropped one cannot pass (the
  older 2 * n * u(float32) * sum|x| let 134 of 200 such sums through). A complex
  sum is its parts' sums, each held so.
"""
import numpy as np

_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _sign_and_magnitude(a):
    """(sign bit, magnitude bits as uint64) of a float array's bit patterns."""
    a = np.ascontiguousarray(a)
    bits = a.view(_UINT[a.dtype.itemsize]).astype(np.uint64)
    top = np.uint64(1) << np.uint64(8 * a.dtype.itemsize - 1)
    return (bits & top) != 0, bits & (top - np.uint64(1))


def ulp_distance(a, b):
    """How many representable values of their (common float) dtype lie between a
    and b, counting -0.0 and 0.0 as one point; 0 where both are NaN. Computed on
    sign and magnitude in uint64: same signs subtract magnitudes, opposite signs
    add them (each is below 2^63, so the sum fits), nothing wraps."""
    a, b = np.atleast_1d(np.asarray(a)), np.atleast_1d(np.asarray(b))
    assert a.dtype == b.dtype and a.dtype.kind == "f", (a.dtype, b.dtype)
    a, b = np.broadcast_arrays(a, b)
    sa, ma = _sign_and_magnitude(a)
    sb, mb = _sign_and_magnitude(b)
    same = np.where(ma >= mb, ma - mb, mb - ma)
    dist = np.where(sa == sb, same, ma + mb)
    return np.where(np.isnan(a) & np.isnan(b), np.uint64(0), dist)


def _where(mask, limit=5):
    return np.argwhere(mask)[:limit].tolist()


def assert_specials_match(got, expected, zero_sign=True, msg=""):
    """NaN, +inf and -inf exactly where `expected` has them; where both are zero,
    the same sign (zero_sign=False: the contract leaves a zero's sign open)."""
    g, e = np.asarray(got), np.asarray(expected)
    for name, test in (("NaN", np.isnan), ("+inf", np.isposinf), ("-inf", np.isneginf)):
        gm, em = test(g), test(e)
        if not np.array_equal(gm, em):
            bad = gm != em
            raise AssertionError("%s%s positions differ from NumPy's at %s: got %r, NumPy %r" % (
                msg, name, _where(bad), g[bad][:5], e[bad][:5]))
    if zero_sign:
        bad = (g == 0) & (e == 0) & (np.signbit(g) != np.signbit(e))
        if bad.any():
            raise AssertionError("%ssign of zero differs from NumPy's at %s: got %r, NumPy %r" % (
                msg, _where(bad), g[bad][:5], e[bad][:5]))


def assert_floats_match(got, expected, ulp=0, tol=None, zero_sign=True, msg=""):
    """got (array-like; DeviceArrays converted by the caller) against NumPy's
    expected: same dtype and shape; non-float dtypes equal; floats with
    specials as NumPy's, then each finite pair within `ulp` ULP, or within the
    absolute bound `tol` (scalar or broadcastable array) when given."""
    g, e = np.asarray(got), np.asarray(expected)
    assert g.dtype == e.dtype, "%sdtype %s, NumPy's %s" % (msg, g.dtype, e.dtype)
    assert g.shape == e.shape, "%sshape %s, NumPy's %s" % (msg, g.shape, e.shape)
    if e.dtype.kind != "f":
        np.testing.assert_array_equal(g, e, strict=True, err_msg=msg)
        return
    assert_specials_match(g, e, zero_sign, msg)
    finite = np.isfinite(e)  # and so g's, after the check above
    if tol is None:
        dist = ulp_distance(g, e).reshape(e.shape)
        bad = finite & (dist > np.uint64(ulp))
        if bad.any():
            raise AssertionError("%s%d value(s) more than %d ULP from NumPy's, at %s: got %r, NumPy %r "
                                 "(%s ULP)" % (msg, int(bad.sum()), ulp, _where(bad), g[bad][:5], e[bad][:5],
                                               dist[bad][:5].tolist()))
        return
    # long double: a float64 difference of two huge finite values must not round
    # to a bound it does not meet (and never to NaN)
    err = np.abs(g.astype(np.longdouble) - e.astype(np.longdouble))
    tol = np.broadcast_to(np.asarray(tol, dtype=np.longdouble), err.shape)
    bad = finite & ~(err <= tol)
    if bad.any():
        raise AssertionError("%s%d value(s) off NumPy's by more than the bound, at %s: got %r, NumPy %r, "
                             "error %r > %r" % (msg, int(bad.sum()), _where(bad), g[bad][:5], e[bad][:5],
                                               err[bad][:3], tol[bad][:3]))


def assert_complex_match(got, expected, ulp, floor=0.0, msg=""):
    g, e = np.asarray(got), np.asarray(expected)
    assert g.dtype == e.dtype and g.shape == e.shape, (msg, g.dtype, e.dtype, g.shape, e.shape)
    if e.dtype.kind != "c":
        if e.dtype.kind == "f":
            assert_floats_match(g, e, ulp=ulp, msg=msg)
        else:
            np.testing.assert_array_equal(g, e, strict=True, err_msg=msg)
        return
    if ulp == 0 and floor == 0:
        assert_floats_match(g.real, e.real, msg=msg + "real part: ")
        assert_floats_match(g.imag, e.imag, msg=msg + "imaginary part: ")
        return
    scale = np.maximum(np.maximum(np.abs(np.where(np.isfinite(e.real), e.real, 0)),
                                  np.abs(np.where(np.isfinite(e.imag), e.imag, 0))), floor)
    tol = ulp * np.spacing(scale.astype(e.real.dtype))
    for gp, ep, label in ((g.real, e.real, "real part: "), (g.imag, e.imag, "imaginary part: ")):
        # A part that overflows is non-finite on both sides, but inf or NaN by the order
        # of the operations (inf - inf in one, inf in another: C99's Annex G leaves it
        # open, and NumPy's own loops differ), so a bounded operation is held to
        # finiteness there; the exact ones (ulp 0) keep NaN and inf where NumPy has them.
        gf, ef = np.isfinite(gp), np.isfinite(ep)
        if not np.array_equal(gf, ef):
            bad = gf != ef
            raise AssertionError("%s%sfinite values differ from NumPy's at %s: got %r, NumPy %r" % (
                msg, label, _where(bad), gp[bad][:5], ep[bad][:5]))
        assert_floats_match(np.where(ef, gp, 0), np.where(ef, ep, 0), tol=tol, zero_sign=False, msg=msg + label)


def reduced_count(shape, axis):
    """How many elements each result of a reduction over `axis` combines."""
    if axis is None:
        return int(np.prod(shape, dtype=np.int64))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return int(np.prod([shape[a] for a in axes], dtype=np.int64))


def sum_bound(x, axis=None, keepdims=False, mean=False, dtype=None):
    """(reference, bound) for a float sum (or mean) of x over axis: the sum in long
    double (64-bit mantissa on x86-64, so its own error is below the bound's
    second term), and one spacing of the result dtype at it plus n * u(double)
    * sum|x| (twice: the library's double accumulation and the reference's),
    both over n for a mean."""
    xl = np.asarray(x).astype(np.longdouble)
    n = max(reduced_count(np.shape(x), axis), 1)
    ref = np.sum(xl, axis=axis, keepdims=keepdims)
    scale = np.sum(np.abs(xl), axis=axis, keepdims=keepdims)
    if mean:
        ref, scale = ref / n, scale / n
    dtype = np.dtype(dtype or np.asarray(x).dtype)
    if dtype.kind != "f":
        dtype = np.dtype(np.float64)
    u = np.longdouble(np.finfo(np.float64).eps) / 2
    with np.errstate(over="ignore", invalid="ignore"):
        spacing = np.abs(np.spacing(np.abs(ref.astype(dtype)))).astype(np.longdouble)
    return ref, spacing + 2 * n * u * scale


def assert_sum_matches(got, expected, x, axis=None, keepdims=False, mean=False, zero_sign=True, msg=""):
    """A float sum or mean against NumPy's `expected` over the data `x` (in the
    dtype NumPy summed in): specials and zero signs as NumPy's; each finite
    result NumPy's own bits, or within sum_bound of the exact sum."""
    g, e = np.asarray(got), np.asarray(expected)
    assert g.dtype == e.dtype, "%sdtype %s, NumPy's %s" % (msg, g.dtype, e.dtype)
    assert g.shape == e.shape, "%sshape %s, NumPy's %s" % (msg, g.shape, e.shape)
    if e.dtype.kind == "c":
        xc = np.asarray(x).astype(e.dtype)
        for part, label in ((np.real, "real part: "), (np.imag, "imaginary part: ")):
            assert_sum_matches(part(g), part(e), part(xc), axis, keepdims, mean, zero_sign, msg + label)
        return
    if e.dtype.kind != "f":
        np.testing.assert_array_equal(g, e, strict=True, err_msg=msg)
        return
    assert_specials_match(g, e, zero_sign, msg)
    ref, bound = sum_bound(x, axis, keepdims, mean, e.dtype)
    ref, bound = np.broadcast_to(ref, e.shape), np.broadcast_to(bound, e.shape)
    err = np.abs(g.astype(np.longdouble) - ref)
    numpys_bits = ulp_distance(g, e).reshape(e.shape) == 0
    bad = np.isfinite(e) & ~numpys_bits & ~(err <= bound)
    if bad.any():
        raise AssertionError("%s%d sum(s) neither NumPy's bits nor within rounding of the exact sum, at %s: "
                             "got %r, NumPy %r, exact %r, error %r > %r" % (
                                 msg, int(bad.sum()), _where(bad), g[bad][:3], e[bad][:3], ref[bad][:3],
                                 err[bad][:3], bound[bad][:3]))
