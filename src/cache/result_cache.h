/*
 * result_cache.h - the content-addressed cache of pgci's own results on disk:
 * regenerations (raw codegen output and its notes) and ruff normalisations, so
 * that a second `pgci check` with nothing changed does not redo them.
 *
 *     <dir>/<first two hex digits>/<64 hex digits of the key>
 *
 * A key is the SHA-256 of everything the result depends on (see result_key.h):
 * the inputs' bytes, pgci's build, ruff's version and settings. A changed input
 * is a different key, so nothing is ever invalidated in place; old entries age
 * out when the cache grows past its bound (least recently used first).
 *
 * Every entry carries its kind, its key, its length and the SHA-256 of its
 * payload; a read checks all four, so a truncated, damaged or foreign file is a
 * miss (counted as corrupt), never trusted, and the result is recomputed and
 * written again. Writes go to a unique temporary file in the same directory and
 * are renamed into place, so concurrent runs (threads or processes) see either
 * no entry or a whole one. Every operation is best effort: a cache that cannot
 * be read or written only costs time. Thread-safe.
 */
#ifndef PGCI_CACHE_RESULT_CACHE_H
#define PGCI_CACHE_RESULT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "core/sha256.h"
#include "core/strbuf.h"

typedef struct rcache rcache;

typedef struct rcache_stats {
    size_t hits, misses, writes, corrupt;
} rcache_stats;

/* The default bound on the cache's size: 256 MiB (PGCI_CACHE_MAX_MB overrides). */
#define RCACHE_DEFAULT_MAX_BYTES ((size_t)256 << 20)

/* Opens the cache in `dir`, or when NULL in <$XDG_CACHE_HOME or ~/.cache>/pgci/
 * results. max_bytes 0: PGCI_CACHE_MAX_MB from the environment, else the default.
 * Creates nothing until the first write. */
int rcache_open(rcache **out, const char *dir, size_t max_bytes);

/* Looks up `kind` (a short tag such as "codegen") under key. Returns 1 and
 * appends the payload to out on a hit, 0 on a miss or a corrupt entry. */
int rcache_get(rcache *c, const char *kind, const uint8_t key[SHA256_DIGEST_LEN], strbuf *out);

/* Stores a payload under key (atomically; errors are ignored). */
void rcache_put(rcache *c, const char *kind, const uint8_t key[SHA256_DIGEST_LEN], const void *data,
                size_t len);

/* Counters since open. */
void rcache_get_stats(rcache *c, rcache_stats *out);

/* The directory entries live in. */
const char *rcache_dir(const rcache *c);

/* The bound on the cache's size in bytes. */
size_t rcache_max_bytes(const rcache *c);

/* Removes the least recently used entries while the cache holds more than its
 * bound, down to three quarters of it. Called by rcache_free() after writes. */
void rcache_trim(rcache *c);

/* Trims when something was written, then frees. Accepts NULL. */
void rcache_free(rcache *c);

/* Keys. A key hashes a kind tag, pgci's own build (the build id the linker wrote,
 * so a rebuilt pgci never reads a result an older one made) and
 * then the caller's inputs, each length-prefixed so that no two sequences of
 * inputs hash alike. */
void rcache_key_begin(sha256_ctx *c, const char *kind);
/* Adds bytes (NULL is distinct from empty). */
void rcache_key_add(sha256_ctx *c, const void *data, size_t len);
/* Adds a NUL-terminated string (NULL is distinct from ""). */
void rcache_key_adds(sha256_ctx *c, const char *s);
/* Adds a number. */
void rcache_key_addu(sha256_ctx *c, unsigned long long v);

/* pgci's build identity: "build-id <GNU build id in hex>" (or "exe <SHA-256 of the
 * executable>" when the linker wrote none). Computed once. */
const char *rcache_build_id(void);

#endif
