/* va_status codes to Python exceptions: the one place that does it. */
#include "common.h"
#include "hooks.h"

/* Raises myModule._errors.<cls>(message, code=..., name=..., [bytes=...]). */
static PyObject *raise_cuda(const char *cls_name, const char *message, const va_error_info *info,
                            int with_bytes)
{
    PyObject *cls = hook_attribute(HOOK_ERRORS, cls_name), *exc = NULL;
    if (cls == NULL) {
        return NULL;
    }
    if (with_bytes) {
        exc = PyObject_CallFunction(cls, "sisL", message, info->cuda_code, info->name,
                                    (long long)info->bytes);
    }
    else {
        exc = PyObject_CallFunction(cls, "sis", message, info->cuda_code, info->name);
    }
    if (exc != NULL) {
        PyErr_SetObject(cls, exc);
        Py_DECREF(exc);
    }
    Py_DECREF(cls);
    return NULL;
}

PyObject *filled_or_raise(va_status status, DeviceArrayObject **out)
{
    if (status != VA_SUCCESS) {
        return raise_status(status);
    }
    PyObject *result = (PyObject *)*out;
    *out = NULL;
    return result;
}

PyObject *raise_status(va_status status)
{
    va_error_info info;
    va_last_error(&info);
    char message[512];
    switch (status) {
        case VA_SUCCESS:
            PyErr_SetString(PyExc_SystemError, "raise_status called on success");
            return NULL;
        case VA_ERROR_INVALID_VALUE:
            PyErr_SetString(PyExc_ValueError, va_status_string(status));
            return NULL;
        case VA_ERROR_UNSUPPORTED_DTYPE:
            PyErr_SetString(PyExc_TypeError, va_status_string(status));
            return NULL;
        case VA_ERROR_NO_DEVICE:
            cuda_unavailable_reason(&info, message, sizeof(message));
            return raise_cuda("CudaUnavailableError", message, &info, 0);
        case VA_ERROR_OUT_OF_MEMORY:
            /* bytes is 0 where a CUDA call that allocates for itself failed (a stream,
             * the pipeline's buffers): its place in the library says more than a size */
            if (info.bytes > 0) {
                PyOS_snprintf(message, sizeof(message),
                              "%s: out of GPU memory allocating %lld bytes (after releasing the "
                              "library's cached memory and retrying)",
                              info.name, (long long)info.bytes);
            } else {
                PyOS_snprintf(message, sizeof(message), "%s: out of GPU memory [%s:%d]", info.name,
                              info.file != NULL ? info.file : "?", info.line);
            }
            return raise_cuda("OutOfMemoryError", message, &info, 1);
        case VA_ERROR_CUDA_FATAL:
            PyOS_snprintf(message, sizeof(message),
                          "%s: %s (a sticky fault: the CUDA context is lost; restart the "
                          "process to use the GPU again) [%s:%d]",
                          info.name, info.text, info.file, info.line);
            return raise_cuda("CudaFatalError", message, &info, 0);
        case VA_ERROR_LIBRARY_UNAVAILABLE:
            PyOS_snprintf(message, sizeof(message),
                          "%s could not be loaded (%s): install it with `pip install nvidia-cublas`, or "
                          "put the CUDA toolkit's lib64 on LD_LIBRARY_PATH, or name the file in "
                          "MYMODULE_CUBLAS", info.name, info.text);
            PyErr_SetString(PyExc_ImportError, message);
            return NULL;
        case VA_ERROR_CUDA:
            PyOS_snprintf(message, sizeof(message), "%s: %s [%s:%d]", info.name, info.text,
                          info.file, info.line);
            return raise_cuda("CudaError", message, &info, 0);
        case VA_STATUS_MAX_ENUM:
            break;
    }
    PyErr_Format(PyExc_SystemError, "the library returned status %d, which this extension does not know",
                 (int)status);
    return NULL;
}

int require_cuda(const char *what)
{
    va_status status = va_cuda_available();
    if (status == VA_SUCCESS) {
        return 0;
    }
    if (status == VA_ERROR_NO_DEVICE) {
        va_error_info info;
        va_last_error(&info);
        char reason[384];
        cuda_unavailable_reason(&info, reason, sizeof(reason));
        char message[512];
        PyOS_snprintf(message, sizeof(message), "%s needs a CUDA GPU, and none is usable: %s (%s)",
                      what, reason, info.name);
        raise_cuda("CudaUnavailableError", message, &info, 0);
        return -1;
    }
    raise_status(status);
    return -1;
}

int refuse_unordered(const char *name, va_dtype dtype)
{
    if (dtype_kind(dtype) != 'c') {
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "%s() orders real numbers only, not %s (the array API standard's rule; "
                 "sort the real and imaginary parts yourself for NumPy's order)", name, va_dtype_name(dtype));
    return -1;
}

PyObject *raise_unsupported_dtype(PyObject *dtype_or_object)
{
    PyErr_Format(PyExc_TypeError, "unsupported dtype %R: myModule supports %s", dtype_or_object,
                 supported_dtypes_and());
    return NULL;
}
