/*
 * version.h - release versions as upstream tags and deprecation messages write
 * them: "v5.16.1", "5.0.0rc1", "4.58", and a whole series, "5.x".
 */
#ifndef PGCI_CORE_VERSION_H
#define PGCI_CORE_VERSION_H

#include "core/vec.h"

/* Compares two versions number by number ("v5.9.0" < "v5.16.1", "5" == "5.0.0");
 * a pre-release sorts before its release ("5.0.0rc1" < "5.0.0"); "5.x" is the 5
 * series, equal to 5.0.0. */
int version_cmp(const char *a, const char *b);

/* Sorts n tags oldest first by version_cmp ("v5.10.0rc1" before "v5.10.0");
 * tags it holds equal (two pre-releases of one release, "v1.0" and "1.0", names
 * that are no version) in natural order, digit runs as numbers ("rc2" before
 * "rc10"), then byte by byte, so the order never depends on the sort. */
void version_sort(char **tags, size_t n);

/* 1 when tag is a final release: digits and dots, after an optional "v". */
int version_is_release(const char *tag);

/* The newest final release among tags that is newer than `after` (NULL: any):
 * "v5.16.1" over "v5.16.0rc1". Returns NULL when none (caller frees). */
char *version_latest(const strvec *tags, const char *after);

#endif
