/*
 * deprecate_kwarg.h - transformers' `@deprecate_kwarg(old, new_name=..., version=...)`
 * read as what it is: the deprecation of one argument (renamed or going away),
 * not of the function it decorates. Upstream keeps the old name working until the
 * removal version, so a parameter renamed behind such a shim is a warning, not a
 * break.
 */
#ifndef PGCI_CHECKS_DEPRECATE_KWARG_H
#define PGCI_CHECKS_DEPRECATE_KWARG_H

#include "index/index.h"

typedef struct deprecated_kwarg {
    char *old_name; /* the deprecated argument */
    char *new_name; /* its replacement; NULL when it just goes away */
    char *version;  /* removal version as written ("5.18", "v5.20"), NULL when none */
} deprecated_kwarg;

/* Reads one decorator's text (without '@'). 1 and *out filled when it is a
 * deprecate_kwarg with a string first argument, 0 when not. */
int deprecated_kwarg_parse(deprecated_kwarg *out, const char *decorator);

/* The deprecate_kwarg shim of fn for the argument old_name; 1 and *out filled when
 * fn has one. */
int deprecated_kwarg_find(deprecated_kwarg *out, const index_def *fn, const char *old_name);

/* The removal version without its "v" ("v5.10" -> "5.10"), NULL when none. */
const char *deprecated_kwarg_version(const deprecated_kwarg *k);

void deprecated_kwarg_free(deprecated_kwarg *k);

#endif
