/*
 * myModule._core: the extension module. This file holds the method table, the
 * thin wrappers that name each operation, and module initialisation; the work
 * is in ext/ (argument handling, dtypes, device arrays, interop) and in the
 * CUDA library vectorAdd/. Compiled as C++ by g++.
 */
#define MYMODULE_IMPORT_ARRAY
#include "ext/common.h"
#include "ext/arrays.h"
#include "ext/conversions.h"

#include "ext/elementwise.h"
#include "ext/optable.h"
#include "ext/reductions.h"

/* The tutorials' names for add: device auto, cpu and cuda. */
static PyObject *vector_add_where(Where where, const char *fname, PyObject *const *args,
                                  Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"a", "b", "out"};
    static va_op add = -1;
    PyObject *values[3];
    if (add < 0 && va_op_find("add", &add) != VA_SUCCESS) {
        PyErr_SetString(PyExc_SystemError, "the op table has no add");
        return NULL;
    }
    if (parse_arguments(fname, args, nargs, kwnames, names, 3, 2, 3, values) < 0) {
        return NULL;
    }
    return elementwise_objects(add, values, values[2], where);
}

static PyObject *mm_vector_add(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return vector_add_where(WHERE_AUTO, "vector_add", args, nargs, kwnames);
}

static PyObject *mm_vector_add_cpu(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return vector_add_where(WHERE_CPU, "vector_add_cpu", args, nargs, kwnames);
}

static PyObject *mm_vector_add_cuda(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return vector_add_where(WHERE_CUDA, "vector_add_cuda", args, nargs, kwnames);
}

static int parse_device_index(PyObject *value, int *device)
{
    *device = 0;
    if (value == NULL || value == Py_None) {
        return 0;
    }
    if (PyBool_Check(value) || !PyLong_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "device must be an int (a GPU index) or None");
        return -1;
    }
    long d = PyLong_AsLong(value);
    if (d == -1 && PyErr_Occurred()) {
        return -1;
    }
    int count = 0;
    va_device_count(&count);
    if (d < 0 || (count > 0 && d >= count)) {
        PyErr_Format(PyExc_ValueError, "device %ld does not exist", d);
        return -1;
    }
    *device = (int)d;
    return 0;
}

/* A host object as a supported-dtype NumPy array (TypeError otherwise). */
static PyArrayObject *host_array_of(PyObject *obj)
{
    Operand op;
    if (operand_init(&op, obj) < 0) {
        return NULL;
    }
    PyArrayObject *array = NULL;
    if (op.device != NULL) {
        PyErr_SetString(PyExc_SystemError, "host_array_of called with a GPU array");
    }
    else {
        array = operand_host_array(&op, operand_natural_dtype(&op));
    }
    operand_clear(&op);
    if (array != NULL && PyArray_NDIM(array) > VA_MAX_NDIM) {
        /* refused before the device check: an argument error comes first */
        PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported on the GPU", VA_MAX_NDIM);
        Py_CLEAR(array);
    }
    return array;
}

static PyObject *mm_to_device(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"a", "device", "unified"};
    PyObject *values[3];
    int device = 0, unified = 0;
    if (parse_arguments("to_device", args, nargs, kwnames, names, 3, 1, 3, values) < 0 ||
        parse_device_index(values[1], &device) < 0) {
        return NULL;
    }
    if (values[2] != NULL && (unified = PyObject_IsTrue(values[2])) < 0) {
        return NULL;
    }
    PyObject *a = values[0];
    if (DeviceArray_Check(a) && ((DeviceArrayObject *)a)->device == device && !unified) {
        Py_INCREF(a);
        return a;
    }
    PyObject *imported = NULL;
    PyArrayObject *host = NULL;
    if (DeviceArray_Check(a)) {
        Py_INCREF(a);
        imported = a;
    }
    else {
        imported = interop_import(a);
        if (imported == NULL) {
            return NULL;
        }
    }
    if (imported != Py_None) {
        /* GPU data: through the host, so any device and unified= work. */
        host = (PyArrayObject *)devicearray_to_host((DeviceArrayObject *)imported);
    }
    else {
        host = host_array_of(a);
    }
    Py_DECREF(imported);
    if (host == NULL) {
        return NULL;
    }
    if (require_cuda("to_device") < 0) {
        Py_DECREF(host);
        return NULL;
    }
    PyObject *result = (PyObject *)devicearray_from_host(host, device, unified);
    Py_DECREF(host);
    return result;
}

static PyObject *mm_from_dlpack(PyObject *, PyObject *obj)
{
    return interop_from_dlpack(obj);
}

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef module_methods[] = {
    {"helloworld", mm_helloworld, METH_NOARGS,
     "helloworld()\n--\n\nWrite 'Hello World' and a newline to sys.stdout."},
    {"fib", mm_fib, METH_O, "fib(n)\n--\n\nThe exact n-th Fibonacci number (n >= 0) as a Python int."},
    {"trace", FASTCALL(mm_trace),
     "trace(a, device='auto')\n--\n\nnumpy.trace of a 2-d array: same value and dtype."},
    {"vector_add", FASTCALL(mm_vector_add), "vector_add(a, b, out=None)\n--\n\nadd(a, b, device='auto')."},
    {"vector_add_cpu", FASTCALL(mm_vector_add_cpu),
     "vector_add_cpu(a, b, out=None)\n--\n\nadd(a, b, device='cpu')."},
    {"vector_add_cuda", FASTCALL(mm_vector_add_cuda),
     "vector_add_cuda(a, b, out=None)\n--\n\nadd(a, b, device='cuda')."},
    {"to_device", FASTCALL(mm_to_device),
     "to_device(a, device=None, unified=False)\n--\n\nCopy host data to a GPU as a DeviceArray; "
     "unified=True uses CUDA managed memory, which NumPy can read in place."},
    {"from_dlpack", mm_from_dlpack, METH_O,
     "from_dlpack(x)\n--\n\nA zero-copy DeviceArray view of an object exporting __dlpack__ on a CUDA device."},
    {"cuda_available", mm_cuda_available, METH_NOARGS,
     "cuda_available()\n--\n\nTrue when a CUDA GPU and driver are usable. Never raises."},
    {"device_count", mm_device_count, METH_NOARGS, "device_count()\n--\n\nNumber of usable GPUs (0 without a driver)."},
    {"device_info", FASTCALL(mm_device_info),
     "device_info(device=0)\n--\n\nName, compute capability, memory and versions of a GPU."},
    {"synchronize", mm_synchronize, METH_NOARGS,
     "synchronize()\n--\n\nWait for all work the library queued on every GPU."},
    {"devices", mm_devices, METH_NOARGS,
     "devices()\n--\n\nThe GPUs host data goes to (MYMODULE_DEVICES, set_devices()), as a list."},
    {"set_devices", mm_set_devices, METH_O,
     "set_devices(devices)\n--\n\nThe GPUs host data goes to: a list of indices, or None for the default."},
    {"_parse_devices", (PyCFunction)(void (*)(void))mm_parse_devices, METH_FASTCALL,
     "Tests only: MYMODULE_DEVICES's reading of a text for `count` GPUs."},
    {"_runtime_info", mm_runtime_info, METH_NOARGS, "Driver/runtime versions and why CUDA is unusable."},
    {"_memory_stats", mm_memory_stats, METH_NOARGS, "Bytes and allocations the library holds."},
    {"_release_cached", mm_release_cached, METH_NOARGS, "Return the pool's cached memory to the driver."},
    {"_testing_fault", mm_testing_fault, METH_NOARGS, "Tests only: make a kernel fault (kills CUDA in this process)."},
    {"_testing_mirror_reads", mm_testing_mirror_reads, METH_NOARGS,
     "Tests only: scalar reads served by the pinned copy of a reduction's result."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "myModule._core",
    "CUDA kernels on NumPy arrays and GPU arrays (the compiled core of myModule).", -1,
    module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    PyNumberMethods *numbers = devicearray_number_methods();
    richcmpfunc richcompare = NULL;
    conversions_fill_number(numbers);
    if (optable_init(module, numbers, &richcompare) < 0 ||
        arrays_init(module, richcompare) < 0 ||
        /* the library's limit, for the Python side's checks of foreign headers */
        PyModule_AddIntConstant(module, "MAX_NDIM", VA_MAX_NDIM) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
