/*
 * fuzz.h - the invariant check of the fuzz targets.
 *
 * CHECK(cond) aborts when cond does not hold, naming the target's file, the line,
 * the condition and pgci's last error (empty when there is none); libFuzzer then
 * keeps the input that did it.
 */
#ifndef PGCI_TESTS_FUZZ_H
#define PGCI_TESTS_FUZZ_H

#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s (last error: %s)\n", __FILE__, __LINE__,  \
                    #cond, pgci_error_last());                                                     \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#endif
