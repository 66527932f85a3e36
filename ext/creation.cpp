/* Creation functions. Every argument is checked (TypeError, ValueError as
 * NumPy raises them) before the first CUDA call; values follow NumPy's
 * definitions (vectorAdd/fill.cu computes arange and linspace as NumPy does). */
#include <math.h>
#include <string.h>

#include "checked.h"
#include "creation.h"
#include "indexing.h"

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyObject *fail_status(va_status st, DeviceArrayObject *array)
{
    Py_XDECREF(array);
    return raise_status(st);
}

static int check_order(PyObject *order)
{
    if (order == NULL || order == Py_None) {
        return 0;
    }
    if (PyUnicode_Check(order)) {
        const char *s = PyUnicode_AsUTF8(order);
        if (s == NULL) {
            return -1;
        }
        if (strcmp(s, "C") == 0 || strcmp(s, "K") == 0 || strcmp(s, "A") == 0) {
            return 0;
        }
    }
    PyErr_SetString(PyExc_ValueError, "GPU arrays are made in C order only (order='C')");
    return -1;
}

/* empty / zeros / ones / full share this: a new array, then filled (or not). */
typedef enum { FILL_NONE, FILL_ZERO, FILL_ONE, FILL_VALUE } FillKind;

static PyObject *make_filled(int ndim, const int64_t *shape, va_dtype dtype, int device, FillKind kind,
                             PyObject *value, const char *what)
{
    unsigned char packed[16];
    int broadcast = 0; /* an array fill value, assigned as d[...] = value */
    int64_t count = 0;
    if (checked_array_size(ndim, shape, (int64_t)va_dtype_size(dtype), &count) < 0) {
        return NULL; /* NumPy's "array is too big" before any CUDA call */
    }
    if (kind == FILL_VALUE && (broadcast = cast_scalar(value, dtype, packed)) < 0) {
        return NULL;
    }
    if (broadcast) { /* the value's shape must fit before anything is allocated */
        PyArrayObject *host = (PyArrayObject *)PyArray_FromAny(value, NULL, 0, 0, 0, NULL);
        if (host == NULL) {
            return NULL;
        }
        int64_t vshape[VA_MAX_NDIM], strides[VA_MAX_NDIM];
        int vnd = PyArray_NDIM(host) < VA_MAX_NDIM ? PyArray_NDIM(host) : VA_MAX_NDIM;
        for (int d = 0; d < vnd; ++d) {
            vshape[d] = PyArray_DIM(host, d);
            strides[d] = 0;
        }
        Py_DECREF(host);
        if (broadcast_value(vnd, vshape, strides, ndim, shape, strides) < 0) {
            return NULL;
        }
    }
    if (kind == FILL_ONE) {
        PyObject *one = PyLong_FromLong(1);
        int st = one == NULL ? -1 : pack_scalar(one, dtype, packed);
        Py_XDECREF(one);
        if (st < 0) {
            return NULL;
        }
    }
    if (kind == FILL_ZERO) {
        memset(packed, 0, sizeof(packed));
    }
    if (require_cuda(what) < 0) {
        return NULL;
    }
    DeviceArrayObject *result = devicearray_empty(device, dtype, ndim, shape, 0);
    if (result == NULL || kind == FILL_NONE) {
        return (PyObject *)result;
    }
    if (broadcast) {
        ViewGeometry whole;
        geometry_of(result, &whole);
        if (assign_to_view(result, &whole, value) < 0) {
            Py_DECREF(result);
            return NULL;
        }
        return (PyObject *)result;
    }
    va_array view;
    devicearray_describe(result, &view);
    va_status st = va_fill(device, &view, packed);
    if (st != VA_SUCCESS) {
        return fail_status(st, result);
    }
    return (PyObject *)result;
}

static PyObject *create(const char *fname, FillKind kind, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames)
{
    static const char *const names[] = {"shape", "dtype", "order", "device"};
    static const char *const full_names[] = {"shape", "fill_value", "dtype", "order", "device"};
    PyObject *values[5];
    PyObject *fill = NULL;
    int ndim = 0, device = 0, given = 0;
    int64_t shape[VA_MAX_NDIM];
    va_dtype dtype = VA_FLOAT64;
    if (kind == FILL_VALUE) {
        if (parse_arguments(fname, args, nargs, kwnames, full_names, 5, 2, 4, values) < 0) {
            return NULL;
        }
        fill = values[1];
        memmove(values + 1, values + 2, 3 * sizeof(PyObject *));
    }
    else if (parse_arguments(fname, args, nargs, kwnames, names, 4, 1, 3, values) < 0) {
        return NULL;
    }
    if (parse_shape(values[0], 0, &ndim, shape) < 0 || parse_dtype(values[1], &dtype, &given) < 0 ||
        check_order(values[2]) < 0 || parse_gpu_index(values[3], &device) < 0) {
        return NULL;
    }
    if (kind == FILL_VALUE && !given) {
        /* NumPy's full: the dtype of array(fill_value) */
        PyArray_Descr *descr = PyArray_DescrFromObject(fill, NULL);
        if (descr == NULL) {
            return NULL;
        }
        int ok = va_dtype_from_descr(descr, &dtype);
        if (ok < 0) {
            raise_unsupported_dtype((PyObject *)descr);
        }
        Py_DECREF(descr);
        if (ok < 0) {
            return NULL;
        }
    }
    return make_filled(ndim, shape, dtype, device, kind, fill, fname);
}

static PyObject *mm_empty(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return create("empty", FILL_NONE, args, nargs, kwnames);
}
static PyObject *mm_zeros(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return create("zeros", FILL_ZERO, args, nargs, kwnames);
}
static PyObject *mm_ones(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return create("ones", FILL_ONE, args, nargs, kwnames);
}
static PyObject *mm_full(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return create("full", FILL_VALUE, args, nargs, kwnames);
}

/* The shape and dtype of a prototype: a DeviceArray's own, else NumPy's view of it. */
static int prototype_of(PyObject *proto, int *ndim, int64_t *shape, va_dtype *dtype, int *device)
{
    if (DeviceArray_Check(proto)) {
        DeviceArrayObject *a = (DeviceArrayObject *)proto;
        *ndim = a->ndim;
        memcpy(shape, a->shape, sizeof(int64_t) * a->ndim);
        *dtype = a->dtype;
        *device = a->device;
        return 0;
    }
    PyObject *gpu = interop_import(proto);
    if (gpu == NULL) {
        return -1;
    }
    if (gpu != Py_None) {
        int st = prototype_of(gpu, ndim, shape, dtype, device);
        Py_DECREF(gpu);
        return st;
    }
    Py_DECREF(gpu);
    PyArrayObject *host = (PyArrayObject *)PyArray_FromAny(proto, NULL, 0, 0, 0, NULL);
    if (host == NULL) {
        return -1;
    }
    int st = -1;
    if (PyArray_NDIM(host) > VA_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported on the GPU", VA_MAX_NDIM);
    }
    else if (va_dtype_from_descr(PyArray_DESCR(host), dtype) < 0) {
        raise_unsupported_dtype((PyObject *)PyArray_DESCR(host));
    }
    else {
        *ndim = PyArray_NDIM(host);
        for (int d = 0; d < *ndim; ++d) {
            shape[d] = PyArray_DIM(host, d);
        }
        *device = 0;
        st = 0;
    }
    Py_DECREF(host);
    return st;
}

static PyObject *create_like(const char *fname, FillKind kind, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    static const char *const names[] = {"prototype", "dtype", "order", "subok", "shape", "device"};
    static const char *const full_names[] = {"a", "fill_value", "dtype", "order", "subok", "shape",
                                             "device"};
    PyObject *values[7];
    PyObject *fill = NULL;
    int ndim = 0, device = 0, given = 0;
    int64_t shape[VA_MAX_NDIM];
    va_dtype dtype = VA_FLOAT64, own_dtype = VA_FLOAT64;
    if (kind == FILL_VALUE) {
        if (parse_arguments(fname, args, nargs, kwnames, full_names, 7, 2, 6, values) < 0) {
            return NULL;
        }
        fill = values[1];
        memmove(values + 1, values + 2, 5 * sizeof(PyObject *));
    }
    else if (parse_arguments(fname, args, nargs, kwnames, names, 6, 1, 5, values) < 0) {
        return NULL;
    }
    if (prototype_of(values[0], &ndim, shape, &own_dtype, &device) < 0 ||
        parse_dtype(values[1], &dtype, &given) < 0 || check_order(values[2]) < 0) {
        return NULL;
    }
    if (!given) {
        dtype = own_dtype;
    }
    if (values[4] != NULL && values[4] != Py_None && parse_shape(values[4], 0, &ndim, shape) < 0) {
        return NULL;
    }
    if (values[5] != NULL && values[5] != Py_None && parse_gpu_index(values[5], &device) < 0) {
        return NULL;
    }
    return make_filled(ndim, shape, dtype, device, kind, fill, fname);
}

static PyObject *mm_empty_like(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return create_like("empty_like", FILL_NONE, args, nargs, kwnames);
}
static PyObject *mm_zeros_like(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return create_like("zeros_like", FILL_ZERO, args, nargs, kwnames);
}
static PyObject *mm_ones_like(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return create_like("ones_like", FILL_ONE, args, nargs, kwnames);
}
static PyObject *mm_full_like(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return create_like("full_like", FILL_VALUE, args, nargs, kwnames);
}

/* ---- arange ---- */

/* NumPy's arange (PyArray_ArangeObj): the dtype from the arguments (at least
 * the default integer), the length ceil((stop - start) / step) in Python
 * arithmetic, elements 0 and 1 set from start and start + step. */
static PyObject *mm_arange(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"start", "stop", "step", "dtype", "device"};
    PyObject *values[5];
    PyObject *start = NULL, *stop = NULL, *step = NULL, *next = NULL, *span = NULL, *ratio = NULL;
    PyArray_Descr *descr = NULL;
    PyArrayObject *firsts = NULL;
    PyObject *result = NULL;
    int device = 0, given = 0;
    va_dtype dtype = VA_INT64;
    int64_t length = 0;
    if (parse_arguments("arange", args, nargs, kwnames, names, 5, 1, 4, values) < 0 ||
        parse_dtype(values[3], &dtype, &given) < 0 || parse_gpu_index(values[4], &device) < 0) {
        return NULL;
    }
    if (values[1] == NULL || values[1] == Py_None) {
        start = PyLong_FromLong(0);
        stop = values[0];
        Py_INCREF(stop);
    }
    else {
        start = values[0];
        Py_INCREF(start);
        stop = values[1];
        Py_INCREF(stop);
    }
    if (values[2] == NULL || values[2] == Py_None) {
        step = PyLong_FromLong(1);
    }
    else {
        step = values[2];
        Py_INCREF(step);
    }
    if (start == NULL || step == NULL) {
        goto fail;
    }
    if (!given) {
        PyArray_Descr *d = PyArray_DescrFromType(NPY_INTP);
        PyArray_Descr *d2 = d == NULL ? NULL : PyArray_DescrFromObject(start, d);
        Py_XDECREF(d);
        PyArray_Descr *d3 = d2 == NULL ? NULL : PyArray_DescrFromObject(stop, d2);
        Py_XDECREF(d2);
        descr = d3 == NULL ? NULL : PyArray_DescrFromObject(step, d3);
        Py_XDECREF(d3);
        if (descr == NULL) {
            goto fail;
        }
        if (va_dtype_from_descr(descr, &dtype) < 0) {
            raise_unsupported_dtype((PyObject *)descr);
            goto fail;
        }
    }
    else {
        descr = descr_from_va(dtype);
        if (descr == NULL) {
            goto fail;
        }
    }
    next = PyNumber_Add(start, step);
    span = next == NULL ? NULL : PyNumber_Subtract(stop, start);
    ratio = span == NULL ? NULL : PyNumber_TrueDivide(span, step);
    if (ratio == NULL) {
        goto fail;
    }
    {
        double r = PyFloat_AsDouble(ratio);
        if (r == -1.0 && PyErr_Occurred()) {
            goto fail;
        }
        if (isnan(r)) {
            PyErr_SetString(PyExc_ValueError, "arange: cannot compute length");
            goto fail;
        }
        r = ceil(r);
        if (r > 9.2e18) {
            PyErr_SetString(PyExc_ValueError, "Maximum allowed size exceeded");
            goto fail;
        }
        length = r > 0 ? (int64_t)r : 0;
    }
    {
        npy_intp two = 2;
        Py_INCREF(descr);
        firsts = (PyArrayObject *)PyArray_Zeros(1, &two, descr, 0);
        if (firsts == NULL) {
            goto fail;
        }
        if (length > 0 && PyArray_SETITEM(firsts, (char *)PyArray_DATA(firsts), start) < 0) {
            goto fail;
        }
        if (length > 1 && PyArray_SETITEM(firsts, (char *)PyArray_GETPTR1(firsts, 1), next) < 0) {
            goto fail;
        }
    }
    if (checked_array_size(1, &length, (int64_t)va_dtype_size(dtype), &length) < 0 ||
        require_cuda("arange") < 0) {
        goto fail;
    }
    {
        DeviceArrayObject *out = devicearray_empty(device, dtype, 1, &length, 0);
        if (out == NULL) {
            goto fail;
        }
        va_array view;
        devicearray_describe(out, &view);
        size_t size = va_dtype_size(dtype);
        va_status st = va_arange(device, &view, PyArray_DATA(firsts), (char *)PyArray_DATA(firsts) + size);
        if (st != VA_SUCCESS) {
            fail_status(st, out);
            goto fail;
        }
        result = (PyObject *)out;
    }
fail:
    Py_XDECREF(start);
    Py_XDECREF(stop);
    Py_XDECREF(step);
    Py_XDECREF(next);
    Py_XDECREF(span);
    Py_XDECREF(ratio);
    Py_XDECREF(descr);
    Py_XDECREF(firsts);
    return result;
}

/* ---- linspace ---- */

/* What a scalar start or stop asks linspace to compute in: float32 only when it
 * is float32 or complex64 (NumPy's result_type with a Python float), complex
 * when it is complex. */
typedef struct {
    int float32;
    int float64;
    int complex;
} LinspaceKind;

/* A scalar start or stop as its two parts (imag 0 for a real number). */
static int linspace_end(PyObject *obj, double *real, double *imag, LinspaceKind *kind)
{
    Py_complex z;
    if (PyArray_Check(obj) && PyArray_NDIM((PyArrayObject *)obj) != 0) {
        PyErr_SetString(PyExc_TypeError, "linspace on the GPU takes scalar start and stop");
        return -1;
    }
    if (PyArray_IsScalar(obj, Generic) || PyArray_Check(obj)) {
        PyArray_Descr *d = PyArray_DescrFromObject(obj, NULL);
        if (d == NULL) {
            return -1;
        }
        int type = d->type_num;
        int ok = PyDataType_ISINTEGER(d) || PyDataType_ISBOOL(d) || type == NPY_FLOAT32 || type == NPY_FLOAT64 ||
                 type == NPY_COMPLEX64 || type == NPY_COMPLEX128;
        Py_DECREF(d);
        if (!ok) {
            PyErr_SetString(PyExc_TypeError, "linspace on the GPU computes in float32, float64, complex64 or complex128");
            return -1;
        }
        /* float64, complex128 and the integers compute in double precision */
        if (type == NPY_FLOAT32 || type == NPY_COMPLEX64) {
            kind->float32 = 1;
        }
        else {
            kind->float64 = 1;
        }
        kind->complex |= type == NPY_COMPLEX64 || type == NPY_COMPLEX128;
    }
    else if (PyComplex_Check(obj)) {
        kind->complex = 1;
    }
    else if (!PyLong_Check(obj) && !PyFloat_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "linspace: start and stop must be numbers, not %.100s", Py_TYPE(obj)->tp_name);
        return -1;
    }
    z = PyComplex_AsCComplex(obj);
    if (z.real == -1.0 && PyErr_Occurred()) {
        return -1;
    }
    *real = z.real;
    *imag = z.imag;
    return 0;
}

static PyObject *mm_linspace(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"start", "stop", "num", "endpoint", "retstep", "dtype", "axis",
                                        "device"};
    PyObject *values[8];
    int device = 0, given = 0, endpoint = 1, retstep = 0, axis = 0;
    int64_t num = 50;
    double start[2] = {0, 0}, stop[2] = {0, 0};
    LinspaceKind kind = {0, 0, 0};
    va_dtype dtype = VA_FLOAT64, compute;
    if (parse_arguments("linspace", args, nargs, kwnames, names, 8, 2, 7, values) < 0 ||
        linspace_end(values[0], &start[0], &start[1], &kind) < 0 ||
        linspace_end(values[1], &stop[0], &stop[1], &kind) < 0 || parse_dtype(values[5], &dtype, &given) < 0 ||
        parse_gpu_index(values[7], &device) < 0) {
        return NULL;
    }
    if (values[2] != NULL) {
        if (PyFloat_Check(values[2]) || !PyIndex_Check(values[2])) {
            PyErr_Format(PyExc_TypeError, "'%.100s' object cannot be interpreted as an integer",
                         Py_TYPE(values[2])->tp_name);
            return NULL;
        }
        num = PyNumber_AsSsize_t(values[2], PyExc_OverflowError);
        if (num == -1 && PyErr_Occurred()) {
            return NULL;
        }
    }
    if (num < 0) {
        PyErr_Format(PyExc_ValueError, "Number of samples, %lld, must be non-negative.", (long long)num);
        return NULL;
    }
    if ((values[3] != NULL && (endpoint = PyObject_IsTrue(values[3])) < 0) ||
        (values[4] != NULL && (retstep = PyObject_IsTrue(values[4])) < 0)) {
        return NULL;
    }
    if (values[6] != NULL) {
        int64_t a = 0;
        if (PyBool_Check(values[6]) || !PyIndex_Check(values[6])) {
            PyErr_SetString(PyExc_TypeError, "axis must be an integer");
            return NULL;
        }
        a = PyNumber_AsSsize_t(values[6], PyExc_OverflowError);
        if ((a == -1 && PyErr_Occurred()) || normalize_axis(a, 1, &axis) < 0) {
            return NULL;
        }
    }
    /* NumPy computes in result_type(start, stop, float): float32 only when an
     * end is float32 (or complex64) and neither is a float64 or integer NumPy value;
     * complex when either end is (real ends into a complex dtype: the real linspace,
     * cast). */
    compute = (kind.float32 && !kind.float64) ? VA_FLOAT32 : VA_FLOAT64;
    if (given && kind.complex && dtype != VA_COMPLEX64 && dtype != VA_COMPLEX128) {
        /* NumPy drops the imaginary part with a ComplexWarning; the array API leaves it open */
        PyErr_SetString(PyExc_TypeError, "linspace: complex start or stop needs a complex dtype");
        return NULL;
    }
    /* the computing type: complex of `compute`'s parts for complex ends */
    const va_dtype computed = kind.complex ? (compute == VA_FLOAT32 ? VA_COMPLEX64 : VA_COMPLEX128) : compute;
    if (!given) {
        dtype = computed;
    }
    if (checked_array_size(1, &num, (int64_t)va_dtype_size(dtype), &num) < 0 || require_cuda("linspace") < 0) {
        return NULL;
    }
    DeviceArrayObject *out = devicearray_empty(device, dtype, 1, &num, 0);
    if (out == NULL) {
        return NULL;
    }
    va_array view;
    devicearray_describe(out, &view);
    va_status st = kind.complex ? va_linspace_complex(device, &view, compute, start, stop, endpoint)
                                : va_linspace(device, &view, compute, start[0], stop[0], endpoint);
    if (st != VA_SUCCESS) {
        return fail_status(st, out);
    }
    if (!retstep) {
        return (PyObject *)out;
    }
    int64_t div = endpoint ? num - 1 : num;
    PyObject *step = NULL;
    if (div > 0) {
        /* NumPy's step: (stop - start) / div in the computing type, a scalar of the
         * result's kind (complex: the parts' steps) */
        double parts[2];
        float parts32[2];
        for (int k = 0; k < 2; ++k) {
            /* complex: NumPy's quotient multiplies by the reciprocal (va_linspace_complex) */
            parts32[k] = kind.complex ? ((float)stop[k] - (float)start[k]) * (1.0f / (float)div)
                                      : ((float)stop[k] - (float)start[k]) / (float)div;
            parts[k] = kind.complex ? (stop[k] - start[k]) * (1.0 / (double)div) : (stop[k] - start[k]) / (double)div;
        }
        PyArray_Descr *cd = descr_from_va(computed);
        if (cd != NULL) {
            /* a complex scalar's memory is its two parts side by side */
            step = PyArray_Scalar(compute == VA_FLOAT32 ? (void *)parts32 : (void *)parts, cd, NULL);
            Py_DECREF(cd);
        }
    }
    else {
        step = PyFloat_FromDouble(NAN);
    }
    if (step == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    return Py_BuildValue("(NN)", (PyObject *)out, step);
}

/* ---- eye ---- */

static int int_argument(PyObject *obj, const char *what, int64_t *out)
{
    if (PyBool_Check(obj) || PyFloat_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an integer, not %.100s", what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t v = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    *out = v;
    return 0;
}

static PyObject *mm_eye(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"N", "M", "k", "dtype", "order", "device"};
    PyObject *values[6];
    int device = 0, given = 0;
    int64_t shape[2] = {0, 0}, k = 0;
    va_dtype dtype = VA_FLOAT64;
    if (parse_arguments("eye", args, nargs, kwnames, names, 6, 1, 5, values) < 0 ||
        int_argument(values[0], "N", &shape[0]) < 0 ||
        parse_dtype(values[3], &dtype, &given) < 0 || check_order(values[4]) < 0 ||
        parse_gpu_index(values[5], &device) < 0) {
        return NULL;
    }
    shape[1] = shape[0];
    if ((values[1] != NULL && values[1] != Py_None && int_argument(values[1], "M", &shape[1]) < 0) ||
        (values[2] != NULL && int_argument(values[2], "k", &k) < 0)) {
        return NULL;
    }
    int64_t count = 0;
    if (checked_array_size(2, shape, (int64_t)va_dtype_size(dtype), &count) < 0 || require_cuda("eye") < 0) {
        return NULL;
    }
    DeviceArrayObject *out = devicearray_empty(device, dtype, 2, shape, 0);
    if (out == NULL) {
        return NULL;
    }
    va_array view;
    devicearray_describe(out, &view);
    va_status st = va_eye(device, &view, k);
    if (st != VA_SUCCESS) {
        return fail_status(st, out);
    }
    return (PyObject *)out;
}

/* ---- asarray ---- */

PyArrayObject *host_array_like(PyObject *obj, const va_dtype *dtype)
{
    PyArray_Descr *descr = NULL;
    if (dtype != NULL && (descr = descr_from_va(*dtype)) == NULL) {
        return NULL;
    }
    /* NumPy's asarray(x, dtype): casting as NumPy allows it (descr is stolen) */
    PyArrayObject *host = (PyArrayObject *)PyArray_FromAny(obj, descr, 0, 0,
                                                           dtype != NULL ? NPY_ARRAY_FORCECAST : 0, NULL);
    if (host == NULL) {
        return NULL;
    }
    va_dtype own;
    if (va_dtype_from_descr(PyArray_DESCR(host), &own) < 0) {
        raise_unsupported_dtype((PyObject *)PyArray_DESCR(host));
        Py_DECREF(host);
        return NULL;
    }
    if (PyArray_NDIM(host) > VA_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported on the GPU", VA_MAX_NDIM);
        Py_DECREF(host);
        return NULL;
    }
    return host;
}

DeviceArrayObject *devicearray_astype(DeviceArrayObject *array, va_dtype dtype, int device)
{
    if (device != array->device) {
        /* another GPU: through the host (a peer copy is left for later) */
        PyArrayObject *host = (PyArrayObject *)devicearray_to_host(array);
        if (host == NULL) {
            return NULL;
        }
        DeviceArrayObject *moved = devicearray_from_host(host, device, 0);
        Py_DECREF(host);
        if (moved == NULL || moved->dtype == dtype) {
            return moved;
        }
        DeviceArrayObject *cast = devicearray_astype(moved, dtype, device);
        Py_DECREF(moved);
        return cast;
    }
    DeviceArrayObject *out = devicearray_empty(device, dtype, array->ndim, array->shape, 0);
    if (out == NULL) {
        return NULL;
    }
    va_array src, dst;
    devicearray_describe(array, &src);
    devicearray_describe(out, &dst);
    va_status st = va_copy_convert(device, &src, &dst);
    if (st != VA_SUCCESS) {
        return (DeviceArrayObject *)fail_status(st, out);
    }
    return out;
}

static PyObject *mm_asarray(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"x", "dtype", "device", "copy"};
    PyObject *values[4];
    int device = 0, given = 0, copy = -1;
    va_dtype dtype = VA_FLOAT64;
    if (parse_arguments("asarray", args, nargs, kwnames, names, 4, 1, 2, values) < 0 ||
        parse_dtype(values[1], &dtype, &given) < 0 || parse_gpu_index(values[2], &device) < 0) {
        return NULL;
    }
    if (values[3] != NULL && values[3] != Py_None && (copy = PyObject_IsTrue(values[3])) < 0) {
        return NULL;
    }
    int device_given = values[2] != NULL && values[2] != Py_None;
    PyObject *gpu = NULL;
    if (DeviceArray_Check(values[0])) {
        Py_INCREF(values[0]);
        gpu = values[0];
    }
    else if ((gpu = interop_import(values[0])) == NULL) {
        return NULL;
    }
    if (gpu != Py_None) {
        DeviceArrayObject *a = (DeviceArrayObject *)gpu;
        int target = device_given ? device : a->device;
        va_dtype want = given ? dtype : a->dtype;
        if (target == a->device && want == a->dtype && copy != 1) {
            return gpu; /* zero copy */
        }
        if (copy == 0) {
            Py_DECREF(gpu);
            PyErr_SetString(PyExc_ValueError, "asarray(copy=False): a copy is needed for this dtype or device");
            return NULL;
        }
        PyObject *result = (PyObject *)devicearray_astype(a, want, target);
        Py_DECREF(gpu);
        return result;
    }
    Py_DECREF(gpu);
    if (copy == 0) {
        PyErr_SetString(PyExc_ValueError, "asarray(copy=False): host data must be copied to the GPU");
        return NULL;
    }
    PyArrayObject *host = host_array_like(values[0], given ? &dtype : NULL);
    if (host == NULL) {
        return NULL;
    }
    if (require_cuda("asarray") < 0) {
        Py_DECREF(host);
        return NULL;
    }
    PyObject *result = (PyObject *)devicearray_from_host(host, device, 0);
    Py_DECREF(host);
    return result;
}

static PyMethodDef creation_functions[] = {
    {"empty", FASTCALL(mm_empty),
     "empty(shape, dtype=float64, order='C', device=None)\n--\n\nA new uninitialised array on GPU `device`."},
    {"zeros", FASTCALL(mm_zeros), "zeros(shape, dtype=float64, order='C', device=None)\n--\n\nnumpy.zeros on a GPU."},
    {"ones", FASTCALL(mm_ones), "ones(shape, dtype=float64, order='C', device=None)\n--\n\nnumpy.ones on a GPU."},
    {"full", FASTCALL(mm_full),
     "full(shape, fill_value, dtype=None, order='C', device=None)\n--\n\nnumpy.full on a GPU."},
    {"empty_like", FASTCALL(mm_empty_like),
     "empty_like(prototype, dtype=None, order='K', subok=True, shape=None, device=None)\n--\n\n"
     "numpy.empty_like on a GPU (the prototype's device by default)."},
    {"zeros_like", FASTCALL(mm_zeros_like),
     "zeros_like(prototype, dtype=None, order='K', subok=True, shape=None, device=None)\n--\n\n"
     "numpy.zeros_like on a GPU."},
    {"ones_like", FASTCALL(mm_ones_like),
     "ones_like(prototype, dtype=None, order='K', subok=True, shape=None, device=None)\n--\n\n"
     "numpy.ones_like on a GPU."},
    {"full_like", FASTCALL(mm_full_like),
     "full_like(a, fill_value, dtype=None, order='K', subok=True, shape=None, device=None)\n--\n\n"
     "numpy.full_like on a GPU."},
    {"arange", FASTCALL(mm_arange),
     "arange(start, stop=None, step=None, dtype=None, device=None)\n--\n\n"
     "numpy.arange on a GPU: the same dtype, length and values."},
    {"linspace", FASTCALL(mm_linspace),
     "linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, device=None)\n--\n\n"
     "numpy.linspace on a GPU (scalar start and stop): the same values."},
    {"eye", FASTCALL(mm_eye),
     "eye(N, M=None, k=0, dtype=float64, order='C', device=None)\n--\n\nnumpy.eye on a GPU."},
    {"asarray", FASTCALL(mm_asarray),
     "asarray(x, dtype=None, device=None, copy=None)\n--\n\nx as a DeviceArray: GPU arrays (DeviceArray, "
     "CuPy, PyTorch, ...) as zero-copy views when dtype and device already match, else converted or moved; "
     "host data copied to GPU `device` (0 by default)."},
    {NULL, NULL, 0, NULL},
};

int creation_init(PyObject *module)
{
    return PyModule_AddFunctions(module, creation_functions);
}
