/* The op table in Python, filled at module init from the library's table (as
 * NumPy fills its n_ops): one function object per operation, taking the
 * declaration's argument names, and the DeviceArray operators by the Python
 * names the declarations give ("__add__"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <array>
#include <utility>

#include "deferred.h"
#include "elementwise.h"
#include "optable.h"
#include "raw.h"
#include "reductions.h"

#define MAX_OPS VA_MAX_OPS
#define MAX_ARGS (VA_MAX_PARAMS + VA_MAX_INPUTS)

/* The keyword names of one operation: its arguments, then out and device (a
 * user kernel: out and its launch options, RAW_OPTION_NAMES). */
typedef struct {
    char storage[128];
    const char *names[MAX_ARGS + RAW_OPTION_COUNT];
    int nargs;
} OpSignature;

static OpSignature signatures[MAX_OPS];
static PyMethodDef method_defs[MAX_OPS];

static PyObject *call_elementwise(va_op op, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
    const OpSignature *sig = &signatures[op];
    PyObject *values[MAX_ARGS + 2];
    PyObject *result = NULL;
    Where where;
    if (kwnames == NULL && elementwise_of_device_arrays(op, args, nargs, &result)) {
        return result;
    }
    if (deferred_any(args, nargs, kwnames)) {
        return deferred_call(va_op_get(op)->name, args, nargs, kwnames);
    }
    if (parse_arguments(va_op_get(op)->name, args, nargs, kwnames, sig->names, sig->nargs + 2,
                        sig->nargs, sig->nargs + 1, values) < 0 ||
        parse_where(values[sig->nargs + 1], &where) < 0) {
        return NULL;
    }
    return elementwise_objects(op, values, values[sig->nargs], where);
}

static PyObject *call_reduction(va_op op, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    if (deferred_any(args, nargs, kwnames)) {
        return deferred_call(va_op_get(op)->name, args, nargs, kwnames);
    }
    return reduction_call(op, NULL, args, nargs, kwnames);
}

static PyObject *call_raw(va_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    const OpSignature *sig = &signatures[op];
    PyObject *values[MAX_ARGS + RAW_OPTION_COUNT];
    if (deferred_any(args, nargs, kwnames)) {
        return deferred_call(va_op_get(op)->name, args, nargs, kwnames);
    }
    if (parse_arguments(va_op_get(op)->name, args, nargs, kwnames, sig->names, sig->nargs + RAW_OPTION_COUNT,
                        sig->nargs, sig->nargs + 1, values) < 0) {
        return NULL;
    }
    PyObject *const *o = values + sig->nargs;
    const RawOptions options = {o[0], o[1], o[2], o[3], o[4], o[5]};
    return raw_objects(op, values, &options);
}

/* One C function per table index, so each Python function is a plain module
 * function (self is the module) that knows its operation. */
typedef PyObject *(*FastCall)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);
template <int I>
static PyObject *elementwise_at(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return call_elementwise(I, args, nargs, kwnames);
}
template <int I>
static PyObject *reduction_at(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return call_reduction(I, args, nargs, kwnames);
}
template <int I>
static PyObject *raw_at(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return call_raw(I, args, nargs, kwnames);
}
template <size_t... I>
static std::array<FastCall, sizeof...(I)> raw_entries(std::index_sequence<I...>)
{
    return {{&raw_at<(int)I>...}};
}
template <size_t... I>
static std::array<FastCall, sizeof...(I)> elementwise_entries(std::index_sequence<I...>)
{
    return {{&elementwise_at<(int)I>...}};
}
template <size_t... I>
static std::array<FastCall, sizeof...(I)> reduction_entries(std::index_sequence<I...>)
{
    return {{&reduction_at<(int)I>...}};
}

/* "name(a, b, /, out=None, device='auto')\n--\n\n<doc>\n\nnumpy.x on the CPU or a GPU." */
static char *make_doc(const va_op_info *info, const OpSignature *sig)
{
    if (info->kind == VA_KIND_REDUCTION) {
        return reduction_doc(info);
    }
    char args[160] = "";
    size_t used = 0;
    for (int k = 0; k < sig->nargs; ++k) {
        used += (size_t)snprintf(args + used, sizeof(args) - used, "%s%s", k ? ", " : "", sig->names[k]);
    }
    const char *tail = info->kind == VA_KIND_REDUCTION ? "device='auto'"
                       : info->kind == VA_KIND_RAW
                           ? "out=None, grid=None, block=None, shared_mem=0, shape=None, dtype=None"
                           : "out=None, device='auto'";
    size_t size = strlen(info->name) + strlen(args) + strlen(tail) + strlen(info->doc) +
                  strlen(info->reference) + 800; /* and the fixed text below */
    char *doc = (char *)malloc(size);
    if (doc == NULL) {
        return NULL;
    }
    if (info->kind == VA_KIND_RAW) {
        snprintf(doc, size,
                 "%s(%s, %s)\n--\n\n%s\n\nA user kernel: arrays are converted to its compute dtype "
                 "(NumPy's promotion for a typed kernel) and moved to the GPU that holds the device "
                 "inputs (GPU 0 for host data); the result has shape= (default: the first array's "
                 "shape) and dtype= (default: the compute dtype), or is out=. grid and block: the launch "
                 "shape, an int or up to 3 ints (default: one thread per output element, 256 a block); "
                 "shared_mem: bytes of dynamic shared memory.",
                 info->name, args, tail, info->doc);
    }
    else {
        snprintf(doc, size,
                 "%s(%s, %s)\n--\n\n%s\n\nAs %s, computed on the CPU or a GPU: device='auto' | 'cpu' | "
                 "'cuda' | N | 'cuda:N' for host data (N: one GPU; 'cuda': the GPUs of devices()); "
                 "data already on a GPU is computed there.",
                 info->name, args, tail, info->doc, info->reference);
    }
    return doc;
}

/* The function object of `op`, whose __module__ is `module_name` (new reference). */
static PyObject *new_op_function(va_op op, PyObject *self, PyObject *module_name)
{
    const va_op_info *info = va_op_get(op);
    OpSignature *sig = &signatures[op];
    static const std::array<FastCall, MAX_OPS> elementwise = elementwise_entries(std::make_index_sequence<MAX_OPS>());
    static const std::array<FastCall, MAX_OPS> reduction = reduction_entries(std::make_index_sequence<MAX_OPS>());
    static const std::array<FastCall, MAX_OPS> raw = raw_entries(std::make_index_sequence<MAX_OPS>());
    /* The declaration's argument names, split in place. */
    snprintf(sig->storage, sizeof(sig->storage), "%s", info->args);
    sig->nargs = 0;
    for (char *p = sig->storage; p != NULL && sig->nargs < MAX_ARGS;) {
        sig->names[sig->nargs++] = p;
        p = strchr(p, ',');
        if (p != NULL) {
            *p++ = '\0';
        }
    }
    static const char *const raw_options[RAW_OPTION_COUNT] = {RAW_OPTION_NAMES};
    for (int k = 0; k < RAW_OPTION_COUNT; ++k) {
        sig->names[sig->nargs + k] = raw_options[k];
    }
    if (info->kind != VA_KIND_RAW) {
        sig->names[sig->nargs + 1] = "device";
    }
    PyMethodDef *def = &method_defs[op];
    def->ml_name = info->name;
    def->ml_meth = (PyCFunction)(void (*)(void))(info->kind == VA_KIND_REDUCTION ? reduction[op]
                                                 : info->kind == VA_KIND_RAW    ? raw[op]
                                                                                : elementwise[op]);
    def->ml_flags = METH_FASTCALL | METH_KEYWORDS;
    def->ml_doc = make_doc(info, sig);
    if (def->ml_doc == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    return PyCFunction_NewEx(def, self, module_name);
}

static int add_function(PyObject *module, va_op op)
{
    PyObject *fn = NULL, *module_name = PyModule_GetNameObject(module);
    int rc = -1;
    if (module_name == NULL) {
        goto fail;
    }
    fn = new_op_function(op, module, module_name);
    if (fn == NULL || PyModule_AddObjectRef(module, va_op_get(op)->name, fn) < 0) {
        goto fail;
    }
    rc = 0;
fail:
    Py_XDECREF(module_name);
    Py_XDECREF(fn);
    return rc;
}

/* ---- what each declaration says, for Python: _op_table ---- */
static const char *kind_name(va_op_kind kind)
{
    switch (kind) {
        case VA_KIND_ELEMENTWISE: return "elementwise";
        case VA_KIND_REDUCTION: return "reduction";
        case VA_KIND_RAW: return "raw";
        case VA_KIND_MAX_ENUM: break;
    }
    return "unknown";
}

static const char *domain_name(va_domain domain)
{
    switch (domain) {
        case VA_DOMAIN_ALL: return "all";
        case VA_DOMAIN_NUMBER: return "number";
        case VA_DOMAIN_FLOAT: return "float";
        case VA_DOMAIN_TRUE_DIVIDE: return "true_divide";
        case VA_DOMAIN_SUM: return "sum";
        case VA_DOMAIN_SAME: return "same";
        case VA_DOMAIN_FIXED: return "fixed";
        case VA_DOMAIN_MEAN: return "mean";
        case VA_DOMAIN_INDEX: return "index";
        case VA_DOMAIN_INTEGER: return "integer";
        case VA_DOMAIN_LOGICAL: return "logical";
        case VA_DOMAIN_COUNT: return "count";
        case VA_DOMAIN_SHIFT: return "shift";
        case VA_DOMAIN_ARITHMETIC: return "arithmetic";
        case VA_DOMAIN_MAX_ENUM: break;
    }
    return "unknown";
}

static PyObject *describe(va_op op)  /* what _op_table holds of one operation */
{
    const va_op_info *info = va_op_get(op);
    const OpSignature *sig = &signatures[op];
    PyObject *args = PyTuple_New(sig->nargs), *results = PyDict_New(), *fixed = PyTuple_New(info->nin);
    PyObject *entry = NULL;
    if (args == NULL || results == NULL || fixed == NULL) {
        goto fail;
    }
    for (int k = 0; k < sig->nargs; ++k) {
        PyObject *s = PyUnicode_FromString(sig->names[k]);
        if (s == NULL) {
            goto fail;
        }
        PyTuple_SET_ITEM(args, k, s);
    }
    for (int t = 0; t < VA_DTYPE_COUNT; ++t) {
        if (info->result[t] == VA_DTYPE_COUNT) {
            continue;
        }
        PyObject *r = PyUnicode_FromString(va_dtype_name(info->result[t]));
        if (r == NULL || PyDict_SetItemString(results, va_dtype_name((va_dtype)t), r) < 0) {
            Py_XDECREF(r);
            goto fail;
        }
        Py_DECREF(r);
    }
    for (int k = 0; k < info->nin; ++k) {
        PyObject *f = info->fixed_input[k] == VA_DTYPE_COUNT
                          ? Py_NewRef(Py_None)
                          : PyUnicode_FromString(va_dtype_name(info->fixed_input[k]));
        if (f == NULL) {
            goto fail;
        }
        PyTuple_SET_ITEM(fixed, k, f);
    }
    entry = Py_BuildValue("{s:s,s:s,s:i,s:i,s:O,s:s,s:s,s:s,s:s,s:i,s:d,s:i,s:d,s:O,s:O,s:O,s:s}",
                          "name", info->name, "kind", kind_name(info->kind), "nin", info->nin,
                          "nparams", info->nparams, "args", args, "reference", info->reference,
                          "pyop", info->pyop, "doc", info->doc, "domain", domain_name(info->domain),
                          "ulp", info->ulp, "ulp_floor", info->ulp_floor, "complex_ulp", info->complex_ulp,
                          "complex_ulp_floor", info->complex_ulp_floor,
                          "has_identity", info->has_identity ? Py_True : Py_False,
                          "results", results, "fixed_inputs", fixed, "origin", va_op_origin(op));
fail:
    Py_XDECREF(args);
    Py_XDECREF(results);
    Py_XDECREF(fixed);
    return entry;
}

/* ---- DeviceArray operators, by the Python names the declarations give ---- */
typedef enum {
    SLOT_ADD, SLOT_SUB, SLOT_MUL, SLOT_TRUEDIV, SLOT_FLOORDIV, SLOT_MOD, SLOT_POW,
    SLOT_NEG, SLOT_ABS, SLOT_LT, SLOT_LE, SLOT_EQ, SLOT_NE, SLOT_GT, SLOT_GE,
    SLOT_AND, SLOT_OR, SLOT_XOR, SLOT_INVERT, SLOT_LSHIFT, SLOT_RSHIFT, SLOT_COUNT
} Slot;

/* Python's data model names, in Slot order. */
static const char *const slot_names[SLOT_COUNT] = {
    "__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__", "__pow__",
    "__neg__", "__abs__", "__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__",
    "__and__", "__or__", "__xor__", "__invert__", "__lshift__", "__rshift__",
};
static va_op slot_ops[SLOT_COUNT];

/* A TypeError about an operand that is no array at all becomes NotImplemented,
 * so that Python tries the other operand (and == falls back to identity). */
static PyObject *not_implemented_for_foreign(PyObject *result, PyObject *other)
{
    if (result == NULL && PyErr_ExceptionMatches(PyExc_TypeError) && !PyArray_Check(other) &&
        !DeviceArray_Check(other) && !PyNumber_Check(other) && !PySequence_Check(other)) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    return result;
}

static PyObject *binary_slot(Slot slot, PyObject *a, PyObject *b, PyObject *out)
{
    PyObject *args[2] = {a, b};
    if (deferred_is_collection(DeviceArray_Check(a) ? b : a)) {
        /* In place, Python falls back to the plain operator, and that one is lazy. */
        if (out != NULL) {
            Py_RETURN_NOTIMPLEMENTED;
        }
        return deferred_call(va_op_get(slot_ops[slot])->name, args, 2, NULL);
    }
    PyObject *result = elementwise_objects(slot_ops[slot], args, out, WHERE_AUTO);
    return not_implemented_for_foreign(result, DeviceArray_Check(a) ? b : a);
}

static PyObject *unary_slot(Slot slot, PyObject *a)
{
    return elementwise_objects(slot_ops[slot], &a, NULL, WHERE_AUTO);
}

#define BINARY_SLOT(fn, slot) \
    static PyObject *fn(PyObject *a, PyObject *b) { return binary_slot(slot, a, b, NULL); }
/* In place, like NumPy: the result is cast into the left operand. */
#define INPLACE_SLOT(fn, slot) \
    static PyObject *fn(PyObject *a, PyObject *b) { return binary_slot(slot, a, b, a); }

BINARY_SLOT(slot_add, SLOT_ADD)
BINARY_SLOT(slot_sub, SLOT_SUB)
BINARY_SLOT(slot_mul, SLOT_MUL)
BINARY_SLOT(slot_truediv, SLOT_TRUEDIV)
BINARY_SLOT(slot_floordiv, SLOT_FLOORDIV)
BINARY_SLOT(slot_mod, SLOT_MOD)
BINARY_SLOT(slot_and, SLOT_AND)
BINARY_SLOT(slot_or, SLOT_OR)
BINARY_SLOT(slot_xor, SLOT_XOR)
BINARY_SLOT(slot_lshift, SLOT_LSHIFT)
BINARY_SLOT(slot_rshift, SLOT_RSHIFT)
INPLACE_SLOT(slot_iadd, SLOT_ADD)
INPLACE_SLOT(slot_isub, SLOT_SUB)
INPLACE_SLOT(slot_imul, SLOT_MUL)
INPLACE_SLOT(slot_itruediv, SLOT_TRUEDIV)
INPLACE_SLOT(slot_ifloordiv, SLOT_FLOORDIV)
INPLACE_SLOT(slot_imod, SLOT_MOD)
INPLACE_SLOT(slot_iand, SLOT_AND)
INPLACE_SLOT(slot_ior, SLOT_OR)
INPLACE_SLOT(slot_ixor, SLOT_XOR)
INPLACE_SLOT(slot_ilshift, SLOT_LSHIFT)
INPLACE_SLOT(slot_irshift, SLOT_RSHIFT)

static PyObject *slot_pow(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return binary_slot(SLOT_POW, a, b, NULL);
}

static PyObject *slot_ipow(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return binary_slot(SLOT_POW, a, b, a);
}

static PyObject *slot_neg(PyObject *a) { return unary_slot(SLOT_NEG, a); }
static PyObject *slot_abs(PyObject *a) { return unary_slot(SLOT_ABS, a); }
static PyObject *slot_invert(PyObject *a) { return unary_slot(SLOT_INVERT, a); }

static PyObject *slot_richcompare(PyObject *a, PyObject *b, int cmp)
{
    Slot slot;
    switch (cmp) {
        case Py_LT: slot = SLOT_LT; break;
        case Py_LE: slot = SLOT_LE; break;
        case Py_EQ: slot = SLOT_EQ; break;
        case Py_NE: slot = SLOT_NE; break;
        case Py_GT: slot = SLOT_GT; break;
        case Py_GE: slot = SLOT_GE; break;
        default: Py_RETURN_NOTIMPLEMENTED;
    }
    if (slot_ops[slot] < 0) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return binary_slot(slot, a, b, NULL);
}

static void fill_slots(PyNumberMethods *nb, richcmpfunc *richcompare)
{
#define FILL(slot, field, fn) \
    if (slot_ops[slot] >= 0) nb->field = fn
    FILL(SLOT_ADD, nb_add, slot_add);
    FILL(SLOT_ADD, nb_inplace_add, slot_iadd);
    FILL(SLOT_SUB, nb_subtract, slot_sub);
    FILL(SLOT_SUB, nb_inplace_subtract, slot_isub);
    FILL(SLOT_MUL, nb_multiply, slot_mul);
    FILL(SLOT_MUL, nb_inplace_multiply, slot_imul);
    FILL(SLOT_TRUEDIV, nb_true_divide, slot_truediv);
    FILL(SLOT_TRUEDIV, nb_inplace_true_divide, slot_itruediv);
    FILL(SLOT_FLOORDIV, nb_floor_divide, slot_floordiv);
    FILL(SLOT_FLOORDIV, nb_inplace_floor_divide, slot_ifloordiv);
    FILL(SLOT_MOD, nb_remainder, slot_mod);
    FILL(SLOT_MOD, nb_inplace_remainder, slot_imod);
    FILL(SLOT_POW, nb_power, slot_pow);
    FILL(SLOT_POW, nb_inplace_power, slot_ipow);
    FILL(SLOT_NEG, nb_negative, slot_neg);
    FILL(SLOT_ABS, nb_absolute, slot_abs);
    FILL(SLOT_AND, nb_and, slot_and);
    FILL(SLOT_AND, nb_inplace_and, slot_iand);
    FILL(SLOT_OR, nb_or, slot_or);
    FILL(SLOT_OR, nb_inplace_or, slot_ior);
    FILL(SLOT_XOR, nb_xor, slot_xor);
    FILL(SLOT_XOR, nb_inplace_xor, slot_ixor);
    FILL(SLOT_INVERT, nb_invert, slot_invert);
    FILL(SLOT_LSHIFT, nb_lshift, slot_lshift);
    FILL(SLOT_LSHIFT, nb_inplace_lshift, slot_ilshift);
    FILL(SLOT_RSHIFT, nb_rshift, slot_rshift);
    FILL(SLOT_RSHIFT, nb_inplace_rshift, slot_irshift);
#undef FILL
    int any_comparison = 0;
    for (int s = SLOT_LT; s <= SLOT_GE; ++s) {
        any_comparison |= slot_ops[s] >= 0;
    }
    *richcompare = any_comparison ? slot_richcompare : NULL;
}

/* _op_dtypes(name, *args): (compute, result) dtype names of an elementwise
 * operation on these arguments, for the tests to hold against NumPy. */
static PyObject *op_dtypes(PyObject *, PyObject *const *args, Py_ssize_t nargs)
{
    va_op op;
    va_dtype compute, result;
    const char *name = nargs > 0 && PyUnicode_Check(args[0]) ? PyUnicode_AsUTF8(args[0]) : NULL;
    if (name == NULL || va_op_find(name, &op) != VA_SUCCESS ||
        va_op_get(op)->kind != VA_KIND_ELEMENTWISE ||
        nargs - 1 != va_op_get(op)->nparams + va_op_get(op)->nin) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "_op_dtypes(name, *args): an elementwise op and its arguments");
        return NULL;
    }
    if (elementwise_dtypes(op, args + 1, &compute, &result) < 0) {
        return NULL;
    }
    return Py_BuildValue("(ss)", va_dtype_name(compute), va_dtype_name(result));
}

/* _load_module(path, version, module_name): loads an operation library built
 * for myModule `version` and returns ((name, function, description), ...) of
 * its operations, whose functions name `module_name` as their module. The
 * functions are the same kind of object, over the same table, as the built-in
 * operations'. */
static PyObject *load_module(PyObject *, PyObject *args)
{
    const char *path = NULL, *version = NULL;
    PyObject *module_name = NULL, *loaded = NULL;
    va_module_result r;
    if (!PyArg_ParseTuple(args, "ssU:_load_module", &path, &version, &module_name)) {
        return NULL;
    }
    va_status st;
    Py_BEGIN_ALLOW_THREADS
    st = va_module_load(path, version, &r);
    Py_END_ALLOW_THREADS
    if (st != VA_SUCCESS) {
        switch (r.problem) {
            case VA_MODULE_CANNOT_OPEN:
                PyErr_Format(PyExc_ImportError, "cannot load the operation library %s: %s", path, r.detail);
                return NULL;
            case VA_MODULE_NOT_A_MODULE:
                PyErr_Format(PyExc_ImportError,
                             "%s is not a myModule operation library (one built by myModule.load or "
                             "python -m myModule.build)", path);
                return NULL;
            case VA_MODULE_OTHER_VERSION:
                PyErr_Format(PyExc_ImportError,
                             "%s was built for myModule %s, and this is myModule %s (ABI %d): build it "
                             "again with this version (myModule.load rebuilds from the sources)",
                             path, r.found_version, version, VA_MODULE_ABI);
                return NULL;
            case VA_MODULE_NAME_TAKEN:
                if (r.clash_op < 0) {
                    PyErr_Format(PyExc_ValueError, "%s declares two operations named '%s'", path, r.clash_name);
                }
                else if (va_op_origin(r.clash_op)[0] == '\0') {
                    PyErr_Format(PyExc_ValueError,
                                 "operation '%s' of %s: the name is taken by the built-in operation "
                                 "myModule.%s (nothing was loaded from %s)",
                                 r.clash_name, path, va_op_get(r.clash_op)->name, path);
                }
                else {
                    PyErr_Format(PyExc_ValueError,
                                 "operation '%s' of %s: the name is taken by '%s', loaded from %s "
                                 "(nothing was loaded from %s)",
                                 r.clash_name, path, va_op_get(r.clash_op)->name, va_op_origin(r.clash_op),
                                 path);
                }
                return NULL;
            case VA_MODULE_TABLE_FULL:
                PyErr_Format(PyExc_RuntimeError, "%s: the op table is full (%d operations)", path, VA_MAX_OPS);
                return NULL;
            case VA_MODULE_BAD_ROWS:
                PyErr_Format(PyExc_ImportError, "%s: %s", path,
                             r.detail[0] != '\0' ? r.detail : "its declarations could not be read");
                return NULL;
            case VA_MODULE_LOADED: case VA_MODULE_PROBLEM_MAX_ENUM:
                break;
        }
        return raise_status(st);
    }
    loaded = PyTuple_New(r.count);
    if (loaded == NULL) {
        return NULL;
    }
    for (int32_t k = 0; k < r.count; ++k) {
        const va_op op = r.first + k;
        PyObject *fn = new_op_function(op, NULL, module_name); /* a plain function: no __self__ */
        PyObject *entry = fn == NULL ? NULL : describe(op);
        PyObject *item = entry == NULL ? NULL : Py_BuildValue("(sOO)", va_op_get(op)->name, fn, entry);
        Py_XDECREF(fn);
        Py_XDECREF(entry);
        if (item == NULL) {
            Py_DECREF(loaded);
            return NULL;
        }
        PyTuple_SET_ITEM(loaded, k, item);
    }
    return loaded;
}

static PyMethodDef introspection[] = {
    {"_load_module", (PyCFunction)load_module, METH_VARARGS,
     "_load_module(path, version, module_name)\n--\n\nLoads an operation library (myModule.load does)."},
    {"_op_dtypes", (PyCFunction)(void (*)(void))op_dtypes, METH_FASTCALL,
     "_op_dtypes(name, *args)\n--\n\nCompute and result dtype names of an elementwise op on args."},
    {NULL, NULL, 0, NULL},
};

int optable_init(PyObject *module, PyNumberMethods *numbers, richcmpfunc *richcompare)
{
    if (PyModule_AddFunctions(module, introspection) < 0) {
        return -1;
    }
    const int count = va_op_count();
    PyObject *table = NULL;
    if (count > MAX_OPS) {
        PyErr_SetString(PyExc_SystemError, "more operations than the extension has room for");
        return -1;
    }
    for (int s = 0; s < SLOT_COUNT; ++s) {
        slot_ops[s] = -1;
    }
    table = PyTuple_New(count);
    if (table == NULL) {
        return -1;
    }
    for (va_op op = 0; op < count; ++op) {
        const va_op_info *info = va_op_get(op);
        PyObject *entry = NULL;
        if (add_function(module, op) < 0 || (entry = describe(op)) == NULL) {
            Py_DECREF(table);
            return -1;
        }
        PyTuple_SET_ITEM(table, op, entry);
        for (int s = 0; s < SLOT_COUNT; ++s) {
            if (strcmp(info->pyop, slot_names[s]) == 0) {
                slot_ops[s] = op;
            }
        }
    }
    int rc = PyModule_AddObjectRef(module, "_op_table", table);
    Py_DECREF(table);
    if (rc < 0) {
        return -1;
    }
    fill_slots(numbers, richcompare);
    return 0;
}
