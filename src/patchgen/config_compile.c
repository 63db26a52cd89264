/*
 * config_compile.c - what CPython refuses after its parser accepted a config.
 *
 * patchgen imports the config, so `compile()` must accept it; a config that
 * parses can still be refused by CPython's parser rules that tree-sitter-python
 * has not, its symbol table and its compiler, and tree-sitter-python accepts all
 * of these:
 *
 *   return 1                   'return' outside function (yield, await too)
 *   break                      'break' outside loop (continue too)
 *   f(a=1, 2)                  positional argument follows keyword argument
 *   f(a=1, a=2)                keyword argument repeated: a
 *   def f(a, a): ...           duplicate argument 'a' in function definition
 *   def f(x=1, y): ...         non-default argument follows default argument
 *   (a, b) += 1                'tuple' is an illegal expression for augmented assignment
 *   nonlocal x (module level)  nonlocal declaration not allowed at module level
 *   x = 1; global x            name 'x' is assigned to before global declaration
 *   nonlocal x (none bound)    no binding for nonlocal 'x' found
 *   [y := 1 for y in z]        assignment expression cannot rebind comprehension ...
 *   del f(); with a as f(): .. cannot delete function call; cannot assign to ...
 *   *a = b; a, *b, *c = d      starred assignment target must be in a list or tuple
 *   x = *a                     can't use starred expression here
 *   [await x for x in y]       asynchronous comprehension outside of an asynchronous ...
 *
 * One walk of the tree, each node's kind read from a table by its symbol (a
 * tree-sitter query over the same nodes cost four times as much). A stack of the
 * enclosing scopes (function, lambda and class bodies, comprehensions), loop
 * bodies and comprehension iterables answers "outside function", "outside loop"
 * and "inside list comprehension". The symbol table's rules read a scope's names
 * only where a construct that needs them appears (config_symtab.c): a global or
 * nonlocal statement, an assignment expression in a comprehension. CPython runs
 * its stages in order, so the refusal kept is the first of the earliest stage
 * (config_compile.h).
 */
#include "patchgen/config_compile.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "patchgen/config_internal.h"

enum {
    C_NONE,
    C_DEF,
    C_LAMBDA,
    C_CLASS,
    C_RETURN,
    C_YIELD,
    C_AWAIT,
    C_BREAK,
    C_CONTINUE,
    C_ARGS,
    C_PARAMS,
    C_AUGMENTED,
    C_NONLOCAL,
    C_GLOBAL,
    C_FOR,
    C_WHILE,
    C_LISTCOMP,
    C_SETCOMP,
    C_DICTCOMP,
    C_GENEXP,
    C_FORIN,
    C_WALRUS,
    C_DELETE,
    C_ASTARGET,
    C_ASSIGN,
    C_EXPRSTMT,
    C_SPLAT,
    C_TUPLE,
    C_PAREN,
    C_PATLIST,
    C_WITH,
    C_IMPORT_FROM,
    C_FUTURE,
    C_TRY,
    C_TYPE_ALIAS,
    C_IDENT,
    C_STRING,
    C_CONCAT,
    C_INTERP,
    C_IMPORT,
    C_CASE,
    C_RAISE,
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
             {"global_statement", C_GLOBAL},
             {"for_statement", C_FOR},
             {"while_statement", C_WHILE},
             {"list_comprehension", C_LISTCOMP},
             {"set_comprehension", C_SETCOMP},
             {"dictionary_comprehension", C_DICTCOMP},
             {"generator_expression", C_GENEXP},
             {"for_in_clause", C_FORIN},
             {"named_expression", C_WALRUS},
             {"delete_statement", C_DELETE},
             {"as_pattern_target", C_ASTARGET},
             {"assignment", C_ASSIGN},
             {"expression_statement", C_EXPRSTMT},
             {"list_splat", C_SPLAT},
             {"list_splat_pattern", C_SPLAT},
             {"tuple", C_TUPLE},
             {"tuple_pattern", C_TUPLE},
             {"parenthesized_expression", C_PAREN},
             {"pattern_list", C_PATLIST},
             {"list_pattern", C_PATLIST},
             {"with_statement", C_WITH},
             {"import_from_statement", C_IMPORT_FROM},
             {"future_import_statement", C_FUTURE},
             {"try_statement", C_TRY},
             {"type_alias_statement", C_TYPE_ALIAS},
             {"identifier", C_IDENT},
             {"string", C_STRING},
             {"concatenated_string", C_CONCAT},
             {"interpolation", C_INTERP},
             {"format_expression", C_INTERP},
             {"import_statement", C_IMPORT},
             {"case_clause", C_CASE},
             {"raise_statement", C_RAISE}};

static unsigned char *kind_of; /* symbol -> C_* */
static uint32_t n_symbols;
static TSFieldId field_body, field_right, field_left, field_type, field_value, field_type_params;
static TSSymbol sym_async, sym_list_splat_pattern, sym_comma;
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
    field_right = ts_language_field_id_for_name(l, "right", 5);
    field_left = ts_language_field_id_for_name(l, "left", 4);
    field_type = ts_language_field_id_for_name(l, "type", 4);
    field_value = ts_language_field_id_for_name(l, "value", 5);
    field_type_params = ts_language_field_id_for_name(l, "type_parameters", 15);
    sym_async = ts_language_symbol_for_name(l, "async", 5, false);
    sym_comma = ts_language_symbol_for_name(l, ",", 1, false);
    sym_list_splat_pattern = ts_language_symbol_for_name(l, "list_splat_pattern", 18, true);
}

/* A compiler refusal's key where it falls in regions compiled late: the region's
 * key, then (within it) its own. Keys fit in 32 bits (a config is at most 8 MiB);
 * one in regions inside regions keeps the two outermost. */
static uint64_t remap(const cc *c, uint64_t key)
{
    uint64_t byte = key >> 8;
    int after = (key & 0xff) < 0x40; /* CC_KEY_AFTER: at a node's end */
    uint64_t k = key;
    int in = 0;
    for (size_t i = c->regions.len; i-- > 0;) {
        const cc_region *r = &c->regions.items[i];
        if (byte < r->start || byte > r->end || (byte == r->end && !after))
            continue;
        k = (r->key << 32) | (in ? k >> 32 : k);
        in = 1;
    }
    return in ? k : key << 32;
}

static int refuse(cc *c, TSPoint at, int stage, uint64_t key, const char *fmt, va_list ap)
{
    if (stage == CC_COMPILER && key != UINT64_MAX)
        key = remap(c, key);
    if (stage < c->stage || (stage == c->stage && key < c->key)) {
        c->stage = stage;
        c->key = key;
        c->at = at;
        vsnprintf(c->why, sizeof(c->why), fmt, ap);
    }
    return stage == CC_PARSER;
}

int cc_refuse(cc *c, TSNode n, int stage, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    /* the compiler goes through the code in order: a refusal found later (an async
     * comprehension once an await shows it one) can be earlier */
    uint64_t key = stage == CC_COMPILER ? CC_KEY_AT(ts_node_start_byte(n)) : UINT64_MAX;
    int r = refuse(c, ts_node_start_point(n), stage, key, fmt, ap);
    va_end(ap);
    return r;
}

int cc_refuse_key(cc *c, TSNode n, int stage, uint64_t key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = refuse(c, ts_node_start_point(n), stage, key, fmt, ap);
    va_end(ap);
    return r;
}

int cc_refuse_at(cc *c, TSPoint at, int stage, uint64_t key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = refuse(c, at, stage, key, fmt, ap);
    va_end(ap);
    return r;
}

const cc_scope *cc_enclosing(const cc *c, size_t from, size_t *at)
{
    for (size_t i = from; i-- > 0;) {
        int k = c->stack.items[i].kind;
        if (k == K_LOOP || k == K_ITER_INNER)
            continue;
        if (k == K_ITER_OUTER) {
            if (i > 0)
                i--; /* its comprehension, which it is evaluated outside of */
            continue;
        }
        if (at)
            *at = i;
        return &c->stack.items[i];
    }
    return NULL;
}

static const cc_scope *current(const cc *c, size_t *at)
{
    return cc_enclosing(c, c->stack.len, at);
}

static int in_loop(const cc *c)
{
    return c->stack.len && c->stack.items[c->stack.len - 1].kind == K_LOOP;
}

static int starts_async(TSNode n)
{
    return ts_node_child_count(n) > 0 && ts_node_symbol(ts_node_child(n, 0)) == sym_async;
}

static int has_comma(TSNode n)
{
    uint32_t k = ts_node_child_count(n);
    for (uint32_t i = 0; i < k; i++)
        if (ts_node_symbol(ts_node_child(n, i)) == sym_comma)
            return 1;
    return 0;
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

/* f(a=1, 2), f(**k, 2), f(**k, *a), f(a=1, a=2), f(a, pass); `f(,)`, a comma and no
 * argument, which tree-sitter takes and CPython's parser stops at */
static int check_args(cc *c, TSNode args)
{
    int keyword = 0, kwsplat = 0;
    int bad = 0;
    uint32_t k = ts_node_named_child_count(args);
    TSNode first = ts_node_child(args, 1);
    for (uint32_t i = 2; !ts_node_is_null(first) && ts_node_is_extra(first); i++)
        first = ts_node_child(args, i); /* a comment */
    if (!ts_node_is_null(first) && !strcmp(ts_node_type(first), ",") &&
        !strcmp(ts_node_type(ts_node_child(args, 0)), "("))
        return cc_refuse(c, first, CC_PARSER, "invalid syntax") && c->stage == CC_PARSER;
    cc_keyword kws[16]; /* the keyword arguments' names: on the heap past 16 */
    VEC(cc_keyword) more = VEC_INIT;
    size_t nkw = 0;
    for (uint32_t i = 0; i < k && !bad; i++) {
        TSNode a = ts_node_named_child(args, i);
        const char *type = ts_node_type(a);
        size_t len;
        const char *text = py_text(c->t, a, &len);
        if (ts_node_is_extra(a)) { /* a comment, a backslash continuation */
            continue;
        } else if (!strcmp(type, "identifier") && is_keyword(text, len)) {
            TSPoint at;
            char why[200];
            if (cc_parse_node(c->t, a, &at, why, sizeof(why))) /* `f(await)`: at the ')' */
                bad = cc_refuse_at(c, at, CC_PARSER, UINT64_MAX, "%s", why);
        } else if (!strcmp(type, "keyword_argument")) {
            keyword = 1;
            cc_keyword kw = {a, NULL, 0};
            kw.s = py_text(c->t, ts_node_child(a, 0), &kw.len); /* its name */
            if (nkw < 16) {
                kws[nkw++] = kw;
            } else {
                if (!more.len)
                    for (size_t j = 0; j < nkw; j++)
                        VEC_PUSH(&more, kws[j]);
                VEC_PUSH(&more, kw);
            }
        } else if (!strcmp(type, "dictionary_splat")) {
            kwsplat = 1;
        } else if (!strcmp(type, "list_splat")) {
            if (kwsplat)
                bad = cc_refuse(c, a, CC_PARSER,
                                "iterable argument unpacking follows keyword argument unpacking");
        } else if (kwsplat || keyword) {
            /* CPython points at the call's closing parenthesis */
            uint32_t n = ts_node_child_count(args);
            bad = cc_refuse(c, n ? ts_node_child(args, n - 1) : args, CC_PARSER,
                            kwsplat ? "positional argument follows keyword argument unpacking"
                                    : "positional argument follows keyword argument");
        }
    }
    if (!bad && nkw)
        cc_debug_keywords(c, args, more.len ? more.items : kws, more.len ? more.len : nkw);
    VEC_FREE(&more);
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

TSNode cc_param_name(TSNode p)
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

/* The parser's rules on the stars of a parameter list: a bare `*` with no named
 * parameter after it, two of them, anything after `**kw`. CPython points at the
 * `*` of a def and at the token after it in a lambda. */
static int check_stars(cc *c, TSNode params, TSNode p, uint32_t i, int *star, int *kwsplat)
{
    p = unwrap_typed(p);
    const char *type = ts_node_type(p);
    int lambda = !strcmp(ts_node_type(params), "lambda_parameters");
    if (*kwsplat)
        return cc_refuse(c, p, CC_PARSER, "arguments cannot follow var-keyword argument");
    if (!strcmp(type, "dictionary_splat_pattern")) {
        *kwsplat = 1;
        return 0;
    }
    int bare = !strcmp(type, "keyword_separator");
    if (!bare && strcmp(type, "list_splat_pattern"))
        return 0;
    if (*star)
        return cc_refuse(c, p, CC_PARSER, "* argument may appear only once");
    *star = 1;
    if (!bare)
        return 0;
    uint32_t k = ts_node_named_child_count(params), j = i + 1;
    while (j < k && ts_node_is_extra(ts_node_named_child(params, j)))
        j++;
    TSNode next = j < k ? unwrap_typed(ts_node_named_child(params, j)) : (TSNode){0};
    if (!ts_node_is_null(next) && strcmp(ts_node_type(next), "dictionary_splat_pattern"))
        return 0;
    TSNode at = p;
    if (lambda)
        at = !ts_node_is_null(next) ? next : ts_node_next_sibling(params); /* the ':' */
    return cc_refuse(c, ts_node_is_null(at) ? p : at, CC_PARSER,
                     "named arguments must follow bare *");
}

/* def f(a, a), def f(x=1, y), def f(*), def f(**k, a) */
static int check_params(cc *c, TSNode params)
{
    int defaults = 0, star = 0, kwsplat = 0, bad = 0;
    strvec names = STRVEC_INIT;
    uint32_t k = ts_node_named_child_count(params);
    for (uint32_t i = 0; i < k && !bad; i++) {
        TSNode p = ts_node_named_child(params, i);
        const char *type = ts_node_type(p);
        if (ts_node_is_extra(p) || !strcmp(type, "positional_separator"))
            continue;
        if ((bad = check_stars(c, params, p, i, &star, &kwsplat)))
            break;
        int has_default =
            !strcmp(type, "default_parameter") || !strcmp(type, "typed_default_parameter");
        if (has_default)
            defaults = 1;
        else if (defaults && !star && !kwsplat &&
                 (!strcmp(type, "identifier") || !strcmp(type, "typed_parameter")))
            bad = cc_refuse(c, p, CC_PARSER, "non-default argument follows default argument");
        TSNode n = cc_param_name(p);
        if (bad || ts_node_is_null(n))
            continue;
        char *name = py_text_dup(c->t, n);
        if (strvec_find(&names, name) >= 0)
            cc_refuse(c, n, CC_SYMTABLE, "duplicate argument '%s' in function definition", name);
        strvec_push_owned(&names, name);
    }
    strvec_free(&names);
    return bad;
}

/* A comprehension awaits (an `await` in it, an `async for` clause, an inner one
 * that awaits): CPython compiles it only in an async function or inside another
 * comprehension (then that one awaits), unless it is a generator expression. */
static void comp_awaits(cc *c, size_t i)
{
    for (;;) {
        cc_scope *s = &c->stack.items[i];
        s->flags |= SF_COROUTINE;
        if (s->flags & SF_GENEXP)
            return;
        const cc_scope *e = cc_enclosing(c, i, &i);
        if (e && e->kind == K_COMP)
            continue;
        if ((!e || e->kind != K_DEF || !(e->flags & SF_ASYNC)) && !(s->flags & SF_REPORTED)) {
            s->flags |= SF_REPORTED;
            cc_refuse(c, s->node, CC_COMPILER,
                      "asynchronous comprehension outside of an asynchronous function");
        }
        return;
    }
}

static const char *comp_name(TSNode comp)
{
    const char *type = ts_node_type(comp);
    if (!strcmp(type, "list_comprehension"))
        return "list comprehension";
    if (!strcmp(type, "set_comprehension"))
        return "set comprehension";
    if (!strcmp(type, "dictionary_comprehension"))
        return "dict comprehension";
    return "generator expression";
}

/* yield: outside a function, inside a comprehension, `yield from` in an async
 * function, and an async function that returned a value before is a generator. */
static void check_yield(cc *c, TSNode n)
{
    size_t i;
    const cc_scope *in = current(c, &i);
    if (in && in->kind == K_COMP) {
        cc_refuse(c, n, CC_SYMTABLE, "'yield' inside %s", comp_name(in->node));
        return;
    }
    if (!in || in->kind == K_CLASS) {
        cc_refuse(c, n, CC_COMPILER, "'yield' outside function");
        return;
    }
    if (in->kind != K_DEF)
        return;
    cc_scope *def = &c->stack.items[i];
    def->flags |= SF_YIELD;
    if (!(def->flags & SF_ASYNC))
        return;
    if (ts_node_child_count(n) > 1 && !strcmp(ts_node_type(ts_node_child(n, 1)), "from"))
        cc_refuse(c, n, CC_COMPILER, "'yield from' inside async function");
    if (!ts_node_is_null(def->ret))
        cc_refuse(c, def->ret, CC_COMPILER, "'return' with value in async generator");
}

static void check_return(cc *c, TSNode n)
{
    size_t i;
    const cc_scope *in = current(c, &i);
    if (!in || in->kind != K_DEF) {
        cc_refuse(c, n, CC_COMPILER, "'return' outside function");
        return;
    }
    cc_scope *def = &c->stack.items[i];
    if (!(def->flags & SF_ASYNC) || ts_node_named_child_count(n) == 0)
        return;
    if (def->flags & SF_YIELD)
        cc_refuse(c, n, CC_COMPILER, "'return' with value in async generator");
    else if (ts_node_is_null(def->ret))
        def->ret = n;
}

static void check_await(cc *c, TSNode n)
{
    size_t i;
    const cc_scope *in = current(c, &i);
    if (in && in->kind == K_COMP)
        comp_awaits(c, i);
    else if (!in || in->kind == K_CLASS)
        cc_refuse(c, n, CC_COMPILER, "'await' outside function");
    else if (in->kind != K_DEF || !(in->flags & SF_ASYNC))
        cc_refuse(c, n, CC_COMPILER, "'await' outside async function");
}

/* A docstring: an expression statement of one str literal (no f-string, no bytes). */
static int is_docstring(const cc *c, TSNode stmt)
{
    if (strcmp(ts_node_type(stmt), "expression_statement") || ts_node_named_child_count(stmt) != 1)
        return 0;
    TSNode e = ts_node_named_child(stmt, 0);
    int concatenated = !strcmp(ts_node_type(e), "concatenated_string");
    uint32_t k = concatenated ? ts_node_named_child_count(e) : 1;
    for (uint32_t i = 0; i < k; i++) {
        TSNode s = concatenated ? ts_node_named_child(e, i) : e;
        if (strcmp(ts_node_type(s), "string") || ts_node_named_child_count(s) == 0)
            return 0;
        size_t len;
        const char *p = py_text(c->t, ts_node_named_child(s, 0), &len); /* string_start */
        for (size_t j = 0; j < len; j++)
            if (strchr("bBfF", p[j]))
                return 0;
    }
    return 1;
}

/* from __future__ import ...: only a docstring and other future imports may come
 * before it (Python/future.c), and only the features Python 3.11 knows. */
static void check_future(cc *c, TSNode stmt, int depth)
{
    static const char *const known[] = {
        "nested_scopes",  "generators",       "division",       "absolute_import", "with_statement",
        "print_function", "unicode_literals", "barry_as_FLUFL", "generator_stop",  "annotations"};
    const char *late = "from __future__ imports must occur at the beginning of the file";
    if (depth != 1) {
        cc_refuse(c, stmt, CC_COMPILER, "%s", late);
        return;
    }
    TSNode module = ts_node_parent(stmt);
    uint32_t k = ts_node_named_child_count(module);
    int first = 1;
    for (uint32_t i = 0; i < k; i++) {
        TSNode s = ts_node_named_child(module, i);
        if (ts_node_start_byte(s) >= ts_node_start_byte(stmt))
            break;
        if (!strcmp(ts_node_type(s), "comment"))
            continue;
        if (!strcmp(ts_node_type(s), "future_import_statement") || (first && is_docstring(c, s))) {
            first = 0;
            continue;
        }
        /* future.c reads on past a statement on the same line only (and gives the
         * column from 0 there) */
        TSPoint at = ts_node_start_point(stmt);
        if (ts_node_start_point(s).row != at.row) {
            cc_refuse(c, stmt, CC_COMPILER, "%s", late);
        } else if (c->stage > CC_FUTURE) {
            cc_refuse(c, stmt, CC_FUTURE, "%s", late);
            c->at.column -= c->at.column > 0;
        }
        return;
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(stmt); i++) {
        TSNode n = ts_node_named_child(stmt, i);
        if (!strcmp(ts_node_type(n), "aliased_import"))
            n = py_field(n, "name");
        if (strcmp(ts_node_type(n), "dotted_name"))
            continue;
        char *name = py_text_dup(c->t, n);
        size_t j = 0;
        while (j < sizeof(known) / sizeof(*known) && strcmp(known[j], name))
            j++;
        if (!strcmp(name, "braces"))
            cc_refuse(c, stmt, CC_FUTURE, "not a chance");
        else if (j == sizeof(known) / sizeof(*known))
            cc_refuse(c, stmt, CC_FUTURE, "future feature %.100s is not defined", name);
        else if (!strcmp(name, "annotations"))
            c->future_annotations = 1;
        free(name);
    }
}

/* try: ... except: ... except E: ... */
static void check_try(cc *c, TSNode n)
{
    TSNode bare = {0};
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode h = ts_node_named_child(n, i);
        if (strcmp(ts_node_type(h), "except_clause"))
            continue;
        if (!ts_node_is_null(bare)) {
            cc_refuse(c, bare, CC_COMPILER, "default 'except:' must be last");
            return;
        }
        if (ts_node_is_null(ts_node_child_by_field_id(h, field_value)))
            bare = h;
    }
}

/* `except E as NAME`: Python takes a name only; it stops at the token after the name
 * the target starts with, or at the target. */
static void check_except_target(cc *c, TSNode target)
{
    TSNode x = ts_node_named_child(target, 0);
    if (ts_node_is_null(x) || !strcmp(ts_node_type(x), "identifier"))
        return;
    TSNode at = x;
    while (ts_node_child_count(at) > 0)
        at = ts_node_child(at, 0);
    if (!strcmp(ts_node_type(at), "identifier")) {
        TSNode next = ts_node_next_sibling(at);
        for (TSNode up = at; ts_node_is_null(next) && !ts_node_eq(up, x);) {
            up = ts_node_parent(up);
            next = ts_node_next_sibling(up);
        }
        while (!ts_node_is_null(next) && ts_node_child_count(next) > 0)
            next = ts_node_child(next, 0);
        if (!ts_node_is_null(next))
            at = next;
    }
    cc_refuse(c, at, CC_PARSER, "invalid syntax");
}

/* One level of the walk: the node and what it is, and the starred targets counted
 * in it (a tuple or list target). */
typedef struct level {
    TSNode node;
    unsigned char kind, stars;
} level;
typedef VEC(level) levels;

/* `x = *a`: CPython compiles an assignment's value before its targets, so this
 * comes before what it refuses in them (`*a = *b` is refused at `*b`). */
static void value_splat(cc *c, TSNode n, const levels *lv, int depth)
{
    int top = depth - 1;
    while (top > 0 && lv->items[top - 1].kind == C_ASSIGN)
        top--;
    cc_refuse_key(c, n, CC_COMPILER, CC_KEY_BEFORE(ts_node_start_byte(lv->items[top].node)),
                  "can't use starred expression here");
}

/* A `*x` (list_splat, list_splat_pattern) in its parent. */
static int check_splat(cc *c, TSNode n, levels *lv, int depth)
{
    level *up = &lv->items[depth - 1];
    int pattern = ts_node_symbol(n) == sym_list_splat_pattern;
    const char *here = "can't use starred expression here";
    switch (up->kind) {
    case C_PAREN:
        return cc_refuse(c, n, CC_PARSER, "cannot use starred expression here");
    case C_TUPLE:
        if (ts_node_named_child_count(up->node) == 1 && !has_comma(up->node))
            return cc_refuse(c, n, CC_PARSER, "cannot use starred expression here");
        /* fall through */
    case C_PATLIST:
        if (pattern && ++up->stars == 2)
            cc_refuse(c, up->node, CC_COMPILER, "multiple starred expressions in assignment");
        return 0;
    case C_LISTCOMP:
    case C_SETCOMP:
    case C_GENEXP:
        return cc_refuse(c, n, CC_PARSER, "iterable unpacking cannot be used in comprehension");
    case C_FORIN:
        if (!pattern)
            return cc_refuse(c, n, CC_PARSER, "invalid syntax");
        /* fall through */
    case C_ASSIGN:
    case C_FOR:
        if (pattern)
            cc_refuse(c, n, CC_COMPILER, "starred assignment target must be in a list or tuple");
        else if (up->kind == C_ASSIGN)
            value_splat(c, n, lv, depth);
        else
            cc_refuse(c, n, CC_COMPILER, "%s", here);
        return 0;
    case C_EXPRSTMT: /* `*a, b` is a tuple */
        if (!has_comma(up->node))
            cc_refuse(c, n, CC_COMPILER, "%s", here);
        return 0;
    case C_AUGMENTED:
    case C_RETURN:
    case C_YIELD:
        cc_refuse(c, n, CC_COMPILER, "%s", here);
        return 0;
    default:
        return 0;
    }
}

/* `[a]: int`, `(a, b): int`, `a, b: int`: the parser takes one target only, a
 * parenthesised one as itself (invalid_ann_assign_target); `*a: int` stops at the
 * colon. */
static void check_annotated(cc *c, TSNode n)
{
    TSNode left = ts_node_child_by_field_id(n, field_left);
    if (ts_node_symbol(left) == sym_list_splat_pattern) {
        TSNode colon = ts_node_next_sibling(left);
        cc_refuse(c, ts_node_is_null(colon) ? left : colon, CC_PARSER, "invalid syntax");
        return;
    }
    for (;;) {
        const char *type = ts_node_type(left);
        int tuple = !strcmp(type, "tuple_pattern") || !strcmp(type, "tuple");
        if (tuple && ts_node_named_child_count(left) == 1 && !has_comma(left)) {
            left = ts_node_named_child(left, 0);
        } else if (tuple || !strcmp(type, "pattern_list")) {
            cc_refuse(c, left, CC_PARSER, "only single target (not tuple) can be annotated");
            return;
        } else if (!strcmp(type, "list_pattern") || !strcmp(type, "list")) {
            cc_refuse(c, left, CC_PARSER, "only single target (not list) can be annotated");
            return;
        } else {
            return;
        }
    }
}

/* An annotated assignment: its target, and after a global or nonlocal declaration
 * of its name. */
/* The first child of n of type `type` (a token), or n. */
static TSNode token_in(TSNode n, const char *type)
{
    for (uint32_t i = 0; i < ts_node_child_count(n); i++)
        if (!strcmp(ts_node_type(ts_node_child(n, i)), type))
            return ts_node_child(n, i);
    return n;
}

/* `x = y: int`, `x += y: int`: tree-sitter takes an annotated assignment as the
 * value of another (its chained assignments nest), CPython's parser stops at the
 * colon. */
static int annotated_value(cc *c, TSNode n, const level *up)
{
    if (!up || (up->kind != C_ASSIGN && up->kind != C_AUGMENTED) ||
        !ts_node_eq(ts_node_child_by_field_id(up->node, field_right), n))
        return 0;
    return cc_refuse(c, token_in(n, ":"), CC_PARSER, "invalid syntax");
}

/* `raise E, v`: Python 2's form, a tuple tree-sitter takes unparenthesised; CPython's
 * parser stops at the comma. */
static int check_raise(cc *c, TSNode n)
{
    TSNode v = ts_node_named_child(n, 0);
    if (ts_node_is_null(v) || strcmp(ts_node_type(v), "expression_list"))
        return 0;
    return cc_refuse(c, token_in(v, ","), CC_PARSER, "invalid syntax");
}

static void check_assign(cc *c, TSNode n)
{
    if (ts_node_is_null(ts_node_child_by_field_id(n, field_type)))
        return;
    check_annotated(c, n);
    if (c->dirs.len)
        cc_annotated(c, n);
}

/* (a, b) += 1, [a] += 1; `(a) += 1` is a's */
static int check_augmented(cc *c, TSNode n)
{
    TSNode left = ts_node_child_by_field_id(n, field_left);
    for (;;) {
        const char *type = ts_node_type(left);
        int group = (!strcmp(type, "tuple") || !strcmp(type, "tuple_pattern") ||
                     !strcmp(type, "parenthesized_expression")) &&
                    ts_node_named_child_count(left) == 1 && !has_comma(left);
        if (group) {
            left = ts_node_named_child(left, 0);
        } else if (!strcmp(type, "pattern_list") || !strcmp(type, "tuple") ||
                   !strcmp(type, "tuple_pattern")) {
            return cc_refuse(c, left, CC_PARSER,
                             "'tuple' is an illegal expression for augmented assignment");
        } else if (!strcmp(type, "list") || !strcmp(type, "list_pattern")) {
            return cc_refuse(c, left, CC_PARSER,
                             "'list' is an illegal expression for augmented assignment");
        } else {
            return 0;
        }
    }
}

/* The parser's refusal of one node (config_parse.c): a string's checks read the
 * literals it is concatenated with and its f-strings' expressions. */
static int check_parse(cc *c, TSNode n, const levels *lv, int depth)
{
    if (depth > 0 && lv->items[depth - 1].kind == C_CONCAT)
        return 0;
    if (lv->items[depth].kind == C_IDENT) {
        size_t len;
        const char *text = py_text(c->t, n, &len);
        if (!cc_is_keyword(text, len)) /* most names: nothing more to read */
            return 0;
    }
    for (int i = depth - 1; i >= 0; i--)
        if (lv->items[i].kind == C_INTERP)
            return 0;
    TSPoint at;
    char why[200];
    return cc_parse_node(c->t, n, &at, why, sizeof(why)) &&
           cc_refuse_at(c, at, CC_PARSER, UINT64_MAX, "%s", why);
}

static int check_one(cc *c, int kind, TSNode n, levels *lv, int depth)
{
    level *up = depth > 0 ? &lv->items[depth - 1] : NULL;
    switch (kind) {
    case C_IDENT:
    case C_STRING:
    case C_CONCAT:
        return check_parse(c, n, lv, depth);
    case C_FORIN:
        if (check_parse(c, n, lv, depth))
            return 1;
        cc_debug_comp_clause(c, n);
        return 0;
    case C_DEF:
    case C_LAMBDA:
    case C_CLASS:
        cc_debug_def(c, n);
        return 0;
    case C_IMPORT:
        cc_debug_import(c, n);
        return 0;
    case C_CASE:
        cc_debug_case(c, n);
        return 0;
    case C_RAISE:
        return check_raise(c, n) && c->stage == CC_PARSER;
    case C_RETURN:
        check_return(c, n);
        return 0;
    case C_YIELD:
        check_yield(c, n);
        return 0;
    case C_AWAIT:
        check_await(c, n);
        return 0;
    case C_BREAK:
        return !in_loop(c) && cc_refuse(c, n, CC_COMPILER, "'break' outside loop");
    case C_CONTINUE:
        return !in_loop(c) && cc_refuse(c, n, CC_COMPILER, "'continue' not properly in loop");
    case C_ARGS:
        return check_args(c, n);
    case C_PARAMS:
        return check_params(c, n);
    case C_AUGMENTED:
        if (up && up->kind == C_ASSIGN) /* `x = y += 1`: CPython stops at the `+=` */
            return cc_refuse(c, ts_node_child(n, 1), CC_PARSER, "invalid syntax");
        cc_debug_augmented(c, n);
        return check_augmented(c, n);
    case C_NONLOCAL:
    case C_GLOBAL:
        cc_directive_stmt(c, n, kind == C_GLOBAL);
        return 0;
    case C_WALRUS:
        if (check_parse(c, n, lv, depth)) /* `return y := 1` */
            return 1;
        cc_walrus(c, n);
        cc_debug_walrus(c, n);
        return 0;
    case C_DELETE:
        cc_delete(c, n);
        cc_debug_delete(c, n);
        return c->stage == CC_PARSER;
    case C_ASTARGET: {
        TSNode p = depth > 1 ? lv->items[depth - 2].node : n;
        if (!strcmp(ts_node_type(p), "except_clause") ||
            !strcmp(ts_node_type(p), "except_group_clause")) {
            check_except_target(c, n);
            cc_debug_except(c, n, p);
        } else {
            cc_with_target(c, n);
            cc_debug_with_target(c, n);
        }
        return c->stage == CC_PARSER;
    }
    case C_ASSIGN:
        if (!ts_node_is_null(ts_node_child_by_field_id(n, field_type)) && annotated_value(c, n, up))
            return c->stage == CC_PARSER;
        check_assign(c, n);
        cc_debug_assign(c, n);
        return 0;
    case C_SPLAT:
        return up && check_splat(c, n, lv, depth);
    case C_FOR:
    case C_WITH:
        if (kind == C_FOR)
            cc_debug_for(c, n);
        if (starts_async(n)) {
            const cc_scope *in = current(c, NULL);
            if (!in || in->kind != K_DEF || !(in->flags & SF_ASYNC))
                cc_refuse(c, n, CC_COMPILER, "'async %s' outside async function",
                          kind == C_FOR ? "for" : "with");
        }
        return 0;
    case C_IMPORT_FROM:
        cc_debug_import(c, n);
        if (current(c, NULL))
            for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
                if (!strcmp(ts_node_type(ts_node_named_child(n, i)), "wildcard_import"))
                    cc_refuse(c, ts_node_named_child(n, i), CC_SYMTABLE,
                              "import * only allowed at module level");
        return 0;
    case C_FUTURE:
        check_future(c, n, depth);
        return 0;
    case C_TRY:
        check_try(c, n);
        return 0;
    case C_TYPE_ALIAS: { /* Python 3.12's `type X = int`: CPython 3.11 stops at X */
        TSNode left = ts_node_named_child(n, 0), name = ts_node_named_child(left, 0);
        /* tree-sitter reads `type(x).y = 1` as one too */
        if (!ts_node_is_null(name) && (!strcmp(ts_node_type(name), "identifier") ||
                                       !strcmp(ts_node_type(name), "generic_type")))
            return cc_refuse(c, left, CC_PARSER, "invalid syntax");
        return 0;
    }
    default:
        return 0;
    }
}

static void push(cc *c, int depth, int kind, int flags, TSNode node)
{
    cc_scope s = {.depth = depth,
                  .kind = (unsigned char)kind,
                  .flags = (unsigned char)flags,
                  .node = node,
                  .dirs_at = (uint32_t)c->dirs.len};
    VEC_PUSH(&c->stack, s);
}

/* The scopes, loop bodies and iterables that begin at the node the cursor is on,
 * whose parent is `up`. */
static void enter(cc *c, TSTreeCursor *cur, TSNode n, const level *up, int kind, int depth)
{
    if (kind >= C_LISTCOMP && kind <= C_GENEXP)
        push(c, depth, K_COMP, kind == C_GENEXP ? SF_GENEXP : 0, n);
    if (!up)
        return;
    switch (up->kind) {
    case C_DEF:
    case C_LAMBDA:
    case C_CLASS: {
        TSFieldId field = ts_tree_cursor_current_field_id(cur);
        if (field == field_body)
            push(c, depth,
                 up->kind == C_DEF      ? K_DEF
                 : up->kind == C_LAMBDA ? K_LAMBDA
                                        : K_CLASS,
                 up->kind == C_DEF && starts_async(up->node) ? SF_ASYNC : 0, up->node);
        else if (field == field_type_params) /* Python 3.12's `def f[T]()` */
            cc_refuse(c, n, CC_PARSER, up->kind == C_DEF ? "expected '('" : "invalid syntax");
        return;
    }
    case C_FOR:
    case C_WHILE:
        if (ts_tree_cursor_current_field_id(cur) == field_body)
            push(c, depth, K_LOOP, 0, n);
        return;
    case C_FORIN:
        if (ts_tree_cursor_current_field_id(cur) == field_right && c->stack.len > 0) {
            /* the comprehension is on top: its clauses are its children */
            const cc_scope *comp = &c->stack.items[c->stack.len - 1];
            push(c, depth, comp->clauses <= 1 ? K_ITER_OUTER : K_ITER_INNER, 0, n);
        }
        return;
    default:
        return;
    }
}

/* A comprehension's `for ... in` clause: the comprehension is on top of the stack. */
static void for_in_clause(cc *c, TSNode n)
{
    if (!c->stack.len || c->stack.items[c->stack.len - 1].kind != K_COMP)
        return;
    cc_scope *comp = &c->stack.items[c->stack.len - 1];
    if (comp->clauses < UINT16_MAX)
        comp->clauses++;
    if (starts_async(n))
        comp_awaits(c, c->stack.len - 1);
    if (comp->clauses > 1)
        cc_comp_clause(c, n);
}

static void region(cc *c, TSNode n, uint64_t key, int depth)
{
    if (ts_node_is_null(n))
        return;
    cc_region r = {ts_node_start_byte(n), ts_node_end_byte(n), key, depth};
    VEC_PUSH(&c->regions, r);
}

/* The regions of a class or a comprehension at `depth` (cc_region): after the
 * class's keywords (config_debug.c) and before its name, its bases; after its last
 * clause, a comprehension's element, then its first iterable. */
static void regions(cc *c, TSNode n, int kind, int depth)
{
    uint64_t end = ts_node_end_byte(n);
    if (kind == C_CLASS) {
        region(c, ts_node_child_by_field_name(n, "superclasses", 12), CC_KEY_AFTER(end, depth + 1),
               depth);
        return;
    }
    region(c, ts_node_child_by_field_id(n, field_body), CC_KEY_AFTER(end, depth + 2), depth);
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode clause = ts_node_named_child(n, i);
        if (ts_node_symbol(clause) < n_symbols && kind_of[ts_node_symbol(clause)] == C_FORIN) {
            region(c, ts_node_child_by_field_id(clause, field_right), CC_KEY_AFTER(end, depth + 1),
                   depth);
            return;
        }
    }
}

/* Leaves the scopes that began at this depth or deeper; their declarations go. */
static void leave(cc *c, int depth)
{
    while (c->regions.len && c->regions.items[c->regions.len - 1].depth >= depth)
        c->regions.len--;
    while (c->stack.len && c->stack.items[c->stack.len - 1].depth >= depth) {
        const cc_scope *s = &c->stack.items[--c->stack.len];
        if (s->kind != K_LOOP && s->kind != K_ITER_OUTER && s->kind != K_ITER_INNER)
            c->dirs.len = s->dirs_at;
    }
}

int ce_check_compile(const py_tree *t)
{
    pthread_once(&kinds_once, kinds_init);
    cc c = {.t = t, .stage = CC_NONE};
    TSTreeCursor cur = ts_tree_cursor_new(py_root(t));
    int depth = 0;
    levels lv = VEC_INIT; /* the node at each depth */
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&cur);
        TSSymbol sym = ts_node_symbol(n);
        int kind = sym < n_symbols ? kind_of[sym] : C_NONE;
        lv.len = (size_t)depth;
        level l = {n, (unsigned char)kind, 0};
        VEC_PUSH(&lv, l);
        level *up = depth > 0 ? &lv.items[depth - 1] : NULL;
        if (kind != C_NONE || (up && up->kind != C_NONE))
            enter(&c, &cur, n, up, kind, depth);
        if (kind == C_FORIN)
            for_in_clause(&c, n);
        if (kind == C_CLASS || (kind >= C_LISTCOMP && kind <= C_GENEXP))
            regions(&c, n, kind, depth);
        if (kind != C_NONE && check_one(&c, kind, n, &lv, depth))
            break;
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
        leave(&c, depth);
    }
done:
    ts_tree_cursor_delete(&cur);
    VEC_FREE(&lv);
    VEC_FREE(&c.stack);
    VEC_FREE(&c.dirs);
    VEC_FREE(&c.regions);
    if (c.stage == CC_NONE)
        return 0;
    return pgci_error_set(PGCI_EINVALID, "%s:%u:%u: syntax error: %s", t->path, c.at.row + 1,
                          c.at.column + 1, c.why);
}
