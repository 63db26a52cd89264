/*
 * scope_model.h - internal to the names check: the semantic model (scopes, bindings,
 * branches, references) that checks/scope_walk.c builds from a tree-sitter tree and
 * checks/scope.c resolves names in and derives the pyflakes rules from. It mirrors
 * ruff 0.13.2's SemanticModel; see checks/scope.h for the public API.
 */
#ifndef PGCI_PY_SCOPE_MODEL_H
#define PGCI_PY_SCOPE_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "core/arena.h"
#include "core/hashmap.h"
#include "core/vec.h"
#include "py/forest.h"
#include "py/scope.h"

enum scope_kind {
    SK_MODULE,
    SK_CLASS,
    SK_FUNCTION,
    SK_LAMBDA,
    SK_GENERATOR,
    SK_TYPE,
    SK_CLASSCELL
};

enum bkind {
    BK_BUILTIN,
    BK_IMPORT,
    BK_SUBMODULE,
    BK_FROM_IMPORT,
    BK_FUTURE_IMPORT,
    BK_ASSIGNMENT,
    BK_NAMED_EXPR,
    BK_ANNOTATION,
    BK_LOOP_VAR,
    BK_WITH_VAR,
    BK_ARGUMENT,
    BK_FUNCTION,
    BK_CLASS,
    BK_EXPORT,
    BK_DELETION,
    BK_BOUND_EXC,
    BK_UNBOUND_EXC,
    BK_GLOBAL,
    BK_NONLOCAL,
    BK_TYPE_PARAM,
    BK_CLASS_CELL
};

enum {
    BF_GLOBAL = 1,
    BF_NONLOCAL = 2,
    BF_EXPLICIT_EXPORT = 4,
    BF_OVERLOAD = 8,
};

typedef struct binding {
    uint8_t kind;
    uint8_t flags;
    const char *name;    /* the scope key */
    uint32_t start, end; /* absolute range of the binding's name (ruff's binding range) */
    int scope, branch;
    int refs;
    int prev;             /* the binding this one replaced in its scope, or -1 */
    int cross;            /* the binding of an enclosing function/module scope it shadows, or -1 */
    int target;           /* UnboundException / Global / Nonlocal: the binding meant, or -1 */
    const char *qual;     /* imports: "typing.Optional", ".mod.name" for relative */
    const char **exports; /* BK_EXPORT: the names listed in __all__ */
    uint32_t stmt_start;  /* from-imports: module offset of the statement, else 0 */
    int from_stmt;
    size_t nexports;
} binding;

typedef struct scope {
    uint8_t kind;
    uint8_t star; /* `from m import *` seen here */
    int parent;
    hashmap names; /* name -> binding id + 1 */
} scope;

/* Semantic flags, as in ruff's SemanticModelFlags (only those F821/F811 depend on). */
enum {
    FL_TYPE_DEF = 1u << 0,      /* in a type definition: strings are forward references */
    FL_ANNOTATION = 1u << 1,    /* in an annotation */
    FL_LITERAL = 1u << 2,       /* inside typing.Literal[...] */
    FL_STRING_DEF = 1u << 3,    /* visiting a deferred string annotation */
    FL_FUTURE_DEF = 1u << 4,    /* visiting a deferred PEP 563 annotation */
    FL_TYPEPARAM_DEF = 1u << 5, /* visiting a deferred type-parameter bound */
    FL_NAMED_EXPR = 1u << 6,    /* storing the target of `:=` */
    FL_SUBSCRIPT = 1u << 7,     /* inside a store/del subscript */
};
#define FL_DEFERRED (FL_STRING_DEF | FL_FUTURE_DEF | FL_TYPEPARAM_DEF)

/* What the current statement makes of a stored name. */
enum stmt_kind { ST_OTHER, ST_FOR, ST_WITH, ST_ANN_NOVALUE, ST_ALL };

enum { EXC_NAME_ERROR = 1 };

/* Where a TSNode's bytes live and how they map to module offsets. */
typedef struct nm_src {
    const char *text;
    long delta;  /* module offset = node offset + delta */
    int complex; /* a complex string annotation: every position is [cx_start,cx_end) */
    uint32_t cx_start, cx_end;
} nm_src;

typedef struct snap {
    int scope, branch, cond;
    unsigned flags;
    int stmt;
    const nm_src *src;
} snap;

typedef struct deferred {
    TSNode node;
    snap s;
} deferred;

typedef VEC(deferred) deferred_vec;

typedef VEC(const char *) name_vec;
typedef VEC(TSNode) node_vec;

typedef struct unresolved {
    uint32_t start, end;
    const char *name;
    unsigned exc;
    int wildcard;
} unresolved;

typedef struct scope_ctx {
    const py_tree *t;            /* the module (a forest's: its source, no tree) */
    const py_forest *forest;     /* the module read as a forest, or NULL */
    const py_forest_stmt *split; /* the forest's class parsed in part being visited */
    const scope_opts *o;
    arena ar;
    VEC(binding) b;
    VEC(scope) s;
    VEC(int) branches; /* parent of each branch id, -1 for none */
    VEC(unresolved) unres;
    VEC(unsigned) exc;       /* handled-exception masks of the enclosing try bodies */
    VEC(uint32_t) lines;     /* module offsets of line starts */
    VEC(py_tree *) subtrees; /* parsed string annotations */
    deferred_vec q_functions, q_lambdas, q_typeparams, q_futures, q_strings;
    snap cur;
    int future_annotations;
    int seen_typing;
    int depth, too_deep; /* recursion guard */
    TSNode all_value;    /* the value of the `__all__ = ...` statement being visited */
} scope_ctx;

/* Nesting depth of the recursive walk. Python itself refuses much less (200 nested
 * brackets); a frame chain per level is well under 1 KiB, so this stays far from an
 * 8 MiB stack even under sanitizers. */
#define SCOPE_MAX_DEPTH 1000

/* ---- the model's operations (checks/scope.c) ------------------------------------------ */

/* A new scope of kind k under parent (-1 for the module); returns its id. */
int scope_new(scope_ctx *c, enum scope_kind k, int parent);
/* Enters a new scope under the current one / returns to the current one's parent. */
void scope_push(scope_ctx *c, enum scope_kind k);
void scope_pop(scope_ctx *c);
/* Enters a new branch under the current one (returns its id) / leaves it. */
int scope_branch_push(scope_ctx *c);
void scope_branch_pop(scope_ctx *c);
/* A new binding, not yet in any scope's map. */
int scope_binding_new(scope_ctx *c, enum bkind k, const char *name, uint32_t start, uint32_t end,
                      int scope_id, int branch);
/* The binding a scope maps name to, or -1 (the module scope holds the builtins). */
int scope_get(scope_ctx *c, int sid, const char *name);
/* Maps name to binding id in a scope, remembering the binding it replaces. */
void scope_add(scope_ctx *c, int sid, const char *name, int id);
/* Annotation-only, deleted and unbound-exception bindings bind nothing. */
int scope_is_unbound(const binding *b);
/* ruff's add_binding: binds name in the current scope (the nearest non-comprehension
 * scope for BK_NAMED_EXPR), inheriting the uses of the binding it replaces; returns
 * the binding id. */
int scope_bind(scope_ctx *c, const char *name, uint32_t start, uint32_t end, enum bkind k,
               unsigned flags, int branch);
/* ruff's resolve_load: records a read of name at [start, end) - a use of the binding
 * it resolves to, or an unresolved reference. */
void scope_load(scope_ctx *c, const char *name, uint32_t start, uint32_t end);
/* ruff's lookup_symbol: the binding a read would resolve to now, recording nothing;
 * -1 when none. */
int scope_lookup(scope_ctx *c, const char *name);
/* Records a reference that resolves to nothing (F821 unless silenced). */
void scope_unresolved(scope_ctx *c, const char *name, uint32_t start, uint32_t end, int wildcard);
/* 1-based line and character column of a module offset. */
void scope_position(const scope_ctx *c, uint32_t off, unsigned *line, unsigned *col);

/* ---- the walk (checks/scope_walk.c) ----------------------------------------------------- */

/* Visits the module c->t in ruff's order, deferred bodies and annotations included,
 * building c's scopes, bindings and references; then counts `__all__` entries as
 * uses. Sets c->too_deep when the tree nests deeper than SCOPE_MAX_DEPTH. */
void scope_walk(scope_ctx *c);

#endif
