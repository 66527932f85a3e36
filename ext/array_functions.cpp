/* The array functions of array_functions.def made callable: each declaration's
 * signature is read once at import into its parameters, from which the
 * arguments are parsed and converted (one converter per kind), the module
 * function and DeviceArray method are registered with their text signatures,
 * and _core._array_functions describes them to the package. */
#include <stdio.h>
#include <string.h>

#include "array_functions.h"
#include "manipulation.h"

namespace {

enum Kind { KIND_ARRAY, KIND_AXIS, KIND_AXES, KIND_NEW_AXES, KIND_OBJECT };

const struct {
    const char *name;
    Kind kind;
} kinds[] = {
    {"array", KIND_ARRAY}, {"axis", KIND_AXIS}, {"axes", KIND_AXES}, {"new_axes", KIND_NEW_AXES},
    {"object", KIND_OBJECT},
};

constexpr int kMaxParams = 8;
constexpr int kNameBytes = 32;

struct Param {
    char name[kNameBytes];
    const char *kind_name;
    Kind kind;
    int optional; /* default None */
};

struct Declaration {
    const char *name;
    int forms;
    const char *numpy;
    const char *array_api;
    const char *signature;
    const char *doc;
    PyObject *(*implementation)(DeviceArrayObject *, const ArgValue *);
};

const Declaration declarations[] = {
#define VA_ARRAY_FUNCTION(name, forms, numpy, array_api, signature, doc) \
    {#name, forms, numpy, array_api, signature, doc, array_function_##name},
#include "array_functions.def"
#undef VA_ARRAY_FUNCTION
};
constexpr int kCount = (int)(sizeof(declarations) / sizeof(declarations[0]));

/* A declaration's signature as read at import. */
struct Signature {
    Param params[kMaxParams];
    const char *names[kMaxParams];
    int count;
    int required;       /* the leading parameters without a default */
    int max_positional; /* those before "*" */
    int positional_only; /* those before "/" */
};

Signature signatures[kCount];
/* The text signatures and docs of the module functions and the methods. */
char function_docs[kCount][512];
char method_docs[kCount][512];

const char *skip_spaces(const char *p)
{
    while (*p == ' ') {
        ++p;
    }
    return p;
}

/* Reads "name: kind[ = None], ..., /, ..., *, ..." into `s`; -1 with SystemError
 * naming the declaration when it is malformed (a build defect, seen at import). */
int read_signature(const Declaration &d, Signature *s)
{
    memset(s, 0, sizeof(*s));
    s->positional_only = 0;
    s->max_positional = -1;
    const char *p = d.signature;
    while (*(p = skip_spaces(p)) != '\0') {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len == 1 && *p == '/') {
            s->positional_only = s->count;
        }
        else if (len == 1 && *p == '*') {
            s->max_positional = s->count;
        }
        else {
            if (s->count == kMaxParams) {
                goto malformed;
            }
            Param &param = s->params[s->count];
            const char *colon = (const char *)memchr(p, ':', len);
            if (colon == NULL || colon - p >= kNameBytes) {
                goto malformed;
            }
            memcpy(param.name, p, (size_t)(colon - p));
            const char *k = skip_spaces(colon + 1);
            size_t klen = (size_t)(p + len - k);
            const char *eq = (const char *)memchr(k, '=', klen);
            if (eq != NULL) {
                if (strncmp(skip_spaces(eq + 1), "None", 4) != 0) {
                    goto malformed;
                }
                param.optional = 1;
                klen = (size_t)(eq - k);
            }
            while (klen > 0 && k[klen - 1] == ' ') {
                --klen;
            }
            param.kind_name = NULL;
            for (const auto &known : kinds) {
                if (strlen(known.name) == klen && strncmp(known.name, k, klen) == 0) {
                    param.kind = known.kind;
                    param.kind_name = known.name;
                }
            }
            if (param.kind_name == NULL || (s->count == 0) != (param.kind == KIND_ARRAY)) {
                goto malformed;
            }
            if (!param.optional) {
                if (s->required != s->count) {
                    goto malformed; /* a required parameter after an optional one */
                }
                s->required = s->count + 1;
            }
            s->names[s->count] = param.name;
            ++s->count;
        }
        p = end != NULL ? end + 1 : p + len;
    }
    if (s->count == 0) {
        goto malformed;
    }
    if (s->max_positional < 0) {
        s->max_positional = s->count;
    }
    return 0;
malformed:
    PyErr_Format(PyExc_SystemError, "array_functions.def: malformed signature of %s: \"%s\"", d.name,
                 d.signature);
    return -1;
}

/* "(a, axis=None)" from the parameters `first`.. (the methods leave the array out). */
void write_parameters(const Signature &s, int first, char *out, size_t size)
{
    size_t used = (size_t)snprintf(out, size, "(");
    for (int i = first; i < s.count && used < size; ++i) {
        used += (size_t)snprintf(out + used, size - used, "%s%s%s%s", i > first ? ", " : "",
                                 i == s.max_positional ? "*, " : "", s.params[i].name,
                                 s.params[i].optional ? "=None" : "");
        if (i + 1 == s.positional_only && i >= first && used < size) {
            used += (size_t)snprintf(out + used, size - used, ", /");
        }
    }
    if (used < size) {
        snprintf(out + used, size - used, ")");
    }
}

/* The arguments of one call, before and after conversion. */
struct Call {
    int index;
    PyObject *values[kMaxParams];
};

int convert(const Param &param, PyObject *value, const DeviceArrayObject *a, ArgValue *out)
{
    out->object = value;
    out->given = value != NULL && !(param.optional && value == Py_None);
    if (!out->given) {
        return 0;
    }
    switch (param.kind) {
    case KIND_ARRAY:
    case KIND_OBJECT:
        return 0;
    case KIND_AXIS:
        return normalize_axis(out->index, a->ndim, &out->axis); /* its type was read first */
    case KIND_AXES:
        return parse_axes(value, a->ndim, &out->naxes, out->axes);
    case KIND_NEW_AXES: {
        /* the result has as many more dimensions as there are axes */
        Py_ssize_t count = (PyTuple_Check(value) || PyList_Check(value)) ? PySequence_Size(value) : 1;
        if (count < 0) {
            return -1;
        }
        if (a->ndim + count > VA_MAX_NDIM) {
            PyErr_Format(PyExc_ValueError, "at most %d dimensions are supported on the GPU", VA_MAX_NDIM);
            return -1;
        }
        return parse_axes(value, a->ndim + (int)count, &out->naxes, out->axes);
    }
    }
    return 0; /* every kind is a case above (-Wswitch) */
}

/* Converts the arguments against the array `a` (the real one, or host data's
 * placeholder on the trial run) and runs the implementation. */
PyObject *convert_and_run(DeviceArrayObject *a, void *context, int)
{
    const Call *call = (const Call *)context;
    const Signature &s = signatures[call->index];
    ArgValue args[kMaxParams];
    memset(args, 0, sizeof(args));
    /* Single axes are read as integers before any is checked against the shape,
     * as NumPy parses its int arguments: swapaxes(a, 9, 1.5) is a TypeError. */
    for (int i = 1; i < s.count; ++i) {
        PyObject *value = call->values[i];
        const int absent = value == NULL || (s.params[i].optional && value == Py_None);
        if (s.params[i].kind == KIND_AXIS && !absent && axis_index(value, &args[i].index) < 0) {
            return NULL;
        }
    }
    for (int i = 0; i < s.count; ++i) {
        if (convert(s.params[i], i == 0 ? (PyObject *)a : call->values[i], a, &args[i]) < 0) {
            return NULL;
        }
    }
    return declarations[call->index].implementation(a, args);
}

PyObject *call_array_function(int index, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames)
{
    const Signature &s = signatures[index];
    const char *name = declarations[index].name;
    Call call;
    call.index = index;
    if (self != NULL) {
        if (parse_arguments(name, args, nargs, kwnames, s.names + 1, s.count - 1, s.required - 1,
                            s.max_positional - 1, call.values + 1) < 0) {
            return NULL;
        }
        call.values[0] = self;
        return convert_and_run((DeviceArrayObject *)self, &call, 0);
    }
    if (parse_arguments(name, args, nargs, kwnames, s.names, s.count, s.required, s.max_positional, call.values) <
        0) {
        return NULL;
    }
    return on_gpu_operand(call.values[0], name, convert_and_run, &call);
}

/* One module function and one method per declaration (the method is registered
 * only where the declaration asks for one). */
enum {
#define VA_ARRAY_FUNCTION(name, ...) INDEX_##name,
#include "array_functions.def"
#undef VA_ARRAY_FUNCTION
};

#define VA_ARRAY_FUNCTION(name, ...)                                                                         \
    PyObject *function_##name(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)       \
    {                                                                                                        \
        return call_array_function(INDEX_##name, NULL, args, nargs, kwnames);                                \
    }                                                                                                        \
    PyObject *method_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)     \
    {                                                                                                        \
        return call_array_function(INDEX_##name, self, args, nargs, kwnames);                                \
    }
#include "array_functions.def"
#undef VA_ARRAY_FUNCTION

typedef PyObject *(*Trampoline)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);
const Trampoline function_trampolines[] = {
#define VA_ARRAY_FUNCTION(name, ...) function_##name,
#include "array_functions.def"
#undef VA_ARRAY_FUNCTION
};
const Trampoline method_trampolines[] = {
#define VA_ARRAY_FUNCTION(name, ...) method_##name,
#include "array_functions.def"
#undef VA_ARRAY_FUNCTION
};

PyMethodDef function_defs[kCount + 1];
PyMethodDef method_defs[kCount + 1];

/* The registry entry of declaration i (a dict), or NULL with an exception. */
PyObject *describe(int i)
{
    const Declaration &d = declarations[i];
    const Signature &s = signatures[i];
    PyObject *entry = NULL, *params = NULL;
    char text[256];
    params = PyTuple_New(s.count);
    if (params == NULL) {
        goto fail;
    }
    for (int k = 0; k < s.count; ++k) {
        const Param &p = s.params[k];
        PyObject *param = Py_BuildValue("{s:s,s:s,s:O,s:O,s:O}", "name", p.name, "kind", p.kind_name, "optional",
                                        p.optional ? Py_True : Py_False, "positional_only",
                                        k < s.positional_only ? Py_True : Py_False, "keyword_only",
                                        k >= s.max_positional ? Py_True : Py_False);
        if (param == NULL) {
            goto fail;
        }
        PyTuple_SET_ITEM(params, k, param);
    }
    write_parameters(s, 0, text, sizeof(text));
    entry = Py_BuildValue("{s:s,s:O,s:O,s:s,s:s,s:s,s:O,s:s}", "name", d.name, "function",
                          (d.forms & AF_FUNCTION) ? Py_True : Py_False, "method",
                          (d.forms & AF_METHOD) ? Py_True : Py_False, "numpy", d.numpy, "array_api", d.array_api,
                          "signature", text, "parameters", params, "doc", d.doc);
fail:
    Py_XDECREF(params);
    return entry;
}

}  // namespace

/* The function and method tables from the declarations, once. */
static int build_tables(void)
{
    static int built = 0;
    if (built) {
        return 0;
    }
    int nfunctions = 0, nmethods = 0;
    char text[256];
    for (int i = 0; i < kCount; ++i) {
        const Declaration &d = declarations[i];
        if (read_signature(d, &signatures[i]) < 0) {
            return -1;
        }
        if (d.forms & AF_FUNCTION) {
            write_parameters(signatures[i], 0, text, sizeof(text));
            snprintf(function_docs[i], sizeof(function_docs[i]), "%s%s\n--\n\n%s", d.name, text, d.doc);
            function_defs[nfunctions++] = {d.name, (PyCFunction)(void (*)(void))function_trampolines[i],
                                           METH_FASTCALL | METH_KEYWORDS, function_docs[i]};
        }
        if (d.forms & AF_METHOD) {
            write_parameters(signatures[i], 1, text, sizeof(text));
            snprintf(method_docs[i], sizeof(method_docs[i]), "%s%s\n--\n\n%s", d.name, text, d.doc);
            method_defs[nmethods++] = {d.name, (PyCFunction)(void (*)(void))method_trampolines[i],
                                       METH_FASTCALL | METH_KEYWORDS, method_docs[i]};
        }
    }
    function_defs[nfunctions] = {NULL, NULL, 0, NULL};
    method_defs[nmethods] = {NULL, NULL, 0, NULL};
    built = 1;
    return 0;
}

TypePart array_functions_type_part(int *ok)
{
    *ok = build_tables() == 0;
    return TypePart{*ok ? method_defs : NULL, NULL};
}

int array_functions_init(PyObject *module)
{
    PyObject *registry = NULL;
    if (build_tables() < 0 || PyModule_AddFunctions(module, function_defs) < 0) {
        return -1;
    }
    registry = PyTuple_New(kCount);
    if (registry == NULL) {
        return -1;
    }
    for (int i = 0; i < kCount; ++i) {
        PyObject *entry = describe(i);
        if (entry == NULL) {
            Py_DECREF(registry);
            return -1;
        }
        PyTuple_SET_ITEM(registry, i, entry);
    }
    if (PyModule_AddObject(module, "_array_functions", registry) < 0) {
        Py_DECREF(registry);
        return -1;
    }
    return 0;
}
