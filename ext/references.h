/* The Python side of an operation's declaration: its NumPy counterpart (the CPU
 * path and the tests' oracle), looked up by the dotted name the op table gives. */
#ifndef MYMODULE_REFERENCES_H
#define MYMODULE_REFERENCES_H

#include "common.h"

/* The reference function of `op` (borrowed, cached), or NULL with an exception. */
PyObject *op_reference(va_op op);
/* Runs the declaration's host check, if any, on host inputs about to go to the
 * GPU: f(compute dtype name, *arrays). 0, or -1 with its exception. */
int op_host_check(va_op op, va_dtype compute, PyArrayObject *const *arrays, int n);
/* Whether the declaration names a reference (a loaded operation may not: then
 * host data goes to the GPU, and device='cpu' raises). */
int op_has_reference(va_op op);
/* 1 when the reference takes out= (a NumPy ufunc), 0 when not, -1 on error. */
int op_reference_takes_out(va_op op);

#endif
