// Probe (session 3): where the time of small calls goes, whether programmatic
// dependent launch (PDL, sm_90) shortens back-to-back kernels at n = 1e6, and
// which grid a sum over 1e8 doubles wants. bench/NOTES.md records the outcome.
// Build and run (from the repository root, after `make lib CUDA_ARCH=90`):
//   nvcc -O3 -std=c++17 -arch=sm_90 bench/probes/latency.cu -IvectorAdd \
//        build/libvectoradd.a -o /tmp/latency && /tmp/latency
#include <cub/cub.cuh>

#include "probe_common.cuh"
#include "probe_views.cuh"


__global__ void empty_kernel() {}

__global__ void add_one_block(const double *a, const double *b, double *o, long long n) {
    for (long long i = threadIdx.x; i < n; i += blockDim.x) o[i] = a[i] + b[i];
}

// The same, then a sequence number written to mapped host memory: the host
// spins on it instead of waiting for the stream.
__global__ void add_one_block_flag(const double *a, const double *b, double *o, long long n,
                                   volatile unsigned *flag, unsigned seq) {
    for (long long i = threadIdx.x; i < n; i += blockDim.x) o[i] = a[i] + b[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence_system();
        *flag = seq;
    }
}

// The library's sum shape: each block a contiguous run of `span` packs, U packs
// in flight a thread, the last block to finish adds the partials.
template <int U>
__global__ void sum_runs(const D2 *p, long long groups, long long span, double *partials,
                         unsigned *counter, double *result) {
    long long begin = (long long)blockIdx.x * span, end = min(begin + span, groups);
    double acc[U] = {};
    for (long long base = begin + threadIdx.x; base < end; base += blockDim.x * U) {
        D2 v[U];
#pragma unroll
        for (int k = 0; k < U; ++k) if (base + k * blockDim.x < end) v[k] = p[base + k * blockDim.x];
#pragma unroll
        for (int k = 0; k < U; ++k) if (base + k * blockDim.x < end) acc[k] += v[k].x + v[k].y;
    }
    double t = 0;
#pragma unroll
    for (int k = 0; k < U; ++k) t += acc[k];
    t = block_sum(t);
    if (!last_block_to_finish(t, partials, counter)) return;
    double total = 0;
    for (int i = threadIdx.x; i < (int)gridDim.x; i += blockDim.x) total += __ldcg(&partials[i]);
    total = block_sum(total);
    if (threadIdx.x == 0) { *result = total; *counter = 0; }
}

va_array vec(void *p, long long n) { return va_vector(p, VA_FLOAT64, n); }

int main() {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    double *a, *b, *o;
    const long long nbig = 100000000LL;
    CHECK(cudaMalloc(&a, nbig * 8));
    CHECK(cudaMalloc(&b, nbig * 8));
    CHECK(cudaMalloc(&o, nbig * 8));
    {
        std::vector<double> h(nbig);
        for (long long i = 0; i < nbig; ++i) h[i] = (double)((i * 2654435761LL) % 1000003) / 1000003.0 - 0.5;
        CHECK(cudaMemcpy(a, h.data(), nbig * 8, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(b, h.data(), nbig * 8, cudaMemcpyHostToDevice));
    }
    unsigned *hflag = nullptr, *dflag = nullptr;
    CHECK(cudaHostAlloc(&hflag, 64, cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer((void **)&dflag, hflag, 0));
    *hflag = 0;
    const int K = 3000;

    std::printf("== latency of one small call (host clock, median of 7 x %d) ==\n", K);
    std::printf("%-58s %7.2f us\n", "cudaStreamSynchronize, nothing queued",
                host_us(K, [&] { cudaStreamSynchronize(s); }));
    std::printf("%-58s %7.2f us\n", "cudaStreamQuery, nothing queued",
                host_us(K, [&] { cudaStreamQuery(s); }));
    std::printf("%-58s %7.2f us\n", "empty kernel launch (host cost, no sync)",
                host_us(K, [&] { empty_kernel<<<1, 32, 0, s>>>(); }));
    cudaStreamSynchronize(s);
    std::printf("%-58s %7.2f us\n", "empty kernel + cudaStreamSynchronize",
                host_us(K, [&] { empty_kernel<<<1, 32, 0, s>>>(); cudaStreamSynchronize(s); }));
    std::printf("%-58s %7.2f us\n", "add n=1 kernel + cudaStreamSynchronize",
                host_us(K, [&] { add_one_block<<<1, 256, 0, s>>>(a, b, o, 1); cudaStreamSynchronize(s); }));
    unsigned seq = 0;
    std::printf("%-58s %7.2f us\n", "add n=1 kernel + spin on mapped flag",
                host_us(K, [&] {
                    ++seq;
                    add_one_block_flag<<<1, 256, 0, s>>>(a, b, o, 1, dflag, seq);
                    while (*(volatile unsigned *)hflag != seq) {}
                }));
    cudaStreamSynchronize(s);
    cudaEvent_t ev;
    cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    std::printf("%-58s %7.2f us\n", "add n=1 kernel + event record + event sync",
                host_us(K, [&] { add_one_block<<<1, 256, 0, s>>>(a, b, o, 1); cudaEventRecord(ev, s); cudaEventSynchronize(ev); }));

    va_array va1 = vec(a, 1), vb1 = vec(b, 1), vo1 = vec(o, 1);
    va_op add_op;  // "add" by name: the table numbers operations when it is built
    if (va_op_find("add", &add_op) != VA_SUCCESS) return 1;
    va_synchronize(0);
    std::printf("%-58s %7.2f us\n", "va_binary n=1 (no sync)",
                host_us(K, [&] { va_binary(0, add_op, &va1, &vb1, &vo1); }));
    va_synchronize(0);
    std::printf("%-58s %7.2f us\n", "va_synchronize(-1), nothing queued",
                host_us(K, [&] { va_synchronize(-1); }));
    std::printf("%-58s %7.2f us\n", "va_binary n=1 + va_synchronize(-1)",
                host_us(K, [&] { va_binary(0, add_op, &va1, &vb1, &vo1); va_synchronize(-1); }));
    std::printf("%-58s %7.2f us\n", "va_malloc + va_binary n=1 + va_free + va_synchronize",
                host_us(K, [&] {
                    void *p = nullptr;
                    va_malloc(0, 8, &p);
                    va_array vp = vec(p, 1);
                    va_binary(0, add_op, &va1, &vb1, &vp);
                    va_free(0, p, 8);
                    va_synchronize(-1);
                }));
    std::printf("%-58s %7.2f us\n", "va_malloc + va_free (8 bytes)",
                host_us(K, [&] { void *p = nullptr; va_malloc(0, 8, &p); va_free(0, p, 8); }));
    double r = 0;
    va_array v1k = vec(a, 1000);
    std::printf("%-58s %7.2f us\n", "va_sum n=1000",
                host_us(K, [&] { va_sum(0, &v1k, &r); }));
    va_array vbig = vec(a, nbig);
    std::printf("%-58s %7.2f us\n", "va_sum n=1e8 (synchronous)",
                host_us(50, [&] { va_sum(0, &vbig, &r); }));

    std::printf("\n== add n=1e6, 8 rotating sets (192 MB > L2), back to back, events ==\n");
    const long long n6 = 1000000, g6 = n6 / 2;
    auto set = [&](const double *base, int i) { return (const D2 *)(base + (long long)(i % 8) * 12 * n6); };
    auto launch_plain = [&](auto kernel, int u, int threads) {
        return [=, &set](int i) {
            kernel<<<(unsigned)((g6 + threads * u - 1) / (threads * u)), threads, 0, s>>>(
                set(a, i), set(b, i), (D2 *)(o + (long long)(i % 8) * 12 * n6), g6);
        };
    };
    auto launch_overlapped = [&](auto kernel, int u, int threads) {
        return [=, &set](int i) {
            launch_pdl(s, (unsigned)((g6 + threads * u - 1) / (threads * u)), threads, kernel,
                       set(a, i), set(b, i), (D2 *)(o + (long long)(i % 8) * 12 * n6), g6);
        };
    };
    std::printf("%-58s %7.2f us\n", "tiles U4 x256 (library today)", event_us(s, 200, launch_plain(add_tiles<4, false>, 4, 256)));
    std::printf("%-58s %7.2f us\n", "tiles U2 x256", event_us(s, 200, launch_plain(add_tiles<2, false>, 2, 256)));
    std::printf("%-58s %7.2f us\n", "tiles U1 x256", event_us(s, 200, launch_plain(add_tiles<1, false>, 1, 256)));
    std::printf("%-58s %7.2f us\n", "tiles U8 x256", event_us(s, 200, launch_plain(add_tiles<8, false>, 8, 256)));
    std::printf("%-58s %7.2f us\n", "tiles U4 x128", event_us(s, 200, launch_plain(add_tiles<4, false>, 4, 128)));
    std::printf("%-58s %7.2f us\n", "tiles U4 x256 + PDL", event_us(s, 200, launch_overlapped(add_tiles<4, true>, 4, 256)));
    std::printf("%-58s %7.2f us\n", "tiles U2 x256 + PDL", event_us(s, 200, launch_overlapped(add_tiles<2, true>, 2, 256)));
    std::printf("%-58s %7.2f us\n", "tiles U1 x256 + PDL", event_us(s, 200, launch_overlapped(add_tiles<1, true>, 1, 256)));
    std::printf("%-58s %7.2f us\n", "tiles U4 x256 PDL kernel, plain launch", event_us(s, 200, launch_plain(add_tiles<4, true>, 4, 256)));
    std::printf("%-58s %7.2f us\n", "(host clock) tiles U4 + PDL, each + stream sync",
                host_us(500, [&] { launch_overlapped(add_tiles<4, true>, 4, 256)(seq++); cudaStreamSynchronize(s); }));
    std::printf("%-58s %7.2f us\n", "(host clock) tiles U4, each + stream sync",
                host_us(500, [&] { launch_plain(add_tiles<4, false>, 4, 256)(seq++); cudaStreamSynchronize(s); }));
    std::printf("%-58s %7.2f us\n", "va_binary n=1e6 back to back (host clock / call)",
                host_us(500, [&] {
                    int i = seq++ % 8;
                    va_array x = vec(a + i * 12 * n6, n6), y = vec(b + i * 12 * n6, n6), z = vec(o + i * 12 * n6, n6);
                    va_binary(0, add_op, &x, &y, &z);
                }));
    va_synchronize(-1);

    std::printf("\n== sum n=1e8 doubles, back to back, events ==\n");
    const long long g8 = nbig / 2;
    double *partials, *res;
    unsigned *counter;
    CHECK(cudaMalloc(&partials, 65536 * 8));
    CHECK(cudaMalloc(&res, 64));
    CHECK(cudaMalloc(&counter, 64));
    CHECK(cudaMemset(counter, 0, 64));
    auto sum_launch = [&](auto kernel, long long blocks) {
        long long step = 256LL * 4;
        long long span = ((g8 + blocks - 1) / blocks + step - 1) / step * step;
        blocks = (g8 + span - 1) / span;
        return [=](int) { kernel<<<(unsigned)blocks, 256, 0, s>>>((const D2 *)a, g8, span, partials, counter, res); };
    };
    int occ4 = 0, occ8 = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ4, sum_runs<4>, 256, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ8, sum_runs<8>, 256, 0);
    std::printf("occupancy: U4 %d blocks/SM, U8 %d blocks/SM, %d SMs\n", occ4, occ8, sms);
    for (long long blocks : {4096LL, (long long)sms * occ4, (long long)sms * occ4 * 2, (long long)sms * occ4 * 4, 8192LL, 16384LL}) {
        char name[96];
        std::snprintf(name, sizeof name, "runs U4, %lld blocks", blocks);
        std::printf("%-58s %7.2f us\n", name, event_us(s, 50, sum_launch(sum_runs<4>, blocks)));
        std::snprintf(name, sizeof name, "runs U8, %lld blocks", blocks);
        std::printf("%-58s %7.2f us\n", name, event_us(s, 50, sum_launch(sum_runs<8>, blocks)));
    }
    void *temp = nullptr;
    size_t temp_bytes = 0;
    cub::DeviceReduce::Sum(nullptr, temp_bytes, a, res, nbig, s);
    CHECK(cudaMalloc(&temp, temp_bytes));
    std::printf("%-58s %7.2f us\n", "CUB DeviceReduce::Sum",
                event_us(s, 50, [&](int) { cub::DeviceReduce::Sum(temp, temp_bytes, a, res, nbig, s); }));
    std::printf("%-58s %7.2f us\n", "(host clock) CUB Sum + stream sync each",
                host_us(50, [&] { cub::DeviceReduce::Sum(temp, temp_bytes, a, res, nbig, s); cudaStreamSynchronize(s); }));
    std::printf("%-58s %7.2f us\n", "(host clock) runs U4 4096 + stream sync each",
                host_us(50, [&] { sum_launch(sum_runs<4>, 4096)(0); cudaStreamSynchronize(s); }));
    va_shutdown();
    return 0;
}
