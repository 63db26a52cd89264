/*
 * parse_set.h - one parse per distinct source in a run: the trees of a run's
 * inputs, keyed by the SHA-256 of their bytes, made on first request and then
 * shared by whoever asks for the same bytes again (the upstream layer validating
 * a module it fetched, the code generator of every config generated from it).
 * A buffer asked for again (the same address and length, the same bytes, as a
 * comparison with the entry's copy finds) is found without a digest.
 *
 * Thread-safe: two threads never parse the same bytes, different sources parse
 * in parallel. A tree is handed out as a copy (ts_tree_copy: a reference count,
 * as tree-sitter wants for use on several threads) over the set's one copy of
 * the source; release it with py_parse_set_release(). A tree lives until
 * py_parse_set_free(), or until it is forgotten (py_parse_set_forget) and its
 * last copy released.
 */
#ifndef PGCI_PY_PARSE_SET_H
#define PGCI_PY_PARSE_SET_H

#include <stddef.h>

#include "core/sha256.h"
#include "py/forest.h"
#include "py/py.h"

typedef struct py_parse_set py_parse_set;

/* The parsed texts of forests kept per donor (py_parse_set_get_forest). */
#define PY_PARSE_SET_KIN 8

py_parse_set *py_parse_set_new(void);
void py_parse_set_free(py_parse_set *s);
/* The same, the trees freed on up to `jobs` threads. */
void py_parse_set_free_jobs(py_parse_set *s, int jobs);

/* Pairs two sets (a survey's two tags, whose modules are often byte for byte the
 * same): a source asked of one that the other holds parsed, or is parsing, takes
 * the other's tree (a copy: a reference count) instead of a parse of its own.
 * Each set still owns its entries, and either may be freed first: freeing (or
 * leaving) one ends the pairing, when no request to either is in flight. */
void py_parse_set_pair(py_parse_set *a, py_parse_set *b);

/* Leaves the set to the process's exit, for a command that exits next: its trees
 * are not freed (freeing a run's trees is a fiftieth of its work, and the
 * process is about to give all of its memory back at once, as compilers leave
 * their trees: clang's -disable-free). The set stays reachable from a static
 * list, so leak checkers see memory in use, not lost. Nothing may use it after. */
void py_parse_set_leave(py_parse_set *s);

/* The tree of src[0..len) in *t (as py_parse() would make it; `path` names it in
 * messages). Release with py_parse_set_release(), never py_tree_free(). */
int py_parse_set_get(py_parse_set *s, const char *src, size_t len, const char *path, py_tree *t);
void py_parse_set_release(py_tree *t);

/* The same; when the set has no tree of src yet, it is made from the tree of
 * `near`, a similar text (py_parse_near), not from nothing. */
int py_parse_set_get_near(py_parse_set *s, const char *src, size_t len, const char *path,
                          const py_tree *near, py_tree *t);

/* The forest of src[0..len) against the source `donor` (py/forest.h; the donor's
 * tree from the set), made once per source like a tree; NULL when the forest
 * declines, and the caller then asks for the tree. The set keeps the parsed texts
 * of the first PY_PARSE_SET_KIN forests against a donor, as long as the donor's
 * tree, and a later forest against it takes their statements as it takes the
 * donor's (a GPU config and its NPU sibling override the same methods). Release it with
 * py_parse_set_release_forest(); py_parse_set_forget() forgets it too. */
const py_forest *py_parse_set_get_forest(py_parse_set *s, const char *src, size_t len,
                                         const char *path, const char *donor, size_t donor_len);
void py_parse_set_release_forest(py_parse_set *s, const py_forest *f);

/* The set need not keep the tree of src[0..len) any longer: it is freed now, or
 * when the last copy handed out is released. A later request parses again. For
 * a run whose trees would otherwise all be alive at its end: on a machine where a
 * fresh page costs microseconds, the peak memory is run time. */
void py_parse_set_forget(py_parse_set *s, const char *src, size_t len);

/* The SHA-256 of src[0..len) (hex) when the set holds its tree (src is the
 * buffer it was asked for with): the digest it keyed the tree by, without hashing
 * again. 0, or -1 when it holds none (the caller hashes). */
int py_parse_set_digest(py_parse_set *s, const char *src, size_t len, char hex[SHA256_HEX_LEN + 1]);

/* Parses made, and requests answered by an earlier parse. */
void py_parse_set_counts(py_parse_set *s, size_t *parses, size_t *reused);

#endif
