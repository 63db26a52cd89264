/*
 * config_compile.h - internal to config_compile.c, config_symtab.c and
 * config_target.c: the walk's state, shared by the rules of CPython's compiler
 * (config_compile.c), its symbol table (config_symtab.c) and its assignment targets
 * (config_target.c).
 */
#ifndef PGCI_PATCHGEN_CONFIG_COMPILE_H
#define PGCI_PATCHGEN_CONFIG_COMPILE_H

#include <stdint.h>
#include <tree_sitter/api.h>

#include "core/vec.h"
#include "py/py.h"

/* The stages of CPython 3.11's compile(), in the order they run: a refusal of an
 * earlier stage wins over one of a later stage wherever it is in the file. Within
 * the parser's, future.c's and the symbol table's visit the first found wins (the
 * walk goes in source order, nearly as CPython does), within the compiler's the
 * first in the source (an async comprehension is found to be one at its await),
 * within the analysis the one cc_refuse_key orders first. */
enum {
    CC_PARSER,   /* the parser's invalid_* rules (Grammar/python.gram) */
    CC_FUTURE,   /* Python/future.c, before the symbol table */
    CC_SYMTABLE, /* Python/symtable.c while it visits the tree */
    CC_ANALYSIS, /* symtable.c's analysis of each scope's names, after the visit */
    CC_COMPILER, /* Python/compile.c */
    CC_NONE
};

/* What a stack entry is: a scope, a loop's body, or a comprehension's iterable. */
enum {
    K_DEF,        /* a function's body (parameters, defaults and decorators are outside) */
    K_LAMBDA,     /* a lambda's body */
    K_CLASS,      /* a class body */
    K_COMP,       /* a comprehension or generator expression, but its first iterable */
    K_LOOP,       /* a for or while loop's body (not its else:) */
    K_ITER_OUTER, /* a comprehension's first iterable: evaluated in the enclosing scope */
    K_ITER_INNER  /* a later iterable: in the comprehension's scope */
};

enum {
    SF_ASYNC = 1,     /* K_DEF: an `async def` */
    SF_YIELD = 2,     /* K_DEF: its body yields */
    SF_GENEXP = 4,    /* K_COMP: a generator expression */
    SF_COROUTINE = 8, /* K_COMP: awaits (an asynchronous comprehension) */
    SF_REPORTED = 16  /* K_COMP: refused as one already */
};

typedef struct cc_scope {
    int depth; /* of the node that began it, in the walk */
    unsigned char kind, flags;
    uint16_t clauses; /* K_COMP: its `for ... in` clauses met so far */
    TSNode node;      /* K_DEF, K_LAMBDA, K_CLASS: the definition; K_COMP: the comprehension */
    TSNode ret;       /* K_DEF: its first `return VALUE`, until a yield shows it an error */
    uint32_t dirs_at; /* where its global and nonlocal declarations begin in cc.dirs */
} cc_scope;

/* One name of a global or nonlocal statement. */
typedef struct cc_directive {
    TSNode name, stmt;
    int global;
} cc_directive;

/* Code the compiler compiles after what follows it in the source: a class's bases
 * (after its body), a comprehension's element and its first iterable (after its
 * clauses). A refusal whose key falls in [start, end] is ordered by `key` first,
 * then by its own (cc_refuse's remap). */
typedef struct cc_region {
    uint32_t start, end;
    uint64_t key;
    int depth; /* of the node it belongs to, in the walk */
} cc_region;

typedef struct cc {
    const py_tree *t;
    VEC(cc_scope) stack;
    VEC(cc_directive) dirs; /* of the scopes on the stack and the module's */
    VEC(cc_region) regions; /* of the nodes the walk is in, outermost first */
    int future_annotations; /* `from __future__ import annotations`: annotations unread */
    int stage;              /* of the refusal kept; CC_NONE while there is none */
    uint64_t key;           /* its order within the stage (cc_refuse_key) */
    TSPoint at;
    char why[200];
} cc;

/* Keeps the refusal "why" at node n when it comes before the one kept (above); 1
 * when it is the parser's (nothing can come before it: the caller may stop). */
int cc_refuse(cc *c, TSNode n, int stage, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The keys of the compiler's refusals: where it meets them. A refusal at a node
 * (CC_KEY_AT) comes after one its construct makes before it (CC_KEY_BEFORE: a def's
 * parameters before its decorators); one after a construct's end (a target after
 * the value assigned, a def's name after its body) comes before anything that
 * begins there, the deeper node's first (depth: its ancestors). */
#define CC_KEY_AT(byte) (((uint64_t)(byte) << 8) | 0x80)
#define CC_KEY_BEFORE(byte) (((uint64_t)(byte) << 8) | 0x40)
#define CC_KEY_AFTER(byte, depth)                                                                  \
    (((uint64_t)(byte) << 8) | (uint64_t)(0x3f - ((depth) < 0x3f ? (depth) : 0x3f)))

/* The same, where refusals of the stage are ordered by key, not as found (the
 * analysis goes through the scopes in the order they begin, each scope's names
 * before the scopes in it). */
int cc_refuse_key(cc *c, TSNode n, int stage, uint64_t key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The innermost scope (K_DEF, K_LAMBDA, K_CLASS, K_COMP) whose code the walk is
 * in, or NULL at module level; *at (when not NULL) its index in the stack. */
const cc_scope *cc_enclosing(const cc *c, size_t from, size_t *at);

/* The name a parameter binds, or a null node (`*`, `/`). */
TSNode cc_param_name(TSNode p);

/* --- config_symtab.c --------------------------------------------------------- */
/* A global (global=1) or nonlocal statement in the current scope. */
void cc_directive_stmt(cc *c, TSNode stmt, int global);
/* An annotated assignment `x: T` in the current scope. */
void cc_annotated(cc *c, TSNode assign);
/* An assignment expression. */
void cc_walrus(cc *c, TSNode named);
/* A comprehension's `for ... in` clause after its first (the scope on top). */
void cc_comp_clause(cc *c, TSNode clause);

/* The same at point `at` (where no node begins). */
int cc_refuse_at(cc *c, TSPoint at, int stage, uint64_t key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* --- config_parse.c ---------------------------------------------------------- */
/* Whether s[0..n) is one of Python's keywords (None, True and False too). */
int cc_is_keyword(const char *s, size_t n);
/* What CPython's parser refuses in node n alone where tree-sitter-python took it: a
 * keyword read as a name (`x.None`), a string literal's rules (bytes and str mixed,
 * f-strings), a comprehension's `for x in a, b`: sets *at and why, returns 1. */
int cc_parse_node(const py_tree *t, TSNode n, TSPoint *at, char *why, size_t size);
/* In a tree with an error: the first of those before byte `limit`, outside the
 * error (config_syntax.c). */
int cc_parse_error_before(const py_tree *t, uint32_t limit, TSPoint *at, char *why, size_t size);
/* Named expression n of a tree where its name stands for an operand that is no
 * name and ends at byte `operand` (config_target.c: `(a.b := 1)` read as `(_ :=
 * 1)`): 2 where CPython's invalid_named_expression reads the operand ("cannot use
 * assignment expressions with attribute" at it), 1 with *at (a byte) and why where its parser
 * refuses the place first ("invalid syntax" at the `:=` of a call's argument,
 * "cannot use assignment expressions with lambda", "expected 'else' after 'if'
 * expression"), 0 where it takes it. */
int cc_walrus_operand(const py_tree *t, TSNode n, uint32_t operand, uint32_t *at, char *why,
                      size_t size);
/* In a tree whose first error err is inside a string literal (an f-string's
 * expression: Python 3.11 reads the literal as one token): the string rules'
 * refusal of its literals, an error in the expression as the f-string's sub-parser
 * reports it ("f-string: empty expression not allowed", "f-string: invalid syntax")
 * (config_syntax.c). */
int cc_string_error(const py_tree *t, TSNode err, TSPoint *at, char *why, size_t size);

/* --- config_debug.c ---------------------------------------------------------- */
/* `__debug__` bound (config_debug.c): each refuses "cannot assign to __debug__"
 * where the compiler would. */
int cc_is_debug(const cc *c, TSNode n);
void cc_debug_assign(cc *c, TSNode assignment);
void cc_debug_augmented(cc *c, TSNode augmented);
void cc_debug_for(cc *c, TSNode for_statement);
void cc_debug_comp_clause(cc *c, TSNode for_in_clause);
void cc_debug_walrus(cc *c, TSNode named);
void cc_debug_delete(cc *c, TSNode del);
void cc_debug_with_target(cc *c, TSNode as_pattern_target);
void cc_debug_except(cc *c, TSNode as_pattern_target, TSNode except_clause);
void cc_debug_import(cc *c, TSNode stmt);
void cc_debug_params(cc *c, TSNode def, TSNode params, uint64_t key);
/* A function_definition, lambda or class_definition: its parameters and name. */
void cc_debug_def(cc *c, TSNode def);
/* A keyword argument and its name. */
typedef struct cc_keyword {
    TSNode node;
    const char *s;
    size_t len;
} cc_keyword;
/* A call's (a class's) keyword arguments, in order: `__debug__=`, or one repeated;
 * 1 when refused. */
int cc_debug_keywords(cc *c, TSNode args, const cc_keyword *kw, size_t n);
void cc_debug_case(cc *c, TSNode case_clause);

/* --- config_target.c --------------------------------------------------------- */
enum { TARGET_STAR, TARGET_FOR, TARGET_DEL };
/* CPython's name for an expression in its messages ("function call", "literal"). */
const char *cc_expr_name(const py_tree *t, TSNode e);
/* The part of target e Python cannot assign to (TARGET_STAR, TARGET_FOR) or delete,
 * and *why its message; a null node when e is a valid target. */
TSNode cc_invalid_target(const py_tree *t, TSNode e, int targets, char *why, size_t n);
/* A delete statement; the target of `with ... as` (an as_pattern_target). */
void cc_delete(cc *c, TSNode del);
void cc_with_target(cc *c, TSNode target);

/* The deepest first error under n: where tree-sitter's error is (an ERROR node
 * can hold everything before it as well): a missing token, or an ERROR node with
 * no child in error. */
TSNode cc_deepest_error(TSNode n);

/* In a tree with an error, err the first: when the logical line it begins in has
 * a target Python cannot assign to (`f() = 1`, `for f() in x`, `x + 1 += 2`), an
 * assignment expression's operand that is no name (`(a.b := 1)`) or a keyword
 * argument before a comprehension (`f(a=1 for x in y)`) and tree-sitter's error
 * is not before it, sets e to CPython's refusal of it and returns 1
 * (config_syntax.c). */
struct pytok_result;
struct pytok_error;
int cc_target_error(const py_tree *t, const struct pytok_result *tok, TSNode err,
                    struct pytok_error *e);

#endif
