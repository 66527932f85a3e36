/* NumPy arrays whose memory is pinned: GPU results are copied into them by DMA
 * at full speed, and the block returns to the library's cache when the array
 * dies. */
#include "common.h"

/* Pinning and unpinning gigabytes takes the driver a second or more: the GIL
 * is not held meanwhile (a thread must not stall the others for a download). */
static void release_pinned(PyObject *capsule)
{
    void *data = PyCapsule_GetPointer(capsule, "myModule.pinned");
    Py_BEGIN_ALLOW_THREADS
    va_host_free(data);
    Py_END_ALLOW_THREADS
}

PyArrayObject *pinned_array_empty(int ndim, const int64_t *shape, va_dtype dtype)
{
    npy_intp dims[VA_MAX_NDIM];
    size_t nbytes = va_dtype_size(dtype);
    for (int d = 0; d < ndim; ++d) {
        dims[d] = (npy_intp)shape[d];
        nbytes *= (size_t)shape[d];
    }
    PyArray_Descr *descr = descr_from_va(dtype);
    if (descr == NULL) {
        return NULL;
    }
    void *data = NULL;
    va_status st;
    Py_BEGIN_ALLOW_THREADS
    st = va_host_alloc(nbytes, &data);
    Py_END_ALLOW_THREADS
    if (st != VA_SUCCESS) {
        /* Pinned memory is an optimisation: ordinary memory works too. */
        return (PyArrayObject *)PyArray_SimpleNewFromDescr(ndim, dims, descr);
    }
    PyObject *owner = PyCapsule_New(data, "myModule.pinned", release_pinned);
    if (owner == NULL) {
        va_host_free(data);
        Py_DECREF(descr);
        return NULL;
    }
    PyArrayObject *array = (PyArrayObject *)PyArray_NewFromDescr(
        &PyArray_Type, descr, ndim, dims, NULL, data, NPY_ARRAY_CARRAY, NULL);
    if (array == NULL) {
        Py_DECREF(owner);
        return NULL;
    }
    if (PyArray_SetBaseObject(array, owner) < 0) { /* steals owner */
        Py_DECREF(array);
        return NULL;
    }
    return array;
}
