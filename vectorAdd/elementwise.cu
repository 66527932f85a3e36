// The C entry points of elementwise operations on device memory: arguments
// checked against the operation's declaration, then its launcher.
#include "error.cuh"
#include "layout.cuh"
#include "op_registry.cuh"
#include "ops.cuh"
#include "runtime.cuh"

namespace va {

va_status check_elementwise(va_op op, int32_t nin, const va_array *in, const double *params,
                            const va_array *out, int64_t *n, va_dtype *compute) {
    const OpEntry *e = op_entry(op);
    if (e == nullptr || e->elementwise == nullptr || in == nullptr || nin != e->info.nin ||
        (e->info.nparams > 0 && params == nullptr))
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_CHECK(validate(out, n));
    // The scalar parameters take no part in promotion here: weak bools.
    const int np = e->info.nparams;
    va_dtype dtypes[VA_MAX_PARAMS + VA_MAX_INPUTS];
    va_weak weak[VA_MAX_PARAMS + VA_MAX_INPUTS];
    for (int k = 0; k < np; ++k) {
        dtypes[k] = VA_BOOL;
        weak[k] = VA_WEAK_BOOL;
    }
    for (int k = 0; k < nin; ++k) {
        int64_t count = 0;
        VA_CHECK(validate(&in[k], &count));
        if (!same_shape(&in[k], out)) VA_FAIL(VA_ERROR_INVALID_VALUE);
        dtypes[np + k] = in[k].dtype;
        weak[np + k] = VA_STRONG;
    }
    return compute_for_output(op, np + nin, dtypes, weak, out->dtype, compute);
}

va_status elementwise_on_stream(int device, cudaStream_t stream, va_op op, int32_t nin,
                                const va_array *in, const double *params, const va_array *out,
                                int64_t n, va_dtype compute) {
    const ElementwiseCall call{device, stream, nin, in, params, out, n, compute};
    return op_entry(op)->elementwise(call);
}

}  // namespace va

extern "C" {

va_status va_elementwise(int device, va_op op, int32_t nin, const va_array *in,
                         const double *params, const va_array *out) {
    int64_t n = 0;
    va_dtype compute;
    VA_CHECK(va::check_elementwise(op, nin, in, params, out, &n, &compute));
    VA_ENTER_STREAM(device, scope, stream);
    if (n == 0) return VA_SUCCESS;
    return va::elementwise_on_stream(device, stream, op, nin, in, params, out, n, compute);
}

va_status va_binary(int device, va_op op, const va_array *a, const va_array *b,
                    const va_array *out) {
    if (a == nullptr || b == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    const va_array in[2] = {*a, *b};
    return va_elementwise(device, op, 2, in, nullptr, out);
}

}  // extern "C"
