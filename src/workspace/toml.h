/*
 * toml.h - a TOML reader, enough for any pyproject.toml.
 *
 * patchgen reads pyproject.toml with Python's tomllib (TOML 1.0), so a file
 * tomllib rejects is a file patchgen cannot use; this reader aims to accept and
 * reject the same documents. Supported: tables [a.b], arrays of tables [[a.b]],
 * dotted and quoted keys, the four string kinds with every escape, integers (decimal,
 * hex, octal, binary, underscores), floats (with inf and nan), booleans, arrays over
 * several lines with trailing commas and comments, inline tables, comments.
 * Not supported: dates and times (an error says so). Errors read
 * "NAME:LINE: what is wrong" where NAME is the name given to toml_parse().
 *
 * The document is a tree of toml_value nodes; tables keep their keys in
 * definition order. Strings are UTF-8 and may not contain NUL.
 */
#ifndef PGCI_WORKSPACE_TOML_H
#define PGCI_WORKSPACE_TOML_H

#include <stddef.h>

#include "core/vec.h"

typedef enum toml_type {
    TOML_STRING,
    TOML_INTEGER,
    TOML_FLOAT,
    TOML_BOOL,
    TOML_ARRAY,
    TOML_TABLE,
} toml_type;

typedef struct toml_value toml_value;

typedef struct toml_entry {
    char *key;
    toml_value *value;
} toml_entry;

struct toml_value {
    toml_type type;
    unsigned line;           /* 1-based line where the value (or its table header) starts */
    char *str;               /* TOML_STRING */
    long long integer;       /* TOML_INTEGER */
    double flt;              /* TOML_FLOAT */
    int boolean;             /* TOML_BOOL */
    VEC(toml_value *) items; /* TOML_ARRAY */
    VEC(toml_entry) entries; /* TOML_TABLE, in definition order */
    unsigned flags;          /* how the node was made; private to toml.c */
};

/* Maximum nesting of arrays and inline tables inside one value, and maximum number
 * of parts in one dotted key: bounds the recursion on hostile input. */
#define TOML_MAX_DEPTH 64

/* Parses src[0..len) into a root table. `name` prefixes error messages
 * ("pyproject.toml:12: ..."). On error *out is NULL and nothing is leaked. */
int toml_parse(toml_value **out, const char *src, size_t len, const char *name);

/* Reads and parses a file; messages are prefixed with `name` (default: path). */
int toml_parse_file(toml_value **out, const char *path, const char *name);

/* Frees a value and everything under it (NULL is fine). */
void toml_free(toml_value *v);

/* The value of `key` in a table; NULL when absent or when t is not a table. */
const toml_value *toml_get(const toml_value *t, const char *key);

/* Follows a dotted path of plain keys from a table ("tool.patchgen.search_root");
 * NULL when any step is missing or not a table. */
const toml_value *toml_get_path(const toml_value *t, const char *path);

/* The string, or NULL when v is NULL or not a string. */
const char *toml_str(const toml_value *v);

/* "string", "integer", "float", "boolean", "array", "table". */
const char *toml_type_name(toml_type type);

#endif
