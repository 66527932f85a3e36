// Probe (session 35): the least any Python library can pay for the n = 1 rows.
// A CPython extension of a few functions and nothing else:
//  - add():    o[0] = a[0] + b[0] over one of 8 preallocated sets of one-element
//              device buffers (rotating, as the bench's inputs do), on a stream of
//              its own, <<<1, 32>>>; no argument parsing, no result object, no
//              allocation, no checks;
//  - add2(x, y): the same, called with two arguments it ignores (the bench row's
//              call shape, for a row that rotates its inputs in Python);
//  - add256(): the same kernel in a block of 256 threads (the library's block);
//  - add_pdl(): that, launched as the library launches (cudaLaunchKernelEx with
//              programmatic stream serialization, griddepcontrol in the kernel);
//  - add_pdl_big(): add_pdl() with the library's 88 bytes of kernel parameters;
//  - add_pdl_pool(): add_pdl() on buffers from a memory pool of its own
//              (cudaMallocFromPoolAsync, as the library allocates);
//  - add_pdl_at(a, b, o): add_pdl() at three device addresses given as ints (another
//              library's arrays: whose memory, apart from whose launch);
//  - add_pdl_new(a, b): add_pdl_at() into a new one-element block, returned as an object
//              that gives its block back when it dies (session 36): the least a library
//              pays that returns a new array (a free list of 512-byte pool blocks, a bare
//              object type; no parsing, no dtype or shape rules, no checks);
//  - launch_times(on): the launches add_pdl_at() timed since the last call (count, ns
//              on the host clock around cudaLaunchKernelEx), and whether to time the next
//              (the stamps time the library's launcher with its launch the same way);
//  - empty():  an empty kernel on the same stream (the C floor's kernel, from Python);
//  - sync():   cudaStreamSynchronize of that stream;
//  - dsync():  cudaDeviceSynchronize (a wait for another library's stream too).
// A Python loop of add(); sync() is then the bound of `add(x, y); synchronize()` for a
// library that launches one real one-element kernel: n1_paired.py times it beside the
// C floor and the library's row. Build (bench/probes, the device machine):
//   nvcc -O2 -shared -Xcompiler -fPIC -arch=sm_90 -I"$(python3 -c 'import sysconfig;
//   print(sysconfig.get_paths()["include"])')" n1_bound.cu -o n1_bound$(python3-config
//   --extension-suffix)
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda_runtime.h>

#include <chrono>
#include <vector>

#include "probe_common.cuh"  // launch_pdl: the launch the library makes (PDL)

namespace {

__global__ void one_add(const double *a, const double *b, double *o) {
    if (threadIdx.x == 0) o[0] = a[0] + b[0];
}
__global__ void one_add_pdl(const double *a, const double *b, double *o) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    if (blockIdx.x * blockDim.x + threadIdx.x < 1) o[0] = a[0] + b[0];
}
struct Pointers4 { const char *p[4]; };
struct Params4 { double v[4]; };
__global__ void one_add_pdl_big(Pointers4 in, unsigned scalars, Params4 params, double *o, long long n) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    if (blockIdx.x * blockDim.x + threadIdx.x < n)
        o[0] = reinterpret_cast<const double *>(in.p[0])[0] + reinterpret_cast<const double *>(in.p[1])[0] +
               (scalars ? params.v[0] : 0.0);
}
__global__ void empty_kernel() {}

constexpr int kSets = 8;
cudaStream_t g_stream = nullptr;
double *g_buffers = nullptr;  // kSets x (a, b, o)
double *g_pool_sets[kSets] = {};  // each (a, b, o) from the probe's pool
int g_next_pool = 0;
bool g_time_launches = false;
long long g_launches = 0, g_launch_ns = 0;
int g_next = 0;

PyObject *raise_cuda(cudaError_t e) {
    PyErr_Format(PyExc_RuntimeError, "CUDA: %s", cudaGetErrorString(e));
    return nullptr;
}

double *next_set() {
    double *set = g_buffers + 3 * g_next;
    g_next = (g_next + 1) % kSets;
    return set;
}

PyObject *bound_add(PyObject *, PyObject *) {
    double *set = next_set();
    one_add<<<1, 32, 0, g_stream>>>(set, set + 1, set + 2);
    Py_RETURN_NONE;
}

PyObject *bound_add2(PyObject *, PyObject *const *, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "add2 takes two arguments");
        return nullptr;
    }
    double *set = next_set();
    one_add<<<1, 32, 0, g_stream>>>(set, set + 1, set + 2);
    Py_RETURN_NONE;
}

PyObject *bound_add256(PyObject *, PyObject *) {
    double *set = next_set();
    one_add<<<1, 256, 0, g_stream>>>(set, set + 1, set + 2);
    Py_RETURN_NONE;
}

PyObject *bound_add_pdl(PyObject *, PyObject *) {
    double *set = next_set();
    const double *a = set, *b = set + 1;
    launch_pdl(g_stream, 1, 256, one_add_pdl, a, b, set + 2);
    Py_RETURN_NONE;
}

PyObject *bound_add_pdl_big(PyObject *, PyObject *) {
    double *set = next_set();
    Pointers4 in = {};
    in.p[0] = reinterpret_cast<const char *>(set);
    in.p[1] = reinterpret_cast<const char *>(set + 1);
    Params4 params = {};
    launch_pdl(g_stream, 1, 256, one_add_pdl_big, in, 0u, params, set + 2, 1LL);
    Py_RETURN_NONE;
}

PyObject *bound_add_pdl_pool(PyObject *, PyObject *) {
    double *set = g_pool_sets[g_next_pool];
    g_next_pool = (g_next_pool + 1) % kSets;
    const double *a = set, *b = set + 1;
    launch_pdl(g_stream, 1, 256, one_add_pdl, a, b, set + 2);
    Py_RETURN_NONE;
}

PyObject *bound_add_pdl_at(PyObject *, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "add_pdl_at takes three addresses");
        return nullptr;
    }
    const double *a = static_cast<const double *>(PyLong_AsVoidPtr(args[0]));
    const double *b = static_cast<const double *>(PyLong_AsVoidPtr(args[1]));
    double *o = static_cast<double *>(PyLong_AsVoidPtr(args[2]));
    if (PyErr_Occurred()) return nullptr;
    if (!g_time_launches) {
        launch_pdl(g_stream, 1, 256, one_add_pdl, a, b, o);
        Py_RETURN_NONE;
    }
    const auto t0 = std::chrono::steady_clock::now();
    launch_pdl(g_stream, 1, 256, one_add_pdl, a, b, o);
    const auto t1 = std::chrono::steady_clock::now();
    g_launch_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
    ++g_launches;
    Py_RETURN_NONE;
}

// The result of add_pdl_new: a one-element block of device memory.
struct BlockObject {
    PyObject_HEAD
    void *data;
};
cudaMemPool_t g_pool = nullptr;
std::vector<void *> g_free_blocks;  // blocks of dead results (the stream orders their reuse)
PyTypeObject *g_block_type = nullptr;

void block_dealloc(PyObject *self) {
    PyTypeObject *type = Py_TYPE(self);
    g_free_blocks.push_back(reinterpret_cast<BlockObject *>(self)->data);
    type->tp_free(self);
    Py_DECREF(type);
}

PyObject *bound_add_pdl_new(PyObject *, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "add_pdl_new takes two addresses");
        return nullptr;
    }
    const double *a = static_cast<const double *>(PyLong_AsVoidPtr(args[0]));
    const double *b = static_cast<const double *>(PyLong_AsVoidPtr(args[1]));
    if (PyErr_Occurred()) return nullptr;
    void *block = nullptr;
    if (g_free_blocks.empty()) {
        cudaError_t e = cudaMallocFromPoolAsync(&block, 512, g_pool, g_stream);
        if (e != cudaSuccess) return raise_cuda(e);
    } else {
        block = g_free_blocks.back();
        g_free_blocks.pop_back();
    }
    BlockObject *result = PyObject_New(BlockObject, g_block_type);
    if (result == nullptr) {
        g_free_blocks.push_back(block);
        return nullptr;
    }
    result->data = block;
    launch_pdl(g_stream, 1, 256, one_add_pdl, a, b, static_cast<double *>(block));
    return reinterpret_cast<PyObject *>(result);
}

PyType_Slot block_slots[] = {{Py_tp_dealloc, reinterpret_cast<void *>(block_dealloc)}, {0, nullptr}};
PyType_Spec block_spec = {"n1_bound.Block", sizeof(BlockObject), 0, Py_TPFLAGS_DEFAULT, block_slots};

PyObject *bound_launch_times(PyObject *, PyObject *on) {
    const int wanted = PyObject_IsTrue(on);
    if (wanted < 0) return nullptr;
    PyObject *result = Py_BuildValue("(LL)", g_launches, g_launch_ns);
    g_launches = g_launch_ns = 0;
    g_time_launches = wanted != 0;
    return result;
}

PyObject *bound_empty(PyObject *, PyObject *) {
    empty_kernel<<<1, 1, 0, g_stream>>>();
    Py_RETURN_NONE;
}

PyObject *bound_sync(PyObject *, PyObject *) {
    cudaError_t e = cudaStreamSynchronize(g_stream);
    if (e != cudaSuccess) return raise_cuda(e);
    Py_RETURN_NONE;
}

PyObject *bound_dsync(PyObject *, PyObject *) {
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return raise_cuda(e);
    Py_RETURN_NONE;
}

PyMethodDef methods[] = {
    {"add", bound_add, METH_NOARGS, "one-element add on the next preallocated set"},
    {"add2", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(bound_add2)), METH_FASTCALL,
     "add() called with two arguments it ignores"},
    {"add256", bound_add256, METH_NOARGS, "add() in a block of 256 threads"},
    {"add_pdl", bound_add_pdl, METH_NOARGS, "add256() launched as the library launches"},
    {"dsync", bound_dsync, METH_NOARGS, "cudaDeviceSynchronize: waits for every stream"},
    {"add_pdl_big", bound_add_pdl_big, METH_NOARGS, "add_pdl() with 88 bytes of parameters"},
    {"add_pdl_pool", bound_add_pdl_pool, METH_NOARGS, "add_pdl() on pool memory"},
    {"add_pdl_at", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(bound_add_pdl_at)),
     METH_FASTCALL, "add_pdl() at three device addresses"},
    {"add_pdl_new", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(bound_add_pdl_new)),
     METH_FASTCALL, "add_pdl_at() into a new block, returned as an object"},
    {"launch_times", bound_launch_times, METH_O, "(launches, ns) timed since the last call; time the next?"},
    {"empty", bound_empty, METH_NOARGS, "an empty kernel"},
    {"sync", bound_sync, METH_NOARGS, "cudaStreamSynchronize of the probe's stream"},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "n1_bound", nullptr, -1, methods,
                      nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit_n1_bound(void) {
    cudaError_t e = cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaMalloc(&g_buffers, sizeof(double) * 3 * kSets);
    if (e == cudaSuccess) e = cudaMemset(g_buffers, 0, sizeof(double) * 3 * kSets);
    cudaMemPool_t &pool = g_pool;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    if (e == cudaSuccess) e = cudaMemPoolCreate(&pool, &props);
    for (int k = 0; k < kSets && e == cudaSuccess; ++k) {
        void *p = nullptr;
        e = cudaMallocFromPoolAsync(&p, 512, pool, g_stream);  // 512: the library's size class
        if (e == cudaSuccess) e = cudaMemsetAsync(p, 0, 512, g_stream);
        g_pool_sets[k] = static_cast<double *>(p);
    }
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return raise_cuda(e);
    g_block_type = reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&block_spec));
    if (g_block_type == nullptr) return nullptr;
    return PyModule_Create(&module);
}
