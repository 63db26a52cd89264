/*
 * difflib.h - Python's difflib.SequenceMatcher and unified_diff, byte for byte.
 *
 * patchgen writes its .diff with difflib.unified_diff over `splitlines(keepends=
 * True)` lines; pgci must produce the identical bytes, including the matcher's
 * "autojunk" popularity heuristic for sequences of 200 lines or more.
 *
 * (Contract header: implemented in difflib.c.)
 */
#ifndef PGCI_PATCHGEN_DIFFLIB_H
#define PGCI_PATCHGEN_DIFFLIB_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

/* Appends to out exactly "".join(difflib.unified_diff(a.splitlines(True),
 * b.splitlines(True), fromfile, tofile, n=n)) — with fromfiledate/tofiledate empty
 * and lineterm "\n". Python's str.splitlines boundaries (\n, \r\n, \r, \v, \f,
 * \x1c-\x1e, \x85, \u2028, \u2029) are honoured. */
void difflib_unified_diff(strbuf *out, const char *a, size_t alen, const char *b, size_t blen,
                          const char *fromfile, const char *tofile, int n);

/* What patchgen stores as the .diff: the unified diff above with every line
 * right-stripped and one final newline ("" when the inputs are equal). */
void difflib_patchgen_diff(strbuf *out, const char *a, size_t alen, const char *b, size_t blen,
                           const char *fromfile, const char *tofile);

/* The patchgen .diff form of an existing unified diff text: "" stays "", otherwise
 * the text is split as str.splitlines does, each line right-stripped as str.rstrip
 * does, and the lines joined with "\n" plus one final "\n". */
void difflib_patchgen_form(strbuf *out, const char *diff, size_t len);

/* --- the pieces, exposed for tests and for callers that diff their own sequences --- */

/* Splits s[0..len) into lines as Python's str.splitlines(keepends=True) does on the
 * UTF-8 text. Returns the number of lines n and sets *starts to a malloc'ed array of
 * n + 1 offsets: line i is s[starts[i] .. starts[i+1]), starts[n] == len. A final
 * line without a terminator counts; an empty text has no lines. */
size_t difflib_splitlines(const char *s, size_t len, size_t **starts);

/* The offset of the first of those line boundaries at or after s[i] (len when
 * there is none) and, in *blen, its length (1 to 3; 0 at len). */
size_t difflib_next_boundary(const char *s, size_t len, size_t i, size_t *blen);

/* 1 when '\n' is the only line boundary s[0..len) can hold (none of the other
 * bytes that start one occurs): a text the callers may split with memchr. */
int difflib_newlines_only(const char *s, size_t len);

/* Length in bytes (0 to 3) of the line terminator that ends s[0..len). */
size_t difflib_eol_len(const char *s, size_t len);

/* Length of s[0..len) after Python's str.rstrip(): every character for which
 * str.isspace() is true (ASCII and the Unicode spaces, in UTF-8) is removed. */
size_t difflib_rstrip_len(const char *s, size_t len);

/* A matching block: a[a .. a+size) == b[b .. b+size). */
typedef struct difflib_match {
    size_t a, b, size;
} difflib_match;

typedef enum difflib_tag {
    DIFFLIB_EQUAL = 'e',
    DIFFLIB_REPLACE = 'r',
    DIFFLIB_DELETE = 'd',
    DIFFLIB_INSERT = 'i',
} difflib_tag;

/* One edit step, as a SequenceMatcher opcode (tag, i1, i2, j1, j2). */
typedef struct difflib_opcode {
    difflib_tag tag;
    size_t i1, i2, j1, j2;
} difflib_opcode;

/* SequenceMatcher(None, a, b, autojunk) over sequences of integer ids (equal
 * elements have equal ids). Ids should be dense: the index takes memory in
 * proportion to the largest. The matcher keeps pointers to a and b: they must
 * outlive it. */
typedef struct difflib_matcher difflib_matcher;

difflib_matcher *difflib_matcher_new(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
                                     int autojunk);
void difflib_matcher_free(difflib_matcher *m);

/* find_longest_match(alo, ahi, blo, bhi): the longest block, earliest in a, then
 * earliest in b, extended over popular elements as CPython does. */
difflib_match difflib_find_longest_match(difflib_matcher *m, size_t alo, size_t ahi, size_t blo,
                                         size_t bhi);

/* get_matching_blocks(): sorted, adjacent blocks merged, closed by (na, nb, 0).
 * The array belongs to the matcher. */
const difflib_match *difflib_matching_blocks(difflib_matcher *m, size_t *count);

/* get_opcodes(). The array belongs to the matcher. */
const difflib_opcode *difflib_opcodes(difflib_matcher *m, size_t *count);

/* get_grouped_opcodes(n) (n < 0 is taken as 0): returns the number of groups; *ops
 * (malloc'ed) holds their opcodes one group after the other, and group g is
 * ops[ends[g-1] .. ends[g]) with ends[-1] taken as 0 (*ends malloc'ed too). */
size_t difflib_grouped_opcodes(difflib_matcher *m, int n, difflib_opcode **ops, size_t **ends);

#endif
