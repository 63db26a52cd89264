/*
 * near_miss.h - "did you mean `forward`?" for patch targets that are not upstream.
 *
 * A target one or two edits (insertions, deletions, substitutions, or swaps of
 * two neighbouring letters) away from a name upstream defines in the same scope -
 * `Qwen3MLP.fowrard` against the class's `forward`, `apply_rotary_pos_embb`
 * against the module's functions - is most likely a typo, not a method the config
 * adds on purpose.
 */
#ifndef PGCI_CHECKS_NEAR_MISS_H
#define PGCI_CHECKS_NEAR_MISS_H

#include "index/index.h"

/* Optimal string alignment distance between a and b, capped at cap + 1. */
int near_miss_distance(const char *a, const char *b, int cap);

/* For a target "Class.method" or "name" not defined in m: the closest name of the
 * same scope (the class's members, or the module's definitions) within the near-
 * miss distance, or NULL. Names shorter than 4 characters are never suggested. */
const char *near_miss_suggest(const index_module *m, const char *target);

#endif
