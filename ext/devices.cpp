/* Where host data goes: the CPU or the GPU for device="auto" (by size, one rule
 * for every operation), and which GPUs: all of them, those MYMODULE_DEVICES="0,1"
 * names (read at first use), or those set_devices() gives. The first of them
 * takes host work too small to share; device=N or "cuda:N" names one GPU instead.
 * The state is guarded by the GIL. */
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define MAX_SET 64

static int g_set[MAX_SET];
static int g_count = 0;
static int g_known = 0; /* 0: to be read from MYMODULE_DEVICES at the next use */

/* 0 when `index` may join out[0..n) of a set of the `count` GPUs there are;
 * -1 with ValueError saying why, `what` naming where the list came from. */
static int check_member(const char *what, long long index, int count, const int *out, int n)
{
    if (index < 0) {
        PyErr_Format(PyExc_ValueError, "%s: GPU indices are >= 0, not %lld", what, index);
        return -1;
    }
    if (index >= count) {
        PyErr_Format(PyExc_ValueError, "%s: GPU %lld is past the %d GPU%s of this machine", what,
                     index, count, count == 1 ? "" : "s");
        return -1;
    }
    for (int k = 0; k < n; ++k) {
        if (out[k] == index) {
            PyErr_Format(PyExc_ValueError, "%s: GPU %lld is listed twice", what, index);
            return -1;
        }
    }
    if (n >= MAX_SET) {
        PyErr_Format(PyExc_ValueError, "%s: more than %d GPUs", what, MAX_SET);
        return -1;
    }
    return 0;
}

static int is_blank(const char *text)
{
    for (; *text != '\0'; ++text) {
        if (*text != ' ' && *text != '\t') {
            return 0;
        }
    }
    return 1;
}

/* "0,1" (blanks around the indices allowed) as a set of the `count` GPUs there
 * are; blank text means all of them. */
static int parse_list(const char *text, int count, int *out, int *n)
{
    char what[160];
    snprintf(what, sizeof(what), "MYMODULE_DEVICES='%.100s'", text);
    *n = 0;
    if (is_blank(text)) {
        for (int d = 0; d < count && d < MAX_SET; ++d) {
            out[(*n)++] = d;
        }
        return 0;
    }
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t') {
            ++p;
        }
        const char *digits = p;
        long long index = 0;
        while (*p >= '0' && *p <= '9' && p - digits < 9) {
            index = index * 10 + (*p++ - '0');
        }
        int had_digits = p > digits;
        while (*p == ' ' || *p == '\t') {
            ++p;
        }
        if (!had_digits || (*p != ',' && *p != '\0')) {
            PyErr_Format(PyExc_ValueError,
                         "%s: expected GPU indices separated by commas, like '0,1'", what);
            return -1;
        }
        if (check_member(what, index, count, out, *n) < 0) {
            return -1;
        }
        out[(*n)++] = (int)index;
        if (*p == '\0') {
            return 0;
        }
        ++p;
    }
}

static int gpu_count(void)
{
    int count = 0;
    va_device_count(&count);
    return count;
}

/* The set, read from the environment when not known yet. */
static int load_set(void)
{
    if (g_known) {
        return 0;
    }
    const char *env = getenv("MYMODULE_DEVICES");
    if (parse_list(env != NULL ? env : "", gpu_count(), g_set, &g_count) < 0) {
        return -1;
    }
    g_known = 1;
    return 0;
}

int where_devices(Where where, int *devices, int *count)
{
    if (where.gpu >= 0) {
        devices[0] = where.gpu;
        *count = 1;
        return 0;
    }
    if (load_set() < 0) {
        return -1;
    }
    if (g_count == 0) {
        PyErr_SetString(PyExc_ValueError, "no GPU to send host data to: devices() is empty");
        return -1;
    }
    memcpy(devices, g_set, sizeof(int) * (size_t)g_count);
    *count = g_count;
    return 0;
}

int where_check_data(Where where, int data_device)
{
    if (where == WHERE_CPU) {
        PyErr_Format(PyExc_ValueError,
                     "device='cpu' was asked for, but the data is on GPU %d: data on a GPU is "
                     "computed there (copy it to the host first with .get())", data_device);
        return -1;
    }
    if (where.gpu >= 0 && where.gpu != data_device) {
        PyErr_Format(PyExc_ValueError,
                     "device=%d was asked for, but the data is on GPU %d: the GPU that holds the "
                     "data runs the work (move it first with asarray(x, device=%d))",
                     where.gpu, data_device, where.gpu);
        return -1;
    }
    return 0;
}

static PyObject *list_of(const int *values, int n)
{
    PyObject *list = PyList_New(n);
    if (list == NULL) {
        return NULL;
    }
    for (int k = 0; k < n; ++k) {
        PyObject *item = PyLong_FromLong(values[k]);
        if (item == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, k, item);
    }
    return list;
}

PyObject *mm_devices(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    if (load_set() < 0) {
        return NULL;
    }
    return list_of(g_set, g_count);
}

PyObject *mm_set_devices(PyObject *module, PyObject *arg)
{
    PyObject *seq = NULL, *result = NULL;
    int chosen[MAX_SET], n = 0, count;
    Py_ssize_t length;
    (void)module;
    if (arg == Py_None) {
        g_known = 0; /* back to MYMODULE_DEVICES, or all GPUs */
        Py_RETURN_NONE;
    }
    if (PyUnicode_Check(arg) || PyBytes_Check(arg) || (PyIndex_Check(arg) && !PySequence_Check(arg))) {
        PyErr_Format(PyExc_TypeError, "set_devices() takes a list of GPU indices or None, not %.100s",
                     Py_TYPE(arg)->tp_name);
        return NULL;
    }
    seq = PySequence_Fast(arg, "set_devices() takes a list of GPU indices or None");
    if (seq == NULL) {
        goto fail;
    }
    length = PySequence_Fast_GET_SIZE(seq);
    if (length == 0) {
        PyErr_SetString(PyExc_ValueError,
                        "set_devices() needs at least one GPU (None goes back to the default)");
        goto fail;
    }
    count = gpu_count();
    for (Py_ssize_t k = 0; k < length; ++k) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, k); /* borrowed; seq holds it */
        if (PyBool_Check(item) || !PyIndex_Check(item)) {
            PyErr_Format(PyExc_TypeError, "set_devices(): GPU indices are ints, not %.100s",
                         Py_TYPE(item)->tp_name);
            goto fail;
        }
        long long index = PyLong_AsLongLong(item);
        if (index == -1 && PyErr_Occurred()) {
            goto fail;
        }
        if (check_member("set_devices()", index, count, chosen, n) < 0) {
            goto fail;
        }
        chosen[n++] = (int)index;
    }
    memcpy(g_set, chosen, sizeof(int) * (size_t)n);
    g_count = n;
    g_known = 1;
    Py_INCREF(Py_None);
    result = Py_None;
fail:
    Py_XDECREF(seq);
    return result;
}

/* _parse_devices(text, count): MYMODULE_DEVICES's reading, for the tests. */
PyObject *mm_parse_devices(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    int parsed[MAX_SET], n = 0;
    (void)module;
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyLong_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "_parse_devices(text: str, count: int)");
        return NULL;
    }
    const char *text = PyUnicode_AsUTF8(args[0]);
    long count = PyLong_AsLong(args[1]);
    if (text == NULL || (count == -1 && PyErr_Occurred())) {
        return NULL;
    }
    if (parse_list(text, (int)count, parsed, &n) < 0) {
        return NULL;
    }
    return list_of(parsed, n);
}

/* Sizes from which the GPU, data transfers included, beats NumPy on the CPU; set
 * from bench/run.py's measurements, overridable with MYMODULE_AUTO_THRESHOLD. */
static int64_t auto_threshold(const char *operation)
{
    static int64_t from_env = -2;
    if (from_env == -2) {
        const char *v = getenv("MYMODULE_AUTO_THRESHOLD");
        from_env = (v != NULL && v[0] != '\0') ? strtoll(v, NULL, 10) : -1;
    }
    if (from_env >= 0) {
        return from_env;
    }
    if (strcmp(operation, "sum") == 0) {
        return (int64_t)1 << 22;
    }
    return (int64_t)1 << 21;
}

Where where_for_host_data(Where where, int64_t size, const char *operation)
{
    if (where != WHERE_AUTO) {
        return where;
    }
    return size >= auto_threshold(operation) && va_cuda_available() == VA_SUCCESS ? Where(WHERE_CUDA)
                                                                                  : Where(WHERE_CPU);
}
