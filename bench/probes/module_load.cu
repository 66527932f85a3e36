// What loading a CUDA module costs, by image: the driver's cuModuleLoadData and
// the first function's load, in a fresh process per image (the driver keeps
// nothing between processes), under the process's CUDA_MODULE_LOADING. Images
// are cubins or fat binaries (bench/probes/module_load.sh makes them from an
// op bundle's object with each compression mode).
//
//   nvcc -O2 -o module_load bench/probes/module_load.cu -lcuda
//   ./module_load REPEATS IMAGE...
#include <cuda.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#define DRV(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char *s = ""; \
    cuGetErrorName(r, &s); std::printf("%s:%d %s\n", __FILE__, __LINE__, s); return 1; } } while (0)

static double now_ms() {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One image in this (fresh) process: context first, then the timed load.
static int probe(const char *path) {
    std::ifstream f(path, std::ios::binary);
    std::vector<char> image((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (image.empty()) { std::printf("%s: empty or missing\n", path); return 1; }
    CUdevice dev;
    CUcontext ctx;
    DRV(cuInit(0));
    DRV(cuDeviceGet(&dev, 0));
    DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV(cuCtxSetCurrent(ctx));
    DRV(cuCtxSynchronize());
    const double t0 = now_ms();
    CUmodule mod;
    DRV(cuModuleLoadData(&mod, image.data()));
    const double t1 = now_ms();
    unsigned count = 0;
    DRV(cuModuleGetFunctionCount(&count, mod));
    std::vector<CUfunction> fns(count);
    DRV(cuModuleEnumerateFunctions(fns.data(), count, mod));
    const double t2 = now_ms();
    DRV(cuFuncLoad(fns[0]));
    const double t3 = now_ms();
    DRV(cuFuncLoad(fns[count - 1]));
    const double t4 = now_ms();
    std::printf("%-40s %9.2f MB  load %8.2f ms  enumerate %6.2f ms  first function %6.2f ms  "
                "another %6.3f ms  functions %u\n",
                path, image.size() / 1e6, t1 - t0, t2 - t1, t3 - t2, t4 - t3, count);
    std::fflush(stdout);  // the child leaves through _exit, which flushes nothing
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) { std::printf("usage: %s REPEATS IMAGE...\n", argv[0]); return 2; }
    const int repeats = std::atoi(argv[1]);
    for (int i = 2; i < argc; ++i)
        for (int r = 0; r < repeats; ++r) {
            std::fflush(stdout);
            const pid_t pid = fork();
            if (pid == 0) _exit(probe(argv[i]));
            int status = 0;
            waitpid(pid, &status, 0);
        }
    return 0;
}
