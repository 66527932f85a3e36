// Shapes and strides on the host side: validation, merging dimensions that are
// laid out as one, and the offsets kernels use to walk an n-d view.
#pragma once

#include <cstdint>

#include "vectorAdd.h"

namespace va {

// Up to kMaxViews views of one shape walked together (an output and its inputs).
constexpr int kMaxViews = VA_MAX_INPUTS + 1;
struct Walk {
    int32_t ndim;
    int64_t shape[VA_MAX_NDIM];
    int64_t strides[kMaxViews][VA_MAX_NDIM];  // bytes
};

// Checks ndim, shape (no negatives), a known dtype and a non-NULL pointer when
// the view is not empty. Returns the element count in *count.
va_status validate(const va_array *a, int64_t *count);
// validate without the pointer: the view of memory not yet allocated.
va_status validate_shape(const va_array *a, int64_t *count);

// True when `a` and `b` have the same ndim and shape.
bool same_shape(const va_array *a, const va_array *b);

// Fills `walk` with the views' common shape and strides, dropping length-1
// dimensions and merging neighbours that step as one in every view.
void make_walk(const va_array *const *views, int nviews, Walk *walk);

// The byte range [lo, hi) a view touches, relative to its data pointer.
void byte_extent(const va_array *a, int64_t *lo, int64_t *hi);
// Whether two views may share bytes (their byte extents meet).
bool may_overlap(const va_array *a, const va_array *b);

// A view of `data` with `a`'s shape and `dtype` whose elements lie contiguous in
// C order once `axis` is moved last: the layout sorts and scans work in (each
// line along the axis one run). Sizes are those of an already validated `a`.
void axis_last_view(const va_array *a, int axis, void *data, va_dtype dtype, va_array *view);

// Whether `view` already has the layout axis_last_view gives (length-1 dims aside).
bool is_axis_last(const va_array *view, int axis);

// Offset in bytes of flat (C-order) element `index` along view `v` of `walk`.
__host__ __device__ inline int64_t walk_offset(const Walk &walk, int v, int64_t index) {
    int64_t offset = 0;
    for (int d = walk.ndim - 1; d >= 0; --d) {
        int64_t extent = walk.shape[d];
        int64_t i = index % extent;
        index /= extent;
        offset += i * walk.strides[v][d];
    }
    return offset;
}

}  // namespace va
