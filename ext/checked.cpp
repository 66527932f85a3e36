/* Checked arithmetic for sizes (see checked.h): one place for the overflow rules. */
#include "checked.h"

int raise_too_big(void)
{
    PyErr_SetString(PyExc_ValueError,
                    "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.");
    return -1;
}

int checked_count(int ndim, const int64_t *dims, int64_t *count)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) {
        if (dims[d] < 0 || checked_mul(n, dims[d], &n)) {
            return 1;
        }
    }
    *count = n;
    return 0;
}

int checked_array_size(int ndim, const int64_t *dims, int64_t itemsize, int64_t *count)
{
    int64_t nbytes = itemsize, n = 1;
    for (int d = 0; d < ndim; ++d) {
        if (dims[d] < 0) {
            PyErr_SetString(PyExc_ValueError, "negative dimensions are not allowed");
            return -1;
        }
    }
    for (int d = 0; d < ndim; ++d) {
        if (dims[d] == 0) {
            n = 0;
            continue;
        }
        if (checked_mul(nbytes, dims[d], &nbytes)) {
            return raise_too_big();
        }
        if (n != 0) {
            n *= dims[d]; /* cannot wrap: n * itemsize <= nbytes fits */
        }
    }
    *count = n;
    return 0;
}

int checked_view_extent(int ndim, const int64_t *dims, const int64_t *strides, int64_t *low,
                        int64_t *high)
{
    int64_t lo = 0, hi = 0;
    for (int d = 0; d < ndim; ++d) {
        if (dims[d] == 0) {
            *low = 0;
            *high = 0;
            return 0;
        }
    }
    for (int d = 0; d < ndim; ++d) {
        int64_t reach = 0;
        if (checked_mul(dims[d] - 1, strides[d], &reach) ||
            (reach < 0 ? checked_add(lo, reach, &lo) : checked_add(hi, reach, &hi))) {
            return raise_too_big();
        }
    }
    if (lo == INT64_MIN) {
        /* reversed (x[::-1]) this reach would be 2**63: keep the range symmetric */
        return raise_too_big();
    }
    *low = lo;
    *high = hi;
    return 0;
}

void checked_c_strides(int ndim, const int64_t *dims, int64_t itemsize, int64_t *strides)
{
    int64_t stride = itemsize;
    for (int d = ndim - 1; d >= 0; --d) {
        strides[d] = stride;
        stride *= dims[d] > 0 ? dims[d] : 1;
    }
}
