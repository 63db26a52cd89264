/*
 * vec.h - a typed growable array as a macro, and strvec, a vector of owned strings.
 *
 *     VEC(int) v = VEC_INIT;
 *     VEC_PUSH(&v, 42);
 *     for (size_t i = 0; i < v.len; i++) ... v.items[i] ...
 *     VEC_FREE(&v);
 */
#ifndef PGCI_CORE_VEC_H
#define PGCI_CORE_VEC_H

#include <stddef.h>
#include <stdlib.h>

#include "core/strbuf.h"

#define VEC(T)                                                                                     \
    struct {                                                                                       \
        T *items;                                                                                  \
        size_t len;                                                                                \
        size_t cap;                                                                                \
    }
#define VEC_INIT                                                                                   \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

#define VEC_RESERVE(v, n)                                                                          \
    do {                                                                                           \
        if ((v)->len + (n) > (v)->cap) {                                                           \
            size_t vec_nc_ = (v)->cap ? (v)->cap * 2 : 8;                                          \
            while (vec_nc_ < (v)->len + (n))                                                       \
                vec_nc_ *= 2;                                                                      \
            (v)->items = pgci_realloc((v)->items, vec_nc_ * sizeof(*(v)->items));                  \
            (v)->cap = vec_nc_;                                                                    \
        }                                                                                          \
    } while (0)

#define VEC_PUSH(v, x)                                                                             \
    do {                                                                                           \
        VEC_RESERVE(v, 1);                                                                         \
        (v)->items[(v)->len++] = (x);                                                              \
    } while (0)

#define VEC_FREE(v)                                                                                \
    do {                                                                                           \
        free((v)->items);                                                                          \
        (v)->items = NULL;                                                                         \
        (v)->len = (v)->cap = 0;                                                                   \
    } while (0)

/* A vector of malloc'ed strings that the vector owns. */
typedef struct strvec {
    char **items;
    size_t len;
    size_t cap;
} strvec;
#define STRVEC_INIT                                                                                \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* Appends a copy of s. */
void strvec_push(strvec *v, const char *s);
/* Appends a copy of s[0..n). */
void strvec_pushn(strvec *v, const char *s, size_t n);
/* Appends s, taking ownership. */
void strvec_push_owned(strvec *v, char *s);
/* Index of the first item equal to s, or -1. */
long strvec_find(const strvec *v, const char *s);
/* 1 when a and b hold equal strings in the same order. */
int strvec_equal(const strvec *a, const strvec *b);
/* Sorts with strcmp. */
void strvec_sort(strvec *v);
void strvec_free(strvec *v);

#endif
