/* matmul(a, b) and DeviceArray's @: NumPy's matmul, on the GPU of a GPU operand
 * (va_matmul: cuBLAS for floats, loaded on first use), NumPy's own for host data. */
#ifndef MYMODULE_MATMUL_H
#define MYMODULE_MATMUL_H

#include "common.h"

/* Adds myModule.matmul. */
int matmul_init(PyObject *module);
/* DeviceArray's @ (nb_matrix_multiply), set before the type is readied. */
void matmul_number_methods(PyNumberMethods *numbers);

#endif
