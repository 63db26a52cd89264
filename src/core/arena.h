/*
 * arena.h - a bump allocator for parse products that live as long as a run.
 *
 * Everything allocated from an arena is freed at once by arena_free(); nothing
 * inside can be freed alone. Used for indexes, evaluated configs and findings.
 */
#ifndef PGCI_CORE_ARENA_H
#define PGCI_CORE_ARENA_H

#include <stddef.h>

typedef struct arena_block arena_block;

typedef struct arena {
    arena_block *head;
} arena;

#define ARENA_INIT                                                                                 \
    {                                                                                              \
        NULL                                                                                       \
    }

/* Zeroed memory, aligned for any type. */
void *arena_alloc(arena *a, size_t n);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_strdup(arena *a, const char *s);
char *arena_printf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void arena_free(arena *a);

#endif
