/* Introspection and library-wide controls: devices, versions, memory, sync. */
#include "common.h"

PyObject *mm_cuda_available(PyObject *, PyObject *)
{
    return PyBool_FromLong(va_cuda_available() == VA_SUCCESS);
}

PyObject *mm_device_count(PyObject *, PyObject *)
{
    int count = 0;
    va_status st = va_device_count(&count);
    if (st != VA_SUCCESS && st != VA_ERROR_NO_DEVICE) {
        return raise_status(st);
    }
    return PyLong_FromLong(count);
}

PyObject *mm_device_info(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device"};
    PyObject *values[1];
    if (parse_arguments("device_info", args, nargs, kwnames, names, 1, 0, 1, values) < 0) {
        return NULL;
    }
    long device = 0;
    if (values[0] != NULL && values[0] != Py_None) {
        if (!PyLong_Check(values[0])) {
            PyErr_SetString(PyExc_TypeError, "device must be an int");
            return NULL;
        }
        device = PyLong_AsLong(values[0]);
        if (device == -1 && PyErr_Occurred()) {
            return NULL;
        }
    }
    if (require_cuda("device_info") < 0) {
        return NULL;
    }
    int count = 0;
    va_device_count(&count);
    if (device < 0 || device >= count) {
        PyErr_Format(PyExc_ValueError, "device %ld does not exist (%d GPU(s) present)", device, count);
        return NULL;
    }
    va_device_info info;
    va_status st = va_device_info_get((int)device, &info);
    if (st != VA_SUCCESS) {
        return raise_status(st);
    }
    int driver = 0, runtime = 0;
    va_versions(&driver, &runtime);
    return Py_BuildValue("{s:i,s:s,s:(ii),s:i,s:L,s:L,s:L,s:i,s:O,s:i,s:i}",
                         "device", (int)device, "name", info.name,
                         "compute_capability", info.major, info.minor,
                         "multiprocessors", info.multiprocessors,
                         "total_memory", (long long)info.total_memory,
                         "free_memory", (long long)info.free_memory,
                         "l2_cache_bytes", (long long)info.l2_cache_bytes,
                         "pci_bus_id", info.pci_bus_id,
                         "managed_memory", info.managed_memory ? Py_True : Py_False,
                         "driver_version", driver, "runtime_version", runtime);
}

/* Versions and, when CUDA is unusable, why: for show_config(). */
PyObject *mm_runtime_info(PyObject *, PyObject *)
{
    int driver = 0, runtime = 0;
    va_versions(&driver, &runtime);
    va_status st = va_cuda_available();
    va_error_info info;
    va_last_error(&info);
    char reason[384] = "";
    if (st == VA_ERROR_NO_DEVICE) {
        cuda_unavailable_reason(&info, reason, sizeof(reason));
    }
    else if (st != VA_SUCCESS) {
        PyOS_snprintf(reason, sizeof(reason), "%s", va_status_string(st));
    }
    int count = 0;
    va_device_count(&count);
    return Py_BuildValue("{s:i,s:i,s:O,s:i,s:s,s:s,s:i,s:s}", "driver_version", driver,
                         "runtime_version", runtime, "cuda_available",
                         st == VA_SUCCESS ? Py_True : Py_False, "device_count", count,
                         "reason", reason,
                         "error_name", st == VA_SUCCESS ? "" : info.name,
                         "error_code", st == VA_SUCCESS ? 0 : info.cuda_code,
                         "built_architectures", va_built_architectures());
}

PyObject *mm_synchronize(PyObject *, PyObject *)
{
    if (va_cuda_available() == VA_ERROR_NO_DEVICE) {
        Py_RETURN_NONE; /* nothing can be queued without a GPU */
    }
    va_status st;
    /* Letting go of an owner may drop the last view of another foreign owner,
     * whose release then waits on a marker recorded after the wait: one more
     * round per link of such a chain (views of views of other libraries' arrays).
     * The GIL is held while owners are dropped, so only the chain adds entries. */
    do {
        Py_BEGIN_ALLOW_THREADS
        st = va_synchronize(-1);
        Py_END_ALLOW_THREADS
        if (st != VA_SUCCESS) {
            return raise_status(st);
        }
    } while (devicearray_sweep_releases(1) > 0);
    Py_RETURN_NONE;
}

PyObject *mm_memory_stats(PyObject *, PyObject *)
{
    int64_t bytes = 0, count = 0;
    va_memory_stats(&bytes, &count);
    return Py_BuildValue("{s:L,s:L}", "bytes_in_use", (long long)bytes, "allocations",
                         (long long)count);
}

PyObject *mm_release_cached(PyObject *, PyObject *)
{
    if (va_cuda_available() == VA_ERROR_NO_DEVICE) {
        Py_RETURN_NONE;
    }
    va_status st = va_release_cached();
    if (st != VA_SUCCESS) {
        return raise_status(st);
    }
    Py_RETURN_NONE;
}

PyObject *mm_testing_fault(PyObject *, PyObject *)
{
    if (require_cuda("_testing_fault") < 0) {
        return NULL;
    }
    va_status st;
    Py_BEGIN_ALLOW_THREADS
    st = va_testing_fault(0);
    Py_END_ALLOW_THREADS
    if (st != VA_SUCCESS) {
        return raise_status(st);
    }
    Py_RETURN_NONE;
}

PyObject *mm_testing_mirror_reads(PyObject *, PyObject *)
{
    int64_t served = 0;
    va_status st = va_testing_mirror_reads(&served);
    if (st != VA_SUCCESS) {
        return raise_status(st);
    }
    return PyLong_FromLongLong((long long)served);
}
