/* Checked arithmetic for element counts, byte counts, strides and offsets.
 * Every place of the extension that builds a shape or allocates goes through
 * these, so that no product or sum of sizes can wrap into a small number that
 * a kernel would then trust (issue 22). The errors are NumPy's own. */
#ifndef MYMODULE_CHECKED_H
#define MYMODULE_CHECKED_H

#include "common.h"

/* a * b and a + b into *out: 0, or 1 when int64 cannot hold it (nothing raised). */
static inline int checked_mul(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_mul_overflow(a, b, out) ? 1 : 0;
}
static inline int checked_add(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_add_overflow(a, b, out) ? 1 : 0;
}

/* The element count of dims[0..ndim): 0 and *count set, or 1 when a dimension
 * is negative or the product overflows (nothing raised). */
int checked_count(int ndim, const int64_t *dims, int64_t *count);

/* NumPy's rule for a new array (PyArray_NewFromDescr): no negative dimension
 * (ValueError "negative dimensions are not allowed"), and the product of the
 * non-zero dimensions times `itemsize` fits in int64 (ValueError "array is too
 * big; ..."; zero dimensions are skipped, as NumPy does, so (0, 2**62, 2**62) is
 * refused too). 0 and *count (the element count) set, or -1 with the error. */
int checked_array_size(int ndim, const int64_t *dims, int64_t itemsize, int64_t *count);

/* The byte offsets [*low, *high] from a view's first element that its elements
 * start at (negative strides reach below it); 0, or -1 with ValueError "array is
 * too big; ..." when a stride times a dimension or their sum overflows. An
 * empty view touches nothing (both 0). */
int checked_view_extent(int ndim, const int64_t *dims, const int64_t *strides, int64_t *low,
                        int64_t *high);

/* The C-order byte strides of dims with `itemsize` (length-0 dimensions step
 * as length 1, as NumPy's); the caller has checked the size already. */
void checked_c_strides(int ndim, const int64_t *dims, int64_t itemsize, int64_t *strides);

/* ValueError "array is too big; `arr.size * arr.dtype.itemsize` is larger than
 * the maximum possible size." (NumPy's words); returns -1. */
int raise_too_big(void);

#endif
