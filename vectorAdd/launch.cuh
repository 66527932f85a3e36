// Kernel launches that may overlap the previous kernel on the same stream
// (programmatic dependent launch, compute capability 9.0 and newer): the next
// grid is scheduled while this one's last wave runs, and each of its blocks waits
// on the device until the previous grid's writes are visible. That hides the
// launch gap between back-to-back kernels (bench/NOTES.md, change 7).
#pragma once

#include <utility>

#include <cuda_runtime.h>

namespace va {

// The first statement of every kernel started with launch_kernel: waits for the
// previous grid on the stream to finish (its writes visible), then lets the next
// grid be scheduled. Nothing before sm_90, or when the launch did not overlap.
__device__ __forceinline__ void follow_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Whether launches on `device` may overlap: compute capability >= 9.0 and
// MYMODULE_NO_OVERLAP unset. Read once per device.
bool overlapped_launches(int device);

// Launches `kernel` (which must begin with follow_previous_grid()) on `stream`.
template <typename... Params, typename... Args>
cudaError_t launch_kernel(int device, void (*kernel)(Params...), unsigned grid, unsigned block,
                          cudaStream_t stream, Args &&...args) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(block);
    config.stream = stream;
    cudaLaunchAttribute overlap[1];
    if (overlapped_launches(device)) {
        overlap[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        overlap[0].val.programmaticStreamSerializationAllowed = 1;
        config.attrs = overlap;
        config.numAttrs = 1;
    }
    return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace va
