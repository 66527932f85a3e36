// The one-element result of the last full reduction, kept also in pinned host
// memory, so that a Python float of it is read with no copy.
//
// float(mm.sum(d)) queues a reduction into a new 0-d DeviceArray, then reads its
// bytes back: a device-to-host copy on top of the synchronisation costs several
// microseconds (bench/NOTES.md, session 21). A reduction into memory no code
// outside the library has seen (va_reduce_axes_scalar) writes its value twice,
// into that memory and into a mapped pinned slot; a read of those bytes
// (va_copy_to_host) then waits for the stream and takes them from the slot.
// The slot is trusted only while the write epoch (runtime.cuh) stays where the
// reduction left it: any later use of the library's stream, or an export of an
// address, may have changed the bytes, and the read takes the ordinary path.
#pragma once

#include <cstddef>
#include <mutex>

#include <cuda_runtime.h>

#include "vectorAdd.h"

namespace va {

// One reduction writing the slot: holds the mirror's lock from before the
// launch to after publish(), so no other reduction writes the slot between.
class MirrorWrite {
public:
    MirrorWrite();
    ~MirrorWrite();
    MirrorWrite(const MirrorWrite &) = delete;
    MirrorWrite &operator=(const MirrorWrite &) = delete;
    // The slot's device address for the kernel; moves the epoch first, so any
    // read of the slot's previous value in flight is not served from it.
    va_status slot(void **device_address);
    // The kernel writes `nbytes` of device memory at `address` also to the slot.
    void publish(int device, const void *address, size_t nbytes);

private:
    std::unique_lock<std::mutex> lock_;
};

// Copies `nbytes` at device address `src` into `dst` from the slot, after
// waiting for `stream`, when the slot holds them unchanged; *served says
// whether it did (when not, nothing was copied).
va_status mirror_read(int device, cudaStream_t stream, void *dst, const void *src, size_t nbytes, bool *served);

}  // namespace va
