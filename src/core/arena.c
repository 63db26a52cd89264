#include "core/arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

#define ARENA_BLOCK 65536

struct arena_block {
    arena_block *next;
    size_t used;
    size_t size;
    _Alignas(max_align_t) unsigned char data[];
};

void *arena_alloc(arena *a, size_t n)
{
    size_t align = _Alignof(max_align_t);
    n = (n + align - 1) & ~(align - 1);
    if (!n)
        n = align;
    arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        b = pgci_malloc(sizeof(arena_block) + size);
        b->size = size;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
    char *r = arena_alloc(a, n + 1);
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

char *arena_strdup(arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_printf(arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *r = arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(r, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return r;
}

void arena_free(arena *a)
{
    arena_block *b = a->head;
    while (b) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
}
