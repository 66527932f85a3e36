// The CPUs next to a GPU (its PCIe root's NUMA node), so that the threads which
// stage a GPU's chunks copy between memory and pinned buffers of their own
// node: the staging memcpy is bound by host memory, and on a two-socket host
// the other socket's memory costs the interconnect's bandwidth too.
#pragma once

namespace va {

// True when MYMODULE_BIND_WORKERS is set: worker threads bind themselves to
// their GPU's CPUs (the caller's own thread is never moved).
bool bind_workers();

// Binds the calling thread to the CPUs local to `device`, when the system says
// which they are and some of them are ours to use; otherwise leaves it alone.
void bind_to_device_cpus(int device);

}  // namespace va
