// The C entry points of elementwise operations on device memory: arguments
// checked against the operation's declaration, then its launcher.
#include "error.cuh"
#include "layout.cuh"
#include "memory.cuh"
#include "op_registry.cuh"
#include "ops.cuh"
#include "runtime.cuh"

namespace va {

namespace {

// The views of a call: valid, of supported dtypes, every input of out's shape.
// Out's memory is not asked for: it may be allocated after the check.
va_status check_views(int32_t nin, const va_array *in, const va_array *out, int64_t *n) {
    VA_CHECK(validate_shape(out, n));
    for (int k = 0; k < nin; ++k) {
        int64_t count = 0;
        VA_CHECK(validate(&in[k], &count));
        if (!same_shape(&in[k], out)) VA_FAIL(VA_ERROR_INVALID_VALUE);
    }
    return VA_SUCCESS;
}

// check_elementwise_plan but for out's memory.
va_status check_plan_shapes(const va_elementwise_plan *plan, int64_t *n) {
    if (plan == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    const OpEntry *e = op_entry(plan->op);
    if (e == nullptr || e->elementwise == nullptr || plan->in == nullptr || plan->out == nullptr ||
        plan->nin != e->info.nin || (e->info.nparams > 0 && plan->params == nullptr))
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_CHECK(check_views(plan->nin, plan->in, plan->out, n));
    if (plan->compute < 0 || plan->compute >= VA_DTYPE_COUNT || e->info.result[plan->compute] != plan->out->dtype)
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    return VA_SUCCESS;
}

}  // namespace

va_status decide_elementwise(va_op op, int32_t nin, const va_array *in, const double *params,
                             const va_array *out, va_elementwise_plan *plan) {
    const OpEntry *e = op_entry(op);
    if (e == nullptr || e->elementwise == nullptr || in == nullptr || out == nullptr || nin != e->info.nin ||
        (e->info.nparams > 0 && params == nullptr))
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    int64_t n = 0;
    VA_CHECK(check_views(nin, in, out, &n));
    if (n > 0 && out->data == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    const int np = e->info.nparams;
    const va_weak param_kind = (out->dtype == VA_FLOAT32 || out->dtype == VA_FLOAT64) ? VA_WEAK_FLOAT
                               : out->dtype == VA_BOOL                               ? VA_WEAK_BOOL
                                                                                     : VA_WEAK_INT;
    va_dtype dtypes[VA_MAX_PARAMS + VA_MAX_INPUTS];
    va_weak weak[VA_MAX_PARAMS + VA_MAX_INPUTS];
    for (int k = 0; k < np; ++k) {
        dtypes[k] = VA_BOOL;
        weak[k] = param_kind;
    }
    for (int k = 0; k < nin; ++k) {
        dtypes[np + k] = in[k].dtype;
        weak[np + k] = VA_STRONG;
    }
    va_dtype result;
    VA_CHECK(va_op_dtypes(op, np + nin, dtypes, weak, &plan->compute, &result));
    if (result != out->dtype) VA_FAIL(VA_ERROR_INVALID_VALUE);
    plan->op = op;
    plan->nin = nin;
    plan->in = in;
    plan->params = params;
    plan->out = out;
    return VA_SUCCESS;
}

va_status check_elementwise_plan(const va_elementwise_plan *plan, int64_t *n) {
    VA_CHECK(check_plan_shapes(plan, n));
    if (*n > 0 && plan->out->data == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    return VA_SUCCESS;
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
    va_elementwise_plan plan;
    VA_CHECK(va::decide_elementwise(op, nin, in, params, out, &plan));
    return va_elementwise_planned(device, &plan);
}

va_status va_elementwise_planned(int device, const va_elementwise_plan *plan) {
    int64_t n = 0;
    VA_CHECK(va::check_elementwise_plan(plan, &n));
    VA_ENTER_STREAM(device, scope, stream);
    if (n == 0) return VA_SUCCESS;
    return va::elementwise_on_stream(device, stream, plan->op, plan->nin, plan->in, plan->params, plan->out, n,
                                     plan->compute);
}

va_status va_elementwise_planned_new(int device, const va_elementwise_plan *plan, void **data) {
    if (data == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    *data = nullptr;
    int64_t n = 0;
    VA_CHECK(va::check_plan_shapes(plan, &n));
    va_array out = *plan->out;
    const size_t itemsize = va_dtype_size(out.dtype);
    if (!va_is_c_contiguous(&out) || n > INT64_MAX / static_cast<int64_t>(itemsize))
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    const size_t nbytes = static_cast<size_t>(n) * itemsize;
    // One entry for the allocation and the launch: a small call pays for the
    // host time before its launch (bench/NOTES.md, session 37).
    VA_ENTER_STREAM(device, scope, stream);
    VA_CHECK(va::pool_alloc(device, stream, nbytes, &out.data));
    va_status st = VA_SUCCESS;
    if (n > 0)
        st = va::elementwise_on_stream(device, stream, plan->op, plan->nin, plan->in, plan->params, &out, n,
                                       plan->compute);
    if (st != VA_SUCCESS) {
        va::pool_free(device, stream, out.data, nbytes);
        return st;
    }
    *data = out.data;
    return VA_SUCCESS;
}

va_status va_binary(int device, va_op op, const va_array *a, const va_array *b,
                    const va_array *out) {
    if (a == nullptr || b == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    const va_array in[2] = {*a, *b};
    return va_elementwise(device, op, 2, in, nullptr, out);
}

}  // extern "C"
