// EXPECT for the tests' host programs (tests/*_host.cu): in a function returning int,
// prints the first failed condition with its place and returns 1.
#pragma once

#include <cstdio>

#define EXPECT(cond)                                                   \
    do {                                                               \
        if (!(cond)) {                                                 \
            std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            return 1;                                                  \
        }                                                              \
    } while (0)
