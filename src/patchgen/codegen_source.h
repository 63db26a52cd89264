/*
 * codegen_source.h - the source text of a replacement object, as patchgen gets
 * and cleans it (PATCHGEN_SPEC.md §2): the definition plus the column-0 comment
 * block above it, dedented, name_map applied, patch decorators dropped, renamed.
 *
 * (Internal to the code generator, but for cgsrc_is_patch_decorator, which the
 * survey asks of the decorators it reads in a patch body.)
 */
#ifndef PGCI_PATCHGEN_CODEGEN_SOURCE_H
#define PGCI_PATCHGEN_CODEGEN_SOURCE_H

#include "core/strbuf.h"
#include "patchgen/patch_spec.h"

/* get_object_source_with_leading_comments(): appends the object's lines
 * (start_line..end_line, ends kept) preceded by the contiguous column-0 `#` and
 * blank lines above it, blank lines trimmed off that block. Appends nothing when
 * the object has no source (patchgen's "" case). */
void cgsrc_object_source(strbuf *out, const pg_object *obj);

/* Whether decorator line s (stripped, starting with `@`) is one patchgen drops:
 * `@config.<patch decorator>` or `@<patch decorator>` (a whole word). */
int cgsrc_is_patch_decorator(const char *s, size_t n);

/* strip_patch_decorators(): drops `@config.<patch decorator>` / `@<patch
 * decorator>` lines (continuing while parentheses stay open); lines re-joined
 * with "\n". */
void cgsrc_strip_patch_decorators(strbuf *out, const char *s, size_t n);

/* _apply_name_map(): plain text replacement, longest key first (stable among
 * equal lengths, counted in code points). */
void cgsrc_apply_name_map(strbuf *sb, const pg_name_map_entry *map, size_t len);

/* _render_helper_source(): source, dedent, strip decorators, rstrip. */
void cgsrc_helper_source(strbuf *out, const pg_object *obj);

#endif
