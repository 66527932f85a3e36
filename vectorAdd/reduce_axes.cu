// va_reduce_axes: a reduction over a set of axes of a strided view into a
// strided output view. The plan made here (host only) is what lets a few
// kernels serve every layout: dims of extent 1 dropped, negative strides turned
// round (the reduced elements' order does not change which elements combine),
// each group sorted by input stride and merged where one dim continues another.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "error.cuh"
#include "layout.cuh"
#include "memory.cuh"
#include "ops.cuh"
#include "runtime.cuh"
#include "scalar_mirror.cuh"

namespace va {
namespace {

struct Dim {
    int64_t extent, in, out;
};

// Outermost (largest input stride) first when `sort`; stable, so equal strides
// keep the caller's order. Then each dim merged into the one outside it where the outer
// one steps over exactly the inner one's run (in the output too, for kept dims).
int sort_and_merge(Dim *dims, int n, bool with_out, bool sort) {
    if (sort) std::stable_sort(dims, dims + n, [](const Dim &a, const Dim &b) { return a.in > b.in; });
    int m = 0;
    for (int k = 0; k < n; ++k) {
        if (m > 0) {
            Dim &outer = dims[m - 1];
            const Dim &inner = dims[k];
            if (outer.in == inner.in * inner.extent && (!with_out || outer.out == inner.out * inner.extent)) {
                outer.extent *= inner.extent;
                outer.in = inner.in;
                outer.out = inner.out;
                continue;
            }
        }
        dims[m++] = dims[k];
    }
    return m;
}

// `ordered`: the reduced elements keep their logical (C) order, for ops that
// report a position (argmax): no reversal, no reordering, only merges.
va_status make_plan(const va_array *a, int32_t naxes, const int32_t *axes, const va_array *out, bool ordered,
                    AxesPlan *plan) {
    int64_t count = 0, outputs = 0;
    VA_CHECK(validate(a, &count));
    VA_CHECK(validate(out, &outputs));
    bool reduced[VA_MAX_NDIM] = {};
    if (naxes < 0 || naxes > a->ndim || (naxes > 0 && axes == nullptr)) VA_FAIL(VA_ERROR_INVALID_VALUE);
    for (int k = 0; k < naxes; ++k) {
        if (axes[k] < 0 || axes[k] >= a->ndim || reduced[axes[k]]) VA_FAIL(VA_ERROR_INVALID_VALUE);
        reduced[axes[k]] = true;
    }
    // The output: the kept dims in order, or every dim with 1 for the reduced ones.
    const bool keepdims = out->ndim == a->ndim && naxes > 0;
    if (!keepdims && out->ndim != a->ndim - naxes) VA_FAIL(VA_ERROR_INVALID_VALUE);
    Dim kept[VA_MAX_NDIM], red[VA_MAX_NDIM];
    int nkept = 0, nred = 0, o = 0;
    char *out_data = static_cast<char *>(out->data);
    const char *in_data = static_cast<const char *>(a->data);
    int64_t nreduced = 1;
    for (int d = 0; d < a->ndim; ++d) {
        const int64_t extent = a->shape[d], stride = a->strides[d];
        if (reduced[d]) {
            if (keepdims && out->shape[d] != 1) VA_FAIL(VA_ERROR_INVALID_VALUE);
            nreduced *= extent;
            if (extent != 1) red[nred++] = Dim{extent, stride, 0};
            continue;
        }
        const int od = keepdims ? d : o++;
        if (out->shape[od] != extent) VA_FAIL(VA_ERROR_INVALID_VALUE);
        if (extent != 1) kept[nkept++] = Dim{extent, stride, out->strides[od]};
    }
    std::memset(plan, 0, sizeof(*plan));
    plan->outputs = outputs;
    plan->reduced = nreduced;
    if (outputs == 0) return VA_SUCCESS;
    if (nreduced == 0) nred = 0;
    for (int k = 0; k < nred && !ordered; ++k)
        if (red[k].in < 0) {
            in_data += (red[k].extent - 1) * red[k].in;
            red[k].in = -red[k].in;
        }
    for (int k = 0; k < nkept; ++k)
        if (kept[k].in < 0) {
            in_data += (kept[k].extent - 1) * kept[k].in;
            out_data += (kept[k].extent - 1) * kept[k].out;
            kept[k].in = -kept[k].in;
            kept[k].out = -kept[k].out;
        }
    nred = sort_and_merge(red, nred, false, !ordered);
    nkept = sort_and_merge(kept, nkept, true, true);
    plan->in = in_data;
    plan->out = out_data;
    plan->nkept = nkept;
    for (int k = 0; k < nkept; ++k) {
        plan->kept_extent[k] = kept[k].extent;
        plan->kept_in[k] = kept[k].in;
        plan->kept_out[k] = kept[k].out;
    }
    plan->nreduced = nred;
    for (int k = 0; k < nred; ++k) {
        plan->reduced_extent[k] = red[k].extent;
        plan->reduced_in[k] = red[k].in;
    }
    return VA_SUCCESS;
}

}  // namespace
}  // namespace va

namespace va {
namespace {

// va_reduce_axes, and with a non-null `mirror` also into the pinned slot.
va_status reduce_axes(int device, va_op op, const va_array *a, int32_t naxes, const int32_t *axes,
                      const va_array *out, MirrorWrite *mirror) {
    const OpEntry *e = op_entry(op);
    if (e == nullptr || e->reduce_axes == nullptr || a == nullptr || out == nullptr)
        VA_FAIL(VA_ERROR_INVALID_VALUE);
    va_dtype compute, result;
    VA_CHECK(va_op_dtypes(op, 1, &a->dtype, nullptr, &compute, &result));
    if (out->dtype != result) VA_FAIL(VA_ERROR_INVALID_VALUE);
    AxesCall call = {};
    VA_CHECK(make_plan(a, naxes, axes, out, e->info.domain == VA_DOMAIN_INDEX, &call.plan));
    // NumPy: "zero-size array to reduction operation maximum which has no identity".
    if (call.plan.reduced == 0 && !e->info.has_identity) VA_FAIL(VA_ERROR_INVALID_VALUE);
    if (call.plan.outputs == 0) return VA_SUCCESS;
    VA_ENTER_STREAM(device, scope, stream);
    // An input the op computes in another dtype (complex for all, any and
    // count_nonzero: read as bool, va_op_dtypes) is converted first.
    DeviceBuffer staged(device, stream);
    va_array input = *a;
    if (compute != a->dtype) {
        int64_t n = 0;
        VA_CHECK(validate(a, &n));
        VA_CHECK(contiguous_view_as(device, stream, a, n, compute, &staged, &input));
        VA_CHECK(make_plan(&input, naxes, axes, out, e->info.domain == VA_DOMAIN_INDEX, &call.plan));
    }
    call.device = device;
    call.stream = stream;
    call.dtype = input.dtype;
    VA_CHECK(device_scratch(device, &call.scratch));
    bool mirrored = false;
    if (mirror != nullptr && call.plan.outputs == 1) {
        VA_CHECK(mirror->slot(&call.mirror));
        call.mirror_written = &mirrored;
    }
    VA_CHECK(e->reduce_axes(call));
    if (mirrored) mirror->publish(device, out->data, va_dtype_size(result));
    return VA_SUCCESS;
}

}  // namespace
}  // namespace va

extern "C" {

va_status va_reduce_axes(int device, va_op op, const va_array *a, int32_t naxes, const int32_t *axes,
                         const va_array *out) {
    return va::reduce_axes(device, op, a, naxes, axes, out, nullptr);
}

va_status va_reduce_axes_scalar(int device, va_op op, const va_array *a, int32_t naxes, const int32_t *axes,
                                const va_array *out) {
    va::MirrorWrite mirror;
    return va::reduce_axes(device, op, a, naxes, axes, out, &mirror);
}

}  // extern "C"
