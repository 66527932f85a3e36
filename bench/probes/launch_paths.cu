// Probe (session 32): what a launch + wait costs by the API it goes through, with
// the host's caches warm (a tight loop, as the C floor runs) and cold (8 MiB of
// other memory read between calls, as a Python interpreter does between two of
// our calls). Rows: the runtime's <<<>>> and cudaLaunchKernelEx (with and without
// the PDL attribute), the driver's cuLaunchKernel / cuLaunchKernelEx with the
// CUfunction looked up once, each waited for by cudaStreamSynchronize or
// cuStreamSynchronize; the library's n = 1 add; the waits alone. Host clock
// around the call alone (the sweep is outside it); median of 7 rounds.
// Build and run (from the repository root, after `make lib CUDA_ARCH=90`):
//   nvcc -O3 -std=c++17 -arch=sm_90 bench/probes/launch_paths.cu -IvectorAdd \
//        build/release-sm_90/libvectoradd.a -o /tmp/paths && /tmp/paths
#include <cuda.h>

#include "probe_common.cuh"
#include "probe_views.cuh"

#include <functional>

__global__ void empty_kernel() {}
__global__ void empty_pdl() {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;");
}

using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, CUstream, void **, void **);
using LaunchExFn = CUresult (*)(const CUlaunchConfig *, CUfunction, void **, void **);
using SyncFn = CUresult (*)(CUstream);

static std::vector<char> g_sweep(8 << 20);
static volatile long g_sink;

// Reads every cache line of 8 MiB: the host's L1 and L2 hold none of the launch path after.
static void sweep() {
    long s = 0;
    for (size_t i = 0; i < g_sweep.size(); i += 64) s += g_sweep[i];
    g_sink = s;
}

template <typename F>
static double per_call_us(F call, bool cold, int calls) {
    std::vector<double> rounds;
    for (int r = 0; r < 7; ++r) {
        double total = 0;
        for (int i = 0; i < calls; ++i) {
            if (cold) sweep();
            auto t0 = std::chrono::steady_clock::now();
            call();
            auto t1 = std::chrono::steady_clock::now();
            total += std::chrono::duration<double>(t1 - t0).count();
        }
        rounds.push_back(total / calls * 1e6);
        cudaDeviceSynchronize();  // rows that do not wait must not fill the queue
    }
    std::sort(rounds.begin(), rounds.end());
    return rounds[3];
}

#define VA_OK(x) do { va_status st_ = (x); if (st_ != VA_SUCCESS) { \
    std::printf("%s:%d status %d\n", __FILE__, __LINE__, (int)st_); return 1; } } while (0)

template <typename T>
static int entry(const char *name, T *fn) {
    cudaDriverEntryPointQueryResult q;
    void *p = nullptr;
    if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
        std::printf("no driver entry point %s\n", name);
        return 1;
    }
    *fn = reinterpret_cast<T>(p);
    return 0;
}

int main() {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    LaunchFn cu_launch;
    LaunchExFn cu_launch_ex;
    SyncFn cu_sync;
    if (entry("cuLaunchKernel", &cu_launch) || entry("cuLaunchKernelEx", &cu_launch_ex) ||
        entry("cuStreamSynchronize", &cu_sync)) return 1;
    cudaFunction_t f_empty, f_pdl;
    CHECK(cudaGetFuncBySymbol(&f_empty, (const void *)empty_kernel));
    CHECK(cudaGetFuncBySymbol(&f_pdl, (const void *)empty_pdl));
    CUstream cs = (CUstream)s;

    void *lib_stream = nullptr;
    VA_OK(va_stream(0, &lib_stream));
    SmallAdd small;
    make_small_add(&small);
    VA_OK(small.status);
    const va_elementwise_plan &plan = small.plan;

    cudaLaunchAttribute pdl[1];
    pdl[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    pdl[0].val.programmaticStreamSerializationAllowed = 1;
    CUlaunchAttribute cu_pdl[1];
    cu_pdl[0].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    cu_pdl[0].value.programmaticStreamSerializationAllowed = 1;

    struct Row { const char *name; std::function<void()> call; };
    std::vector<Row> rows = {
        {"<<<1,1>>> + cudaStreamSynchronize (the C floor)", [&] { empty_kernel<<<1, 1, 0, s>>>(); cudaStreamSynchronize(s); }},
        {"cudaLaunchKernelEx + cudaStreamSynchronize", [&] {
            cudaLaunchConfig_t c = {}; c.gridDim = dim3(1); c.blockDim = dim3(1); c.stream = s;
            cudaLaunchKernelEx(&c, empty_kernel); cudaStreamSynchronize(s); }},
        {"cudaLaunchKernelEx PDL + cudaStreamSynchronize", [&] {
            cudaLaunchConfig_t c = {}; c.gridDim = dim3(1); c.blockDim = dim3(1); c.stream = s;
            c.attrs = pdl; c.numAttrs = 1;
            cudaLaunchKernelEx(&c, empty_pdl); cudaStreamSynchronize(s); }},
        {"cuLaunchKernel + cuStreamSynchronize", [&] {
            cu_launch((CUfunction)f_empty, 1, 1, 1, 1, 1, 1, 0, cs, nullptr, nullptr); cu_sync(cs); }},
        {"cuLaunchKernel + cudaStreamSynchronize", [&] {
            cu_launch((CUfunction)f_empty, 1, 1, 1, 1, 1, 1, 0, cs, nullptr, nullptr); cudaStreamSynchronize(s); }},
        {"cuLaunchKernelEx PDL + cuStreamSynchronize", [&] {
            CUlaunchConfig c = {}; c.gridDimX = c.gridDimY = c.gridDimZ = 1;
            c.blockDimX = c.blockDimY = c.blockDimZ = 1; c.hStream = cs; c.attrs = cu_pdl; c.numAttrs = 1;
            cu_launch_ex(&c, (CUfunction)f_pdl, nullptr, nullptr); cu_sync(cs); }},
        {"va_elementwise_planned add n=1 + va_synchronize(-1)", [&] { va_elementwise_planned(0, &plan); va_synchronize(-1); }},
        {"va_elementwise_planned add n=1 + cuStreamSynchronize", [&] {
            va_elementwise_planned(0, &plan); cu_sync((CUstream)lib_stream); }},
        {"va_malloc(8) + va_free", [&] { void *p = nullptr; va_malloc(0, 8, &p); va_free(0, p, 8); }},
        {"cudaStreamSynchronize, nothing queued", [&] { cudaStreamSynchronize(s); }},
        {"cuStreamSynchronize, nothing queued", [&] { cu_sync(cs); }},
        {"va_synchronize(-1), nothing queued", [&] { va_synchronize(-1); }},
        {"<<<1,1>>> alone (no wait)", [&] { empty_kernel<<<1, 1, 0, s>>>(); }},
        {"cuLaunchKernel alone (no wait)", [&] { cu_launch((CUfunction)f_empty, 1, 1, 1, 1, 1, 1, 0, cs, nullptr, nullptr); }},
        {"va_elementwise_planned alone (no wait)", [&] { va_elementwise_planned(0, &plan); }},
    };
    for (auto &r : rows) { r.call(); cudaDeviceSynchronize(); }
    std::printf("%-56s %10s %10s\n", "us a call", "warm", "cold");
    for (int pass = 0; pass < 2; ++pass) {
        for (auto &r : rows) {
            const int calls = 500;
            const double warm = per_call_us(r.call, false, calls);
            cudaDeviceSynchronize();
            const double cold = per_call_us(r.call, true, calls);
            cudaDeviceSynchronize();
            std::printf("%-56s %10.2f %10.2f\n", r.name, warm, cold);
        }
        std::printf("\n");
    }
    CHECK(cudaGetLastError());
    return 0;
}
