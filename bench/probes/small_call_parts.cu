// Probe (session 22): where an n = 1 elementwise call + synchronize spends the
// time above the C floor, split between the library (this program calls its C
// API with no Python in between) and the extension (the Python rows of
// overhead.py minus these). Host clock per call, median of 7 repeats.
// Build and run (from the repository root, after `make lib CUDA_ARCH=90`):
//   nvcc -O3 -std=c++17 -arch=sm_90 bench/probes/small_call_parts.cu -IvectorAdd \
//        build/libvectoradd.a -o /tmp/parts && /tmp/parts
#include "probe_common.cuh"
#include "probe_views.cuh"

__global__ void empty_kernel() {}
__global__ void empty_pdl() {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;");
}
__global__ void add_one(const double *a, const double *b, double *o, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = a[i] + b[i];
}

#define VA_OK(x) do { va_status st_ = (x); if (st_ != VA_SUCCESS) { \
    std::printf("%s:%d status %d\n", __FILE__, __LINE__, (int)st_); return 1; } } while (0)

int main() {
    cudaStream_t own;
    CHECK(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
    void *lib_stream = nullptr;
    VA_OK(va_stream(0, &lib_stream));
    cudaStream_t s = (cudaStream_t)lib_stream;
    SmallAdd small;
    make_small_add(&small);
    VA_OK(small.status);
    const va_elementwise_plan &plan = small.plan;
    const int k = 20000;
    struct Row { const char *name; double us; };
    std::vector<Row> rows;
    auto row = [&](const char *name, auto body) {
        rows.push_back({name, host_us(k, body)});
        cudaDeviceSynchronize();
    };
    int dev = 0, count = 0;
    row("cudaGetDevice", [&] { cudaGetDevice(&dev); });
    row("cudaGetDeviceCount", [&] { cudaGetDeviceCount(&count); });
    row("cudaStreamSynchronize, nothing queued", [&] { cudaStreamSynchronize(own); });
    row("va_synchronize(-1), nothing queued", [&] { va_synchronize(-1); });
    row("va_synchronize(0), nothing queued", [&] { va_synchronize(0); });
    row("empty<<<1,1>>>, no sync", [&] { empty_kernel<<<1, 1, 0, own>>>(); });
    row("empty<<<1,1>>> + stream sync (the C floor)", [&] {
        empty_kernel<<<1, 1, 0, own>>>();
        cudaStreamSynchronize(own);
    });
    row("empty PDL launch + stream sync", [&] {
        launch_pdl(own, 1, 1, empty_pdl);
        cudaStreamSynchronize(own);
    });
    row("add_one<<<1,128>>> n=1 + stream sync", [&] {
        add_one<<<1, 128, 0, own>>>((const double *)small.a, (const double *)small.a, (double *)small.o, 1);
        cudaStreamSynchronize(own);
    });
    row("va_malloc(8) + va_free", [&] {
        void *p = nullptr;
        va_malloc(0, 8, &p);
        va_free(0, p, 8);
    });
    row("va_elementwise_planned add n=1, no sync", [&] { va_elementwise_planned(0, &plan); });
    row("va_elementwise_planned + cudaStreamSynchronize", [&] {
        va_elementwise_planned(0, &plan);
        cudaStreamSynchronize(s);
    });
    row("va_elementwise_planned + va_synchronize(-1)", [&] {
        va_elementwise_planned(0, &plan);
        va_synchronize(-1);
    });
    row("va_elementwise (decides dtypes) + va_synchronize(-1)", [&] {
        va_elementwise(0, plan.op, 2, plan.in, nullptr, plan.out);
        va_synchronize(-1);
    });
    // A full sum of 1e8 float64 into a 0-d result, with and without the pinned
    // copy of the value (va_reduce_axes_scalar / va_reduce_axes): back to back
    // (host time per call over a queue of them) and with a synchronize each.
    const int64_t big_n = 100000000;
    void *big = nullptr, *r0 = nullptr;
    VA_OK(va_malloc(0, big_n * 8, &big));
    VA_OK(va_malloc(0, 8, &r0));
    CHECK(cudaMemset(big, 0, big_n * 8));
    va_op sum;
    VA_OK(va_op_find("sum", &sum));
    const va_array vbig = va_vector(big, VA_FLOAT64, big_n);
    const va_array v0 = va_scalar_view(r0, VA_FLOAT64);
    const int32_t axis0 = 0;
    const int kb = 400;
    for (int round = 0; round < 2; ++round) {
        rows.push_back({"sum 1e8, va_reduce_axes, back to back", host_us(kb, [&] {
            va_reduce_axes(0, sum, &vbig, 1, &axis0, &v0);
        })});
        va_synchronize(-1);
        rows.push_back({"sum 1e8, va_reduce_axes_scalar, back to back", host_us(kb, [&] {
            va_reduce_axes_scalar(0, sum, &vbig, 1, &axis0, &v0);
        })});
        va_synchronize(-1);
        rows.push_back({"sum 1e8, va_reduce_axes + sync", host_us(kb, [&] {
            va_reduce_axes(0, sum, &vbig, 1, &axis0, &v0);
            va_synchronize(0);
        })});
        rows.push_back({"sum 1e8, va_reduce_axes_scalar + sync", host_us(kb, [&] {
            va_reduce_axes_scalar(0, sum, &vbig, 1, &axis0, &v0);
            va_synchronize(0);
        })});
    }
    for (const Row &r : rows) std::printf("%-56s %8.2f us\n", r.name, r.us);
    va_status st = va_synchronize(-1);
    double back = -1;
    cudaMemcpy(&back, small.o, 8, cudaMemcpyDeviceToHost);
    std::printf("status %d, result %g (expected 0)\n", (int)st, back);
    return 0;
}
