// The host-side cache of small device blocks (vectorAdd/memory.cu) against blocks
// freed on one stream while work queued there still uses them: a block freed on one
// stream must not be handed to work on another stream that can run first. For each
// pair of streams (the library's and two others, as the host pipeline's workers
// have): a block is filled with 0x11, a kernel on the first stream waits for a host
// flag and then copies the block out, the block is freed on the first stream, a
// block of the same size is allocated on the second and filled there with 0x22,
// and only after 20 ms is the flag raised. The kernel must copy out 0x11. Prints
// one line a pair, "<pair> ok" or "<pair> overwritten", for test_pool_streams.py.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "memory.cuh"

namespace {

__global__ void wait_then_copy(const volatile int *flag, const int *src, int *dst, int n) {
    if (threadIdx.x == 0)
        while (*flag == 0) {
        }
    __syncthreads();
    for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) dst[i] = src[i];
}

bool check(cudaError_t err, const char *what) {
    if (err == cudaSuccess) return true;
    std::printf("error %s: %s\n", what, cudaGetErrorString(err));
    return false;
}

// 1: the kernel read what was written on the first stream; 0: it read the second
// stream's bytes; -1: an error.
int reuse_after_free(cudaStream_t first, cudaStream_t second) {
    const int n = 1 << 16;  // 256 KiB: a small block
    const size_t bytes = sizeof(int) * n;
    int *flag = nullptr, *flag_dev = nullptr, *out = nullptr;
    void *block = nullptr, *again = nullptr;
    if (!check(cudaHostAlloc(reinterpret_cast<void **>(&flag), sizeof(int), cudaHostAllocMapped), "flag") ||
        !check(cudaHostGetDevicePointer(reinterpret_cast<void **>(&flag_dev), flag, 0), "flag address") ||
        !check(cudaMalloc(reinterpret_cast<void **>(&out), bytes), "out"))
        return -1;
    *flag = 0;
    if (va::pool_alloc(0, first, bytes, &block) != VA_SUCCESS) return -1;
    if (!check(cudaMemsetAsync(block, 0x11, bytes, first), "fill")) return -1;
    wait_then_copy<<<1, 256, 0, first>>>(flag_dev, static_cast<const int *>(block), out, n);
    if (!check(cudaGetLastError(), "launch")) return -1;
    va::pool_free(0, first, block, bytes);
    if (va::pool_alloc(0, second, bytes, &again) != VA_SUCCESS) return -1;
    if (!check(cudaMemsetAsync(again, 0x22, bytes, second), "refill")) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the refill's chance to run early
    *reinterpret_cast<volatile int *>(flag) = 1;
    if (!check(cudaStreamSynchronize(first), "first") || !check(cudaStreamSynchronize(second), "second"))
        return -1;
    std::vector<int> got(n);
    if (!check(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost), "read back")) return -1;
    va::pool_free(0, second, again, bytes);
    cudaFree(out);
    cudaFreeHost(flag);
    for (int v : got)
        if (v != 0x11111111) return 0;
    return 1;
}

}  // namespace

int main() {
    if (!check(cudaSetDevice(0), "device")) return 1;
    cudaStream_t library = nullptr, worker = nullptr, other = nullptr;
    if (va::quiet_library_stream(0, &library) != VA_SUCCESS) return 1;
    if (!check(cudaStreamCreateWithFlags(&worker, cudaStreamNonBlocking), "stream") ||
        !check(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), "stream"))
        return 1;
    const struct {
        const char *name;
        cudaStream_t first, second;
    } pairs[] = {{"library-then-worker", library, worker},
                 {"worker-then-library", worker, library},
                 {"worker-then-worker", worker, other},
                 {"library-then-library", library, library}};
    for (const auto &p : pairs) {
        const int r = reuse_after_free(p.first, p.second);
        if (r < 0) return 1;
        std::printf("%s %s\n", p.name, r == 1 ? "ok" : "overwritten");
    }
    return 0;
}
