// Operations on host memory computed by the GPU. Three routes, by size and
// layout: small data is staged into pinned, device-mapped memory and read by
// the kernel in place (one launch, one wait); large contiguous data goes
// through the worker pipeline; anything else is uploaded as it lies.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "layout.cuh"
#include "memory.cuh"
#include "host_path.cuh"
#include "op_types.cuh"
#include "pipeline.cuh"
#include "pipeline_trace.cuh"

namespace va {

bool c_contiguous(const va_array *a) { return va_is_c_contiguous(a) != 0; }

bool all_broadcast(const va_array *a) {
    for (int d = 0; d < a->ndim; ++d)
        if (a->shape[d] != 1 && a->strides[d] != 0) return false;
    return true;
}

int64_t extent_bytes(const va_array *a) {
    int64_t lo = 0, hi = 0;
    byte_extent(a, &lo, &hi);
    return hi - lo;
}

namespace {

size_t align_up(size_t x) { return (x + 255) / 256 * 256; }

// Copies the bytes a host view spans to `dst` (host memory the GPU reads at
// `dst_device`) and describes the same view there.
void stage_view(const va_array *host, char *dst, char *dst_device, va_array *staged) {
    int64_t lo = 0, hi = 0;
    byte_extent(host, &lo, &hi);
    if (hi > lo) std::memcpy(dst, static_cast<const char *>(host->data) + lo, static_cast<size_t>(hi - lo));
    *staged = *host;
    staged->data = dst_device - lo;
}

// Uploads the bytes a host view spans and describes the same view on the device.
va_status upload_view(cudaStream_t stream, const va_array *host, DeviceBuffer *buffer,
                      va_array *device_view) {
    int64_t lo = 0, hi = 0;
    byte_extent(host, &lo, &hi);
    VA_CHECK(buffer->allocate(static_cast<size_t>(hi - lo)));
    *device_view = *host;
    device_view->data = buffer->get() - lo;
    if (hi > lo)
        VA_CUDA_CHECK(cudaMemcpyAsync(buffer->get(), static_cast<const char *>(host->data) + lo,
                                      static_cast<size_t>(hi - lo), cudaMemcpyHostToDevice, stream));
    return VA_SUCCESS;
}

// Where the kernel may write a host output directly: pinned blocks of ours.
char *mapped_output(void *out) {
    if (!host_block_is_pinned(out)) return nullptr;
    void *mapped = nullptr;
    if (cudaHostGetDevicePointer(&mapped, out, 0) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    return static_cast<char *>(mapped);
}

// ---- route 1: small ----
va_status elementwise_small(int device, cudaStream_t stream, va_op op, int32_t nin,
                            const va_array *in, const double *params, const va_array *out,
                            int64_t n, va_dtype compute) {
    SmallStaging *staging = nullptr;
    VA_CHECK(small_staging_for(device, &staging));
    std::lock_guard<std::mutex> lock(staging->busy);
    va_array staged[VA_MAX_INPUTS], so = *out;
    size_t used = 0;
    for (int k = 0; k < nin; ++k) {
        stage_view(&in[k], staging->host + used, staging->mapped + used, &staged[k]);
        used += align_up(static_cast<size_t>(extent_bytes(&in[k])));
    }
    const size_t out_bytes = static_cast<size_t>(n) * va_dtype_size(out->dtype);
    char *direct = mapped_output(out->data);
    so.data = direct != nullptr ? direct : staging->mapped + used;
    VA_CHECK(elementwise_on_stream(device, stream, op, nin, staged, params, &so, n, compute));
    VA_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (direct == nullptr) std::memcpy(out->data, staging->host + used, out_bytes);
    return VA_SUCCESS;
}

bool fits_small(size_t total) { return total <= kSmallBytes; }

// ---- route 2: the pipeline ----
struct HostInput {
    const char *data;
    va_dtype dtype;
    size_t size;
    bool scalar;
};

// Bytes of `in` a chunk of `count` elements stages: one element for a scalar.
size_t staged_bytes(const HostInput &in, int64_t count) {
    return in.scalar ? in.size : static_cast<size_t>(count) * in.size;
}

// Copies elements [begin, begin+count) of inputs[0..nin) side by side into the
// slot's pinned buffer, each at a 256-byte boundary, queues one upload of them
// all, and describes each on the device; `streaming` is the call's choice of
// staging copy (stage_streaming). One copy of both inputs rather than one an
// input halves the transfers the link pays a fixed gap for: add of two 1e9 host
// float64 arrays into a pinned out= took 316-324 ms in 2 MiB chunks against
// 329-333 with a copy an input, and 344-357 against 366-374 in 1 MiB chunks, on
// an H200 (16 CPUs, 8 workers; session 29, bench/probes/zero_copy.cu, five rounds
// on two machines; bench/NOTES.md). `trace` (may be null) gets the memcpy's and
// the enqueue's times, `t` being the time now.
va_status stage_inputs(const HostInput *inputs, int nin, bool streaming, StageSlot &slot, cudaStream_t stream,
                       int64_t begin, int64_t count, va_array *views, WorkerTrace *trace, int64_t &t) {
    size_t at = 0, end = 0, staged = 0;
    for (int k = 0; k < nin; ++k) {
        const HostInput &in = inputs[k];
        const size_t bytes = staged_bytes(in, count);
        const char *src = in.scalar ? in.data : in.data + static_cast<size_t>(begin) * in.size;
        stage_copy(slot.pinned_in + at, src, bytes, streaming);
        std::memset(&views[k], 0, sizeof(views[k]));
        views[k].data = slot.dev_in + at;
        views[k].dtype = in.dtype;
        views[k].ndim = 1;
        views[k].shape[0] = count;
        views[k].strides[0] = in.scalar ? 0 : static_cast<int64_t>(in.size);
        staged += bytes;
        end = at + bytes;
        at = align_up(end);  // within kPipelineInputs x chunk_bytes(): bytes <= chunk_bytes(), a page multiple
    }
    if (trace != nullptr) {
        trace_lap(&trace->stage, t);
        trace->bytes += static_cast<int64_t>(staged);
    }
    VA_CUDA_CHECK(cudaMemcpyAsync(slot.dev_in, slot.pinned_in, end, cudaMemcpyHostToDevice, stream));
    trace_lap(trace != nullptr ? &trace->enqueue : nullptr, t);
    return VA_SUCCESS;
}

HostInput host_input(const va_array *a) {
    return HostInput{static_cast<const char *>(a->data), a->dtype, va_dtype_size(a->dtype),
                     all_broadcast(a)};
}

// Chunks [c0, c1) (`elements` elements in all, and the staging copy, for the
// trace) on the first `workers` of the pipeline's workers, each taking the next
// chunk from a counter as soon as one of its slots is free: `queue(worker, slot, c, trace, t)`
// stages chunk c in the slot and queues its work on the worker's stream; the
// slot is reused once that work is done. Returns when every worker's stream is
// drained. The caller holds p.busy.
template <typename Queue>
va_status for_each_chunk(int device, Pipeline &p, int workers_asked, va_op op, int64_t elements,
                         int64_t chunk, int64_t c0, int64_t c1, bool streaming, Queue queue) {
    const int workers = static_cast<int>(std::min<int64_t>(std::min(workers_asked, p.workers), c1 - c0));
    CallTrace trace(op_entry(op)->info.name, device, elements, chunk, c1 - c0, workers, streaming);
    ChunkCounter next(c0);
    return run_workers(p, device, workers, [&](int w) -> va_status {
        StageWorker &worker = p.worker[w];
        WorkerTrace *wt = trace.worker(w);
        int64_t t = wt != nullptr ? trace.began() : 0;
        trace_lap(wt != nullptr ? &wt->start : nullptr, t);
        int iteration = 0;
        for (int64_t c = next.take(); c < c1; c = next.take(), ++iteration) {
            StageSlot &slot = worker.slots[iteration % worker.nslots];
            VA_CUDA_CHECK(cudaEventSynchronize(slot.done));  // the slot's last chunk is out
            trace_lap(wt != nullptr ? &wt->wait : nullptr, t);
            VA_CHECK(queue(worker, slot, c, wt, t));
            VA_CUDA_CHECK(cudaEventRecord(slot.done, worker.stream));
            if (wt != nullptr) {
                trace_lap(&wt->enqueue, t);
                ++wt->chunks;
            }
        }
        VA_CUDA_CHECK(cudaStreamSynchronize(worker.stream));
        trace_lap(wt != nullptr ? &wt->drain : nullptr, t);
        return VA_SUCCESS;
    });
}

va_status elementwise_pipelined(int device, int sharing, va_op op, int32_t nin, const va_array *in,
                                const double *params, const va_array *out, int64_t n,
                                va_dtype compute) {
    Pipeline *p = nullptr;
    VA_CHECK(pipeline_for(device, &p));
    std::lock_guard<std::mutex> lock(p->busy);
    HostInput inputs[kPipelineInputs];
    const size_t osize = va_dtype_size(out->dtype);
    size_t widest = osize;
    for (int k = 0; k < nin; ++k) {
        inputs[k] = host_input(&in[k]);
        widest = std::max(widest, inputs[k].size);
    }
    const int workers = elementwise_workers(*p, sharing);
    const int64_t chunk = chunk_elements(n, widest, workers, sharing);
    const int64_t nchunks = (n + chunk - 1) / chunk;
    size_t chunk_staged = 0;
    for (int k = 0; k < nin; ++k) chunk_staged += staged_bytes(inputs[k], chunk);
    const bool streaming = stage_streaming(sharing, workers, chunk_staged);
    char *out_data = static_cast<char *>(out->data);
    return for_each_chunk(device, *p, workers, op, n, chunk, 0, nchunks, streaming,
                          [&](StageWorker &worker, StageSlot &slot, int64_t c, WorkerTrace *wt, int64_t &t) {
        const int64_t begin = c * chunk, count = std::min(chunk, n - begin);
        va_array views[kPipelineInputs], vo;
        VA_CHECK(stage_inputs(inputs, nin, streaming, slot, worker.stream, begin, count, views, wt, t));
        std::memset(&vo, 0, sizeof(vo));
        vo.data = slot.dev_out;
        vo.dtype = out->dtype;
        vo.ndim = 1;
        vo.shape[0] = count;
        vo.strides[0] = static_cast<int64_t>(osize);
        VA_CHECK(elementwise_on_stream(device, worker.stream, op, nin, views, params, &vo, count, compute));
        VA_CUDA_CHECK(cudaMemcpyAsync(out_data + static_cast<size_t>(begin) * osize, slot.dev_out,
                                      static_cast<size_t>(count) * osize, cudaMemcpyDeviceToHost,
                                      worker.stream));
        return VA_SUCCESS;
    });
}

// A host scalar of dtype `from` rewritten in place as dtype `to`, cast as NumPy
// casts it (convert_to).
va_status cast_scalar(void *value, va_dtype from, va_dtype to) {
    if (from == to) return VA_SUCCESS;
    return dispatch_dtype(from, [&](auto tf) {
        using F = typename decltype(tf)::type;
        F v;
        std::memcpy(&v, value, sizeof(F));
        return dispatch_dtype(to, [&](auto tt) {
            using T = typename decltype(tt)::type;
            const T r = convert_to<T>(v);
            std::memcpy(value, &r, sizeof(T));
            return VA_SUCCESS;
        });
    });
}

// Partial results of chunks [c0, c1) of `in` (chunks of `chunk` elements of n)
// computed on `device` by its pipeline, partial c written at
// partials + (c - c0) * acc_size (device memory of `device`), one of `sharing`
// GPUs staging at once.
va_status reduce_chunks(int device, int sharing, va_op op, const HostInput &in, int64_t n, int64_t chunk,
                        int64_t c0, int64_t c1, char *partials, size_t acc_size) {
    Pipeline *p = nullptr;
    VA_CHECK(pipeline_for(device, &p));
    std::lock_guard<std::mutex> lock(p->busy);
    const int workers = reduction_workers(*p);
    const bool streaming = stage_streaming(sharing, workers, staged_bytes(in, chunk));
    const int64_t elements = std::min(n, c1 * chunk) - c0 * chunk;
    return for_each_chunk(device, *p, workers, op, elements, chunk, c0, c1, streaming,
                          [&](StageWorker &worker, StageSlot &slot, int64_t c, WorkerTrace *wt, int64_t &t) {
        const int64_t begin = c * chunk, count = std::min(chunk, n - begin);
        va_array view;
        VA_CHECK(stage_inputs(&in, 1, streaming, slot, worker.stream, begin, count, &view, wt, t));
        return reduce_on_stream(device, worker.stream, op, &view, count, worker.scratch,
                                partials + (c - c0) * acc_size, true);
    });
}

// A C-contiguous host array reduced in chunks whose size depends on n alone,
// the chunks shared out in order among devices[0..ndevices), and their partial
// results combined on devices[0] in chunk order: the same bits whatever the
// number of devices.
va_status reduce_pipelined(const int *devices, int ndevices, va_op op, const va_array *a, int64_t n,
                           va_dtype result_dtype, void *result) {
    const int home = devices[0];
    cudaStream_t stream = nullptr;
    VA_CHECK(library_stream(home, &stream));
    const HostInput in = host_input(a);
    const int64_t chunk = reduce_chunk_elements(n, in.size);
    const int64_t nchunks = (n + chunk - 1) / chunk;
    ndevices = static_cast<int>(std::min<int64_t>(ndevices, nchunks));
    const va_dtype acc = op_entry(op)->accumulator[a->dtype];
    const size_t acc_size = va_dtype_size(acc);
    DeviceBuffer partials(home, stream);
    VA_CHECK(partials.allocate(static_cast<size_t>(nchunks) * acc_size));
    VA_CUDA_CHECK(cudaStreamSynchronize(stream));  // the buffer exists before other streams use it
    // The other devices' partials come back through the host, a few bytes a chunk.
    std::vector<char> remote(static_cast<size_t>(nchunks) * acc_size);
    auto first_chunk = [&](int i) { return nchunks * i / ndevices; };
    const int64_t t0 = trace_now();
    VA_CHECK(run_on_devices(devices, ndevices, [&](int i) -> va_status {
        const int64_t c0 = first_chunk(i), c1 = first_chunk(i + 1);
        if (i == 0) return reduce_chunks(home, ndevices, op, in, n, chunk, c0, c1, partials.get(), acc_size);
        cudaStream_t own = nullptr;
        VA_CHECK(library_stream(devices[i], &own));
        DeviceBuffer mine(devices[i], own);
        VA_CHECK(mine.allocate(static_cast<size_t>(c1 - c0) * acc_size));
        VA_CUDA_CHECK(cudaStreamSynchronize(own));
        VA_CHECK(reduce_chunks(devices[i], ndevices, op, in, n, chunk, c0, c1, mine.get(), acc_size));
        VA_CUDA_CHECK(cudaMemcpyAsync(remote.data() + c0 * acc_size, mine.get(),
                                      static_cast<size_t>(c1 - c0) * acc_size, cudaMemcpyDeviceToHost, own));
        VA_CUDA_CHECK(cudaStreamSynchronize(own));
        return VA_SUCCESS;
    }));
    const int64_t t_parts = trace_now();
    for (int i = 1; i < ndevices; ++i) {
        const int64_t c0 = first_chunk(i), c1 = first_chunk(i + 1);
        VA_CUDA_CHECK(cudaMemcpyAsync(partials.get() + c0 * acc_size, remote.data() + c0 * acc_size,
                                      static_cast<size_t>(c1 - c0) * acc_size, cudaMemcpyHostToDevice,
                                      stream));
    }
    // The chunks' results, in the accumulator dtype, reduced once more (a float32
    // sum accumulates in double and is rounded once, at the end).
    va_array partial_view;
    std::memset(&partial_view, 0, sizeof(partial_view));
    partial_view.data = partials.get();
    partial_view.dtype = acc;
    partial_view.ndim = 1;
    partial_view.shape[0] = nchunks;
    partial_view.strides[0] = static_cast<int64_t>(acc_size);
    va_dtype compute, partial_result;
    VA_CHECK(va_op_dtypes(op, 1, &acc, nullptr, &compute, &partial_result));
    VA_CHECK(reduce_and_wait(home, stream, op, &partial_view, nchunks, result));
    trace_note("%s n=%lld over %d GPUs: %lld chunks of %lld, partials %.2f ms, combine %.2f ms",
               op_entry(op)->info.name, static_cast<long long>(n), ndevices,
               static_cast<long long>(nchunks), static_cast<long long>(chunk), (t_parts - t0) * 1e-6,
               (trace_now() - t_parts) * 1e-6);
    return cast_scalar(result, partial_result, result_dtype);
}

}  // namespace

bool flat_layout(const va_array *a) { return c_contiguous(a) || all_broadcast(a); }

va_status elementwise_host_on(int device, int sharing, const va_elementwise_plan &plan, int64_t n) {
    const va_op op = plan.op;
    const int32_t nin = plan.nin;
    const va_array *in = plan.in, *out = plan.out;
    const double *params = plan.params;
    const va_dtype compute = plan.compute;
    VA_ENTER_STREAM(device, scope, stream);
    if (n == 0) return VA_SUCCESS;
    const size_t out_bytes = static_cast<size_t>(n) * va_dtype_size(out->dtype);
    size_t staged = out_bytes;
    bool through_pipeline = nin <= kPipelineInputs;
    for (int k = 0; k < nin; ++k) {
        staged += align_up(static_cast<size_t>(extent_bytes(&in[k])));
        through_pipeline = through_pipeline && flat_layout(&in[k]);
    }
    if (fits_small(staged)) return elementwise_small(device, stream, op, nin, in, params, out, n, compute);
    if (through_pipeline) return elementwise_pipelined(device, sharing, op, nin, in, params, out, n, compute);
    DeviceBuffer buffers[VA_MAX_INPUTS] = {{device, stream}, {device, stream}, {device, stream},
                                           {device, stream}};
    DeviceBuffer dout(device, stream);
    va_array views[VA_MAX_INPUTS], vout = *out;
    for (int k = 0; k < nin; ++k) VA_CHECK(upload_view(stream, &in[k], &buffers[k], &views[k]));
    VA_CHECK(dout.allocate(out_bytes));
    vout.data = dout.get();
    VA_CHECK(elementwise_on_stream(device, stream, op, nin, views, params, &vout, n, compute));
    VA_CUDA_CHECK(cudaMemcpyAsync(out->data, dout.get(), out_bytes, cudaMemcpyDeviceToHost, stream));
    VA_CUDA_CHECK(cudaStreamSynchronize(stream));
    return VA_SUCCESS;
}

va_status reduce_host_on(const int *devices, int ndevices, va_op op, const va_array *a, void *result) {
    int64_t n = 0;
    va_dtype result_dtype;
    VA_CHECK(check_reduce(op, a, &n, &result_dtype));
    if (result == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    const int device = devices[0];
    VA_ENTER_STREAM(device, scope, stream);
    const int64_t span = extent_bytes(a);
    if (c_contiguous(a) && span > static_cast<int64_t>(kSmallBytes)) {
        const int sharing = split_count(static_cast<size_t>(span), ndevices);
        return reduce_pipelined(devices, sharing, op, a, n, result_dtype, result);
    }
    if (fits_small(static_cast<size_t>(span))) {
        SmallStaging *staging = nullptr;
        VA_CHECK(small_staging_for(device, &staging));
        std::lock_guard<std::mutex> lock(staging->busy);
        va_array staged;
        stage_view(a, staging->host, staging->mapped, &staged);
        return reduce_and_wait(device, stream, op, &staged, n, result);
    }
    DeviceBuffer da(device, stream);
    va_array view;
    VA_CHECK(upload_view(stream, a, &da, &view));
    return reduce_and_wait(device, stream, op, &view, n, result);
}
}  // namespace va

extern "C" {

va_status va_elementwise_host(int device, va_op op, int32_t nin, const va_array *in,
                              const double *params, const va_array *out) {
    va_elementwise_plan plan;
    VA_CHECK(va::decide_elementwise(op, nin, in, params, out, &plan));
    return va_elementwise_host_planned(&device, 1, &plan);
}

va_status va_binary_host(int device, va_op op, const va_array *a, const va_array *b,
                         const va_array *out) {
    if (a == nullptr || b == nullptr) VA_FAIL(VA_ERROR_INVALID_VALUE);
    const va_array in[2] = {*a, *b};
    return va_elementwise_host(device, op, 2, in, nullptr, out);
}

va_status va_reduce_host(int device, va_op op, const va_array *a, void *result) {
    return va::reduce_host_on(&device, 1, op, a, result);
}

va_status va_sum_host(int device, const va_array *a, void *result) {
    va_op sum = 0;
    VA_CHECK(va_op_find("sum", &sum));
    return va_reduce_host(device, sum, a, result);
}

}  // extern "C"
