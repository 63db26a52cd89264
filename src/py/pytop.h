/*
 * pytop.h - where a module's top-level statements start, read from its tokens
 * without a parse: a line at column 0, outside any string, bracket or backslash
 * continuation, that is not blank, a comment, a decorated definition's next line
 * or a clause of the statement before (else, elif, except, finally).
 *
 * The structural comparison uses it to parse only the statements of a checked-in
 * file that are not the regenerated file's byte for byte. It must therefore be
 * right or say it cannot tell: on a text whose tree has no error, the starts are
 * exactly those of the module node's children that are not comments (the unit
 * tests check it on the real corpus, fuzz_pytop on anything). It declines a text
 * it cannot read with certainty: an unterminated string or bracket, a carriage
 * return, a form feed or other control byte at a line's start, a NUL, a vertical
 * tab, U+FEFF (a byte order mark), U+2060 or U+200B anywhere (tree-sitter skips
 * them as blank where CPython refuses them), an f-string whose fields hold a quote, comment or
 * backslash (read differently before and after Python 3.12), a t-string, statements joined by a
 * semicolon (tree-sitter's statements, on one line), a logical line that wants
 * more (an operator, comma or keyword at its end: tree-sitter reads on into the
 * next line, Python refuses it), and indentation or clauses Python refuses.
 */
#ifndef PGCI_PY_PYTOP_H
#define PGCI_PY_PYTOP_H

#include <stddef.h>
#include <stdint.h>

typedef struct py_top {
    uint32_t start;    /* its first byte, at column 0 (a decorator's '@', a keyword) */
    uint32_t code_end; /* one past its last byte that is neither a comment nor blank */
    uint32_t row;      /* the 0-based row of start */
    /* a class whose header ends its line (its body on the lines after): the
     * offset and row of the line after the header; 0 for anything else */
    uint32_t body, body_row;
} py_top;

/* 0 and the statements in order in *tops (*n of them; free() the array), or
 * PGCI_EUNSUPPORTED when the text is one of those above. Each statement runs to
 * the next one's start (or the text's end); what comes before the first is
 * blank lines and comments. */
int py_top_split(const char *src, size_t len, py_top **tops, size_t *n);

/* The same for the statements of a class's body (t one of py_top_split()'s, with
 * a body; end where the class ends, the next statement's start or len): those at
 * the indentation of the body's first line of code, each from its first byte
 * after that indentation. */
int py_top_split_body(const char *src, size_t len, const py_top *t, size_t end, py_top **members,
                      size_t *n);

#endif
