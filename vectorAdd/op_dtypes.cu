// NumPy's dtype rules for the operation table, in one place for the library and
// the Python extension. NumPy picks a ufunc's loop as the first, in its loop order,
// that every input casts to safely (Python scalars first take an array's dtype or
// the default one of their kind, NEP 50); promotion of two dtypes is the same
// search. Pairwise promotion chained over three inputs would differ (int8, uint16
// and float32 meet at float32, where int32 with float32 gives float64).
#include "error.cuh"
#include "op_registry.cuh"
#include "op_types.cuh"

namespace va {
namespace {

// NumPy's loop order (float16 would sit before float32: no dtype of ours).
constexpr va_dtype kLoopOrder[] = {VA_BOOL,   VA_INT8,    VA_UINT8,   VA_INT16,    VA_UINT16,
                                   VA_INT32,  VA_UINT32,  VA_INT64,   VA_UINT64,   VA_FLOAT32,
                                   VA_FLOAT64, VA_COMPLEX64, VA_COMPLEX128};

// The size of one real component: a complex dtype's half.
size_t component_size(va_dtype t) { return va_dtype_size(t) / (is_complex_dtype(t) ? 2 : 1); }

// NumPy's safe casts: bool to anything; an integer to a wider one of its
// signedness, or a signed one wider than it when unsigned; an integer to a float
// (or complex) whose mantissa NumPy deems enough (float32 up to 16 bits, float64
// for all); a float to a float or complex of components as wide or wider; a
// complex to a complex as wide or wider.
bool casts_safely(va_dtype from, va_dtype to) {
    if (from == to || from == VA_BOOL) return true;
    if (to == VA_BOOL) return false;
    const size_t sf = component_size(from), st = component_size(to);
    if (is_complex_dtype(from)) return is_complex_dtype(to) && sf <= st;
    if (is_float_dtype(from)) return (is_float_dtype(to) || is_complex_dtype(to)) && sf <= st;
    if (is_float_dtype(to) || is_complex_dtype(to)) return st == 8 || sf <= 2;
    if (is_unsigned_dtype(from) == is_unsigned_dtype(to)) return sf <= st;
    return is_unsigned_dtype(from) && sf < st;
}

// Whether every dtype of the list casts safely to `to`.
bool all_cast_to(const va_dtype *list, int n, va_dtype to) {
    for (int k = 0; k < n; ++k)
        if (!casts_safely(list[k], to)) return false;
    return true;
}

// The first type of the loop order every dtype of the list casts to safely
// (complex128 takes them all); floats_only: the first float (or complex, for
// a list holding one).
va_dtype first_loop(const va_dtype *list, int n, bool floats_only) {
    for (const va_dtype t : kLoopOrder)
        if ((!floats_only || is_float_dtype(t) || is_complex_dtype(t)) && all_cast_to(list, n, t)) return t;
    return VA_COMPLEX128;
}

// float16 would take them (bool, int8 and uint8 only).
bool float16_takes(const va_dtype *list, int n) {
    for (int k = 0; k < n; ++k)
        if (list[k] != VA_BOOL && list[k] != VA_INT8 && list[k] != VA_UINT8) return false;
    return true;
}

// The strong dtypes of in[0..n) (those skip(k) leaves) into strong[] (room for
// n + 1), then the dtype NEP 50 brings in for the Python scalars among them: a
// Python scalar takes an array's dtype of its own kind or a lower one, and brings
// the default dtype of a higher kind (int64, float64, complex128) in; a Python
// complex with float32 arrays gives complex64. No array at all: bool.
template <typename Skip>
va_status collect_operands(int32_t n, const va_dtype *in, const va_weak *weak, Skip skip, va_dtype *strong,
                           int *nstrong) {
    int count = 0;
    bool weak_int = false, weak_float = false, weak_complex = false;
    bool strong_float = false, strong_complex = false, strong_number = false;
    for (int k = 0; k < n; ++k) {
        if (skip(k)) continue;
        const va_weak w = weak == nullptr ? VA_STRONG : weak[k];
        switch (w) {
            case VA_STRONG:
                if (va_dtype_size(in[k]) == 0) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE);
                strong[count++] = in[k];
                strong_float |= is_float_dtype(in[k]);
                strong_complex |= is_complex_dtype(in[k]);
                strong_number |= in[k] != VA_BOOL;
                break;
            case VA_WEAK_BOOL: break;
            case VA_WEAK_INT: weak_int = true; break;
            case VA_WEAK_FLOAT: weak_float = true; break;
            case VA_WEAK_COMPLEX: weak_complex = true; break;
            case VA_WEAK_MAX_ENUM: VA_FAIL(VA_ERROR_INVALID_VALUE);
        }
    }
    if (weak_complex && !strong_complex) strong[count++] = strong_float ? VA_COMPLEX64 : VA_COMPLEX128;
    else if (weak_float && !strong_float && !strong_complex) strong[count++] = VA_FLOAT64;
    else if (weak_int && !strong_number) strong[count++] = VA_INT64;
    else if (count == 0) strong[count++] = VA_BOOL;
    *nstrong = count;
    return VA_SUCCESS;
}

}  // namespace
}  // namespace va

extern "C" {

va_status va_op_dtypes(va_op op, int32_t nargs, const va_dtype *in, const va_weak *weak,
                       va_dtype *compute, va_dtype *result) {
    const va::OpEntry *e = va::op_entry(op);
    if (e == nullptr || in == nullptr || compute == nullptr || result == nullptr ||
        (nargs != e->info.nparams + e->info.nin && e->info.domain != VA_DOMAIN_FIXED))
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    if (nargs > VA_MAX_PARAMS + VA_MAX_INPUTS) VA_FAIL(VA_ERROR_INVALID_VALUE);
    const int first_array = e->info.nparams;
    va_dtype strong[VA_MAX_PARAMS + VA_MAX_INPUTS + 1];
    int nstrong = 0;
    // where's condition is not promoted
    auto fixed = [&](int k) { return k >= first_array && e->info.fixed_input[k - first_array] != VA_DTYPE_COUNT; };
    VA_CHECK(va::collect_operands(nargs, in, weak, fixed, strong, &nstrong));
    for (int k = first_array; k < nargs; ++k)
        if (fixed(k) && (weak == nullptr || weak[k] == VA_STRONG) && va_dtype_size(in[k]) == 0)
            VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE);
    const va_dtype p = va::first_loop(strong, nstrong, false);

    va_dtype c = p;
    switch (e->info.domain) {
        case VA_DOMAIN_ALL: case VA_DOMAIN_SUM: case VA_DOMAIN_SAME: case VA_DOMAIN_MEAN:
        case VA_DOMAIN_INDEX: break;
        // Truth values of complex numbers: computed from the input converted to
        // bool (domain_has says why).
        case VA_DOMAIN_LOGICAL: case VA_DOMAIN_COUNT: if (va::is_complex_dtype(p)) c = VA_BOOL; break;
        // NumPy refuses bool outright (subtract, negative, positive, sign).
        case VA_DOMAIN_NUMBER: if (p == VA_BOOL) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE); break;
        // bool takes NumPy's first loop it casts to, int8.
        case VA_DOMAIN_ARITHMETIC: if (p == VA_BOOL) c = VA_INT8; break;
        // The first float loop: float16 for bool, int8 and uint8 (not a dtype of
        // ours), float32 for int16 and uint16, float64 for the rest.
        case VA_DOMAIN_FLOAT:
            if (va::is_float_dtype(p) || va::is_complex_dtype(p)) break;
            if (va::float16_takes(strong, nstrong)) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE);
            c = va::first_loop(strong, nstrong, true);
            break;
        // NumPy's true division of bool and integers is float64's.
        case VA_DOMAIN_TRUE_DIVIDE: if (!va::is_float_dtype(p) && !va::is_complex_dtype(p)) c = VA_FLOAT64; break;
        // NumPy's bitwise ufuncs have no float loop (TypeError), and a Python float
        // moves an integer array to float64 first (NEP 50), so it is refused too;
        // integers no integer holds (uint64 with a signed one) meet only at float64.
        case VA_DOMAIN_INTEGER:
            if (va::is_float_dtype(p) || va::is_complex_dtype(p)) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE);
            break;
        // Shifts: integers; bool shifts as int8, NumPy's first loop it casts to.
        case VA_DOMAIN_SHIFT:
            if (va::is_float_dtype(p) || va::is_complex_dtype(p)) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE);
            if (p == VA_BOOL) c = VA_INT8;
            break;
        // A raw kernel's one dtype: the first (only) loop of its row.
        case VA_DOMAIN_FIXED:
            for (int t = 0; t < VA_DTYPE_COUNT; ++t)
                if (e->info.result[t] != VA_DTYPE_COUNT) c = static_cast<va_dtype>(t);
            break;
        case VA_DOMAIN_MAX_ENUM: VA_FAIL(VA_ERROR_INVALID_VALUE);
    }
    if (e->info.result[c] == VA_DTYPE_COUNT) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE);
    *compute = c;
    *result = e->info.result[c];
    return VA_SUCCESS;
}

va_status va_promote_types(va_dtype a, va_dtype b, va_dtype *result) {
    if (result == nullptr || a < 0 || a >= VA_DTYPE_COUNT || b < 0 || b >= VA_DTYPE_COUNT)
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    const va_dtype both[2] = {a, b};
    *result = va::first_loop(both, 2, false);
    return VA_SUCCESS;
}

va_status va_result_type(int32_t n, const va_dtype *in, const va_weak *weak, va_dtype *result) {
    if (n < 1 || n > VA_MAX_RESULT_TYPE_ARGS || in == nullptr || result == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    va_dtype strong[VA_MAX_RESULT_TYPE_ARGS + 1];
    int nstrong = 0;
    VA_CHECK(va::collect_operands(n, in, weak, [](int) { return false; }, strong, &nstrong));
    *result = va::first_loop(strong, nstrong, false);
    return VA_SUCCESS;
}

va_status va_result_dtype(va_op op, va_dtype a, va_dtype b, va_dtype *result) {
    const va_dtype in[2] = {a, b};
    va_dtype compute;
    return va_op_dtypes(op, 2, in, nullptr, &compute, result);
}

}  // extern "C"
