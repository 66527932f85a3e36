// The C entry point of users' own kernels (user_ops/, VA_RAW_KERNEL): views
// checked against the declaration (its arity, its one dtype, out in the first
// input's shape, a launch shape within the device's limits), then launched
// on the library's stream.
#include "error.cuh"
#include "layout.cuh"
#include "op_registry.cuh"
#include "runtime.cuh"

namespace {

// Checks the views against the declaration: its arity, inputs of one dtype it
// has a loop for (the compute dtype), a valid out; *compute is that dtype.
va_status check_raw(const va::OpEntry *e, va_op op, int32_t nin, const va_array *in,
                    const double *params, const va_array *out, va_dtype *compute) {
    if (e == nullptr || e->raw == nullptr || nin != e->info.nin || (nin > 0 && in == nullptr) ||
        (e->info.nparams > 0 && params == nullptr) || out == nullptr)
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    va_dtype dtypes[VA_MAX_PARAMS + VA_MAX_INPUTS];
    va_weak weak[VA_MAX_PARAMS + VA_MAX_INPUTS];
    const int32_t nargs = e->info.nparams + nin;
    for (int k = 0; k < nargs; ++k) {
        const bool param = k < e->info.nparams;
        dtypes[k] = param ? VA_FLOAT64 : in[k - e->info.nparams].dtype;
        weak[k] = param ? VA_WEAK_BOOL : VA_STRONG;  // parameters take no part in promotion
    }
    va_dtype result;
    VA_CHECK(va_op_dtypes(op, nargs, dtypes, weak, compute, &result));
    int64_t n = 0;
    VA_CHECK(va::validate(out, &n));
    for (int k = 0; k < nin; ++k) {
        int64_t count = 0;
        VA_CHECK(va::validate(&in[k], &count));
        if (in[k].dtype != *compute) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE);
    }
    return VA_SUCCESS;
}

}  // namespace

extern "C" {

va_status va_raw_launch(int device, va_op op, int32_t nin, const va_array *in,
                        const double *params, const va_array *out, int64_t grid, int32_t block) {
    const va::OpEntry *e = va::op_entry(op);
    if (grid < 0 || grid > INT32_MAX || block < 0 || block > 1024) VA_FAIL(VA_ERROR_INVALID_VALUE);
    va_dtype compute;
    VA_CHECK(check_raw(e, op, nin, in, params, out, &compute));
    if (out->dtype != e->info.result[compute]) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE);
    // The declaration's output has the first input's shape, and kernels index
    // out by the input's size: any other out would be written past its end.
    if (nin > 0 && !va::same_shape(out, &in[0])) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_ENTER_STREAM(device, scope, stream);
    va_launch launch = {{grid, 0, 0}, {block, 0, 0}, 0};
    const va::RawCall call{device, stream, nin, in, params, nullptr, out, launch, compute};
    return e->raw(call);
}

va_status va_raw_launch_shaped(int device, va_op op, int32_t nin, const va_array *in,
                               const double *params, const int64_t *iparams, const va_array *out,
                               const va_launch *launch) {
    const va::OpEntry *e = va::op_entry(op);
    if (launch == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    // The limits of every GPU since compute capability 3.0, before any CUDA call
    // (the device's shared memory limit is asked at launch).
    const int64_t grid_limit[3] = {INT32_MAX, 65535, 65535}, block_limit[3] = {1024, 1024, 64};
    int64_t threads = 1;
    for (int d = 0; d < 3; ++d) {
        if (launch->grid[d] < 0 || launch->grid[d] > grid_limit[d] || launch->block[d] < 0 ||
            launch->block[d] > block_limit[d])
            VA_FAIL(VA_ERROR_INVALID_VALUE);
        threads *= launch->block[d] > 0 ? launch->block[d] : (d == 0 ? 256 : 1);
    }
    if (threads > 1024 || launch->shared_bytes < 0 || launch->shared_bytes > INT32_MAX)
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    va_dtype compute;
    VA_CHECK(check_raw(e, op, nin, in, params, out, &compute));
    VA_ENTER_STREAM(device, scope, stream);
    const va::RawCall call{device, stream, nin, in, params, iparams, out, *launch, compute};
    return e->raw(call);
}

}  // extern "C"
