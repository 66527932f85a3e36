// The C entry point of users' own kernels (user_ops/, VA_RAW_KERNEL): views
// checked against the declaration (its arity, its one dtype, out in the first
// input's shape, a launch shape within the device's limits), then launched
// on the library's stream.
#include "error.cuh"
#include "layout.cuh"
#include "op_registry.cuh"
#include "runtime.cuh"

extern "C" {

va_status va_raw_launch(int device, va_op op, int32_t nin, const va_array *in,
                        const double *params, const va_array *out, int64_t grid, int32_t block) {
    const va::OpEntry *e = va::op_entry(op);
    if (e == nullptr || e->raw == nullptr || nin != e->info.nin || (nin > 0 && in == nullptr) ||
        (e->info.nparams > 0 && params == nullptr) || grid < 0 || grid > INT32_MAX || block < 0 ||
        block > 1024)
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    va_dtype compute, result;
    const va_dtype none = VA_BOOL;
    VA_CHECK(va_op_dtypes(op, 0, &none, nullptr, &compute, &result));
    int64_t n = 0;
    VA_CHECK(va::validate(out, &n));
    if (out->dtype != result) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE);
    for (int k = 0; k < nin; ++k) {
        int64_t count = 0;
        VA_CHECK(va::validate(&in[k], &count));
        if (in[k].dtype != result) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE);
    }
    // The declaration's output has the first input's shape, and kernels index
    // out by the input's size: any other out would be written past its end.
    if (nin > 0 && !va::same_shape(out, &in[0])) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    const va::RawCall call{device, stream, nin, in, params, out, grid, block};
    return e->raw(call);
}

}  // extern "C"
