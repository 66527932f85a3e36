/* Elementwise operations from Python objects: choosing where the work runs (the
 * CPU, the GPU for host data, the GPU for device data) and carrying it out, for
 * any operation of the op table (its nparams scalars, then its nin arrays). */
#include <string.h>

#include "elementwise.h"
#include "references.h"
#include "shapes.h"

typedef struct {
    va_op op;
    const va_op_info *info;
    int nparams, nin;
    double params[VA_MAX_PARAMS];
    Operand in[VA_MAX_INPUTS];
    va_dtype compute, result;
} Call;

static void call_clear(Call *c)
{
    for (int k = 0; k < c->nin; ++k) {
        operand_clear(&c->in[k]);
    }
}

/* Why the operation has no loop for these types, by its domain: the compiler asks
 * every new domain for its reason. */
static void no_loop_reason(const va_op_info *info, char *reason, size_t size)
{
    switch (info->domain) {
        case VA_DOMAIN_INTEGER:
            PyOS_snprintf(reason, size, "it takes bool and integers only, as %s", info->reference);
            return;
        case VA_DOMAIN_SHIFT:
            PyOS_snprintf(reason, size, "it takes bool and integers only, as %s", info->reference);
            return;
        case VA_DOMAIN_NUMBER:
            PyOS_snprintf(reason, size, "it takes numbers, not bool alone, as %s", info->reference);
            return;
        case VA_DOMAIN_ALL: case VA_DOMAIN_ARITHMETIC: case VA_DOMAIN_FLOAT: case VA_DOMAIN_TRUE_DIVIDE:
        case VA_DOMAIN_SUM: case VA_DOMAIN_SAME: case VA_DOMAIN_FIXED: case VA_DOMAIN_MEAN:
        case VA_DOMAIN_INDEX: case VA_DOMAIN_LOGICAL: case VA_DOMAIN_COUNT: case VA_DOMAIN_MAX_ENUM:
            break;
    }
    PyOS_snprintf(reason, size, "the result would not be one of %s", supported_dtypes_or());
}

PyObject *raise_no_loop(va_op op, int nargs, const va_dtype *dtypes, const va_weak *weak)
{
    static const char *const weak_names[] = {"", "bool (Python)", "int (Python)", "float (Python)",
                                             "complex (Python)"};
    char types[256], reason[256];
    size_t used = 0;
    int complex_in = 0;
    types[0] = '\0';
    for (int k = 0; k < nargs && used < sizeof(types); ++k) {
        const char *name = weak[k] == VA_STRONG ? va_dtype_name(dtypes[k]) : weak_names[weak[k]];
        used += (size_t)snprintf(types + used, sizeof(types) - used, "%s%s", k ? ", " : "", name);
        complex_in |= weak[k] == VA_WEAK_COMPLEX || (weak[k] == VA_STRONG && dtype_kind(dtypes[k]) == 'c');
    }
    const va_op_info *info = va_op_get(op);
    if (complex_in && info->result[VA_COMPLEX128] == VA_DTYPE_COUNT) {
        PyOS_snprintf(reason, sizeof(reason), "it has no complex loops");
    }
    else {
        no_loop_reason(info, reason, sizeof(reason));
    }
    PyErr_Format(PyExc_TypeError, "%s() has no loop for the input types (%s): %s", info->name, types,
                 reason);
    return NULL;
}

/* The last input dtypes each operation resolved, and what they resolved to.
 * va_op_dtypes is a function of its arguments alone, so a call like the one
 * before it (a loop over arrays of one kind) takes the decision again from here
 * instead of searching the loops. Read and written with the GIL held. */
typedef struct {
    int nargs; /* 0: nothing resolved yet */
    va_dtype dtypes[VA_MAX_PARAMS + VA_MAX_INPUTS];
    va_weak weak[VA_MAX_PARAMS + VA_MAX_INPUTS];
    va_dtype compute, result;
} LastDtypes;
static LastDtypes last_dtypes[VA_MAX_OPS];

static va_status resolve_dtypes(va_op op, int nargs, const va_dtype *dtypes, const va_weak *weak,
                                va_dtype *compute, va_dtype *result)
{
    LastDtypes *last = op >= 0 && op < VA_MAX_OPS ? &last_dtypes[op] : NULL;
    if (last != NULL && last->nargs == nargs &&
        memcmp(last->dtypes, dtypes, sizeof(va_dtype) * (size_t)nargs) == 0 &&
        memcmp(last->weak, weak, sizeof(va_weak) * (size_t)nargs) == 0) {
        *compute = last->compute;
        *result = last->result;
        return VA_SUCCESS;
    }
    va_status st = va_op_dtypes(op, nargs, dtypes, weak, compute, result);
    if (st == VA_SUCCESS && last != NULL) {
        last->nargs = nargs;
        memcpy(last->dtypes, dtypes, sizeof(va_dtype) * (size_t)nargs);
        memcpy(last->weak, weak, sizeof(va_weak) * (size_t)nargs);
        last->compute = *compute;
        last->result = *result;
    }
    return st;
}

/* The operation's scalars and arrays classified, and its dtypes resolved. */
static int call_init(Call *c, va_op op, PyObject *const *args)
{
    va_dtype dtypes[VA_MAX_PARAMS + VA_MAX_INPUTS];
    va_weak weak[VA_MAX_PARAMS + VA_MAX_INPUTS];
    memset(c, 0, sizeof(*c));
    c->op = op;
    c->info = va_op_get(op);
    c->nparams = c->info->nparams;
    for (int k = 0; k < c->nparams; ++k) {
        Operand p;
        if (operand_init(&p, args[k]) < 0) {
            return -1;
        }
        int scalar = p.device == NULL && (p.host == NULL || PyArray_NDIM(p.host) == 0);
        dtypes[k] = operand_natural_dtype(&p);
        weak[k] = operand_weak(&p);
        operand_clear(&p);
        if (!scalar) {
            PyErr_Format(PyExc_TypeError, "%s(): the parameter %d must be a scalar", c->info->name, k + 1);
            return -1;
        }
        c->params[k] = PyFloat_AsDouble(args[k]);
        if (c->params[k] == -1.0 && PyErr_Occurred()) {
            return -1;
        }
    }
    for (int k = 0; k < c->info->nin; ++k) {
        if (operand_init(&c->in[k], args[c->nparams + k]) < 0) {
            call_clear(c);
            return -1;
        }
        c->nin = k + 1;
        dtypes[c->nparams + k] = operand_natural_dtype(&c->in[k]);
        weak[c->nparams + k] = operand_weak(&c->in[k]);
    }
    if (resolve_dtypes(op, c->nparams + c->nin, dtypes, weak, &c->compute, &c->result) != VA_SUCCESS) {
        raise_no_loop(op, c->nparams + c->nin, dtypes, weak);
        call_clear(c);
        return -1;
    }
    return 0;
}

int elementwise_dtypes(va_op op, PyObject *const *args, va_dtype *compute, va_dtype *result)
{
    Call c;
    if (call_init(&c, op, args) < 0) {
        return -1;
    }
    *compute = c.compute;
    *result = c.result;
    call_clear(&c);
    return 0;
}

/* The dtype input k is read as when it is a Python scalar: where's condition
 * stays bool, the rest take the compute dtype. */
static va_dtype scalar_dtype(const Call *c, int k)
{
    va_dtype fixed = c->info->fixed_input[k];
    return fixed != VA_DTYPE_COUNT ? fixed : c->compute;
}

/* The call as the library takes it: the loop decided here, where each
 * parameter's Python type is known (NEP 50), over views of the joint shape. */
static va_elementwise_plan call_plan(const Call *c, const va_array *in, const va_array *out)
{
    va_elementwise_plan plan;
    plan.op = c->op;
    plan.nin = c->nin;
    plan.in = in;
    plan.params = c->params;
    plan.out = out;
    plan.compute = c->compute;
    return plan;
}

static int check_out_cast(const Call *c, PyArray_Descr *out_descr)
{
    PyArray_Descr *from = descr_from_va(c->result);
    if (from == NULL) {
        return -1;
    }
    int ok = PyArray_CanCastTypeTo(from, out_descr, NPY_SAME_KIND_CASTING);
    if (!ok) {
        PyErr_Format(PyExc_TypeError,
                     "Cannot cast ufunc '%s' output from %R to %R with casting rule 'same_kind'",
                     c->info->name, (PyObject *)from, (PyObject *)out_descr);
    }
    Py_DECREF(from);
    return ok ? 0 : -1;
}

/* ---- the CPU: NumPy's own functions, so values, dtypes and errors are NumPy's ---- */
static PyObject *run_cpu(const Call *c, PyObject *const *args, PyObject *out)
{
    PyObject *argv[VA_MAX_PARAMS + VA_MAX_INPUTS + 1];
    PyObject *fn = op_reference(c->op);
    int takes_out = op_reference_takes_out(c->op);
    PyObject *result = NULL, *kwnames = NULL;
    int n = c->nparams + c->nin;
    if (fn == NULL || takes_out < 0) {
        return NULL;
    }
    for (int k = 0; k < c->nparams; ++k) {
        argv[k] = args[k];
    }
    for (int k = 0; k < c->nin; ++k) {
        argv[c->nparams + k] = c->in[k].host != NULL ? (PyObject *)c->in[k].host : c->in[k].original;
    }
    if (out == NULL) {
        return PyObject_Vectorcall(fn, argv, (size_t)n, NULL);
    }
    if (takes_out) {
        kwnames = Py_BuildValue("(s)", "out");
        if (kwnames == NULL) {
            return NULL;
        }
        argv[n] = out;
        result = PyObject_Vectorcall(fn, argv, (size_t)n, kwnames);
        Py_DECREF(kwnames);
        return result;
    }
    /* A reference without out= (numpy.where): its result cast into out as NumPy's
     * ufuncs would (same_kind). */
    PyArray_Descr *out_descr = PyArray_DESCR((PyArrayObject *)out);
    if (check_out_cast(c, out_descr) < 0) {
        return NULL;
    }
    result = PyObject_Vectorcall(fn, argv, (size_t)n, NULL);
    if (result == NULL) {
        return NULL;
    }
    int rc = PyArray_CopyInto((PyArrayObject *)out, (PyArrayObject *)result);
    Py_DECREF(result);
    if (rc < 0) {
        return NULL;
    }
    Py_INCREF(out);
    return out;
}

/* ---- host data through the GPU ---- */
static int usable_directly(PyArrayObject *out, va_dtype dtype)
{
    va_dtype od;
    return va_dtype_from_descr(PyArray_DESCR(out), &od) == 0 && od == dtype &&
           PyArray_IS_C_CONTIGUOUS(out) && PyArray_ISALIGNED(out) && PyArray_ISNOTSWAPPED(out);
}

/* Whether the bytes two host arrays span meet (a conservative overlap test). */
static int host_ranges_overlap(PyArrayObject *x, PyArrayObject *y)
{
    if (PyArray_SIZE(x) == 0 || PyArray_SIZE(y) == 0) {
        return 0;
    }
    const char *lo[2], *hi[2];
    PyArrayObject *arrays[2] = {x, y};
    for (int k = 0; k < 2; ++k) {
        npy_intp low = 0, high = PyArray_ITEMSIZE(arrays[k]);
        for (int d = 0; d < PyArray_NDIM(arrays[k]); ++d) {
            npy_intp span = (PyArray_DIM(arrays[k], d) - 1) * PyArray_STRIDE(arrays[k], d);
            if (span < 0) low += span; else high += span;
        }
        lo[k] = PyArray_BYTES(arrays[k]) + low;
        hi[k] = PyArray_BYTES(arrays[k]) + high;
    }
    return lo[0] < hi[1] && lo[1] < hi[0];
}

/* A host input whose bytes span much more than its elements (a strided view) is
 * compacted before the upload. */
static PyArrayObject *compact_if_sparse(PyArrayObject *array)
{
    npy_intp span = PyArray_ITEMSIZE(array);
    for (int d = 0; d < PyArray_NDIM(array); ++d) {
        npy_intp s = PyArray_STRIDE(array, d);
        span += (PyArray_DIM(array, d) - 1) * (s < 0 ? -s : s);
    }
    if (PyArray_SIZE(array) == 0 || span <= 2 * PyArray_NBYTES(array) + 4096) {
        return array;
    }
    PyArrayObject *copy = (PyArrayObject *)PyArray_NewCopy(array, NPY_CORDER);
    Py_DECREF(array);
    return copy;
}

/* The broadcast shape of the inputs and of out (which must hold it), ValueError
 * as NumPy words it. */
static int joint_shape(const Shape *shapes, int n, const Shape *out, Shape *shape)
{
    *shape = shapes[0];
    for (int k = 1; k < n; ++k) {
        Shape next;
        if (shape_broadcast(shape, &shapes[k], &next) < 0) {
            return -1;
        }
        *shape = next;
    }
    if (out != NULL) {
        Shape joint;
        if (shape_broadcast(shape, out, &joint) < 0) {
            return -1;
        }
        if (!shape_equal(&joint, out)) {
            PyErr_SetString(PyExc_ValueError, "non-broadcastable output operand");
            return -1;
        }
        *shape = *out;
    }
    return 0;
}

/* Returns the result, or NULL with an exception; *status the library's status
 * (so that device="auto" can fall back to the CPU when the GPU can't be used). */
static PyObject *run_gpu_host(const Call *c, PyArrayObject *out, Where where, va_status *status)
{
    int gpus[WHERE_MAX_GPUS], ngpus = 0;
    PyArrayObject *host[VA_MAX_INPUTS] = {NULL, NULL, NULL, NULL};
    PyArrayObject *target = NULL;
    PyObject *result = NULL;
    Shape shapes[VA_MAX_INPUTS], shape, so;
    va_array views[VA_MAX_INPUTS], vt;
    int k;
    *status = VA_SUCCESS;

    for (k = 0; k < c->nin; ++k) {
        host[k] = operand_host_array(&c->in[k], scalar_dtype(c, k));
        if (host[k] == NULL || shape_of_host(host[k], &shapes[k]) < 0) {
            goto fail;
        }
    }
    if (out != NULL && shape_of_host(out, &so) < 0) {
        goto fail;
    }
    if (joint_shape(shapes, c->nin, out != NULL ? &so : NULL, &shape) < 0) {
        goto fail;
    }
    if (out != NULL && (check_out_cast(c, PyArray_DESCR(out)) < 0 ||
                        PyArray_FailUnlessWriteable(out, "output array") < 0)) {
        goto fail;
    }
    if (op_host_check(c->op, c->compute, host, c->nin) < 0) {
        goto fail;
    }
    /* Arguments are checked; only now does the want of a GPU matter. */
    if (require_cuda(c->info->name) < 0 || where_devices(where, gpus, &ngpus) < 0) {
        goto fail;
    }
    /* The GPU reads inputs and writes results chunk by chunk: an out that shares
     * memory with an input gets the result through a temporary. */
    if (out != NULL && usable_directly(out, c->result)) {
        int overlap = 0;
        for (k = 0; k < c->nin; ++k) {
            overlap |= host_ranges_overlap(out, host[k]);
        }
        if (!overlap) {
            Py_INCREF(out);
            target = out;
        }
    }
    if (target == NULL) {
        target = pinned_array_empty(shape.ndim, shape.dims, c->result);
        if (target == NULL) {
            goto fail;
        }
    }
    for (k = 0; k < c->nin; ++k) {
        host[k] = compact_if_sparse(host[k]);
        if (host[k] == NULL) {
            goto fail;
        }
        va_dtype dk;
        va_dtype_from_descr(PyArray_DESCR(host[k]), &dk);
        view_of_host(&views[k], host[k], dk, &shape);
    }
    view_of_host(&vt, target, c->result, &shape);
    {
        const va_elementwise_plan plan = call_plan(c, views, &vt);
        Py_BEGIN_ALLOW_THREADS
        *status = va_elementwise_host_planned(gpus, ngpus, &plan);
        Py_END_ALLOW_THREADS
    }
    if (*status != VA_SUCCESS) {
        raise_status(*status);
        goto fail;
    }
    if (out != NULL && target != out && PyArray_CopyInto(out, target) < 0) {
        goto fail;
    }
    if (out != NULL) {
        Py_INCREF(out);
        result = (PyObject *)out;
    }
    else if (op_reference_takes_out(c->op) == 1) {
        /* A ufunc's 0-d result is a NumPy scalar, as NumPy returns it. */
        Py_INCREF(target);
        result = PyArray_Return(target);
    }
    else {
        /* Other counterparts (numpy.where) keep 0-d arrays. */
        Py_INCREF(target);
        result = (PyObject *)target;
    }
fail:
    for (k = 0; k < VA_MAX_INPUTS; ++k) {
        Py_XDECREF(host[k]);
    }
    Py_XDECREF(target);
    return result;
}

/* ---- data on the GPU ---- */
static void device_extent(const DeviceArrayObject *x, const char **lo, const char **hi)
{
    int64_t low = 0, high = (int64_t)va_dtype_size(x->dtype);
    for (int d = 0; d < x->ndim; ++d) {
        int64_t span = (x->shape[d] - 1) * x->strides[d];
        if (span < 0) low += span; else high += span;
    }
    *lo = (const char *)x->data + low;
    *hi = (const char *)x->data + high;
}

/* Writing into `out` while reading `in` is safe when they are the same view
 * (each element is read before it is written, by the same thread) or disjoint. */
static int safe_in_place(const DeviceArrayObject *out, const DeviceArrayObject *in)
{
    const char *lo_o, *hi_o, *lo_i, *hi_i;
    device_extent(out, &lo_o, &hi_o);
    device_extent(in, &lo_i, &hi_i);
    if (!(lo_o < hi_i && lo_i < hi_o)) {
        return 1;
    }
    if (out->data != in->data || out->ndim != in->ndim || out->dtype != in->dtype) {
        return 0;
    }
    for (int d = 0; d < out->ndim; ++d) {
        if (out->shape[d] != in->shape[d] || out->strides[d] != in->strides[d]) {
            return 0;
        }
    }
    return 1;
}

/* The call into new C-contiguous memory of `shape`, then the array that owns it: a
 * small call's result waits for the host time before its launch and not for what
 * follows, which the kernel's latency hides (bench/NOTES.md, session 36), so the
 * array's object is made after the launch. */
static PyObject *run_into_new_array(const Call *c, int device, const va_array *views, const Shape *shape)
{
    DeviceMemory memory;
    va_array vt;
    if (devicearray_memory_layout(device, c->result, shape->ndim, shape->dims, &memory) < 0) {
        return NULL;
    }
    devicearray_memory_view(&memory, &vt);
    const va_elementwise_plan plan = call_plan(c, views, &vt);
    /* the library allocates and launches in one entry (bench/NOTES.md, session 37) */
    va_status st = va_elementwise_planned_new(device, &plan, &memory.data);
    if (st != VA_SUCCESS) {
        return raise_status(st);
    }
    return (PyObject *)devicearray_adopt(&memory);
}

/* The call into `out` (a DeviceArray; out_obj: what the caller passed, perhaps
 * another library's array it wraps), through a new array where out has another
 * dtype or overlaps an input other than exactly. */
static PyObject *run_into_out(const Call *c, int device, const va_array *views, const Shape *shape,
                              DeviceArrayObject *const *dev, PyObject *out_obj, DeviceArrayObject *out)
{
    DeviceArrayObject *target = NULL;
    PyObject *result = NULL;
    va_array vt;
    va_status st;
    int safe;
    /* A dtype always casts to itself: NumPy's cast table only for another. */
    if (out->dtype != c->result) {
        PyArray_Descr *od = descr_from_va(out->dtype);
        int cast_ok = od != NULL && check_out_cast(c, od) == 0;
        Py_XDECREF(od);
        if (!cast_ok) {
            goto fail;
        }
    }
    safe = out->dtype == c->result;
    for (int k = 0; k < c->nin && safe; ++k) {
        safe = safe_in_place(out, dev[k]);
    }
    if (safe) {
        Py_INCREF(out);
        target = out;
    }
    else {
        target = devicearray_empty(device, c->result, shape->ndim, shape->dims, 0);
        if (target == NULL) {
            goto fail;
        }
    }
    view_of_device(&vt, target, shape);
    {
        const va_elementwise_plan plan = call_plan(c, views, &vt);
        st = va_elementwise_planned(device, &plan);
    }
    if (st != VA_SUCCESS) {
        raise_status(st);
        goto fail;
    }
    if (target != out) {
        va_array vo;
        view_of_device(&vo, out, shape);
        st = va_copy_convert(device, &vt, &vo);
        if (st != VA_SUCCESS) {
            raise_status(st);
            goto fail;
        }
    }
    if (out_obj != (PyObject *)out && interop_after_write(out_obj, device) < 0) {
        goto fail;
    }
    Py_INCREF(out_obj);
    result = out_obj;
fail:
    Py_XDECREF(target);
    return result;
}

static PyObject *run_gpu_device(const Call *c, PyObject *out_obj, DeviceArrayObject *out, Where where)
{
    DeviceArrayObject *dev[VA_MAX_INPUTS] = {NULL, NULL, NULL, NULL};
    PyObject *result = NULL;
    Shape shapes[VA_MAX_INPUTS], shape, so;
    va_array views[VA_MAX_INPUTS];
    int k, device = -1;
    for (k = 0; k < c->nin && device < 0; ++k) {
        if (c->in[k].device != NULL) {
            device = c->in[k].device->device;
        }
    }
    if (device < 0) {
        device = out->device;
    }
    for (k = 0; k < c->nin; ++k) {
        if (c->in[k].device != NULL && c->in[k].device->device != device) {
            break;
        }
    }
    if (k < c->nin || (out != NULL && out->device != device)) {
        PyErr_SetString(PyExc_ValueError, "arrays on different GPUs: copy them to one GPU first "
                                          "(asarray(x, device=N) or to_device(x, N))");
        return NULL;
    }
    if (where_check_data(where, device) < 0) {
        return NULL;
    }
    for (k = 0; k < c->nin; ++k) {
        dev[k] = operand_device_array(&c->in[k], scalar_dtype(c, k), device);
        if (dev[k] == NULL) {
            goto fail;
        }
        shape_of_device(dev[k], &shapes[k]);
    }
    if (out != NULL) {
        shape_of_device(out, &so);
    }
    if (joint_shape(shapes, c->nin, out != NULL ? &so : NULL, &shape) < 0) {
        goto fail;
    }
    for (k = 0; k < c->nin; ++k) {
        view_of_device(&views[k], dev[k], &shape);
    }
    result = out == NULL ? run_into_new_array(c, device, views, &shape)
                         : run_into_out(c, device, views, &shape, dev, out_obj, out);
fail:
    for (k = 0; k < VA_MAX_INPUTS; ++k) {
        Py_XDECREF(dev[k]);
    }
    return result;
}

/* A host result of device work written into a NumPy `out`. */
static PyObject *device_result_to_host_out(PyObject *device_result, PyArrayObject *out)
{
    PyObject *host = devicearray_to_host((DeviceArrayObject *)device_result);
    Py_DECREF(device_result);
    if (host == NULL) {
        return NULL;
    }
    int rc = PyArray_CopyInto(out, (PyArrayObject *)host);
    Py_DECREF(host);
    if (rc < 0) {
        return NULL;
    }
    Py_INCREF(out);
    return (PyObject *)out;
}

/* Elements of the largest input: what device="auto" weighs. */
static int64_t largest_input(const Call *c)
{
    int64_t n = 1;
    for (int k = 0; k < c->nin; ++k) {
        if (c->in[k].host != NULL && (int64_t)PyArray_SIZE(c->in[k].host) > n) {
            n = (int64_t)PyArray_SIZE(c->in[k].host);
        }
    }
    return n;
}

/* Whether the GPU can take these host inputs (NumPy allows more dimensions). */
static int fits_gpu(const Call *c)
{
    for (int k = 0; k < c->nin; ++k) {
        if (c->in[k].host != NULL && PyArray_NDIM(c->in[k].host) > VA_MAX_NDIM) {
            return 0;
        }
    }
    return 1;
}

int elementwise_of_device_arrays(va_op op, PyObject *const *args, Py_ssize_t nargs, PyObject **result)
{
    const va_op_info *info = va_op_get(op);
    va_dtype dtypes[VA_MAX_INPUTS];
    va_weak weak[VA_MAX_INPUTS];
    va_array views[VA_MAX_INPUTS];
    Shape shape;
    Call c;
    if (info->nparams != 0 || nargs < 1 || nargs != info->nin || !Py_IS_TYPE(args[0], &DeviceArray_Type)) {
        return 0;
    }
    /* One GPU and one shape (broadcasting and several GPUs: the general path). The
     * arguments are borrowed: nothing below calls into Python code. */
    const DeviceArrayObject *first = (const DeviceArrayObject *)args[0];
    for (int k = 0; k < info->nin; ++k) {
        const DeviceArrayObject *a = (const DeviceArrayObject *)args[k];
        if (!Py_IS_TYPE(args[k], &DeviceArray_Type) || a->device != first->device || a->ndim != first->ndim ||
            memcmp(a->shape, first->shape, sizeof(int64_t) * (size_t)a->ndim) != 0) {
            return 0;
        }
        dtypes[k] = a->dtype;
        weak[k] = VA_STRONG;
    }
    c.op = op;
    c.info = info;
    c.nparams = 0;
    c.nin = info->nin;
    if (resolve_dtypes(op, c.nin, dtypes, weak, &c.compute, &c.result) != VA_SUCCESS) {
        return 0; /* the general path raises NumPy's TypeError */
    }
    shape_of_device(first, &shape);
    for (int k = 0; k < c.nin; ++k) {
        view_of_device(&views[k], (const DeviceArrayObject *)args[k], &shape);
    }
    *result = run_into_new_array(&c, first->device, views, &shape);
    return 1;
}

PyObject *elementwise_objects(va_op op, PyObject *const *args, PyObject *out_obj, Where where)
{
    Call c;
    PyObject *result = NULL, *imported = NULL;
    PyArrayObject *host_out = NULL;
    DeviceArrayObject *device_out = NULL;
    int on_device = 0;

    if (call_init(&c, op, args) < 0) {
        return NULL;
    }
    if (out_obj == Py_None) {
        out_obj = NULL;
    }
    if (out_obj != NULL) {
        if (PyArray_Check(out_obj)) {
            va_dtype od;
            host_out = (PyArrayObject *)out_obj;
            if (va_dtype_from_descr(PyArray_DESCR(host_out), &od) < 0) {
                raise_unsupported_dtype((PyObject *)PyArray_DESCR(host_out));
                goto done;
            }
        }
        else if (DeviceArray_Check(out_obj)) {
            device_out = (DeviceArrayObject *)out_obj;
        }
        else {
            imported = interop_import(out_obj);
            if (imported == NULL) {
                goto done;
            }
            if (imported == Py_None) {
                PyErr_Format(PyExc_TypeError,
                             "out must be a numpy.ndarray or a GPU array, not %.100s",
                             Py_TYPE(out_obj)->tp_name);
                goto done;
            }
            device_out = (DeviceArrayObject *)imported;
        }
    }
    if (devicearray_check_writable(out_obj, device_out) < 0) {
        goto done;
    }
    on_device = device_out != NULL;
    for (int k = 0; k < c.nin; ++k) {
        on_device |= c.in[k].device != NULL;
    }
    if (on_device) {
        result = run_gpu_device(&c, out_obj, device_out, where);
        if (result != NULL && host_out != NULL) {
            result = device_result_to_host_out(result, host_out);
        }
        goto done;
    }
    if (where == WHERE_AUTO && !op_has_reference(c.op)) {
        where = WHERE_CUDA; /* no CPU implementation to choose */
    }
    if (where == WHERE_AUTO) {
        /* The GPU only where it wins, data transfers included; never an error for
         * the want of one. */
        if (fits_gpu(&c) && where_for_host_data(where, largest_input(&c), "binary") == WHERE_CUDA) {
            va_status st;
            result = run_gpu_host(&c, host_out, where, &st);
            if (result == NULL && (st == VA_ERROR_OUT_OF_MEMORY || st == VA_ERROR_NO_DEVICE)) {
                PyErr_Clear();
                result = run_cpu(&c, args, out_obj);
            }
            goto done;
        }
        where = WHERE_CPU;
    }
    if (where == WHERE_CPU) {
        result = run_cpu(&c, args, out_obj);
    }
    else {
        va_status st;
        result = run_gpu_host(&c, host_out, where, &st);
    }
done:
    call_clear(&c);
    Py_XDECREF(imported);
    return result;
}
