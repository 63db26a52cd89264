/*
 * codegen_shared.h - what the code generator's runs over many configs share:
 * one parse of each distinct upstream module (by content: a GPU and an NPU
 * config of one model, or two configs of one module, parse it once), and the
 * results of the class rewrites patchgen re-parses for (whether an override's
 * source parses as a function; a class's source with one method put in), keyed
 * by their input text, since sibling configs apply the same overrides to the
 * same classes.
 *
 * Thread-safe: the worker threads of one regeneration share one. Trees are
 * handed out as copies (ts_tree_copy, a reference count), as tree-sitter wants
 * for use on several threads; sources are shared, never copied again.
 */
#ifndef PGCI_PATCHGEN_CODEGEN_SHARED_H
#define PGCI_PATCHGEN_CODEGEN_SHARED_H

#include <stddef.h>

#include "core/strbuf.h"
#include "patchgen/codegen_method.h"
#include "py/parse_set.h"
#include "py/py.h"

typedef struct cg_shared cg_shared;

/* parses: the run's parse set (borrowed; it must outlive s), or NULL for one
 * of s's own. */
cg_shared *cg_shared_new(py_parse_set *parses);
void cg_shared_free(cg_shared *s);

/* Points s at another parse set (borrowed), between two regenerations: the
 * survey's against B then A keep one set per tag but one memo of the rewrites,
 * whose results depend on their input bytes alone. Not while s is in use. */
void cg_shared_set_parse_set(cg_shared *s, py_parse_set *parses);

/* The tree of src[0..len) in *t, parsed on the first request for these bytes.
 * `path` names it in messages. Release with cg_shared_release(). */
int cg_shared_parse(cg_shared *s, const char *src, size_t len, const char *path, py_tree *t);
void cg_shared_release(py_tree *t);

/* cgsyn_indent_error_line() of the tree t of src[0..len), memoised in s by the
 * bytes (s may be NULL): the GPU and NPU configs of a model check one upstream
 * module's indentation once. */
unsigned cg_shared_indent_error_line(cg_shared *s, const char *src, size_t len, const py_tree *t,
                                     const char **why);

/* cgm_parses_with_function() and cgm_replace_method_in(), memoised in s (s may
 * be NULL: computed every time). */
int cg_shared_parses_with_function(cg_shared *s, const char *src, size_t len);
void cg_shared_replace_method(cg_shared *s, cgm_state *st, strbuf *cls, const char *method,
                              const char *preserved, int *added);

typedef struct cg_shared_stats {
    size_t parses, parse_hits, memo_hits, memo_misses;
} cg_shared_stats;

void cg_shared_get_stats(cg_shared *s, cg_shared_stats *out);

#endif
