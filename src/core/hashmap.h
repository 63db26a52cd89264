/*
 * hashmap.h - an open-addressing hash map from strings to pointers.
 *
 * Keys are copied and owned by the map; values are not (the caller decides what a
 * value is and frees it, e.g. with hashmap_free_with). Iteration order is the
 * insertion order, so anything printed from a map is deterministic.
 */
#ifndef PGCI_CORE_HASHMAP_H
#define PGCI_CORE_HASHMAP_H

#include <stddef.h>

typedef struct hashmap_entry {
    char *key;
    void *value;
} hashmap_entry;

typedef struct hashmap {
    hashmap_entry *entries; /* dense, in insertion order (deleted: key == NULL) */
    size_t len;             /* slots used in entries, including deleted ones */
    size_t cap;
    size_t count; /* live entries */
    long *index;  /* open-addressing table of indexes into entries, -1 = empty */
    size_t index_cap;
} hashmap;

#define HASHMAP_INIT                                                                               \
    {                                                                                              \
        NULL, 0, 0, 0, NULL, 0                                                                     \
    }

/* Sets key to value; returns the previous value or NULL. */
void *hashmap_put(hashmap *m, const char *key, void *value);
/* Same with a key that is not NUL-terminated. */
void *hashmap_putn(hashmap *m, const char *key, size_t klen, void *value);
/* The value for key, or NULL. */
void *hashmap_get(const hashmap *m, const char *key);
void *hashmap_getn(const hashmap *m, const char *key, size_t klen);
int hashmap_has(const hashmap *m, const char *key);
/* Removes key; returns its value or NULL. */
void *hashmap_remove(hashmap *m, const char *key);
void hashmap_free(hashmap *m);
/* Frees the map, calling free_value on every live value first. */
void hashmap_free_with(hashmap *m, void (*free_value)(void *));

/* Iteration: for (size_t i = 0; i < m.len; i++) if (m.entries[i].key) ... */

/* FNV-1a, exposed for callers that hash their own keys. */
unsigned long pgci_hash(const char *s, size_t n);

#endif
