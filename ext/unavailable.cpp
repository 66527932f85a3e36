/* Why CUDA is unusable, in the words a user can act on. cudart reports a missing
 * driver and a driver too old for it with the same code (cudaErrorInsufficientDriver);
 * the driver version tells them apart: 0 when libcuda.so.1 could not be loaded. */
#include "common.h"

/* cudaError_t values (stable across CUDA releases); the extension does not include
 * the CUDA headers. */
enum {
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
};

/* The oldest Linux driver branch that runs a CUDA major version (minor version
 * compatibility lets it run every 13.x runtime); 0 where not known. */
static int minimum_driver(int runtime_version)
{
    switch (runtime_version / 1000) {
        case 13: return 580;
        case 12: return 525;
        case 11: return 450;
        default: return 0;
    }
}

void cuda_unavailable_reason(const va_error_info *info, char *buffer, size_t size)
{
    int driver = 0, runtime = 0;
    va_versions(&driver, &runtime);
    int needed = minimum_driver(runtime);
    switch (info->cuda_code) {
        case CUDA_ERROR_STUB_LIBRARY:
        case CUDA_ERROR_INSUFFICIENT_DRIVER:
            if (driver == 0) {
                PyOS_snprintf(buffer, size,
                              "no NVIDIA driver found (libcuda.so.1 could not be loaded; "
                              "myModule needs NVIDIA driver >= %d for CUDA %d.%d)",
                              needed, runtime / 1000, (runtime % 1000) / 10);
            }
            else {
                PyOS_snprintf(buffer, size,
                              "the NVIDIA driver is too old: it supports CUDA %d.%d, myModule "
                              "is built with CUDA %d.%d, which needs NVIDIA driver >= %d",
                              driver / 1000, (driver % 1000) / 10, runtime / 1000,
                              (runtime % 1000) / 10, needed);
            }
            return;
        case CUDA_ERROR_NO_DEVICE:
            PyOS_snprintf(buffer, size,
                          "no CUDA GPU found (the NVIDIA driver is loaded but sees no GPU; "
                          "check CUDA_VISIBLE_DEVICES)");
            return;
        case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
            PyOS_snprintf(buffer, size,
                          "the NVIDIA kernel module and libcuda.so.1 are different versions "
                          "(reboot, or reload the driver, after a driver update)");
            return;
        default:
            PyOS_snprintf(buffer, size, "no usable CUDA GPU or driver (%s: %s)", info->name,
                          info->text);
            return;
    }
}
