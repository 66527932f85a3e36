#include <cstring>

#include "layout.cuh"
#include "error.cuh"

namespace va {

va_status validate(const va_array *a, int64_t *count) {
    VA_CHECK(validate_shape(a, count));
    if (*count > 0 && a->data == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    return VA_SUCCESS;
}

va_status validate_shape(const va_array *a, int64_t *count) {
    if (a == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    if (va_dtype_size(a->dtype) == 0) VA_FAIL(VA_ERROR_UNSUPPORTED_DTYPE);
    if (a->ndim < 0 || a->ndim > VA_MAX_NDIM) VA_FAIL(VA_ERROR_INVALID_VALUE);
    int64_t n = 1;
    for (int d = 0; d < a->ndim; ++d) {
        if (a->shape[d] < 0) VA_FAIL(VA_ERROR_INVALID_VALUE);
        if (a->shape[d] != 0 && n > INT64_MAX / a->shape[d]) VA_FAIL(VA_ERROR_INVALID_VALUE);
        n *= a->shape[d];
    }
    *count = n;
    return VA_SUCCESS;
}

bool same_shape(const va_array *a, const va_array *b) {
    if (a->ndim != b->ndim) return false;
    for (int d = 0; d < a->ndim; ++d)
        if (a->shape[d] != b->shape[d]) return false;
    return true;
}

void make_walk(const va_array *const *views, int nviews, Walk *walk) {
    std::memset(walk, 0, sizeof(*walk));
    const va_array *first = views[0];
    int nd = 0;
    for (int d = 0; d < first->ndim; ++d) {
        if (first->shape[d] == 1) continue;
        walk->shape[nd] = first->shape[d];
        for (int v = 0; v < nviews; ++v) walk->strides[v][nd] = views[v]->strides[d];
        ++nd;
    }
    // Merge dimension d into d-1 when every view steps over d-1 exactly as a
    // walk over all of d would.
    int out = 0;
    for (int d = 0; d < nd; ++d) {
        if (out > 0) {
            bool merge = true;
            for (int v = 0; v < nviews; ++v)
                if (walk->strides[v][out - 1] != walk->strides[v][d] * walk->shape[d]) merge = false;
            if (merge) {
                walk->shape[out - 1] *= walk->shape[d];
                for (int v = 0; v < nviews; ++v) walk->strides[v][out - 1] = walk->strides[v][d];
                continue;
            }
        }
        walk->shape[out] = walk->shape[d];
        for (int v = 0; v < nviews; ++v) walk->strides[v][out] = walk->strides[v][d];
        ++out;
    }
    walk->ndim = out;
}

void byte_extent(const va_array *a, int64_t *lo, int64_t *hi) {
    int64_t low = 0, high = 0;
    bool empty = false;
    for (int d = 0; d < a->ndim; ++d) {
        if (a->shape[d] == 0) empty = true;
        int64_t span = (a->shape[d] - 1) * a->strides[d];
        if (span < 0) low += span; else high += span;
    }
    *lo = empty ? 0 : low;
    *hi = empty ? 0 : high + static_cast<int64_t>(va_dtype_size(a->dtype));
}

void axis_last_view(const va_array *a, int axis, void *data, va_dtype dtype, va_array *view) {
    std::memset(view, 0, sizeof(*view));
    view->data = data;
    view->dtype = dtype;
    view->ndim = a->ndim;
    int64_t step = static_cast<int64_t>(va_dtype_size(dtype));
    for (int d = 0; d < a->ndim; ++d) view->shape[d] = a->shape[d];
    if (axis >= 0 && axis < a->ndim) {
        view->strides[axis] = step;
        step *= a->shape[axis];
    }
    for (int d = a->ndim - 1; d >= 0; --d) {
        if (d == axis) continue;
        view->strides[d] = step;
        step *= a->shape[d];
    }
}

bool is_axis_last(const va_array *view, int axis) {
    va_array expected;
    axis_last_view(view, axis, view->data, view->dtype, &expected);
    for (int d = 0; d < view->ndim; ++d)
        if (view->shape[d] > 1 && view->strides[d] != expected.strides[d]) return false;
    return true;
}

bool may_overlap(const va_array *a, const va_array *b) {
    int64_t alo = 0, ahi = 0, blo = 0, bhi = 0;
    byte_extent(a, &alo, &ahi);
    byte_extent(b, &blo, &bhi);
    const char *pa = static_cast<const char *>(a->data), *pb = static_cast<const char *>(b->data);
    return pa + alo < pb + bhi && pb + blo < pa + ahi;
}

}  // namespace va

extern "C" int32_t va_is_c_contiguous(const va_array *a) {
    if (a == nullptr || a->ndim < 0 || a->ndim > VA_MAX_NDIM) return 0;
    for (int d = 0; d < a->ndim; ++d)
        if (a->shape[d] == 0) return 1;  // no element: any strides will do
    int64_t expected = static_cast<int64_t>(va_dtype_size(a->dtype));
    for (int d = a->ndim - 1; d >= 0; --d) {
        if (a->shape[d] != 1 && a->strides[d] != expected) return 0;
        expected *= a->shape[d];
    }
    return 1;
}
