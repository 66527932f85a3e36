// Host work shared out among several GPUs: each takes a contiguous piece of the
// output and runs it through its own host route (its own pinned staging,
// streams and worker threads), all at once, one thread per GPU.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "host_path.cuh"
#include "ops.cuh"
#include "pipeline.cuh"
#include "pipeline_trace.cuh"

namespace va {
namespace {

va_status check_device_list(const int *devices, int32_t ndevices) {
    if (devices == nullptr || ndevices < 1 || ndevices > kMaxDevices) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_CHECK(usable());
    for (int32_t i = 0; i < ndevices; ++i) {
        VA_CHECK(check_device(devices[i]));
        for (int32_t j = 0; j < i; ++j)
            if (devices[j] == devices[i]) VA_FAIL(VA_ERROR_INVALID_VALUE);
    }
    return VA_SUCCESS;
}

// The view as one dimension of n elements (contiguous or all broadcast).
va_array flattened(const va_array &a, int64_t n) {
    va_array f = a;
    f.ndim = 1;
    f.shape[0] = n;
    f.strides[0] = all_broadcast(&a) ? 0 : static_cast<int64_t>(va_dtype_size(a.dtype));
    return f;
}

// Elements [begin, begin + count) of the view along `axis`.
va_array sliced(const va_array &a, int axis, int64_t begin, int64_t count) {
    va_array s = a;
    s.data = static_cast<char *>(a.data) + begin * a.strides[axis];
    s.shape[axis] = count;
    return s;
}

struct Piece {
    va_array in[VA_MAX_INPUTS];
    va_array out;
    int64_t began = 0, ended = 0;  // for MYMODULE_PIPELINE_TRACE
};

// When each GPU's piece started and ended, from the call's start: a GPU that
// starts late (thread start-up) or ends late (its share, its link) shows here.
void trace_split(va_op op, int64_t n, const std::vector<Piece> &plan, const int *devices, int64_t t0) {
    if (!trace_enabled()) return;
    std::string text;
    char part[128];
    for (size_t i = 0; i < plan.size(); ++i) {
        int64_t count = 1;
        for (int d = 0; d < plan[i].out.ndim; ++d) count *= plan[i].out.shape[d];
        std::snprintf(part, sizeof(part), "%sGPU %d: %lld elements, %.2f to %.2f ms", i ? "; " : "",
                      devices[i], static_cast<long long>(count), (plan[i].began - t0) * 1e-6,
                      (plan[i].ended - t0) * 1e-6);
        text += part;
    }
    trace_note("split %s n=%lld over %zu GPUs, wall %.2f ms: %s", op_entry(op)->info.name,
               static_cast<long long>(n), plan.size(), (trace_now() - t0) * 1e-6, text.c_str());
}

}  // namespace
}  // namespace va

extern "C" {

va_status va_elementwise_host_multi(const int *devices, int32_t ndevices, va_op op, int32_t nin,
                                    const va_array *in, const double *params, const va_array *out) {
    va_elementwise_plan plan;
    VA_CHECK(va::decide_elementwise(op, nin, in, params, out, &plan));
    return va_elementwise_host_planned(devices, ndevices, &plan);
}

va_status va_elementwise_host_planned(const int *devices, int32_t ndevices, const va_elementwise_plan *plan) {
    int64_t n = 0;
    VA_CHECK(va::check_elementwise_plan(plan, &n));
    const va_array *in = plan->in, *out = plan->out;
    const int32_t nin = plan->nin;
    if (!va::c_contiguous(out)) VA_FAIL(VA_ERROR_INVALID_VALUE);
    VA_CHECK(va::check_device_list(devices, ndevices));
    size_t bytes = static_cast<size_t>(n) * va_dtype_size(out->dtype);
    bool flat = true;
    for (int k = 0; k < nin; ++k) {
        bytes += static_cast<size_t>(va::extent_bytes(&in[k]));
        flat = flat && va::flat_layout(&in[k]);
    }
    int pieces = va::split_count(bytes, ndevices);
    if (pieces == 1 || n == 0) return va::elementwise_host_on(devices[0], 1, *plan, n);
    // Flat inputs split anywhere (at multiples of 256 elements); other layouts
    // along the outermost axis of more than one element.
    va_array whole_in[VA_MAX_INPUTS], whole_out = *out;
    int axis = 0;
    int64_t extent = n, granule = 256;
    for (int k = 0; k < nin; ++k) whole_in[k] = flat ? va::flattened(in[k], n) : in[k];
    if (flat) {
        whole_out = va::flattened(*out, n);
    } else {
        while (out->shape[axis] == 1) ++axis;
        extent = out->shape[axis];
        granule = 1;
    }
    pieces = static_cast<int>(std::min<int64_t>(pieces, (extent + granule - 1) / granule));
    std::vector<va::Piece> split(static_cast<size_t>(pieces));
    for (int i = 0; i < pieces; ++i) {
        const int64_t begin = extent * i / pieces / granule * granule;
        const int64_t end = i + 1 == pieces ? extent : extent * (i + 1) / pieces / granule * granule;
        for (int k = 0; k < nin; ++k) split[i].in[k] = va::sliced(whole_in[k], axis, begin, end - begin);
        split[i].out = va::sliced(whole_out, axis, begin, end - begin);
    }
    const int64_t t0 = va::trace_now();
    const va_status status = va::run_on_devices(devices, pieces, [&](int i) -> va_status {
        split[i].began = va::trace_now();
        va_elementwise_plan piece = *plan;
        piece.in = split[i].in;
        piece.out = &split[i].out;
        int64_t count = 1;
        for (int d = 0; d < split[i].out.ndim; ++d) count *= split[i].out.shape[d];
        const va_status st = va::elementwise_host_on(devices[i], pieces, piece, count);
        split[i].ended = va::trace_now();
        return st;
    });
    va::trace_split(plan->op, n, split, devices, t0);
    return status;
}

va_status va_reduce_host_multi(const int *devices, int32_t ndevices, va_op op, const va_array *a,
                               void *result) {
    VA_CHECK(va::check_device_list(devices, ndevices));
    return va::reduce_host_on(devices, ndevices, op, a, result);
}

}  // extern "C"
