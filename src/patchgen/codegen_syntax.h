/*
 * codegen_syntax.h - "would ast.parse() accept this?", for the code generator.
 *
 * patchgen re-parses text with ast.parse() at several points and silently keeps
 * the text unchanged (or skips an override) when Python rejects it. tree-sitter is
 * more forgiving than CPython: it accepts an unexpected indent, a dedent to a
 * column no enclosing block uses, tabs mixed with spaces in ways CPython calls a
 * TabError, and it skips as blank four characters CPython refuses between tokens
 * (a zero-width space among them). This adds CPython's tokenizer rules for these
 * on top of tree-sitter's error nodes, so that pgci takes the same branch
 * patchgen does.
 *
 * (Internal to the code generator.)
 */
#ifndef PGCI_PATCHGEN_CODEGEN_SYNTAX_H
#define PGCI_PATCHGEN_CODEGEN_SYNTAX_H

#include "py/py.h"

/* 1 when the tree has no syntax error and its indentation is what CPython's
 * tokenizer and parser accept; 0 otherwise. */
int cgsyn_python_accepts(const py_tree *t);

/* The 1-based line of the first indentation error, or of a character tree-sitter
 * skipped as blank between tokens that CPython refuses (a vertical tab, U+FEFF,
 * U+2060, U+200B), 0 when there is none. */
unsigned cgsyn_indent_error_line(const py_tree *t, const char **why);

/* The same answer from a walk that visits every leaf, where the one above steps
 * over what lies on one row: the reference the tests and fuzz_codegen check it
 * against. */
unsigned cgsyn_indent_error_line_every_leaf(const py_tree *t, const char **why);

#endif
