/*
 * pystr.h - decoding Python string literals as the interpreter would.
 *
 * Handles every prefix (r, u, b, f and their case and combinations), single,
 * double and triple quotes, all escapes (\n \t \\ \' \" \a \b \f \v \0-\777 \xHH
 * \uXXXX \UXXXXXXXX \N{NAME} is refused as unsupported, line continuation), and
 * implicit concatenation of adjacent literals (a tree-sitter `concatenated_string`).
 * The result is UTF-8. f-strings with replacement fields are refused: their value
 * is not a constant.
 */
#ifndef PGCI_PY_PYSTR_H
#define PGCI_PY_PYSTR_H

#include "core/strbuf.h"
#include "py/py.h"

/* Decodes one literal's source text (prefix, quotes and body) into out. On error
 * (bad escape, unterminated, f-string with fields) sets a message and returns
 * PGCI_EINVALID / PGCI_EUNSUPPORTED. */
int pystr_decode(strbuf *out, const char *lit, size_t len);

/* What a literal was, as reported by pystr_decode_info(). */
enum { PYSTR_BYTES = 1, PYSTR_RAW = 2, PYSTR_FSTRING = 4, PYSTR_TRIPLE = 8 };

/* pystr_decode() that also reports the literal's kind in *flags (PYSTR_*; may be
 * NULL). A bytes literal decodes to its bytes, which need not be UTF-8. On error
 * out is left as it was. */
int pystr_decode_info(strbuf *out, const char *lit, size_t len, unsigned *flags);

/* Decodes a `string` or `concatenated_string` node. The error message is prefixed
 * with PATH:LINE:COL. */
int pystr_decode_node(strbuf *out, const py_tree *t, TSNode n);

/* The module docstring of t: when the first statement that is not a comment is a
 * string literal that decodes, its text is appended to out and its line returned;
 * otherwise 0 and out is left as it was. Sets no error. */
unsigned pystr_module_docstring(strbuf *out, const py_tree *t);

#endif
