/*
 * pytok.h - what CPython's tokenizer refuses, found without a parser.
 *
 * tree-sitter-python recovers from what CPython refuses to compile: an unexpected
 * indent, a TabError, a dedent to a column no block uses, a logical line that
 * runs on after its end; and where it does report an error, its ERROR node often
 * starts far from the token CPython names (an unterminated string swallows the
 * rest of the file). This scans the source as Parser/tokenizer.c does (strings,
 * comments, brackets, backslash continuations, indentation, characters it does
 * not print) and reports the first refusal with CPython's message at CPython's
 * line, and the bracket left open at the end (CPython's "'(' was never closed").
 */
#ifndef PGCI_PY_PYTOK_H
#define PGCI_PY_PYTOK_H

#include <stddef.h>

#include "core/vec.h"

/* The tokenizer's indentation stack: columns with tabs to multiples of 8 (col)
 * and with tabs as 1 (alt). */
#define PYTOK_MAX_INDENT 512
typedef struct pytok_indent {
    int col[PYTOK_MAX_INDENT], alt[PYTOK_MAX_INDENT];
    int top;
} pytok_indent;

/* Checks the indentation of a logical line whose first byte is at line (its
 * leading spaces, tabs and form feeds), after a line that ended with ':' when
 * opens_block, and moves the stack as the tokenizer does: NULL when CPython
 * accepts it, else CPython's message: from its tokenizer ("unindent does not
 * match any outer indentation level", "inconsistent use of tabs and spaces in
 * indentation", "too many levels of indentation") or, with *parser set, from its
 * parser ("unexpected indent", "expected an indented block"). */
const char *pytok_indent_line(pytok_indent *s, const char *line, int opens_block, int *parser);

typedef struct pytok_error {
    unsigned line, col; /* 1-based; line 0 when there is none */
    unsigned shown_col; /* the column CPython's message gives, where it is not the
                           place it stopped at (col, which orders the errors): the
                           end of the line for a dedent to no outer level; 0 else */
    char why[160];      /* CPython's message, with its details */
    int parser;         /* raised by CPython's parser, not its tokenizer */
    int late;           /* a tokenizer error CPython reports even when its parser failed
                           earlier (all but those of indentation) */
} pytok_error;

typedef struct pytok_result {
    pytok_error error;         /* the tokenizer's first refusal, where the scan stopped */
    pytok_error parser_indent; /* the first "unexpected indent", "expected an indented block" */
    pytok_error unclosed;      /* the innermost bracket open at the end: "'(' was never closed" */
    VEC(size_t) lines;         /* the offset of each logical line's first token, up to the error */
} pytok_result;

/* Scans src[0..len) (NUL-terminated, line breaks already "\n"; decoded text, as
 * compile() of a str reads it: a byte order mark is a character like any other)
 * as CPython 3.11's tokenizer does, a character it does not print outside strings and comments
 * refused as it refuses it ("invalid non-printable character U+200B": tree-sitter
 * skips four of them as blank). Returns 1 when it found a refusal or an unclosed
 * bracket, else 0. Free out with pytok_result_free. */
int pytok_scan(const char *src, size_t len, pytok_result *out);

void pytok_result_free(pytok_result *r);

#endif
