// What the host routes (host_path.cu) share with the code that spreads host
// work over several GPUs (host_split.cu).
#pragma once

#include "vectorAdd.h"

namespace va {

bool c_contiguous(const va_array *a);
// Every extent of more than one element has stride 0.
bool all_broadcast(const va_array *a);
// C-contiguous or all broadcast: the view reads as one dimension of its elements
// (a pipeline's chunks, a split's pieces cut anywhere).
bool flat_layout(const va_array *a);
// Bytes between the lowest and the highest byte the view reads.
int64_t extent_bytes(const va_array *a);

// va_reduce_host over the GPUs devices[0..ndevices) (valid, distinct): a large
// C-contiguous input is shared out among as many as pay (split_count), and the
// result is the same bits as on devices[0] alone; anything else runs on devices[0].
va_status reduce_host_on(const int *devices, int ndevices, va_op op, const va_array *a, void *result);

// A checked plan (check_elementwise_plan, n elements, out C-contiguous: the
// caller checked it once for the whole call) on host memory, computed by
// `device`, one of `sharing` GPUs that take a piece of the call at once: staged
// in place when small, through the pipeline when its layouts are flat, else
// uploaded as it lies.
va_status elementwise_host_on(int device, int sharing, const va_elementwise_plan &plan, int64_t n);

}  // namespace va
