// A deliberate fault, for the tests of the fatal-error path.
#include "runtime.cuh"

namespace va {
namespace {
__global__ void write_through_invalid_address(int *p) { *p = 1; }
}  // namespace
}  // namespace va

extern "C" va_status va_testing_fault(int device) {
    VA_ENTER_STREAM(device, scope, stream);
    // An address no allocation can have: the kernel faults, the context dies.
    int *bad = reinterpret_cast<int *>(static_cast<uintptr_t>(0x10));
    va::write_through_invalid_address<<<1, 1, 0, stream>>>(bad);
    VA_LAUNCH_CHECK();
    VA_CUDA_CHECK(cudaStreamSynchronize(stream));
    return VA_SUCCESS;
}
