/*
 * source_text.h - facts read straight out of an upstream definition's source text,
 * for the comparisons the index does not hold: what an `__init__` assigns to an
 * attribute, how many values a function returns, whether a module instantiates a
 * class by name. Plain text scans over one definition's span; no parse.
 */
#ifndef PGCI_CHECKS_SOURCE_TEXT_H
#define PGCI_CHECKS_SOURCE_TEXT_H

#include <stddef.h>

#include "index/index.h"

/* The value `self.<attr> = <value>` assigns in def's span of src, with runs of
 * whitespace folded to one space (malloc'ed); NULL when def is NULL, out of the
 * source, or assigns no such value. The first assignment wins. */
char *source_attr_value(const char *src, size_t len, const index_def *def, const char *attr);

/* The number of values def's `return` statements return: n for `return a, b` or
 * `return (a, b)` with n top-level elements, 1 for any other value; the largest
 * over all returns of def itself (nested defs excluded by indentation); 0 when it
 * returns nothing or cannot be read. */
int source_return_arity(const char *src, size_t len, const index_def *def);

/* 1 when src calls `name(` (or `name.from_config(`, `name._from_config(`) outside
 * the definition of name itself; `class name(` does not count. */
int source_instantiates(const char *src, size_t len, const char *name);

/* 1 when src names `name` anywhere but in its own `class name(` line or a string
 * holding just the name (`__all__`): a call, a base, a mapping value, a type. */
int source_references(const char *src, size_t len, const char *name);

/* Past the string literal whose opening quote is at p (a prefix before it is plain
 * text), triple or single, escapes skipped; end when it does not close. */
const char *source_string_end(const char *p, const char *end);

#endif
