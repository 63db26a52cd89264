/*
 * regen_cache.h - the key and the stored form of a codegen result in the result
 * cache (src/cache/): the raw generated module and the notes of what patchgen
 * does silently.
 */
#ifndef PGCI_PATCHGEN_REGEN_CACHE_H
#define PGCI_PATCHGEN_REGEN_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "cache/result_cache.h"
#include "patchgen/codegen.h"
#include "patchgen/patch_spec.h"

/* The key of codegen_generate(cfg, upstream[0..len), version). */
void regen_cache_key(const pg_config *cfg, const char *upstream, size_t len, const char *version,
                     uint8_t key[SHA256_DIGEST_LEN]);

/* Appends r's output and notes in the stored form. */
void regen_cache_encode(const cg_result *r, strbuf *out);

/* Fills an empty r from the stored form; -1 when it is malformed (r must then
 * be freed and recomputed). */
int regen_cache_decode(const char *p, size_t len, cg_result *r);

#endif
