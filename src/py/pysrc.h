/*
 * pysrc.h - a Python source file as the interpreter reads it, before any parser
 * sees it: the coding line (PEP 263) and UTF-8, line breaks (CPython turns
 * "\r\n" and a lone "\r" into "\n", in comments and strings too), identifiers
 * (NFKC-normalised, PEP 3131), and the bracket nesting CPython compiles (200).
 *
 * pgci reads patch configs through these so that what it copies, the lines it
 * counts and the names it binds are the ones patchgen sees; what it cannot
 * reproduce is refused with "PATH:LINE:COL: what (why)".
 */
#ifndef PGCI_PY_PYSRC_H
#define PGCI_PY_PYSRC_H

#include <stddef.h>

#include "core/strbuf.h"
#include "py/py.h"

/* CPython's tokenizer refuses more than this many nested brackets, and this many
 * levels of indentation (MAXINDENT 100: 99 nested indented blocks compile). */
#define PYSRC_MAX_BRACKETS 200
#define PYSRC_MAX_INDENT 99
/* pysrc_check_nesting() walks no deeper (callers reject deeper trees first). */
#define PYSRC_MAX_TREE_DEPTH 1000

/* Appends src to out with every "\r\n" and lone "\r" turned into "\n", after
 * checking its encoding: UTF-8 (a UTF-8 coding line or none), or pure ASCII under
 * an ASCII-compatible coding line (latin-1, iso-8859-N, cp125N, ascii). Refused: a
 * byte that is not UTF-8, non-ASCII text under another coding line (Python decodes
 * it one way, patchgen's comment reader as UTF-8), an unknown coding, a byte order
 * mark, a NUL byte (Python: "source code string cannot contain null bytes"). */
int pysrc_prepare(strbuf *out, const char *src, size_t len, const char *path);

/* Fails when brackets nest deeper than PYSRC_MAX_BRACKETS (CPython: "too many
 * nested parentheses") or indented blocks deeper than PYSRC_MAX_INDENT ("too many
 * levels of indentation"), at the first one too deep. */
int pysrc_check_nesting(const py_tree *t);

/* tree-sitter-python's scanner keeps indentation columns in one byte: a file
 * indented wider does not parse. */
#define PYSRC_MAX_INDENT_WIDTH 255

/* Fails on a line of code indented wider than PYSRC_MAX_INDENT_WIDTH columns: the
 * real reason when the tree of a valid file has an error (tabs to multiples of 8). */
int pysrc_check_indent_width(const char *src, size_t len, const char *path);

/* The NFKC form of identifier text s[0..len) as Python binds it: NULL when it is
 * already normal (every ASCII identifier), else a malloc'ed string (*out_len). */
char *pysrc_nfkc(const char *s, size_t len, size_t *out_len);

/* When some identifier of t is not NFKC-normal, appends t's source with each such
 * identifier replaced by its normal form to out and returns 1 (line breaks and
 * everything else unchanged, so lines still match); returns 0 when none is. Fails
 * on one that normalises to a keyword (`ｉｆ = 1` binds the name "if" in Python). */
int pysrc_normalize_identifiers(strbuf *out, const py_tree *t);

#endif
