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

#endif
