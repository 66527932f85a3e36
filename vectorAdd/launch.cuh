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

// Whether `device` runs thread-block clusters (compute capability >= 9.0).
bool has_clusters(int device);

// Launches `kernel` (which must begin with follow_previous_grid()) on `stream`,
// in clusters of `cluster` blocks when that is more than 1 (has_clusters only).
template <typename... Params, typename... Args>
cudaError_t launch_kernel_in_clusters(int device, void (*kernel)(Params...), unsigned grid,
                                      unsigned block, unsigned cluster, cudaStream_t stream,
                                      Args &&...args) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(block);
    config.stream = stream;
    cudaLaunchAttribute attributes[2];
    unsigned count = 0;
    if (overlapped_launches(device)) {
        attributes[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attributes[count].val.programmaticStreamSerializationAllowed = 1;
        ++count;
    }
    if (cluster > 1) {
        attributes[count].id = cudaLaunchAttributeClusterDimension;
        attributes[count].val.clusterDim.x = cluster;
        attributes[count].val.clusterDim.y = 1;
        attributes[count].val.clusterDim.z = 1;
        ++count;
    }
    config.attrs = attributes;
    config.numAttrs = count;
    return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

template <typename... Params, typename... Args>
cudaError_t launch_kernel(int device, void (*kernel)(Params...), unsigned grid, unsigned block,
                          cudaStream_t stream, Args &&...args) {
    return launch_kernel_in_clusters(device, kernel, grid, block, 1u, stream,
                                     std::forward<Args>(args)...);
}

}  // namespace va
