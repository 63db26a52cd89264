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
#include <string.h>

#include "core/error.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s (last error: %s)\n", __FILE__, __LINE__,  \
                    #cond, pgci_error_last());                                                     \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* An input of two texts: split at its first "\n#--\n" into s[0..*alen) (with
 * the line break) and *b[0..*blen); without one, the input is both. */
static inline void fuzz_two_texts(const char *s, size_t size, size_t *alen, const char **b,
                                  size_t *blen)
{
    const char *sep = memmem(s, size, "\n#--\n", 5);
    *alen = sep ? (size_t)(sep - s) + 1 : size;
    *b = sep ? sep + 5 : s;
    *blen = sep ? size - *alen - 4 : size;
}

#endif
