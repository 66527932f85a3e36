/* A reduction of data on a GPU over NumPy's axis/dtype/out/keepdims: the result
 * is a DeviceArray (0-d for a full reduction) queued on the library's stream,
 * never waited for, so reductions chain on the GPU. */
#include <string.h>

#include "creation.h"
#include "elementwise.h"
#include "reductions.h"
#include "views.h"

static void extent_of(const DeviceArrayObject *x, const char **lo, const char **hi)
{
    int64_t low = 0, high = (int64_t)va_dtype_size(x->dtype);
    for (int d = 0; d < x->ndim; ++d) {
        if (x->shape[d] == 0) {
            low = high = 0;
            break;
        }
        int64_t span = (x->shape[d] - 1) * x->strides[d];
        if (span < 0) low += span; else high += span;
    }
    *lo = (const char *)x->data + low;
    *hi = (const char *)x->data + high;
}

/* Writing outputs while other blocks still read the input would clobber it. */
static int overlaps(const DeviceArrayObject *a, const DeviceArrayObject *b)
{
    const char *lo_a, *hi_a, *lo_b, *hi_b;
    extent_of(a, &lo_a, &hi_a);
    extent_of(b, &lo_b, &hi_b);
    return lo_a < hi_b && lo_b < hi_a;
}

static PyObject *reduction_name(va_op op)
{
    /* NumPy names the ufunc in its messages: add for sum, maximum for max. */
    const char *name = va_op_get(op)->name;
    static const char *const ufuncs[][2] = {
        {"sum", "add"}, {"prod", "multiply"}, {"max", "maximum"}, {"min", "minimum"}, {"mean", "add"},
    };
    for (size_t k = 0; k < sizeof(ufuncs) / sizeof(ufuncs[0]); ++k) {
        if (strcmp(name, ufuncs[k][0]) == 0) {
            return PyUnicode_FromString(ufuncs[k][1]);
        }
    }
    return PyUnicode_FromString(name);
}

static int raise_empty(va_op op)
{
    PyObject *name = reduction_name(op);
    if (name != NULL) {
        PyErr_Format(PyExc_ValueError, "zero-size array to reduction operation %U which has no identity",
                     name);
        Py_DECREF(name);
    }
    return -1;
}

/* NumPy's checks of out= against the result's shape. */
static int check_out_shape(va_op op, const DeviceArrayObject *out, int ndim, const int64_t *shape)
{
    PyObject *name = reduction_name(op);
    if (name == NULL) {
        return -1;
    }
    int rc = 0;
    if (out->ndim != ndim) {
        PyErr_Format(PyExc_ValueError,
                     "output parameter for reduction operation %U has the wrong number of dimensions: "
                     "Found %d but expected %d", name, out->ndim, ndim);
        rc = -1;
    }
    for (int d = 0; rc == 0 && d < ndim; ++d) {
        if (out->shape[d] != shape[d]) {
            PyErr_Format(PyExc_ValueError,
                         "output parameter for reduction operation %U has a non-reduction dimension "
                         "not equal to the output's dimension %d (%lld instead of %lld)",
                         name, d, (long long)out->shape[d], (long long)shape[d]);
            rc = -1;
        }
    }
    Py_DECREF(name);
    return rc;
}

/* `src` converted into `dst` (same shape), queued. */
static int convert_into(DeviceArrayObject *src, DeviceArrayObject *dst)
{
    va_array vs, vd;
    va_status st;
    devicearray_describe(src, &vs);
    devicearray_describe(dst, &vd);
    Py_BEGIN_ALLOW_THREADS
    st = va_copy_convert(dst->device, &vs, &vd);
    Py_END_ALLOW_THREADS
    if (st != VA_SUCCESS) {
        raise_status(st);
        return -1;
    }
    return 0;
}

/* NumPy's promotion of two of the supported dtypes (the library's rule). */
static va_dtype promote(va_dtype a, va_dtype b)
{
    va_dtype p = VA_DTYPE_COUNT;
    return va_promote_types(a, b, &p) == VA_SUCCESS ? p : VA_DTYPE_COUNT;
}

va_dtype reduction_dtype_for_out(va_op op, va_dtype in, va_dtype out)
{
    const va_domain domain = va_op_get(op)->domain;
    va_dtype compute, natural;
    if (domain == VA_DOMAIN_SUM) {
        if (va_op_dtypes(op, 1, &in, NULL, &compute, &natural) != VA_SUCCESS) {
            return VA_DTYPE_COUNT;
        }
        const va_dtype loop = promote(in, out);
        return loop == natural ? VA_DTYPE_COUNT : loop;
    }
    /* np.mean asks for float64 itself for bool and integers. */
    if (domain == VA_DOMAIN_MEAN && dtype_kind(in) == 'f') {
        const va_dtype loop = promote(in, out);
        return loop == in ? VA_DTYPE_COUNT : loop;
    }
    return VA_DTYPE_COUNT;
}

PyObject *reduce_device_array(va_op op, DeviceArrayObject *a, const ReduceOptions *opt)
{
    const va_op_info *info = va_op_get(op);
    DeviceArrayObject *input = NULL, *computed = NULL, *converted = NULL, *out = NULL;
    PyObject *imported = NULL, *result = NULL;
    int axes[VA_MAX_NDIM], reduced[VA_MAX_NDIM] = {0};
    int32_t axes32[VA_MAX_NDIM];
    int naxes = 0, ndim = a->ndim, rdim = 0;
    int64_t shape[VA_MAX_NDIM], count = 1;
    va_dtype compute, natural, final, from_out;
    va_status st;

    if (opt->axis == NULL || opt->axis == Py_None) {
        naxes = ndim;
        for (int d = 0; d < ndim; ++d) {
            axes[d] = d;
        }
    }
    else if (parse_axes(opt->axis, ndim, &naxes, axes) < 0) {
        return NULL;
    }
    for (int k = 0; k < naxes; ++k) {
        reduced[axes[k]] = 1;
        axes32[k] = axes[k];
        count *= a->shape[axes[k]];
    }
    for (int d = 0; d < ndim; ++d) {
        if (!reduced[d]) {
            shape[rdim++] = a->shape[d];
        }
        else if (opt->keepdims) {
            shape[rdim++] = 1;
        }
    }
    if (count == 0 && !info->has_identity) {
        raise_empty(op);
        return NULL;
    }
    if (opt->out != NULL && opt->out != Py_None) {
        if (DeviceArray_Check(opt->out)) {
            out = (DeviceArrayObject *)opt->out;
            Py_INCREF(out);
        }
        else {
            imported = interop_import(opt->out);
            if (imported == NULL) {
                goto fail;
            }
            if (imported == Py_None) {
                PyErr_Format(PyExc_TypeError, "out must be a GPU array for data on a GPU, not %.100s",
                             Py_TYPE(opt->out)->tp_name);
                goto fail;
            }
            out = (DeviceArrayObject *)imported;
            imported = NULL;
        }
        if (devicearray_check_writable(opt->out, out) < 0 || check_out_shape(op, out, rdim, shape) < 0) {
            goto fail;
        }
        /* NumPy's argmax writes its positions into out= with a cast that must be safe. */
        if (info->domain == VA_DOMAIN_INDEX && out->dtype != VA_INT64 && out->dtype != VA_INT32) {
            PyErr_Format(PyExc_TypeError,
                         "Cannot cast array data from dtype('%s') to dtype('int64') according to the rule 'safe'",
                         va_dtype_name(out->dtype));
            goto fail;
        }
        if (out->device != a->device) {
            PyErr_Format(PyExc_ValueError, "out is on GPU %d, the input on GPU %d", out->device, a->device);
            goto fail;
        }
    }
    /* dtype= (or the loop out= picks, as NumPy's) is what NumPy accumulates in and
     * returns: the input is taken in it. */
    final = opt->dtype_given ? opt->dtype : a->dtype;
    from_out = !opt->dtype_given && out != NULL ? reduction_dtype_for_out(op, a->dtype, out->dtype)
                                                : VA_DTYPE_COUNT;
    if (from_out != VA_DTYPE_COUNT) {
        final = from_out;
    }
    if (va_op_dtypes(op, 1, &final, NULL, &compute, &natural) != VA_SUCCESS) {
        va_weak strong = VA_STRONG;
        raise_no_loop(op, 1, &final, &strong);
        goto fail;
    }
    if (!opt->dtype_given && from_out == VA_DTYPE_COUNT) {
        final = natural;
    }
    if (count == 0 && info->domain == VA_DOMAIN_MEAN &&
        PyErr_WarnEx(PyExc_RuntimeWarning, "Mean of empty slice.", 1) < 0) {
        goto fail;
    }
    if (compute != a->dtype) {
        input = devicearray_astype(a, compute, a->device);
        if (input == NULL) {
            goto fail;
        }
    }
    else {
        Py_INCREF(a);
        input = a;
    }
    /* Straight into out= when nothing is left to convert and it does not overlap. */
    if (out != NULL && out->dtype == natural && final == natural && !overlaps(out, input)) {
        Py_INCREF(out);
        computed = out;
    }
    else {
        computed = devicearray_empty(a->device, natural, rdim, shape, 0);
        if (computed == NULL) {
            goto fail;
        }
    }
    {
        va_array vi, vo;
        devicearray_describe(input, &vi);
        devicearray_describe(computed, &vo);
        /* A 0-d result of our own is also kept in pinned memory: float() of it
         * then reads it with no copy (va_reduce_axes_scalar). */
        const int fresh_scalar = rdim == 0 && computed != out;
        Py_BEGIN_ALLOW_THREADS
        st = fresh_scalar ? va_reduce_axes_scalar(a->device, op, &vi, naxes, axes32, &vo)
                          : va_reduce_axes(a->device, op, &vi, naxes, axes32, &vo);
        Py_END_ALLOW_THREADS
        if (st != VA_SUCCESS) {
            raise_status(st);
            goto fail;
        }
    }
    if (computed == out) {
        goto done;
    }
    /* The natural result in dtype=, then in out='s dtype (NumPy's order of casts). */
    if (final != natural) {
        if (out != NULL && out->dtype == final) {
            Py_INCREF(out);
            converted = out;
        }
        else {
            converted = devicearray_empty(a->device, final, rdim, shape, 0);
            if (converted == NULL) {
                goto fail;
            }
        }
        if (convert_into(computed, converted) < 0) {
            goto fail;
        }
        Py_SETREF(computed, converted);
        converted = NULL;
    }
    if (out != NULL && computed != out && convert_into(computed, out) < 0) {
        goto fail;
    }
done:
    if (out != NULL) {
        if (opt->out != (PyObject *)out && interop_after_write(opt->out, a->device) < 0) {
            goto fail;
        }
        Py_INCREF(opt->out);
        result = opt->out;
    }
    else {
        Py_INCREF(computed);
        result = (PyObject *)computed;
    }
fail:
    Py_XDECREF(imported);
    Py_XDECREF(input);
    Py_XDECREF(computed);
    Py_XDECREF(converted);
    Py_XDECREF(out);
    return result;
}
