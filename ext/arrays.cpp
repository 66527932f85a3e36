/* One registration call for creation.cpp, indexing.cpp, manipulation.cpp and nonzero.cpp. */
#include "arrays.h"
#include "array_api.h"
#include "array_functions.h"
#include "creation.h"
#include "hooks.h"
#include "indexing.h"
#include "manipulation.h"
#include "matmul.h"
#include "moments.h"
#include "nonzero.h"
#include "protocols.h"
#include "reductions.h"
#include "search.h"
#include "scan.h"
#include "sort.h"
#include "views.h"

/* A DeviceArray over no memory at all (its address is `address`, never read):
 * for tests of the view arithmetic (indexing, reshape, transpose, ...) where
 * there is no GPU. Any operation that touches the data fails or crashes. */
static PyObject *mm_testing_view(PyObject *, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"shape", "strides", "dtype", "address"};
    PyObject *values[4];
    int ndim = 0, nstrides = 0, given = 0;
    int64_t shape[VA_MAX_NDIM], strides[VA_MAX_NDIM];
    va_dtype dtype = VA_FLOAT64;
    long long address = 1 << 20; /* not NULL: views add offsets to it */
    if (parse_arguments("_testing_view", args, nargs, kwnames, names, 4, 3, 4, values) < 0 ||
        parse_shape(values[0], 0, &ndim, shape) < 0 ||
        parse_dtype(values[2], &dtype, &given) < 0) {
        return NULL;
    }
    {
        PyObject *seq = PySequence_Fast(values[1], "strides must be a sequence");
        if (seq == NULL) {
            return NULL;
        }
        nstrides = (int)PySequence_Fast_GET_SIZE(seq);
        for (int d = 0; d < nstrides && d < VA_MAX_NDIM; ++d) {
            strides[d] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, d));
        }
        Py_DECREF(seq);
        if (PyErr_Occurred()) {
            return NULL;
        }
    }
    if (nstrides != ndim) {
        PyErr_SetString(PyExc_ValueError, "shape and strides differ in length");
        return NULL;
    }
    if (values[3] != NULL && (address = PyLong_AsLongLong(values[3])) == -1 && PyErr_Occurred()) {
        return NULL;
    }
    return (PyObject *)devicearray_view((void *)(intptr_t)address, 0, dtype, ndim, shape, strides, NULL);
}

static PyMethodDef testing_functions[] = {
    {"_install_hooks", (PyCFunction)(void (*)(void))mm_install_hooks, METH_FASTCALL | METH_KEYWORDS,
     "_install_hooks(*, errors, reference, dask, array_api, dispatch)\n--\n\nThe package's modules the extension "
     "calls (myModule/__init__.py installs them at import)."},
    {"_supported_dtypes", (PyCFunction)mm_supported_dtypes, METH_NOARGS,
     "_supported_dtypes()\n--\n\nThe dtypes the library has, as NumPy dtypes, in the order of its "
     "va_dtype enum (bool, integers and floats: the one list tests and the array API read)."},
    {"_promote_types", (PyCFunction)(void (*)(void))mm_promote_types, METH_FASTCALL,
     "_promote_types(a, b)\n--\n\nThe dtype both dtypes promote to, as every operation promotes its arrays "
     "(numpy.promote_types over the supported dtypes)."},
    {"_result_type", (PyCFunction)(void (*)(void))mm_result_type, METH_FASTCALL,
     "_result_type(*dtypes_and_scalars)\n--\n\nnumpy.result_type over the supported dtypes: the first "
     "loop type every dtype casts to safely, Python bool, int, float and complex joining as weak "
     "scalars (NEP 50), as every operation promotes."},
    {"_normalize_axis", (PyCFunction)(void (*)(void))mm_normalize_axis, METH_FASTCALL | METH_KEYWORDS,
     "_normalize_axis(axis, ndim, allow_duplicates=False)\n--\n\nAn axis (int) or axes (tuple) made "
     "non-negative; numpy.exceptions.AxisError out of range, ValueError for a repeated axis."},
    {"_testing_view", (PyCFunction)(void (*)(void))mm_testing_view, METH_FASTCALL | METH_KEYWORDS,
     "_testing_view(shape, strides, dtype, address=1<<20)\n--\n\nTests only: a DeviceArray over no memory, "
     "for checking view arithmetic without a GPU."},
    {NULL, NULL, 0, NULL},
};

int arrays_init(PyObject *module, richcmpfunc richcompare)
{
    /* DeviceArray is made once, with every feature's methods and attributes in its
     * one table: nothing is added to the type once it is ready. */
    int functions_ok = 0, reductions_ok = 0;
    matmul_number_methods(devicearray_number_methods());
    const TypePart parts[] = {
        manipulation_type_part(), array_functions_type_part(&functions_ok), array_api_type_part(),
        nonzero_type_part(), reductions_type_part(&reductions_ok), sort_type_part(), scan_type_part(),
        protocols_type_part(), search_type_part(),
    };
    if (!functions_ok || !reductions_ok ||
        devicearray_init(module, richcompare, parts, (int)(sizeof(parts) / sizeof(parts[0]))) < 0) {
        return -1;
    }
    if (creation_init(module) < 0 || indexing_init(module) < 0 || manipulation_init(module) < 0 ||
        array_functions_init(module) < 0 || nonzero_init(module) < 0 || sort_init(module) < 0 ||
        scan_init(module) < 0 || search_init(module) < 0 || moments_init(module) < 0 ||
        matmul_init(module) < 0 || PyModule_AddFunctions(module, testing_functions) < 0) {
        return -1;
    }
    return 0;
}
