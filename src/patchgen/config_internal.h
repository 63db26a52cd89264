/*
 * config_internal.h - the config evaluator's private model, shared by its files:
 *
 *   config_eval.c    loading modules (one parse per file), statements, finalizing
 *   config_expr.c    expressions: constants, names, containers, generator filters
 *   config_api.c     the PatchConfig API: methods, decorators, field operations
 *   config_object.c  where a def/class starts and ends, as Python's inspect says
 *   config_final.c   the self-contained pg_config handed out
 *
 * Values live in the evaluator's arena; a PatchConfig under evaluation (ce_config)
 * owns growable vectors that config_eval_free() releases. Not thread-safe: use one
 * evaluator per thread.
 */
#ifndef PGCI_PATCHGEN_CONFIG_INTERNAL_H
#define PGCI_PATCHGEN_CONFIG_INTERNAL_H

#include "core/arena.h"
#include "core/hashmap.h"
#include "core/strbuf.h"
#include "core/vec.h"
#include "patchgen/config_eval.h"
#include "patchgen/patch_spec.h"
#include "py/py.h"

/* Limits that keep a hostile config bounded in time and memory. */
#define CE_MAX_FILE_BYTES (8u << 20)    /* a config file */
#define CE_MAX_TREE_DEPTH 1000          /* syntax-tree nesting */
#define CE_MAX_EXPR_DEPTH 100           /* nested expressions evaluated */
#define CE_MAX_IMPORT_DEPTH 32          /* chain of sibling-config imports */
#define CE_MAX_ITEMS 100000             /* entries in one list of a PatchConfig */
#define CE_MAX_CONFIG_BYTES (64u << 20) /* text a finalized config may carry */
#define CE_MAX_STEPS                                                                               \
    50000000ull /* work units per evaluation (nodes scanned,                                       \
                    expressions evaluated, comparisons) */

typedef enum ce_kind {
    CE_UNKNOWN, /* opaque: an import, a call result, anything not evaluated */
    CE_NONE,
    CE_BOOL,
    CE_INT,
    CE_STR,
    CE_LIST,
    CE_TUPLE,
    CE_SET,
    CE_DICT,
    CE_OBJECT,    /* a def or class from a config file */
    CE_CONFIG,    /* a PatchConfig */
    CE_FIELD,     /* config.<field> (patches, helpers, ...) */
    CE_METHOD,    /* config.<method> not yet called (bare decorator) */
    CE_MODULE,    /* a loaded config module */
    CE_API,       /* PatchConfig, create_patch_from_external, PatchType */
    CE_PATCHTYPE, /* PatchType.X */
    CE_PATCH,     /* the Patch create_patch_from_external returned */
    CE_ITEMS,     /* a filtered iterable (generator over a config field) */
    CE_DECORATOR, /* what config.replace_class("X") etc. return: waits for its object */
} ce_kind;

typedef enum ce_deco_op {
    CD_CLASS,
    CD_METHOD,
    CD_FUNCTION,
    CD_INIT,
    CD_HELPER_AFTER,
} ce_deco_op;

typedef enum ce_field {
    CF_PATCHES,
    CF_ADDITIONAL_IMPORTS,
    CF_POST_IMPORT_BLOCKS,
    CF_HELPERS,
    CF_POSITIONED_HELPERS,
    CF_DROP_IMPORTED_NAMES,
    CF_EXCLUDE,
    CF_SOURCE_MODULE,
    CF_TARGET_FILE,
    CF_DESCRIPTION,
    CF_TRANSFORMERS_VERSION,
    CF_NONE = -1,
} ce_field;

typedef enum ce_api {
    CA_PATCH_CONFIG,
    CA_CREATE_PATCH,
    CA_PATCH_TYPE,
} ce_api;

typedef struct ce_config ce_config;
typedef struct ce_module ce_module;
typedef struct ce_value ce_value;

/* One element of a CE_ITEMS / a copied config list: a pointer whose type depends on
 * the field (pg_patch *, pg_import *, const char *, pg_object *, pg_positioned_helper *). */
typedef struct ce_items {
    ce_field field;
    void **items;
    size_t len;
} ce_items;

struct ce_value {
    ce_kind kind;
    int holds_config; /* a container with a PatchConfig-related value inside */
    union {
        int b;
        struct {
            long long i;
            int overflow; /* digits beyond long long: kept as text only */
        } num;
        struct {
            const char *s;
            size_t len;
        } str;
        struct {
            ce_value **items; /* dict: keys at even, values at odd indexes */
            size_t len;
        } seq;
        pg_object *obj;
        ce_config *cfg;
        struct {
            ce_config *cfg;
            ce_field field;
        } field;
        struct {
            ce_config *cfg;
            const char *name;
            ce_field field; /* CF_NONE: a PatchConfig method; else a method of that list */
        } method;
        struct {
            ce_config *cfg;
            ce_deco_op op;
            const char *target;
            pg_name_map_entry *name_map;
            size_t name_map_len;
            const char *description; /* NULL: patchgen's default */
        } deco;
        ce_module *mod;
        ce_api api;
        pg_patch_type ptype;
        pg_patch *patch;
        ce_items items;
    } u;
};

/* A PatchConfig being built. Vectors of pointers, so copying between configs
 * (extend) shares the items the way Python shares the objects. */
struct ce_config {
    const char *source_module;
    const char *target_file;
    const char *description;
    const char *transformers_version;
    VEC(pg_patch *) patches;
    VEC(pg_import *) additional_imports;
    VEC(const char *) post_import_blocks;
    VEC(pg_object *) helpers;
    VEC(pg_positioned_helper *) positioned_helpers;
    VEC(const char *) drop_imported_names; /* insertion order; a set */
    hashmap drop_set;
    VEC(const char *) exclude;
    const char *file; /* where PatchConfig(...) was called */
    unsigned line, col;
    ce_config *next_alloc; /* every ce_config of the evaluator, for freeing */
    /* an importing module's copy of a sibling's PatchConfig (config_shared.c) */
    const ce_config *copied_from; /* NULL: not a copy */
    const ce_module *holder;      /* the module holding the copy */
    unsigned at_line, at_col;     /* where it imported it */
    int changed;                  /* the holder changed its copy */
};

enum ce_state { CE_LOADING, CE_DONE, CE_FAILED };

struct ce_module {
    char *abs_path; /* arena */
    char *rel_path; /* for messages: relative to the workspace root when inside it */
    char *name;     /* dotted module name (__module__ of what it defines) */
    char *text;     /* arena copy of the source */
    size_t text_len;
    enum ce_state state;
    int err_code;
    char *err_msg;       /* arena, when FAILED */
    hashmap ns;          /* name -> ce_value * */
    hashmap cloned;      /* ce_config * (sibling's) -> ce_config * (this module's copy) */
    hashmap first_class; /* class name -> TSNode * of its first definition (inspect) */
    int classes_indexed;
    py_tree *tree;          /* kept until the evaluator is freed: calling one of the module's
                               defs later needs its body (see ce_call_touches_config) */
    int tree_of_text;       /* tree is text's own (no identifier was NFKC-normalised) */
    int accepted;           /* Python's indentation rules on tree: 0 not yet known, 1 met,
                               -1 broken (see module_def_parses_alone) */
    ce_module *importer;    /* the module whose import is loading this one (cycle report) */
    VEC(ce_module *) loads; /* sibling configs this one imports */
};

struct config_eval {
    arena mem;
    const workspace *ws;
    char *root;         /* absolute workspace root, or NULL */
    char *search_abs;   /* absolute search root, or NULL */
    char *prefix;       /* package_prefix with exactly one trailing '.', or NULL */
    hashmap modules;    /* abs path -> ce_module * */
    hashmap defs;       /* "%p" of a pg_object -> ce_def * (where its def is) */
    ce_config *configs; /* allocation list */
    int import_depth;
    unsigned long long steps; /* work done by the current evaluation */
    int over_budget;          /* steps passed CE_MAX_STEPS */
    ce_value unknown, none;   /* shared singletons */
};

/* Counts k units of work; 0 once the budget is spent (and stays so). */
int ce_step(config_eval *ev, unsigned long long k);

/* A filter's loop variable, bound while its condition is evaluated. */
typedef struct ce_local {
    const char *name; /* NULL: none */
    size_t len;
    ce_value *value;
} ce_local;

/* The context of one statement being executed. */
typedef struct ce_ctx {
    config_eval *ev;
    ce_module *mod;
    const py_tree *t;
    int depth; /* expression nesting */
    ce_local local;
} ce_ctx;

typedef struct ce_def {
    ce_module *mod;
    TSNode node;            /* the function_definition / class_definition */
    const char *wrapped_by; /* a decorator pgci does not know ("@wrap"), or NULL */
    unsigned wrapped_line;
} ce_def;

/* --- config_eval.c ---------------------------------------------------------- */
/* 1 when calling obj (a def or class of a config) at import time would run code
 * that uses a PatchConfig: its body, or the bodies of the defs it calls, reaches a
 * name bound to one. Python would run it; pgci does not, so it must refuse. */
int ce_call_touches_config(config_eval *ev, const pg_object *obj);
ce_config *ce_config_new(config_eval *ev);
/* "@wrap" when obj was decorated by a decorator pgci does not know (which may have
 * returned another object), with its line; NULL when not. */
const char *ce_object_wrapped(config_eval *ev, const pg_object *obj, unsigned *line);
/* A copy of cfg that later mutations of either do not affect. */
ce_config *ce_config_clone(config_eval *ev, const ce_config *cfg);
ce_value *ce_value_new(config_eval *ev, ce_kind kind);
/* Loads (or finds in the cache) the config module in file abs_path. */
int ce_module_load(config_eval *ev, ce_module *importer, const char *abs_path, ce_module **out);

/* --- config_expr.c ---------------------------------------------------------- */
/* Evaluates an expression. Never fails for constructs it does not model: those
 * evaluate to CE_UNKNOWN. Fails on limits and on errors inside config values. */
int ce_eval(ce_ctx *c, TSNode n, ce_value **out);
/* 1 when v is a PatchConfig, a part of one, the patchgen API, a container holding
 * any of those, or (for an unbound name) one of Python's dynamic builtins. */
int ce_value_is_config(const ce_value *v);
/* exec, eval, globals, locals, vars, __import__, compile. */
int ce_dynamic_builtin(const char *s, size_t len);
/* 1 when the subtree references a name bound to a PatchConfig or the patchgen API,
 * or a dynamic builtin (exec, eval, globals, ...) that could reach one unseen. */
int ce_touches_config(ce_ctx *c, TSNode n);
/* Sets "PATH:LINE:COL: unsupported construct in patch config: TEXT[ (why)]". */
int ce_unsupported(ce_ctx *c, TSNode n, const char *why);
/* Sets "PATH:LINE:COL: MESSAGE" with code. */
int ce_error_at(ce_ctx *c, TSNode n, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The node's text for a message: first line, at most 80 bytes, "..." when cut. */
void ce_snippet(strbuf *sb, const ce_ctx *c, TSNode n);
/* The named children of n without comments. */
uint32_t ce_named_count(TSNode n);
TSNode ce_named_child(TSNode n, uint32_t i);
/* Iterating named, non-comment children in O(1) per step (ts_node_named_child(i)
 * is O(i), which a hostile list literal would turn quadratic). */
typedef struct ce_iter {
    TSTreeCursor cur;
    int state; /* 0 not started, 1 in children, 2 done */
} ce_iter;
void ce_iter_init(ce_iter *it, TSNode parent);
int ce_iter_next(ce_iter *it, TSNode *out);
void ce_iter_done(ce_iter *it);
/* The elements of a config list field or of a filter over one; 0 when v is neither. */
int ce_items_of(ce_value *v, ce_items *out);
/* "a Python string" / "an int" ... for messages. */
const char *ce_kind_name(ce_kind k);
ce_value *ce_str_value(config_eval *ev, const char *s, size_t len);

/* --- config_api.c ----------------------------------------------------------- */
/* A call whose callee evaluated to a config method or field method. */
int ce_call_method(ce_ctx *c, TSNode call, ce_value *callee, ce_value **out);
/* PatchConfig(...) and create_patch_from_external(...). */
int ce_call_api(ce_ctx *c, TSNode call, ce_api api, ce_value **out);
/* Applies one decorator (already evaluated) to obj. A decorator that is not a
 * patchgen one leaves the object as it is (functools.wraps keeps __name__,
 * __module__ and, through __wrapped__, the source lines). */
int ce_apply_decorator(ce_ctx *c, TSNode deco, ce_value *d, pg_object *obj);
/* `config.replace_function("f", ...)(obj)`: a decorator applied by hand. */
int ce_call_decorator(ce_ctx *c, TSNode call, ce_value *d, ce_value **out);
/* `config.<attr> = value`. */
int ce_set_attribute(ce_ctx *c, TSNode stmt, ce_config *cfg, TSNode attr, ce_value *v);
ce_field ce_field_from_name(const char *name);
const char *ce_field_name(ce_field f);

/* --- config_shared.c -------------------------------------------------------- */
/* The importing module's copy of a sibling's value (a PatchConfig is copied once
 * per importer; other values are shared), imported at node `at`. */
ce_value *ce_imported_value(ce_ctx *c, ce_value *v, TSNode at);
/* After module m ran: marks the copies it changed. */
void ce_note_changes(ce_module *m);
/* Refuses when, among the modules `top` loads, one changed its copy of a sibling's
 * PatchConfig that another also holds: Python shares that object between them. */
int ce_check_shared(config_eval *ev, ce_module *top);

/* Sets "PATH:LINE:COL: syntax error: WHY" at the place CPython 3.11 refuses t's
 * text with its message, and returns PGCI_EINVALID; 0 when it compiles
 * (config_syntax.c). */
int ce_check_syntax(const py_tree *t);

/* The same for what CPython's compiler refuses in a tree that parsed: 'return'
 * outside function, a positional argument after a keyword one, a duplicate
 * parameter, ... (config_compile.c). */
int ce_check_compile(const py_tree *t);

/* --- config_final.c --------------------------------------------------------- */
/* The pg_config for PatchConfig `src`, bound to `var` in module m. */
int ce_finalize(const ce_module *m, const char *var, const ce_config *src, pg_config **out);

/* --- config_object.c -------------------------------------------------------- */
/* Fills start_line / end_line of a def or class node (the decorated_definition when
 * decorated) as inspect.getsourcelines() reports them. first_class caches the
 * module's first class per name (built on first use; *indexed says whether). */
void ce_object_lines(const py_tree *t, arena *mem, hashmap *first_class, int *indexed, TSNode def,
                     pg_object *obj);

#endif
