/* The op table in Python: a function per operation, the DeviceArray operators
 * the table names, and myModule._core._op_table (what each declaration says). */
#ifndef MYMODULE_OPTABLE_H
#define MYMODULE_OPTABLE_H

#include "common.h"

/* Adds the operations' functions and _op_table to `module`, and fills `numbers`
 * and *richcompare with the operators the table provides (before DeviceArray's
 * type is readied). */
int optable_init(PyObject *module, PyNumberMethods *numbers, richcmpfunc *richcompare);

#endif
