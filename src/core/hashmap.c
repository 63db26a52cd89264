/*
 * Entries live in a dense array in insertion order; a separate power-of-two table
 * of indexes with linear probing finds them. Removal leaves a tombstone in the
 * dense array (key NULL) and rebuilds the index, which keeps probing simple; pgci
 * removes rarely.
 */
#include "core/hashmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

/* Eight bytes a step (a multiply and a rotate), then MurmurHash3's 64-bit
 * finaliser to spread them. Keys run from names to whole statements (the pieces
 * planner keys statements by their bytes), and FNV-1a's byte a step was 2 % of a
 * gate run. The values live in memory only: nothing stores them. */
unsigned long pgci_hash(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h = (h << 31) | (h >> 33);
    }
    if (i < n) {
        uint64_t w = 0;
        memcpy(&w, s + i, n - i);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return (unsigned long)h;
}

static long find_slot(const hashmap *m, const char *key, size_t klen)
{
    if (!m->index_cap)
        return -1;
    size_t mask = m->index_cap - 1;
    size_t i = pgci_hash(key, klen) & mask;
    for (;;) {
        long e = m->index[i];
        if (e < 0)
            return -(long)i - 2;
        const char *k = m->entries[e].key;
        if (k && strlen(k) == klen && memcmp(k, key, klen) == 0)
            return (long)i;
        i = (i + 1) & mask;
    }
}

static void rebuild_index(hashmap *m, size_t cap)
{
    free(m->index);
    m->index = pgci_malloc(cap * sizeof(long));
    for (size_t i = 0; i < cap; i++)
        m->index[i] = -1;
    m->index_cap = cap;
    for (size_t e = 0; e < m->len; e++) {
        const char *k = m->entries[e].key;
        if (!k)
            continue;
        size_t i = pgci_hash(k, strlen(k)) & (cap - 1);
        while (m->index[i] >= 0)
            i = (i + 1) & (cap - 1);
        m->index[i] = (long)e;
    }
}

void *hashmap_putn(hashmap *m, const char *key, size_t klen, void *value)
{
    long s = find_slot(m, key, klen);
    if (s >= 0) {
        hashmap_entry *e = &m->entries[m->index[s]];
        void *old = e->value;
        e->value = value;
        return old;
    }
    if (m->len + 1 > m->cap) {
        m->cap = m->cap ? m->cap * 2 : 8;
        m->entries = pgci_realloc(m->entries, m->cap * sizeof(hashmap_entry));
    }
    m->entries[m->len].key = pgci_strndup(key, klen);
    m->entries[m->len].value = value;
    m->len++;
    m->count++;
    if (m->len * 2 > m->index_cap) {
        size_t cap = m->index_cap ? m->index_cap : 16;
        while (m->len * 2 > cap)
            cap *= 2;
        rebuild_index(m, cap);
    } else {
        m->index[-s - 2] = (long)(m->len - 1);
    }
    return NULL;
}

void *hashmap_put(hashmap *m, const char *key, void *value)
{
    return hashmap_putn(m, key, strlen(key), value);
}

void *hashmap_getn(const hashmap *m, const char *key, size_t klen)
{
    long s = find_slot(m, key, klen);
    return s >= 0 ? m->entries[m->index[s]].value : NULL;
}

void *hashmap_get(const hashmap *m, const char *key)
{
    return hashmap_getn(m, key, strlen(key));
}

int hashmap_has(const hashmap *m, const char *key)
{
    return find_slot(m, key, strlen(key)) >= 0;
}

void *hashmap_remove(hashmap *m, const char *key)
{
    long s = find_slot(m, key, strlen(key));
    if (s < 0)
        return NULL;
    hashmap_entry *e = &m->entries[m->index[s]];
    void *v = e->value;
    free(e->key);
    e->key = NULL;
    e->value = NULL;
    m->count--;
    rebuild_index(m, m->index_cap);
    return v;
}

void hashmap_free_with(hashmap *m, void (*free_value)(void *))
{
    for (size_t i = 0; i < m->len; i++) {
        if (!m->entries[i].key)
            continue;
        if (free_value)
            free_value(m->entries[i].value);
        free(m->entries[i].key);
    }
    free(m->entries);
    free(m->index);
    memset(m, 0, sizeof(*m));
}

void hashmap_free(hashmap *m)
{
    hashmap_free_with(m, NULL);
}
