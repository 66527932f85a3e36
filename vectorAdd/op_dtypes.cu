// NumPy's dtype rules for the operation table, in one place for the library and
// the Python extension: promotion between inputs (NEP 50: Python scalars are
// weak), then the loop NumPy would choose in the operation's domain.
#include "error.cuh"
#include "op_registry.cuh"

namespace va {
namespace {

bool is_float(va_dtype d) { return d == VA_FLOAT32 || d == VA_FLOAT64; }
bool is_int(va_dtype d) { return d == VA_INT32 || d == VA_INT64; }

// Promotion of two supported dtypes (the lattice bool < int32 < int64 < float64,
// bool < float32 < float64; an integer with float32 gives float64).
va_dtype promote(va_dtype a, va_dtype b) {
    if (a == b) return a;
    if (a == VA_BOOL) return b;
    if (b == VA_BOOL) return a;
    if (is_int(a) && is_int(b)) return VA_INT64;
    return VA_FLOAT64;
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
    const int first_array = e->info.nparams;
    bool have_strong = false, weak_int = false, weak_float = false;
    va_dtype p = VA_BOOL;
    for (int k = 0; k < nargs; ++k) {
        if (k >= first_array && e->info.fixed_input[k - first_array] != VA_DTYPE_COUNT)
            continue;  // where's condition
        const va_weak w = weak == nullptr ? VA_STRONG : weak[k];
        switch (w) {
            case VA_STRONG:
                if (va_dtype_size(in[k]) == 0) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE);
                p = have_strong ? va::promote(p, in[k]) : in[k];
                have_strong = true;
                break;
            case VA_WEAK_BOOL: break;
            case VA_WEAK_INT: weak_int = true; break;
            case VA_WEAK_FLOAT: weak_float = true; break;
            case VA_WEAK_MAX_ENUM: VA_FAIL(VA_ERROR_INVALID_VALUE);
        }
    }
    for (int k = first_array; k < nargs; ++k)
        if (e->info.fixed_input[k - first_array] != VA_DTYPE_COUNT &&
            (weak == nullptr || weak[k] == VA_STRONG) && va_dtype_size(in[k]) == 0)
            VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE);
    // NEP 50: a Python scalar takes the strong dtype's place in its own kind
    // and moves it to the default dtype of a higher kind (int64, float64).
    if (!have_strong) p = weak_float ? VA_FLOAT64 : weak_int ? VA_INT64 : VA_BOOL;
    else if (weak_float && !va::is_float(p)) p = VA_FLOAT64;
    else if (weak_int && p == VA_BOOL) p = VA_INT64;

    va_dtype c = p;
    switch (e->info.domain) {
        case VA_DOMAIN_ALL: case VA_DOMAIN_SUM: case VA_DOMAIN_SAME: case VA_DOMAIN_MEAN:
        case VA_DOMAIN_INDEX: case VA_DOMAIN_LOGICAL: case VA_DOMAIN_COUNT: break;
        // NumPy's first loop for bool would be int8 (or none): not a dtype of ours.
        case VA_DOMAIN_NUMBER: if (p == VA_BOOL) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE); break;
        // float16 for bool, float64 for int32 and int64.
        case VA_DOMAIN_FLOAT:
            if (p == VA_BOOL) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE);
            if (va::is_int(p)) c = VA_FLOAT64;
            break;
        case VA_DOMAIN_TRUE_DIVIDE: if (!va::is_float(p)) c = VA_FLOAT64; break;
        // NumPy's bitwise ufuncs have no float loop (TypeError), and a Python float
        // moves an integer array to float64 first (NEP 50), so it is refused too.
        case VA_DOMAIN_INTEGER: if (va::is_float(p)) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE); break;
        // NumPy shifts bool as int8 (no bool loop), not a dtype of ours.
        case VA_DOMAIN_SHIFT: if (!va::is_int(p)) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE); break;
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
    *result = va::promote(a, b);
    return VA_SUCCESS;
}

va_status va_result_dtype(va_op op, va_dtype a, va_dtype b, va_dtype *result) {
    const va_dtype in[2] = {a, b};
    va_dtype compute;
    return va_op_dtypes(op, 2, in, nullptr, &compute, result);
}

}  // extern "C"
