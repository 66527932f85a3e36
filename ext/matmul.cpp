/* matmul(a, b) and the @ operator: NumPy's matmul. Host data: NumPy's own result.
 * GPU data (either operand): both on that GPU in the dtype they promote to, 1-d
 * operands taken as a row (a) or a column (b) and that axis dropped from the result,
 * the stacks of matrices broadcast against each other, then one va_matmul over the
 * batch: an operand whose batch axes fold into one stride is passed as it lies (a
 * stack shared by every batch has stride 0), any other is first copied, broadcast. */
#include <string.h>

#include "checked.h"
#include "creation.h"
#include "hooks.h"
#include "matmul.h"
#include "shapes.h"

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static const char signature[] = "(n?,k),(k,m?)->(n?,m?)";

/* x's matrices as a (B, rows, cols) view: rows x cols with element strides
 * (row_stride, col_stride) in bytes, its batch axes `batch` (x's leading axes,
 * broadcast to `target`) folded into one stride, or, where they do not fold, a
 * C-contiguous broadcast copy (*copy, a new reference). */
static int batch_view(DeviceArrayObject *x, int batch, int64_t rows, int64_t cols, int64_t row_stride,
                      int64_t col_stride, const Shape *target, int64_t count, va_array *view,
                      DeviceArrayObject **copy)
{
    int64_t strides[VA_MAX_NDIM + 2], dims[VA_MAX_NDIM + 2];
    int64_t fold = 0, later = 1;
    int folds = 1, have = 0;
    for (int d = 0; d < target->ndim; ++d) {
        int source = d - (target->ndim - batch);
        dims[d] = target->dims[d];
        strides[d] = (source >= 0 && x->shape[source] != 1) ? x->strides[source] : 0;
    }
    /* One stride S serves when every axis of extent > 1 moves S times the batches after it. */
    for (int d = target->ndim - 1; d >= 0; --d) {
        if (dims[d] > 1) {
            if (!have) {
                if (strides[d] % later != 0) {
                    folds = 0;
                }
                fold = strides[d] / later;
                have = 1;
            }
            if (strides[d] != fold * later) {
                folds = 0;
            }
        }
        later *= dims[d] > 0 ? dims[d] : 1;
    }
    memset(view, 0, sizeof(*view));
    view->dtype = x->dtype;
    view->ndim = 3;
    view->shape[0] = count;
    view->shape[1] = rows;
    view->shape[2] = cols;
    if (folds) {
        view->data = x->data;
        view->strides[0] = fold;
        view->strides[1] = row_stride;
        view->strides[2] = col_stride;
        return 0;
    }
    dims[target->ndim] = rows;
    dims[target->ndim + 1] = cols;
    strides[target->ndim] = row_stride;
    strides[target->ndim + 1] = col_stride;
    {
        DeviceArrayObject *spread = devicearray_view(x->data, x->device, x->dtype, target->ndim + 2, dims,
                                                     strides, (PyObject *)x);
        if (spread == NULL) {
            return -1;
        }
        *copy = devicearray_contiguous(spread);
        Py_DECREF(spread);
    }
    if (*copy == NULL) {
        return -1;
    }
    {
        const int64_t item = (int64_t)va_dtype_size(x->dtype);
        view->data = (*copy)->data;
        view->strides[0] = rows * cols * item;
        view->strides[1] = cols * item;
        view->strides[2] = item;
    }
    return 0;
}

/* a @ b for two arrays on one GPU, of one dtype. */
static PyObject *matmul_device(DeviceArrayObject *a, DeviceArrayObject *b)
{
    DeviceArrayObject *out = NULL, *copy_a = NULL, *copy_b = NULL;
    PyObject *result = NULL;
    Shape batch_a, batch_b, batch;
    int64_t shape[VA_MAX_NDIM], count = 0, m, k, kb, n;
    int a_vector, b_vector, ndim;
    va_array va, vb, vo;
    va_status st;
    if (a->ndim == 0 || b->ndim == 0) {
        PyErr_Format(PyExc_ValueError,
                     "matmul: Input operand %d does not have enough dimensions (has 0, gufunc core with "
                     "signature %s requires 1)", a->ndim == 0 ? 0 : 1, signature);
        return NULL;
    }
    a_vector = a->ndim == 1;
    b_vector = b->ndim == 1;
    m = a_vector ? 1 : a->shape[a->ndim - 2];
    k = a->shape[a->ndim - 1];
    kb = b_vector ? b->shape[0] : b->shape[b->ndim - 2];
    n = b_vector ? 1 : b->shape[b->ndim - 1];
    if (k != kb) {
        PyErr_Format(PyExc_ValueError,
                     "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature %s "
                     "(size %lld is different from %lld)", signature, (long long)kb, (long long)k);
        return NULL;
    }
    batch_a.ndim = a_vector ? 0 : a->ndim - 2;
    batch_b.ndim = b_vector ? 0 : b->ndim - 2;
    memcpy(batch_a.dims, a->shape, sizeof(int64_t) * (size_t)batch_a.ndim);
    memcpy(batch_b.dims, b->shape, sizeof(int64_t) * (size_t)batch_b.ndim);
    if (shape_broadcast(&batch_a, &batch_b, &batch) < 0) {
        return NULL;
    }
    ndim = batch.ndim + !a_vector + !b_vector;
    if (ndim > VA_MAX_NDIM) {
        PyErr_Format(PyExc_ValueError, "matmul: the result would have %d dimensions, at most %d are supported",
                     ndim, VA_MAX_NDIM);
        return NULL;
    }
    memcpy(shape, batch.dims, sizeof(int64_t) * (size_t)batch.ndim);
    if (!a_vector) {
        shape[batch.ndim] = m;
    }
    if (!b_vector) {
        shape[ndim - 1] = n;
    }
    if (checked_count(batch.ndim, batch.dims, &count) != 0) {
        PyErr_SetString(PyExc_ValueError, "matmul: the batch of the result is too large");
        return NULL;
    }
    out = devicearray_empty(a->device, a->dtype, ndim, shape, 0);
    if (out == NULL) {
        goto fail;
    }
    if (batch_view(a, batch_a.ndim, m, k, a_vector ? 0 : a->strides[a->ndim - 2], a->strides[a->ndim - 1],
                   &batch, count, &va, &copy_a) < 0 ||
        batch_view(b, batch_b.ndim, k, n, b->strides[b->ndim - (b_vector ? 1 : 2)],
                   b_vector ? 0 : b->strides[b->ndim - 1], &batch, count, &vb, &copy_b) < 0) {
        goto fail;
    }
    {
        const int64_t item = (int64_t)va_dtype_size(a->dtype);
        memset(&vo, 0, sizeof(vo));
        vo.data = out->data;
        vo.dtype = a->dtype;
        vo.ndim = 3;
        vo.shape[0] = count;
        vo.shape[1] = m;
        vo.shape[2] = n;
        vo.strides[0] = m * n * item;
        vo.strides[1] = n * item;
        vo.strides[2] = item;
    }
    Py_BEGIN_ALLOW_THREADS
    st = va_matmul(a->device, &va, &vb, &vo);
    Py_END_ALLOW_THREADS
    result = filled_or_raise(st, &out);
fail:
    Py_XDECREF(out);
    Py_XDECREF(copy_a);
    Py_XDECREF(copy_b);
    return result;
}

/* The operand on `device` in `dtype` (a GPU array of another dtype converted there). */
static DeviceArrayObject *on_device_as(const Operand *op, va_dtype dtype, int device)
{
    DeviceArrayObject *x = operand_device_array(op, dtype, device);
    if (x != NULL && x->dtype != dtype) {
        Py_SETREF(x, devicearray_astype(x, dtype, device));
    }
    return x;
}

/* a @ b for any operands: NULL with an error, or Py_NotImplemented (a new
 * reference) when `operator` is set and an operand is not an array myModule takes. */
static PyObject *matmul_any(PyObject *a_obj, PyObject *b_obj, int operator_call)
{
    Operand a, b;
    DeviceArrayObject *da = NULL, *db = NULL;
    PyObject *result = NULL;
    va_dtype dtype;
    int device;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    if (operand_init(&a, a_obj) < 0 || operand_init(&b, b_obj) < 0) {
        if (operator_call && PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            result = Py_NewRef(Py_NotImplemented);
        }
        goto done;
    }
    if (a.device == NULL && b.device == NULL) {
        /* host data: NumPy's own matmul */
        PyObject *fn = hook_attribute(HOOK_REFERENCE, "matmul");
        if (fn != NULL) {
            result = PyObject_CallFunctionObjArgs(fn, a_obj, b_obj, NULL);
            Py_DECREF(fn);
        }
        goto done;
    }
    if (a.device != NULL && b.device != NULL && a.device->device != b.device->device) {
        PyErr_SetString(PyExc_ValueError, "arrays on different GPUs: copy them to one GPU first "
                                          "(asarray(x, device=N) or to_device(x, N))");
        goto done;
    }
    device = a.device != NULL ? a.device->device : b.device->device;
    if (va_promote_types(operand_natural_dtype(&a), operand_natural_dtype(&b), &dtype) != VA_SUCCESS) {
        raise_status(VA_ERROR_UNSUPPORTED_DTYPE);
        goto done;
    }
    da = on_device_as(&a, dtype, device);
    db = da != NULL ? on_device_as(&b, dtype, device) : NULL;
    if (db != NULL) {
        result = matmul_device(da, db);
    }
done:
    Py_XDECREF(da);
    Py_XDECREF(db);
    operand_clear(&a);
    operand_clear(&b);
    return result;
}

static PyObject *mm_matmul(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"a", "b"};
    PyObject *values[2];
    if (parse_arguments("matmul", args, nargs, kwnames, names, 2, 2, 2, values) < 0) {
        return NULL;
    }
    return matmul_any(values[0], values[1], 0);
}

static PyObject *da_matmul(PyObject *left, PyObject *right)
{
    return matmul_any(left, right, 1);
}

static PyMethodDef matmul_functions[] = {
    {"matmul", FASTCALL(mm_matmul),
     "matmul(a, b)\n--\n\n"
     "numpy.matmul: the matrix product of the last two axes, the axes before them broadcast (a 1-d a "
     "is a row, a 1-d b a column, that axis dropped from the result). On the GPU of a or b when "
     "either is a GPU array: float32 and float64 through cuBLAS (loaded on first use), bool and "
     "integers with a kernel of the library's; NumPy's own result for host data."},
    {NULL, NULL, 0, NULL},
};

int matmul_init(PyObject *module)
{
    return PyModule_AddFunctions(module, matmul_functions);
}

void matmul_number_methods(PyNumberMethods *numbers)
{
    numbers->nb_matrix_multiply = da_matmul;
}
