/*
 * config_compile.c - what CPython refuses after its parser accepted a config.
 *
 * patchgen imports the config, so `compile()` must accept it; a config that
 * parses can still be refused by CPython's AST validation and compiler, and
 * tree-sitter-python accepts all of these:
 *
 *   return 1                   'return' outside function (yield, await too)
 *   break                      'break' outside loop (continue too)
 *   f(a=1, 2)                  positional argument follows keyword argument
 *   f(a=1, a=2)                keyword argument repeated: a
 *   def f(a, a): ...           duplicate argument 'a' in function definition
 *   def f(x=1, y): ...         non-default argument follows default argument
 *   (a, b) += 1                'tuple' is an illegal expression for augmented assignment
 *   nonlocal x (module level)  nonlocal declaration not allowed at module level
 *
 * One walk of the tree, each node's kind read from a table by its symbol (a
 * tree-sitter query over the same nodes cost four times as much); a stack of the
 * enclosing functions, classes and loop bodies answers "outside function" and
 * "outside loop". Scope rules that need a symbol
 * table (a nonlocal with no binding, a global after use) are not checked.
 */
#include <pthread.h>
#include <string.h>

#include "core/error.h"
#include "core/vec.h"
#include "patchgen/config_internal.h"

enum {
    C_NONE,
    C_DEF,
    C_LAMBDA,
    C_CLASS,
    C_LOOP,
    C_RETURN,
    C_YIELD,
    C_AWAIT,
    C_BREAK,
    C_CONTINUE,
    C_ARGS,
    C_PARAMS,
    C_AUGMENTED,
    C_NONLOCAL,
    C_FOR,
    C_WHILE,
    C_N
};

/* What each node type of the grammar is to these rules, by symbol (an alias has its
 * own symbol and name): one table lookup a node. */
static const struct {
    const char *name;
    int kind;
} kinds[] = {{"function_definition", C_DEF},
             {"lambda", C_LAMBDA},
             {"class_definition", C_CLASS},
             {"return_statement", C_RETURN},
             {"yield", C_YIELD},
             {"await", C_AWAIT},
             {"break_statement", C_BREAK},
             {"continue_statement", C_CONTINUE},
             {"argument_list", C_ARGS},
             {"parameters", C_PARAMS},
             {"lambda_parameters", C_PARAMS},
             {"augmented_assignment", C_AUGMENTED},
             {"nonlocal_statement", C_NONLOCAL},
             {"for_statement", C_FOR},
             {"while_statement", C_WHILE}};

static unsigned char *kind_of; /* symbol -> C_* */
static uint32_t n_symbols;
static TSFieldId field_body;
static pthread_once_t kinds_once = PTHREAD_ONCE_INIT;

static void kinds_init(void)
{
    const TSLanguage *l = tree_sitter_python();
    n_symbols = ts_language_symbol_count(l);
    kind_of = pgci_calloc(n_symbols + 1, 1);
    for (uint32_t sym = 0; sym < n_symbols; sym++) {
        const char *name = ts_language_symbol_name(l, (TSSymbol)sym);
        for (size_t k = 0; name && k < sizeof(kinds) / sizeof(*kinds); k++)
            if (!strcmp(kinds[k].name, name) &&
                ts_language_symbol_type(l, (TSSymbol)sym) == TSSymbolTypeRegular)
                kind_of[sym] = (unsigned char)kinds[k].kind;
    }
    field_body = ts_language_field_id_for_name(l, "body", 4);
}

typedef struct scope {
    int depth; /* of the node in the walk */
    int kind;  /* C_DEF, C_LAMBDA, C_CLASS or C_LOOP (a for or while loop's body) */
    int async; /* an `async def` */
} scope;

typedef struct cc {
    const py_tree *t;
    VEC(scope) stack;
    TSPoint at;
    char why[160];
} cc;

static int refuse(cc *c, TSNode n, const char *why)
{
    c->at = ts_node_start_point(n);
    snprintf(c->why, sizeof(c->why), "%s", why);
    return 1;
}

static int has_comma(TSNode n)
{
    uint32_t k = ts_node_child_count(n);
    for (uint32_t i = 0; i < k; i++)
        if (!strcmp(ts_node_type(ts_node_child(n, i)), ","))
            return 1;
    return 0;
}

/* The innermost function, lambda or class around the node, or NULL at module level. */
static const scope *enclosing(const cc *c)
{
    for (size_t i = c->stack.len; i-- > 0;)
        if (c->stack.items[i].kind != C_LOOP)
            return &c->stack.items[i];
    return NULL;
}

static int in_loop(const cc *c)
{
    return c->stack.len && c->stack.items[c->stack.len - 1].kind == C_LOOP;
}

static int is_async_def(TSNode def)
{
    return ts_node_child_count(def) > 0 && !strcmp(ts_node_type(ts_node_child(def, 0)), "async");
}

/* A name tree-sitter read where Python sees a keyword (`f(a, pass)`: it takes an
 * argument it cannot parse for a name). */
static int is_keyword(const char *s, size_t n)
{
    static const char *const kw[] = {
        "and",    "as",   "assert", "async",  "await",  "break",   "class",    "continue",
        "def",    "del",  "elif",   "else",   "except", "finally", "for",      "from",
        "global", "if",   "import", "in",     "is",     "lambda",  "nonlocal", "not",
        "or",     "pass", "raise",  "return", "try",    "while",   "with",     "yield"};
    for (size_t i = 0; i < sizeof(kw) / sizeof(*kw); i++)
        if (strlen(kw[i]) == n && !memcmp(kw[i], s, n))
            return 1;
    return 0;
}

/* f(a=1, 2), f(**k, 2), f(**k, *a), f(a=1, a=2), f(a, pass) */
static int check_args(cc *c, TSNode args)
{
    int keyword = 0, kwsplat = 0;
    strvec names = STRVEC_INIT;
    int bad = 0;
    uint32_t k = ts_node_named_child_count(args);
    for (uint32_t i = 0; i < k && !bad; i++) {
        TSNode a = ts_node_named_child(args, i);
        const char *type = ts_node_type(a);
        size_t len;
        const char *text = py_text(c->t, a, &len);
        if (ts_node_is_extra(a)) { /* a comment, a backslash continuation */
            continue;
        } else if (!strcmp(type, "identifier") && is_keyword(text, len)) {
            bad = refuse(c, a, "invalid syntax");
        } else if (!strcmp(type, "keyword_argument")) {
            keyword = 1;
            char *name = py_text_dup(c->t, py_field(a, "name"));
            if (strvec_find(&names, name) >= 0) {
                char why[120];
                snprintf(why, sizeof(why), "keyword argument repeated: %s", name);
                bad = refuse(c, a, why);
            }
            strvec_push_owned(&names, name);
        } else if (!strcmp(type, "dictionary_splat")) {
            kwsplat = 1;
        } else if (!strcmp(type, "list_splat")) {
            if (kwsplat)
                bad =
                    refuse(c, a, "iterable argument unpacking follows keyword argument unpacking");
        } else if (kwsplat || keyword) {
            /* CPython points at the call's closing parenthesis */
            uint32_t n = ts_node_child_count(args);
            bad = refuse(c, n ? ts_node_child(args, n - 1) : args,
                         kwsplat ? "positional argument follows keyword argument unpacking"
                                 : "positional argument follows keyword argument");
        }
    }
    strvec_free(&names);
    return bad;
}

static int is_splat(TSNode p)
{
    const char *type = ts_node_type(p);
    return !strcmp(type, "list_splat_pattern") || !strcmp(type, "dictionary_splat_pattern");
}

/* `*args: T` and `**kw: T` are typed_parameters around the splat: the splat, else p. */
static TSNode unwrap_typed(TSNode p)
{
    if (!strcmp(ts_node_type(p), "typed_parameter") && ts_node_named_child_count(p) > 0 &&
        is_splat(ts_node_named_child(p, 0)))
        return ts_node_named_child(p, 0);
    return p;
}

/* The name a parameter binds, or a null node (`*`, `/`). */
static TSNode param_name(TSNode p)
{
    p = unwrap_typed(p);
    const char *type = ts_node_type(p);
    if (!strcmp(type, "identifier"))
        return p;
    if (!strcmp(type, "default_parameter") || !strcmp(type, "typed_default_parameter"))
        return py_field(p, "name");
    if (!strcmp(type, "typed_parameter") || is_splat(p))
        for (uint32_t i = 0; i < ts_node_named_child_count(p); i++)
            if (!strcmp(ts_node_type(ts_node_named_child(p, i)), "identifier"))
                return ts_node_named_child(p, i);
    return (TSNode){0};
}

/* def f(a, a), def f(x=1, y) */
static int check_params(cc *c, TSNode params)
{
    int defaults = 0, star = 0, bad = 0;
    strvec names = STRVEC_INIT;
    uint32_t k = ts_node_named_child_count(params);
    for (uint32_t i = 0; i < k && !bad; i++) {
        TSNode p = ts_node_named_child(params, i);
        const char *type = ts_node_type(p);
        if (!strcmp(type, "comment") || !strcmp(type, "positional_separator"))
            continue;
        if (!strcmp(type, "keyword_separator") || is_splat(unwrap_typed(p)))
            star = 1;
        int has_default =
            !strcmp(type, "default_parameter") || !strcmp(type, "typed_default_parameter");
        if (has_default)
            defaults = 1;
        else if (defaults && !star &&
                 (!strcmp(type, "identifier") || !strcmp(type, "typed_parameter")))
            bad = refuse(c, p, "non-default argument follows default argument");
        TSNode n = param_name(p);
        if (bad || ts_node_is_null(n))
            continue;
        char *name = py_text_dup(c->t, n);
        if (strvec_find(&names, name) >= 0) {
            char why[120];
            snprintf(why, sizeof(why), "duplicate argument '%s' in function definition", name);
            bad = refuse(c, n, why);
        }
        strvec_push_owned(&names, name);
    }
    strvec_free(&names);
    return bad;
}

static int check_one(cc *c, int kind, TSNode n)
{
    const scope *in = enclosing(c);
    switch (kind) {
    case C_RETURN:
        return (!in || in->kind != C_DEF) && refuse(c, n, "'return' outside function");
    case C_YIELD:
        return (!in || in->kind == C_CLASS) && refuse(c, n, "'yield' outside function");
    case C_AWAIT:
        if (!in || in->kind == C_CLASS)
            return refuse(c, n, "'await' outside function");
        return (in->kind != C_DEF || !in->async) && refuse(c, n, "'await' outside async function");
    case C_BREAK:
        return !in_loop(c) && refuse(c, n, "'break' outside loop");
    case C_CONTINUE:
        return !in_loop(c) && refuse(c, n, "'continue' not properly in loop");
    case C_ARGS:
        return check_args(c, n);
    case C_PARAMS:
        return check_params(c, n);
    case C_AUGMENTED: {
        TSNode left = py_field(n, "left");
        /* `(a) += 1` is a's: a group, no tuple */
        while ((!strcmp(ts_node_type(left), "tuple") ||
                !strcmp(ts_node_type(left), "tuple_pattern")) &&
               ts_node_named_child_count(left) == 1 && !has_comma(left))
            left = ts_node_named_child(left, 0);
        const char *type = ts_node_type(left);
        if (!strcmp(type, "pattern_list") || !strcmp(type, "tuple") ||
            !strcmp(type, "tuple_pattern"))
            return refuse(c, n, "'tuple' is an illegal expression for augmented assignment");
        if (!strcmp(type, "list") || !strcmp(type, "list_pattern"))
            return refuse(c, n, "'list' is an illegal expression for augmented assignment");
        return 0;
    }
    case C_NONLOCAL:
        return !in && refuse(c, n, "nonlocal declaration not allowed at module level");
    default:
        return 0;
    }
}

int ce_check_compile(const py_tree *t)
{
    pthread_once(&kinds_once, kinds_init);
    cc c = {t, VEC_INIT, {0, 0}, {0}};
    TSTreeCursor cur = ts_tree_cursor_new(py_root(t));
    int depth = 0, bad = 0;
    VEC(int) kinds_up = VEC_INIT; /* the kind of the node at each depth */
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&cur);
        TSSymbol sym = ts_node_symbol(n);
        int kind = sym < n_symbols ? kind_of[sym] : C_NONE;
        while ((int)kinds_up.len > depth)
            kinds_up.len--;
        VEC_PUSH(&kinds_up, kind);
        int up = depth > 0 ? kinds_up.items[depth - 1] : C_NONE;
        if (kind == C_DEF || kind == C_LAMBDA || kind == C_CLASS) {
            scope sc = {depth, kind, kind == C_DEF && is_async_def(n)};
            VEC_PUSH(&c.stack, sc);
        } else if ((up == C_FOR || up == C_WHILE) &&
                   ts_tree_cursor_current_field_id(&cur) == field_body) {
            scope sc = {depth, C_LOOP, 0};
            VEC_PUSH(&c.stack, sc);
        } else if (kind != C_NONE && kind != C_FOR && kind != C_WHILE &&
                   (bad = check_one(&c, kind, n))) {
            break;
        }
        if (ts_tree_cursor_goto_first_child(&cur)) {
            depth++;
            continue;
        }
        /* on to the next node: a sibling, or an ancestor's; the scopes of the
         * nodes left behind end */
        for (;;) {
            if (ts_tree_cursor_goto_next_sibling(&cur))
                break;
            if (!ts_tree_cursor_goto_parent(&cur))
                goto done;
            depth--;
        }
        while (c.stack.len && c.stack.items[c.stack.len - 1].depth >= depth)
            c.stack.len--;
    }
done:
    ts_tree_cursor_delete(&cur);
    VEC_FREE(&kinds_up);
    VEC_FREE(&c.stack);
    if (!bad)
        return 0;
    return pgci_error_set(PGCI_EINVALID, "%s:%u:%u: syntax error: %s", t->path, c.at.row + 1,
                          c.at.column + 1, c.why);
}
