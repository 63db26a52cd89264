/*
 * index.h - what one upstream Python module defines, read from one tree-sitter
 * parse: imports, module-level assignments, functions, classes, their methods,
 * parameters, decorators, bases, docstrings and body fingerprints.
 *
 * The checks that compare upstream between two tags (targets, signatures, rename
 * candidates, names) read this, never the tree: an index holds plain strings and
 * numbers, all in one arena owned by the index_module, so it outlives the parse and
 * is freed with one index_module_free(). Everything is kept in source order, so
 * anything printed from an index is deterministic.
 *
 * Source texts (decorators, bases, defaults, annotations, assignment values) are
 * the exact bytes of the source, except that comments are left out, runs of
 * whitespace containing a newline are joined (into one space, or nothing next to a
 * bracket), so a value wrapped over several lines reads as one line, and redundant
 * outer parentheses are dropped.
 */
#ifndef PGCI_INDEX_INDEX_H
#define PGCI_INDEX_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/hashmap.h"
#include "core/strbuf.h"
#include "py/parse_set.h"
#include "py/py.h"

/* The JSON form's "schema_version"; bumped on any incompatible change. */
#define INDEX_SCHEMA_VERSION 1

/* One imported name. `import a.b as c` gives module "a.b", name NULL, alias "c";
 * `from ..x import y as z` gives module "x", level 2, name "y", alias "z";
 * `from . import y` gives module "" and level 1; `from m import *` name "*". */
typedef struct index_import {
    const char *module;
    const char *name;  /* NULL for a plain `import` */
    const char *alias; /* NULL when there is no `as` */
    int level;         /* leading dots of a relative import, 0 otherwise */
    unsigned line;
    unsigned stmt;       /* index of the statement among the module's imports: names
                          * of one statement share it */
    uint32_t stmt_start; /* byte span of the whole import statement */
    uint32_t stmt_end;
    const char *scope; /* qualified name of the enclosing def/class, NULL at
                        * module level */
    int in_try;        /* inside a try (body, except, else or finally) */
    int in_if;         /* inside an if/elif/else (e.g. `if TYPE_CHECKING:`) */
} index_import;

/* `name = value` or `name: annotation [= value]` at module or class level. A tuple
 * target (`a, b = ...`) gives one entry per name, sharing the value. */
typedef struct index_assign {
    const char *name;
    const char *value;      /* source text of the right-hand side, NULL when none */
    const char *annotation; /* NULL when none */
    unsigned line;
} index_assign;

typedef enum index_param_kind {
    INDEX_PARAM_POSITIONAL_ONLY,
    INDEX_PARAM_POSITIONAL_OR_KEYWORD,
    INDEX_PARAM_VAR_POSITIONAL, /* *args */
    INDEX_PARAM_KEYWORD_ONLY,
    INDEX_PARAM_VAR_KEYWORD, /* **kwargs */
} index_param_kind;

typedef struct index_param {
    const char *name; /* without the stars */
    index_param_kind kind;
    const char *default_value; /* source text, NULL when none */
    const char *annotation;    /* source text, NULL when none */
    unsigned line;
} index_param;

typedef enum index_def_kind { INDEX_FUNCTION, INDEX_CLASS } index_def_kind;

typedef struct index_def index_def;

/* A function, a method or a class. */
struct index_def {
    index_def_kind kind;
    const char *name;
    const char *qualname;    /* "LlamaMLP.forward", "Outer.Inner", "rotate_half" */
    const index_def *parent; /* the enclosing class, NULL at module level */
    unsigned line;           /* the `def` / `class` line */
    unsigned start_line;     /* first decorator line (= line without decorators) */
    unsigned end_line;       /* last line of code (trailing comments excluded) */
    uint32_t start_byte;     /* span from the first decorator to the end */
    uint32_t end_byte;
    int is_async;
    int conditional; /* defined under a module-level if/try/with, not at top level */

    const char **decorators; /* source text without the '@' */
    size_t n_decorators;

    /* functions */
    index_param *params;
    size_t n_params;
    const char *returns; /* return annotation, NULL when none */

    /* classes */
    const char **bases; /* each superclass argument, keywords included ("metaclass=M") */
    size_t n_bases;
    const char **init_attrs; /* names of `self.X = ...` in __init__, sorted, unique */
    size_t n_init_attrs;
    index_assign *attrs; /* class-level assignments */
    size_t n_attrs;
    index_def **members; /* methods and nested classes, in source order */
    size_t n_members;

    const char *docstring; /* decoded, NULL when the body does not start with one */
    const char **doc_args; /* names under the docstring's Google-style `Args:` */
    size_t n_doc_args;
    /* FNV-1a 64 over the body's token stream, without comments, with string
     * literals by value and the docstring dedented: unchanged by formatting. Read
     * it with index_def_fingerprint(): an index built with fingerprints on demand
     * computes it when first asked. */
    uint64_t fp_value;
    int fp_done;
    uint32_t def_start, def_end; /* the function_definition or class_definition node */
    uint32_t body_start;         /* its block's first byte */
    int has_body;
    struct index_module *module; /* the index it is in */
};

typedef struct index_lazy index_lazy;

typedef struct index_module {
    arena arena;
    const char *name; /* dotted module name */
    const char *path; /* for messages */
    const char *docstring;
    index_import *imports;
    size_t n_imports;
    index_assign *assigns;
    size_t n_assigns;
    index_def **defs; /* module-level functions and classes, in source order */
    size_t n_defs;
    size_t n_functions, n_classes, n_methods; /* totals, methods of nested classes too */
    hashmap by_qualname; /* qualname -> index_def*, the first definition wins */
    int names_only;      /* made by index_module_build_names */
    /* fingerprints on demand (index_module_from_parse_set_lazy): the module's text
     * and tree, kept to compute them; NULL when all were computed at build */
    struct index_lazy *lazy;
} index_module;

/* How deep a syntax tree may nest. CPython itself refuses code nested much less
 * deeply (200 levels of brackets); real modules stay under 100. */
#define INDEX_MAX_DEPTH 2000

/* Builds the index of a parsed module. The tree must be free of syntax errors
 * (py_check_syntax); an error node is refused, and so is a tree nested deeper than
 * INDEX_MAX_DEPTH (PGCI_ELIMIT). module_name may be NULL. */
int index_module_build(index_module **out, const py_tree *t, const char *module_name);

/* The same with fingerprints on demand (index_module_from_parse_set_lazy): the
 * index keeps a copy of t's text and tree. */
int index_module_build_lazy(index_module **out, const py_tree *t, const char *module_name);

/* Parses src and builds its index: the one-call path for fetched sources. */
int index_module_from_source(index_module **out, const char *src, size_t len, const char *path,
                             const char *module_name);

/* The same with the tree taken from (or added to) a run's parse set, so that the
 * bytes the upstream layer validated and the code generator reads are parsed once
 * (set may be NULL: as index_module_from_source). */
int index_module_from_parse_set(index_module **out, py_parse_set *set, const char *src, size_t len,
                                const char *path, const char *module_name);

/* The same, computing each definition's fingerprint only when
 * index_def_fingerprint() first asks for it: a run that compares a few
 * definitions of a module between two tags walks those bodies only. The index
 * keeps its own copy of the text and of the tree (the parse set may be freed);
 * index_module_drop_tree() lets the tree go, and a fingerprint asked after that
 * parses the text again. Safe to ask from several threads. */
int index_module_from_parse_set_lazy(index_module **out, py_parse_set *set, const char *src,
                                     size_t len, const char *path, const char *module_name);

/* Frees the tree an index with fingerprints on demand keeps (nothing otherwise). */
void index_module_drop_tree(index_module *m);

/* The definition's body fingerprint (index_def.fp_value), computed now when its
 * index was built with fingerprints on demand and nobody asked before. */
uint64_t index_def_fingerprint(const index_def *d);

/* An index of the definitions' names and places only, for a caller that reads no
 * more (the targets check's near-miss suggestions), at a fraction of the cost: the
 * same defs and members, in the same order, with the same kind, name, qualname,
 * parent, lines, byte span, is_async and conditional, the same by_qualname and
 * counts as index_module_build's, and nothing else (no imports, assignments,
 * docstrings, decorators, parameters, returns, bases, init attributes or
 * fingerprints: all NULL or zero). It does not walk the whole tree for its depth:
 * it refuses a syntax error as index_module_build does, and definitions nested
 * deeper than INDEX_MAX_DEPTH, but accepts a tree that is too deep elsewhere (in an
 * expression); a caller that must refuse what index_module_build refuses asks
 * index_too_deep() too. */
int index_module_build_names(index_module **out, const py_tree *t, const char *module_name);

/* index_module_build_names with the tree from a run's parse set (or parsed, when
 * set is NULL), as index_module_from_parse_set. */
int index_module_names_from_parse_set(index_module **out, py_parse_set *set, const char *src,
                                      size_t len, const char *path, const char *module_name);

/* 1 when index_module_build refuses the tree for its depth, 0 when not (a walk of
 * the whole tree). */
int index_too_deep(const py_tree *t);

/* The same for a source, its tree from the parse set (or parsed, when set is NULL);
 * -1 when it cannot be parsed. */
int index_source_too_deep(py_parse_set *set, const char *src, size_t len, const char *path);

void index_module_free(index_module *m);

/* The definition with that qualified name ("LlamaMLP.forward"), or NULL. */
const index_def *index_find(const index_module *m, const char *qualname);

/* The member of a class with that name, or NULL. */
const index_def *index_member(const index_def *cls, const char *name);

/* The parameter with that name, or NULL. */
const index_param *index_param_find(const index_def *fn, const char *name);

/* "positional_only", "positional_or_keyword", "var_positional", "keyword_only",
 * "var_keyword": the names used in the JSON form. */
const char *index_param_kind_name(index_param_kind k);

/* Appends the module's JSON form (schema in docs/index.md), pretty when indent>0. */
int index_module_to_json(strbuf *out, const index_module *m, int indent);

/* The docstring helpers, exposed for the checks and the tests. */

/* Cleans a docstring as Python's inspect.cleandoc does: tabs expanded, the common
 * indentation of the lines after the first removed, leading and trailing blank
 * lines dropped. */
void index_cleandoc(strbuf *out, const char *doc);

/* Adds to names (arena strings) the entries of the docstring's Google-style
 * `Args:` (or `Arguments:`, `Parameters:`) section: "name (type): text" or
 * "name: text", stars stripped from *args / **kwargs. */
void index_doc_args(arena *a, const char *doc, const char ***names, size_t *n);

#endif
