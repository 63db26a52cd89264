/*
 * codegen_text.h - the handful of Python string operations patchgen's output
 * depends on, reproduced exactly: str.splitlines(), str.strip() on Unicode
 * whitespace, textwrap.dedent(), str.replace(), universal-newline reading.
 *
 * Why not plain C equivalents: patchgen splits with str.splitlines(), which also
 * breaks at \v, \f, \x1c-\x1e, U+0085, U+2028 and U+2029, and joins the pieces
 * back with "\n"; it tests blankness with str.strip(), which strips Unicode
 * whitespace. A byte-identical generator has to agree on every such corner, so
 * they live here, in one place, with one test each.
 *
 * All functions work on UTF-8 bytes; "characters" below are code points, as in
 * Python's str.
 */
#ifndef PGCI_PATCHGEN_CODEGEN_TEXT_H
#define PGCI_PATCHGEN_CODEGEN_TEXT_H

#include <stddef.h>

#include "core/strbuf.h"
#include "core/vec.h"

/* A view into a text: not NUL-terminated. */
typedef struct cg_span {
    const char *p;
    size_t n;
} cg_span;

typedef VEC(cg_span) cg_lines;

/* Python's str.splitlines() without keepends: appends the lines of s[0..n) to
 * out as views into s. */
void cgtext_splitlines(cg_lines *out, const char *s, size_t n);

/* The lines as file.readlines() returns them after universal-newline decoding
 * of s (which must already use "\n" only): split after each "\n", ends kept. */
void cgtext_readlines(cg_lines *out, const char *s, size_t n);

/* Appends s[0..n) to out with "\r\n" and lone "\r" turned into "\n", as Python
 * does when it reads a file in text mode (Path.read_text, open()). */
void cgtext_universal_newlines(strbuf *out, const char *s, size_t n);

/* Byte length of the Unicode whitespace character (str.isspace) at p, 0 if the
 * character at p is not whitespace. */
size_t cgtext_space_len(const char *p, size_t n);

/* 1 when line.strip() == "" in Python. */
int cgtext_is_blank(const char *p, size_t n);

/* Byte offset of the first character after leading whitespace (line.lstrip()). */
size_t cgtext_lstrip_off(const char *p, size_t n);

/* The span left by Python's str.strip(). */
cg_span cgtext_strip(const char *p, size_t n);

/* Number of code points in p[0..n). */
size_t cgtext_cplen(const char *p, size_t n);

/* Byte offset of the k-th code point of p[0..n) (n when k is past the end). */
size_t cgtext_cpoff(const char *p, size_t n, size_t k);

/* Appends textwrap.dedent(s) (Python 3.11 semantics) to out. */
void cgtext_dedent(strbuf *out, const char *s, size_t n);

/* Appends the lines joined with "\n" (Python's "\n".join(lines)). */
void cgtext_join(strbuf *out, const cg_lines *lines);

/* s.replace(old, new) (count < 0: all occurrences, else at most count), appended
 * to out. An empty `old` inserts `new` between every code point, as Python. */
void cgtext_replace(strbuf *out, const char *s, size_t n, const char *old, const char *new_,
                    long count);

/* Replaces sb's contents in place with sb.replace(old, new, count). */
void cgtext_replace_in(strbuf *sb, const char *old, const char *new_, long count);

#endif
