/* The functions of the tutorials this project grew from, done right. */
#include "common.h"

PyObject *mm_helloworld(PyObject *, PyObject *)
{
    /* Through sys.stdout, so redirection and capture see it, and its errors
     * reach the caller (PySys_WriteStdout would fall back to file descriptor 1
     * and swallow them). Held: its write() may replace sys.stdout. */
    PyObject *out = PySys_GetObject("stdout");
    if (out == NULL || out == Py_None) {
        PyErr_SetString(PyExc_RuntimeError, "lost sys.stdout");
        return NULL;
    }
    Py_INCREF(out);
    int rc = PyFile_WriteString("Hello World\n", out);
    Py_DECREF(out);
    if (rc < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* (F(n), F(n+1)) as new references by fast doubling on Python ints:
 * F(2k) = F(k) * (2 F(k+1) - F(k)),  F(2k+1) = F(k)^2 + F(k+1)^2. */
static int fib_pair(long long n, PyObject **fn, PyObject **fn1)
{
    PyObject *a = NULL, *b = NULL, *twice_b = NULL, *diff = NULL, *c = NULL, *a2 = NULL,
             *b2 = NULL, *d = NULL;
    int rc = -1;
    if (n == 0) {
        *fn = PyLong_FromLong(0);
        *fn1 = PyLong_FromLong(1);
        return 0;
    }
    if (fib_pair(n / 2, &a, &b) < 0) {
        return -1;
    }
    if ((twice_b = PyNumber_Add(b, b)) == NULL || (diff = PyNumber_Subtract(twice_b, a)) == NULL ||
        (c = PyNumber_Multiply(a, diff)) == NULL || (a2 = PyNumber_Multiply(a, a)) == NULL ||
        (b2 = PyNumber_Multiply(b, b)) == NULL || (d = PyNumber_Add(a2, b2)) == NULL) {
        goto done;
    }
    if (n % 2 == 0) {
        *fn = c;
        *fn1 = d;
        c = d = NULL;
    }
    else {
        PyObject *sum = PyNumber_Add(c, d);
        if (sum == NULL) {
            goto done;
        }
        *fn = d;
        *fn1 = sum;
        d = NULL;
    }
    rc = 0;
done:
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(twice_b);
    Py_XDECREF(diff);
    Py_XDECREF(c);
    Py_XDECREF(a2);
    Py_XDECREF(b2);
    Py_XDECREF(d);
    return rc;
}

PyObject *mm_fib(PyObject *, PyObject *arg)
{
    if (PyFloat_Check(arg) || !PyIndex_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "fib() needs an integer, not %.100s", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    PyObject *index = PyNumber_Index(arg);
    if (index == NULL) {
        return NULL;
    }
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (n == -1 && PyErr_Occurred()) {
        return NULL;
    }
    /* The overflow flag first: n is -1 whenever it is set. */
    if (overflow > 0) {
        PyErr_SetString(PyExc_OverflowError, "fib() of n >= 2**63 would not fit in memory");
        return NULL;
    }
    if (overflow < 0 || n < 0) {
        PyErr_SetString(PyExc_ValueError, "fib() is defined for n >= 0");
        return NULL;
    }
    if (n <= 93) {
        unsigned long long a = 0, b = 1;
        for (long long i = 0; i < n; ++i) {
            unsigned long long next = a + b;
            a = b;
            b = next;
        }
        return PyLong_FromUnsignedLongLong(a);
    }
    PyObject *fn = NULL, *fn1 = NULL;
    if (fib_pair(n, &fn, &fn1) < 0) {
        return NULL;
    }
    Py_DECREF(fn1);
    return fn;
}
