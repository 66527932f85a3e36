// The CPUs next to a GPU (its PCIe root's NUMA node), so that the threads which
// stage a GPU's chunks copy between memory and pinned buffers of their own
// node: the staging memcpy is bound by host memory, and on a two-socket host
// the other socket's memory costs the interconnect's bandwidth too.
#pragma once

#include <cstddef>

namespace va {

// True when MYMODULE_BIND_WORKERS is set: worker threads bind themselves to
// their GPU's CPUs (the caller's own thread is never moved).
bool bind_workers();

// Binds the calling thread to the CPUs local to `device`, when the system says
// which they are and some of them are ours to use; otherwise leaves it alone.
void bind_to_device_cpus(int device);

// The bytes of CPU 0's last-level cache (its cache index with the highest level,
// as /sys/devices/system/cpu/cpu0/cache says, which is what lscpu shows), or 0
// where the system does not say. Read once.
size_t last_level_cache_bytes();

}  // namespace va
