/*
 * scope_walk.c - the tree walk that builds the names check's semantic model: every
 * binding and read of a Python module, visited in the order ruff's checker visits
 * them, so that each read is resolved against the scopes as they are at that point.
 *
 * Module and class bodies are visited in place. Function and lambda bodies, string
 * annotations, annotations under `from __future__ import annotations` and
 * type-parameter bounds are queued and visited after the module, with a snapshot of
 * the state they were queued in (scope, branch, flags), as ruff defers them.
 *
 * Positions are byte offsets into the module source ("absolute"); names inside a
 * string annotation are parsed from the string's content by a second tree-sitter
 * parse, and an `nm_src` maps that tree's offsets back to the module.
 */
#include "py/scope_model.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "core/vec.h"
#include "py/py.h"

typedef scope_ctx ctx;

/* ---- node types and fields, resolved once from the grammar ------------------------- */

enum nt {
    NT_OTHER,
    NT_IDENTIFIER,
    NT_BLOCK,
    NT_EXPR_STMT,
    NT_ASSIGNMENT,
    NT_AUG_ASSIGNMENT,
    NT_IMPORT,
    NT_IMPORT_FROM,
    NT_FUTURE_IMPORT,
    NT_ALIASED_IMPORT,
    NT_DOTTED_NAME,
    NT_RELATIVE_IMPORT,
    NT_IMPORT_PREFIX,
    NT_WILDCARD_IMPORT,
    NT_FUNCDEF,
    NT_CLASSDEF,
    NT_DECORATED,
    NT_DECORATOR,
    NT_DEFAULT_PARAM,
    NT_TYPED_PARAM,
    NT_TYPED_DEFAULT_PARAM,
    NT_LIST_SPLAT_PATTERN,
    NT_DICT_SPLAT_PATTERN,
    NT_TYPE_PARAMETER,
    NT_TYPE,
    NT_GENERIC_TYPE,
    NT_MEMBER_TYPE,
    NT_CONSTRAINED_TYPE,
    NT_SPLAT_TYPE,
    NT_TYPE_ALIAS,
    NT_IF,
    NT_ELIF,
    NT_ELSE,
    NT_FOR,
    NT_WHILE,
    NT_TRY,
    NT_EXCEPT,
    NT_EXCEPT_GROUP,
    NT_FINALLY,
    NT_WITH,
    NT_WITH_CLAUSE,
    NT_WITH_ITEM,
    NT_AS_PATTERN,
    NT_AS_PATTERN_TARGET,
    NT_MATCH,
    NT_CASE_CLAUSE,
    NT_CASE_PATTERN,
    NT_CLASS_PATTERN,
    NT_KEYWORD_PATTERN,
    NT_SPLAT_PATTERN,
    NT_DICT_PATTERN,
    NT_DELETE,
    NT_GLOBAL,
    NT_NONLOCAL,
    NT_ATTRIBUTE,
    NT_CALL,
    NT_ARGUMENT_LIST,
    NT_KEYWORD_ARGUMENT,
    NT_SUBSCRIPT,
    NT_STRING,
    NT_CONCAT_STRING,
    NT_STRING_START,
    NT_STRING_CONTENT,
    NT_STRING_END,
    NT_ESCAPE,
    NT_INTERPOLATION,
    NT_LAMBDA,
    NT_LISTCOMP,
    NT_SETCOMP,
    NT_DICTCOMP,
    NT_GENEXP,
    NT_FOR_IN_CLAUSE,
    NT_IF_CLAUSE,
    NT_NAMED_EXPR,
    NT_CONDITIONAL,
    NT_PATTERN_LIST,
    NT_TUPLE_PATTERN,
    NT_LIST_PATTERN,
    NT_TUPLE,
    NT_LIST,
    NT_EXPR_LIST,
    NT_PAREN_EXPR,
    NT_LIST_SPLAT,
    NT_DICT_SPLAT,
    NT_PAIR,
    NT_BINARY_OPERATOR,
    NT_UNION_PATTERN,
    NT_BOOLEAN_OPERATOR,
    NT_COUNT
};

static const char *const nt_names[NT_COUNT] = {
    [NT_IDENTIFIER] = "identifier",
    [NT_BLOCK] = "block",
    [NT_EXPR_STMT] = "expression_statement",
    [NT_ASSIGNMENT] = "assignment",
    [NT_AUG_ASSIGNMENT] = "augmented_assignment",
    [NT_IMPORT] = "import_statement",
    [NT_IMPORT_FROM] = "import_from_statement",
    [NT_FUTURE_IMPORT] = "future_import_statement",
    [NT_ALIASED_IMPORT] = "aliased_import",
    [NT_DOTTED_NAME] = "dotted_name",
    [NT_RELATIVE_IMPORT] = "relative_import",
    [NT_IMPORT_PREFIX] = "import_prefix",
    [NT_WILDCARD_IMPORT] = "wildcard_import",
    [NT_FUNCDEF] = "function_definition",
    [NT_CLASSDEF] = "class_definition",
    [NT_DECORATED] = "decorated_definition",
    [NT_DECORATOR] = "decorator",
    [NT_DEFAULT_PARAM] = "default_parameter",
    [NT_TYPED_PARAM] = "typed_parameter",
    [NT_TYPED_DEFAULT_PARAM] = "typed_default_parameter",
    [NT_LIST_SPLAT_PATTERN] = "list_splat_pattern",
    [NT_DICT_SPLAT_PATTERN] = "dictionary_splat_pattern",
    [NT_TYPE_PARAMETER] = "type_parameter",
    [NT_TYPE] = "type",
    [NT_GENERIC_TYPE] = "generic_type",
    [NT_MEMBER_TYPE] = "member_type",
    [NT_CONSTRAINED_TYPE] = "constrained_type",
    [NT_SPLAT_TYPE] = "splat_type",
    [NT_TYPE_ALIAS] = "type_alias_statement",
    [NT_IF] = "if_statement",
    [NT_ELIF] = "elif_clause",
    [NT_ELSE] = "else_clause",
    [NT_FOR] = "for_statement",
    [NT_WHILE] = "while_statement",
    [NT_TRY] = "try_statement",
    [NT_EXCEPT] = "except_clause",
    [NT_EXCEPT_GROUP] = "except_group_clause",
    [NT_FINALLY] = "finally_clause",
    [NT_WITH] = "with_statement",
    [NT_WITH_CLAUSE] = "with_clause",
    [NT_WITH_ITEM] = "with_item",
    [NT_AS_PATTERN] = "as_pattern",
    [NT_AS_PATTERN_TARGET] = "as_pattern_target",
    [NT_MATCH] = "match_statement",
    [NT_CASE_CLAUSE] = "case_clause",
    [NT_CASE_PATTERN] = "case_pattern",
    [NT_CLASS_PATTERN] = "class_pattern",
    [NT_KEYWORD_PATTERN] = "keyword_pattern",
    [NT_SPLAT_PATTERN] = "splat_pattern",
    [NT_DICT_PATTERN] = "dict_pattern",
    [NT_DELETE] = "delete_statement",
    [NT_GLOBAL] = "global_statement",
    [NT_NONLOCAL] = "nonlocal_statement",
    [NT_ATTRIBUTE] = "attribute",
    [NT_CALL] = "call",
    [NT_ARGUMENT_LIST] = "argument_list",
    [NT_KEYWORD_ARGUMENT] = "keyword_argument",
    [NT_SUBSCRIPT] = "subscript",
    [NT_STRING] = "string",
    [NT_CONCAT_STRING] = "concatenated_string",
    [NT_STRING_START] = "string_start",
    [NT_STRING_CONTENT] = "string_content",
    [NT_STRING_END] = "string_end",
    [NT_ESCAPE] = "escape_sequence",
    [NT_INTERPOLATION] = "interpolation",
    [NT_LAMBDA] = "lambda",
    [NT_LISTCOMP] = "list_comprehension",
    [NT_SETCOMP] = "set_comprehension",
    [NT_DICTCOMP] = "dictionary_comprehension",
    [NT_GENEXP] = "generator_expression",
    [NT_FOR_IN_CLAUSE] = "for_in_clause",
    [NT_IF_CLAUSE] = "if_clause",
    [NT_NAMED_EXPR] = "named_expression",
    [NT_CONDITIONAL] = "conditional_expression",
    [NT_PATTERN_LIST] = "pattern_list",
    [NT_TUPLE_PATTERN] = "tuple_pattern",
    [NT_LIST_PATTERN] = "list_pattern",
    [NT_TUPLE] = "tuple",
    [NT_LIST] = "list",
    [NT_EXPR_LIST] = "expression_list",
    [NT_PAREN_EXPR] = "parenthesized_expression",
    [NT_LIST_SPLAT] = "list_splat",
    [NT_DICT_SPLAT] = "dictionary_splat",
    [NT_PAIR] = "pair",
    [NT_BINARY_OPERATOR] = "binary_operator",
    [NT_UNION_PATTERN] = "union_pattern",
    [NT_BOOLEAN_OPERATOR] = "boolean_operator",
};

enum fld {
    F_NAME,
    F_ALIAS,
    F_VALUE,
    F_BODY,
    F_PARAMETERS,
    F_TYPE_PARAMETERS,
    F_SUPERCLASSES,
    F_RETURN_TYPE,
    F_TYPE,
    F_LEFT,
    F_RIGHT,
    F_CONDITION,
    F_CONSEQUENCE,
    F_ALTERNATIVE,
    F_SUBJECT,
    F_GUARD,
    F_FUNCTION,
    F_ARGUMENTS,
    F_OBJECT,
    F_SUBSCRIPT,
    F_KEY,
    F_MODULE_NAME,
    F_DEFINITION,
    F_EXPRESSION,
    F_ATTRIBUTE,
    F_COUNT
};

static const char *const fld_names[F_COUNT] = {
    "name",         "alias",       "value",   "body",        "parameters", "type_parameters",
    "superclasses", "return_type", "type",    "left",        "right",      "condition",
    "consequence",  "alternative", "subject", "guard",       "function",   "arguments",
    "object",       "subscript",   "key",     "module_name", "definition", "expression",
    "attribute",
};

static uint8_t *sym_nt; /* TSSymbol -> enum nt */
static uint32_t sym_count;
static TSFieldId fld_id[F_COUNT];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void tables_build(void)
{
    const TSLanguage *lang = tree_sitter_python();
    sym_count = ts_language_symbol_count(lang);
    sym_nt = pgci_calloc(sym_count, 1);
    for (uint32_t s = 0; s < sym_count; s++) {
        if (ts_language_symbol_type(lang, (TSSymbol)s) != TSSymbolTypeRegular)
            continue;
        const char *name = ts_language_symbol_name(lang, (TSSymbol)s);
        for (int k = 1; k < NT_COUNT; k++)
            if (nt_names[k] && !strcmp(nt_names[k], name)) {
                sym_nt[s] = (uint8_t)k;
                break;
            }
    }
    for (int f = 0; f < F_COUNT; f++)
        fld_id[f] =
            ts_language_field_id_for_name(lang, fld_names[f], (uint32_t)strlen(fld_names[f]));
}

static enum nt nt_of(TSNode n)
{
    if (ts_node_is_null(n))
        return NT_OTHER;
    TSSymbol s = ts_node_symbol(n);
    return s < sym_count ? (enum nt)sym_nt[s] : NT_OTHER;
}

static TSNode fld(TSNode n, enum fld f)
{
    return ts_node_child_by_field_id(n, fld_id[f]);
}

/* Iterates the named, non-extra (comment) children of a node with a cursor: indexing
 * children one by one is quadratic on long blocks and literals. */
typedef struct kid_it {
    TSTreeCursor c;
    int started, done;
} kid_it;

static void kit_init(kid_it *it, TSNode n)
{
    it->c = ts_tree_cursor_new(n);
    it->started = 0;
    it->done = 0;
}

static int kit_next(kid_it *it, TSNode *out, TSFieldId *field)
{
    while (!it->done) {
        int ok = it->started ? ts_tree_cursor_goto_next_sibling(&it->c)
                             : ts_tree_cursor_goto_first_child(&it->c);
        it->started = 1;
        if (!ok) {
            it->done = 1;
            break;
        }
        TSNode n = ts_tree_cursor_current_node(&it->c);
        if (!ts_node_is_named(n) || ts_node_is_extra(n))
            continue;
        *out = n;
        if (field)
            *field = ts_tree_cursor_current_field_id(&it->c);
        return 1;
    }
    return 0;
}

static void kit_done(kid_it *it)
{
    ts_tree_cursor_delete(&it->c);
}

static TSNode first_named(TSNode n)
{
    kid_it it;
    TSNode k, r = {{0}, NULL, NULL};
    kit_init(&it, n);
    if (kit_next(&it, &k, NULL))
        r = k;
    kit_done(&it);
    return r;
}

/* ---- source text and positions ---------------------------------------------------------- */

/* A node's bytes, in the text the node indexes (the module or a string annotation). */
static const char *ntext(const ctx *c, TSNode n, size_t *len)
{
    uint32_t a = ts_node_start_byte(n), z = ts_node_end_byte(n);
    *len = z >= a ? z - a : 0;
    return c->cur.src->text + a;
}

static const char *ndup(ctx *c, TSNode n)
{
    size_t len;
    const char *s = ntext(c, n, &len);
    return arena_strndup(&c->ar, s, len);
}

static int neq(const ctx *c, TSNode n, const char *s)
{
    size_t len;
    const char *p = ntext(c, n, &len);
    return strlen(s) == len && memcmp(p, s, len) == 0;
}

static uint32_t abs_start(const ctx *c, TSNode n)
{
    const nm_src *src = c->cur.src;
    return src->complex ? src->cx_start : (uint32_t)((long)ts_node_start_byte(n) + src->delta);
}

static uint32_t abs_end(const ctx *c, TSNode n)
{
    const nm_src *src = c->cur.src;
    return src->complex ? src->cx_end : (uint32_t)((long)ts_node_end_byte(n) + src->delta);
}

/* ---- qualified names (what a name or attribute chain refers to) ------------------------- */

/* "typing.Optional" for `Optional` after `from typing import Optional`, and for
 * `typing.Optional` after `import typing`; "builtins.dict" for `dict`. NULL when the
 * expression is not a name or attribute chain, or its head is neither an import nor
 * a builtin (ruff also resolves module-local classes by module path, which can never
 * name a typing construct). */
static const char *qualified_name(ctx *c, TSNode e)
{
    TSNode tail[32];
    int n = 0;
    while (nt_of(e) == NT_ATTRIBUTE) {
        if (n == 32)
            return NULL;
        tail[n++] = fld(e, F_ATTRIBUTE);
        e = fld(e, F_OBJECT);
    }
    if (nt_of(e) != NT_IDENTIFIER)
        return NULL;
    const char *head = ndup(c, e);
    int id = scope_lookup(c, head);
    if (id < 0)
        return NULL;
    const binding *b = &c->b.items[id];
    strbuf sb = STRBUF_INIT;
    switch (b->kind) {
    case BK_IMPORT:
    case BK_FROM_IMPORT:
        if (!b->qual || b->qual[0] == '.')
            goto none;
        strbuf_adds(&sb, b->qual);
        break;
    case BK_SUBMODULE:
        strbuf_add(&sb, b->qual, strcspn(b->qual, "."));
        break;
    case BK_BUILTIN:
        strbuf_adds(&sb, "builtins.");
        strbuf_adds(&sb, head);
        break;
    default:
        goto none;
    }
    for (int i = n - 1; i >= 0; i--) {
        size_t len;
        const char *p = ntext(c, tail[i], &len);
        strbuf_addc(&sb, '.');
        strbuf_add(&sb, p, len);
    }
    const char *r = arena_strndup(&c->ar, sb.buf, sb.len);
    strbuf_free(&sb);
    return r;
none:
    strbuf_free(&sb);
    return NULL;
}

/* typing.X, typing_extensions.X or _typeshed.X (ruff's match_typing_qualified_name). */
static int is_typing(const char *q, const char *member)
{
    if (!q)
        return 0;
    const char *dot = strrchr(q, '.');
    if (!dot || strcmp(dot + 1, member))
        return 0;
    size_t m = (size_t)(dot - q);
    return (m == 6 && !memcmp(q, "typing", 6)) ||
           (m == 17 && !memcmp(q, "typing_extensions", 17)) ||
           (m == 9 && !memcmp(q, "_typeshed", 9));
}

static int in_list(const char *q, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(q, *list))
            return 1;
    return 0;
}

/* ruff's is_standard_library_generic: subscripts whose slice is a type expression. */
static int is_std_generic(const char *q)
{
    static const char *const list[] = {"builtins.dict",
                                       "builtins.frozenset",
                                       "builtins.list",
                                       "builtins.set",
                                       "builtins.tuple",
                                       "builtins.type",
                                       "collections.ChainMap",
                                       "typing.ChainMap",
                                       "typing_extensions.ChainMap",
                                       "collections.Counter",
                                       "typing.Counter",
                                       "typing_extensions.Counter",
                                       "collections.OrderedDict",
                                       "typing.OrderedDict",
                                       "collections.defaultdict",
                                       "collections.deque",
                                       "contextlib.AbstractAsyncContextManager",
                                       "contextlib.AbstractContextManager",
                                       "re.Match",
                                       "re.Pattern",
                                       "typing.Match",
                                       "typing.Pattern",
                                       "typing.io.BinaryIO",
                                       "typing.io.IO",
                                       "typing.io.TextIO",
                                       "typing.re.Match",
                                       "typing.re.Pattern",
                                       "weakref.WeakKeyDictionary",
                                       "weakref.WeakSet",
                                       "weakref.WeakValueDictionary",
                                       NULL};
    static const char *const abc[] = {"AsyncGenerator", "AsyncIterable",
                                      "AsyncIterator",  "Awaitable",
                                      "ByteString",     "Callable",
                                      "Collection",     "Container",
                                      "Coroutine",      "Generator",
                                      "ItemsView",      "Iterable",
                                      "Iterator",       "KeysView",
                                      "Mapping",        "MappingView",
                                      "MutableMapping", "MutableSequence",
                                      "MutableSet",     "Reversible",
                                      "Sequence",       "Set",
                                      "ValuesView",     NULL};
    static const char *const typing[] = {"AbstractSet",
                                         "AsyncContextManager",
                                         "AsyncGenerator",
                                         "AsyncIterator",
                                         "Awaitable",
                                         "BinaryIO",
                                         "ByteString",
                                         "Callable",
                                         "ClassVar",
                                         "Collection",
                                         "Concatenate",
                                         "Container",
                                         "ContextManager",
                                         "Coroutine",
                                         "DefaultDict",
                                         "Deque",
                                         "Dict",
                                         "Final",
                                         "FrozenSet",
                                         "Generator",
                                         "Generic",
                                         "IO",
                                         "ItemsView",
                                         "Iterable",
                                         "Iterator",
                                         "KeysView",
                                         "List",
                                         "Mapping",
                                         "MutableMapping",
                                         "MutableSequence",
                                         "MutableSet",
                                         "Optional",
                                         "Reversible",
                                         "Sequence",
                                         "Set",
                                         "TextIO",
                                         "Tuple",
                                         "Type",
                                         "TypeGuard",
                                         "Union",
                                         "Unpack",
                                         "ValuesView",
                                         NULL};
    static const char *const ext[] = {"AsyncContextManager",
                                      "AsyncGenerator",
                                      "AsyncIterable",
                                      "AsyncIterator",
                                      "Awaitable",
                                      "ClassVar",
                                      "Concatenate",
                                      "ContextManager",
                                      "Coroutine",
                                      "DefaultDict",
                                      "Deque",
                                      "Type",
                                      NULL};
    if (!q)
        return 0;
    if (in_list(q, list))
        return 1;
    if (pgci_starts_with(q, "collections.abc.") && !strchr(q + 16, '.'))
        return in_list(q + 16, abc);
    if (pgci_starts_with(q, "typing.") && !strchr(q + 7, '.'))
        return in_list(q + 7, typing);
    if (pgci_starts_with(q, "typing_extensions.") && !strchr(q + 18, '.'))
        return in_list(q + 18, ext);
    return 0;
}

static int is_typing_strict(const char *q, const char *member)
{
    /* typing / typing_extensions only (ruff's Literal, Annotated, TypedDict checks) */
    return is_typing(q, member) && !pgci_starts_with(q, "_typeshed");
}

/* ---- the walk -------------------------------------------------------------------------- */

static void visit_expr(ctx *c, TSNode n);
static void visit_body(ctx *c, TSNode block);
static void visit_stmt(ctx *c, TSNode n);

/* Nesting guard: deeper trees are refused (scope_analyze fails with PGCI_ELIMIT)
 * rather than overflowing the stack or giving a partial answer. */
static int enter(ctx *c)
{
    if (++c->depth <= SCOPE_MAX_DEPTH)
        return 1;
    c->too_deep = 1;
    return 0;
}

static void leave(ctx *c)
{
    c->depth--;
}

static void visit_with_flags(ctx *c, TSNode n, unsigned set, unsigned clear)
{
    unsigned saved = c->cur.flags;
    c->cur.flags = (c->cur.flags | set) & ~clear;
    visit_expr(c, n);
    c->cur.flags = saved;
}

static void visit_type_def(ctx *c, TSNode n)
{
    visit_with_flags(c, n, FL_TYPE_DEF, 0);
}

static void visit_non_type_def(ctx *c, TSNode n)
{
    visit_with_flags(c, n, 0, FL_TYPE_DEF);
}

/* An annotation (parameter, return or variable): a type definition evaluated now,
 * or deferred to the end of the module under `from __future__ import annotations`. */
static void visit_annotation(ctx *c, TSNode n)
{
    visit_with_flags(c, n, FL_TYPE_DEF | FL_ANNOTATION, 0);
}

static void defer(ctx *c, deferred_vec *q, TSNode n)
{
    deferred d = {n, c->cur};
    VEC_PUSH(q, d);
}

/* A load of an identifier node. */
static void load_name(ctx *c, TSNode id)
{
    scope_load(c, ndup(c, id), abs_start(c, id), abs_end(c, id));
}

/* The names exported by an `__all__ = [...]` value (string literals in lists, tuples
 * and `+` concatenations), for marking module bindings used. */
static void collect_exports(ctx *c, TSNode v, name_vec *out)
{
    switch (nt_of(v)) {
    case NT_LIST:
    case NT_TUPLE:
    case NT_PAREN_EXPR:
    case NT_BINARY_OPERATOR:
    case NT_EXPR_LIST: {
        kid_it it;
        TSNode k;
        kit_init(&it, v);
        while (kit_next(&it, &k, NULL))
            collect_exports(c, k, out);
        kit_done(&it);
        break;
    }
    case NT_STRING: {
        kid_it it;
        TSNode k;
        kit_init(&it, v);
        while (kit_next(&it, &k, NULL))
            if (nt_of(k) == NT_STRING_CONTENT)
                VEC_PUSH(out, ndup(c, k));
        kit_done(&it);
        break;
    }
    default:
        break;
    }
}

/* ruff's handle_node_store: binds a stored name according to the statement it is in. */
static void store_name(ctx *c, TSNode id)
{
    const char *name = ndup(c, id);
    uint32_t a = abs_start(c, id), z = abs_end(c, id);
    enum bkind k = BK_ASSIGNMENT;
    if (c->cur.stmt == ST_ALL && c->s.items[c->cur.scope].kind == SK_MODULE) {
        int b = scope_bind(c, name, a, z, BK_EXPORT, 0, c->cur.branch);
        name_vec names = VEC_INIT;
        if (!ts_node_is_null(c->all_value))
            collect_exports(c, c->all_value, &names);
        c->b.items[b].nexports = names.len;
        c->b.items[b].exports = arena_alloc(&c->ar, (names.len + 1) * sizeof(char *));
        if (names.len)
            memcpy(c->b.items[b].exports, names.items, names.len * sizeof(char *));
        VEC_FREE(&names);
        return;
    }
    if (c->cur.flags & FL_NAMED_EXPR)
        k = BK_NAMED_EXPR;
    else if (c->cur.stmt == ST_ANN_NOVALUE && !(c->cur.flags & FL_ANNOTATION))
        k = BK_ANNOTATION;
    else if (c->cur.stmt == ST_FOR)
        k = BK_LOOP_VAR;
    else if (c->cur.stmt == ST_WITH)
        k = BK_WITH_VAR;
    scope_bind(c, name, a, z, k, 0, c->cur.branch);
}

/* ruff's handle_node_delete. */
static void delete_name(ctx *c, TSNode id)
{
    const char *name = ndup(c, id);
    uint32_t a = abs_start(c, id), z = abs_end(c, id);
    int b = scope_get(c, c->cur.scope, name);
    if (b < 0) {
        scope_unresolved(c, name, a, z, 0);
    } else {
        c->b.items[b].refs++;
        if (scope_is_unbound(&c->b.items[b]))
            scope_unresolved(c, name, a, z, 0);
    }
    if (c->cur.cond)
        return; /* a conditional `del` may not run: the name stays bound */
    int d = scope_binding_new(c, BK_DELETION, name, a, z, c->cur.scope, c->cur.branch);
    scope_add(c, c->cur.scope, name, d);
}

enum target_ctx { TG_STORE, TG_DEL };

/* An assignment, for, with or del target. */
static void visit_target(ctx *c, TSNode n, enum target_ctx tc)
{
    if (!enter(c))
        goto out;
    switch (nt_of(n)) {
    case NT_IDENTIFIER:
        if (tc == TG_STORE)
            store_name(c, n);
        else
            delete_name(c, n);
        break;
    case NT_ATTRIBUTE:
        visit_expr(c, fld(n, F_OBJECT));
        break;
    case NT_SUBSCRIPT: {
        unsigned saved = c->cur.flags;
        c->cur.flags |= FL_SUBSCRIPT;
        kid_it it;
        TSNode k;
        kit_init(&it, n);
        while (kit_next(&it, &k, NULL))
            visit_expr(c, k);
        kit_done(&it);
        c->cur.flags = saved;
        break;
    }
    case NT_PATTERN_LIST:
    case NT_TUPLE_PATTERN:
    case NT_LIST_PATTERN:
    case NT_TUPLE:
    case NT_LIST:
    case NT_EXPR_LIST:
    case NT_PAREN_EXPR:
    case NT_LIST_SPLAT_PATTERN:
    case NT_LIST_SPLAT:
    case NT_AS_PATTERN_TARGET: {
        kid_it it;
        TSNode k;
        kit_init(&it, n);
        while (kit_next(&it, &k, NULL))
            visit_target(c, k, tc);
        kit_done(&it);
        break;
    }
    default:
        visit_expr(c, n);
        break;
    }
out:
    leave(c);
}

/* The type-parameter list `[T: Bound, *Ts, **P]` of a def, class or type alias:
 * binds each name in the current (type) scope; bounds are deferred. */
static void visit_type_params(ctx *c, TSNode tp)
{
    kid_it it;
    TSNode k;
    kit_init(&it, tp);
    while (kit_next(&it, &k, NULL)) {
        TSNode inner = nt_of(k) == NT_TYPE ? first_named(k) : k;
        TSNode name = inner, bound = {{0}, NULL, NULL};
        if (nt_of(inner) == NT_CONSTRAINED_TYPE) {
            TSNode a = first_named(inner);
            name = nt_of(a) == NT_TYPE ? first_named(a) : a;
            bound = ts_node_next_named_sibling(a);
        } else if (nt_of(inner) == NT_SPLAT_TYPE) {
            name = first_named(inner);
        }
        if (nt_of(name) == NT_IDENTIFIER)
            scope_bind(c, ndup(c, name), abs_start(c, name), abs_end(c, name), BK_TYPE_PARAM, 0,
                       c->cur.branch);
        if (!ts_node_is_null(bound))
            defer(c, &c->q_typeparams, bound);
    }
    kit_done(&it);
}

/* The identifier a parameter node binds, or a null node. */
static TSNode param_name(TSNode p)
{
    switch (nt_of(p)) {
    case NT_IDENTIFIER:
        return p;
    case NT_DEFAULT_PARAM:
    case NT_TYPED_DEFAULT_PARAM:
        return fld(p, F_NAME);
    case NT_TYPED_PARAM:
    case NT_LIST_SPLAT_PATTERN:
    case NT_DICT_SPLAT_PATTERN: {
        TSNode k = first_named(p);
        if (nt_of(k) == NT_LIST_SPLAT_PATTERN || nt_of(k) == NT_DICT_SPLAT_PATTERN)
            k = first_named(k);
        return nt_of(k) == NT_IDENTIFIER ? k : (TSNode){{0}, NULL, NULL};
    }
    default:
        return (TSNode){{0}, NULL, NULL};
    }
}

/* Default values of a def or lambda, evaluated where the def is. */
static void visit_defaults(ctx *c, TSNode params)
{
    if (ts_node_is_null(params))
        return;
    kid_it it;
    TSNode k;
    kit_init(&it, params);
    while (kit_next(&it, &k, NULL))
        if (nt_of(k) == NT_DEFAULT_PARAM || nt_of(k) == NT_TYPED_DEFAULT_PARAM)
            visit_expr(c, fld(k, F_VALUE));
    kit_done(&it);
}

/* Binds the parameters when a deferred def or lambda body is visited. */
static void bind_params(ctx *c, TSNode params)
{
    if (ts_node_is_null(params))
        return;
    kid_it it;
    TSNode k;
    kit_init(&it, params);
    while (kit_next(&it, &k, NULL)) {
        TSNode id = param_name(k);
        if (!ts_node_is_null(id))
            scope_bind(c, ndup(c, id), abs_start(c, id), abs_end(c, id), BK_ARGUMENT, 0,
                       c->cur.branch);
    }
    kit_done(&it);
}

/* A comprehension: the first iterable in the enclosing scope, the rest in its own. */
static void visit_comprehension(ctx *c, TSNode n)
{
    kid_it it;
    TSNode k;
    int first = 1;
    kit_init(&it, n);
    while (kit_next(&it, &k, NULL)) {
        if (nt_of(k) == NT_FOR_IN_CLAUSE) {
            kid_it it2;
            TSNode r;
            TSFieldId f;
            kit_init(&it2, k);
            while (kit_next(&it2, &r, &f))
                if (f == fld_id[F_RIGHT])
                    visit_expr(c, r);
            kit_done(&it2);
            if (first) {
                scope_push(c, SK_GENERATOR);
                first = 0;
            }
            visit_target(c, fld(k, F_LEFT), TG_STORE);
        } else if (nt_of(k) == NT_IF_CLAUSE) {
            visit_expr(c, first_named(k));
        }
    }
    kit_done(&it);
    if (first)
        scope_push(c, SK_GENERATOR); /* malformed; keep push/pop balanced */
    TSNode body = fld(n, F_BODY);
    if (nt_of(body) == NT_PAIR) {
        visit_expr(c, fld(body, F_KEY));
        visit_expr(c, fld(body, F_VALUE));
    } else if (!ts_node_is_null(body)) {
        visit_expr(c, body);
    }
    scope_pop(c);
}

/* A string literal (no f/t/b prefix) - the only strings ruff parses as annotations. */
static int is_plain_string(ctx *c, TSNode n)
{
    if (nt_of(n) == NT_CONCAT_STRING) {
        kid_it it;
        TSNode k;
        int ok = 1;
        kit_init(&it, n);
        while (ok && kit_next(&it, &k, NULL))
            ok = nt_of(k) == NT_STRING && is_plain_string(c, k);
        kit_done(&it);
        return ok;
    }
    TSNode st = ts_node_child(n, 0);
    if (nt_of(st) != NT_STRING_START)
        return 0;
    size_t len;
    const char *p = ntext(c, st, &len);
    for (size_t i = 0; i < len; i++)
        if (strchr("fFbBtT", p[i]))
            return 0;
    return 1;
}

/* The `subscript` slice nodes of a subscript or generic_type (heap-allocated: this
 * runs at every nesting level, so stack frames stay small). */
static void slice_of(TSNode n, node_vec *out)
{
    kid_it it;
    TSNode k;
    TSFieldId f;
    kit_init(&it, n);
    if (nt_of(n) == NT_GENERIC_TYPE) {
        /* (generic_type (identifier) (type_parameter (type ...) ...)) */
        while (kit_next(&it, &k, NULL))
            if (nt_of(k) == NT_TYPE_PARAMETER) {
                kid_it it2;
                TSNode t2;
                kit_init(&it2, k);
                while (kit_next(&it2, &t2, NULL))
                    VEC_PUSH(out, t2);
                kit_done(&it2);
            }
    } else {
        while (kit_next(&it, &k, &f))
            if (f == fld_id[F_SUBSCRIPT])
                VEC_PUSH(out, k);
    }
    kit_done(&it);
}

/* Unwraps (type X) to X. */
static TSNode untype(TSNode n)
{
    while (nt_of(n) == NT_TYPE) {
        TSNode k = first_named(n);
        if (ts_node_is_null(k))
            break;
        n = k;
    }
    return n;
}

/* ruff's subscript handling: Literal[...] strings are values, Optional["X"] and the
 * other standard generics make their slice a type definition, Annotated[T, ...] only
 * its first element. */
static void visit_subscript_slice(ctx *c, TSNode value, const node_vec *sl);

static void visit_subscript(ctx *c, TSNode n, TSNode value)
{
    node_vec sl = VEC_INIT;
    slice_of(n, &sl);
    visit_subscript_slice(c, value, &sl);
    VEC_FREE(&sl);
}

static void visit_subscript_slice(ctx *c, TSNode value, const node_vec *sl)
{
    const TSNode *items = sl->items;
    int n = (int)sl->len;
    if (c->cur.flags & FL_SUBSCRIPT) {
        visit_expr(c, value);
        for (int i = 0; i < n; i++)
            visit_expr(c, items[i]);
        return;
    }
    visit_expr(c, value);
    const char *q = qualified_name(c, untype(value));
    if (q && is_typing_strict(q, "Literal")) {
        unsigned saved = c->cur.flags;
        c->cur.flags |= FL_LITERAL;
        for (int i = 0; i < n; i++)
            visit_expr(c, items[i]);
        c->cur.flags = saved;
    } else if (q && is_std_generic(q)) {
        for (int i = 0; i < n; i++)
            visit_type_def(c, items[i]);
    } else if (q && is_typing_strict(q, "Annotated")) {
        TSNode one = n == 1 ? untype(items[0]) : (TSNode){{0}, NULL, NULL};
        if (n > 1) {
            visit_type_def(c, items[0]);
            for (int i = 1; i < n; i++)
                visit_non_type_def(c, items[i]);
        } else if (nt_of(one) == NT_TUPLE) {
            kid_it it;
            TSNode k;
            int i = 0;
            kit_init(&it, one);
            while (kit_next(&it, &k, NULL))
                (i++ == 0 ? visit_type_def : visit_non_type_def)(c, k);
            kit_done(&it);
        } else {
            for (int i = 0; i < n; i++)
                visit_expr(c, items[i]);
        }
    } else if (q && is_typing_strict(q, "TypedDict")) {
        TSNode one = n == 1 ? untype(items[0]) : (TSNode){{0}, NULL, NULL};
        if (n == 1 && !strcmp(ts_node_type(one), "dictionary")) {
            kid_it it;
            TSNode k;
            kit_init(&it, one);
            while (kit_next(&it, &k, NULL)) {
                if (nt_of(k) == NT_PAIR) {
                    visit_non_type_def(c, fld(k, F_KEY));
                    visit_type_def(c, fld(k, F_VALUE));
                } else {
                    visit_non_type_def(c, k);
                }
            }
            kit_done(&it);
        } else {
            for (int i = 0; i < n; i++)
                visit_non_type_def(c, items[i]);
        }
    } else {
        for (int i = 0; i < n; i++)
            visit_expr(c, items[i]);
    }
}

/* A call's arguments split into positional and keyword (name, value) lists; name is a
 * null node for **kwargs. */
typedef struct call_args {
    node_vec pos, kwname, kwval;
} call_args;

static void call_args_of(TSNode args, call_args *a)
{
    memset(a, 0, sizeof(*a));
    kid_it it;
    TSNode k;
    kit_init(&it, args);
    while (kit_next(&it, &k, NULL)) {
        if (nt_of(k) == NT_KEYWORD_ARGUMENT) {
            VEC_PUSH(&a->kwname, fld(k, F_NAME));
            VEC_PUSH(&a->kwval, fld(k, F_VALUE));
        } else if (nt_of(k) == NT_DICT_SPLAT) {
            VEC_PUSH(&a->kwname, ((TSNode){{0}, NULL, NULL}));
            VEC_PUSH(&a->kwval, first_named(k));
        } else {
            VEC_PUSH(&a->pos, k);
        }
    }
    kit_done(&it);
}

static void call_args_free(call_args *a)
{
    VEC_FREE(&a->pos);
    VEC_FREE(&a->kwname);
    VEC_FREE(&a->kwval);
}

static int kw_is(ctx *c, TSNode name, const char *s)
{
    return !ts_node_is_null(name) && neq(c, name, s);
}

/* ruff's call handling: the type arguments of cast, TypeVar, NewType, NamedTuple,
 * TypedDict and TypeAliasType are type definitions (their strings are annotations);
 * every other call's arguments are not. */
/* NamedTuple("N", [("f", T), ...]) or NamedTuple("N", f=T): the field types are
 * type definitions. */
static void visit_namedtuple_args(ctx *c, const call_args *a)
{
    for (int i = 0; i < (int)a->pos.len; i++) {
        enum nt t = nt_of(a->pos.items[i]);
        if (i == 0 || (t != NT_LIST && t != NT_TUPLE)) {
            visit_non_type_def(c, a->pos.items[i]);
            continue;
        }
        kid_it it;
        TSNode e;
        kit_init(&it, a->pos.items[i]);
        while (kit_next(&it, &e, NULL)) {
            enum nt et = nt_of(e);
            if ((et == NT_LIST || et == NT_TUPLE) && ts_node_named_child_count(e) == 2) {
                visit_non_type_def(c, ts_node_named_child(e, 0));
                visit_type_def(c, ts_node_named_child(e, 1));
            } else {
                visit_non_type_def(c, e);
            }
        }
        kit_done(&it);
    }
    for (int i = 0; i < (int)a->kwval.len; i++) {
        if (ts_node_is_null(a->kwname.items[i]) &&
            !strcmp(ts_node_type(a->kwval.items[i]), "dictionary")) {
            kid_it it;
            TSNode p;
            kit_init(&it, a->kwval.items[i]);
            while (kit_next(&it, &p, NULL)) {
                if (nt_of(p) == NT_PAIR) {
                    visit_non_type_def(c, fld(p, F_KEY));
                    visit_type_def(c, fld(p, F_VALUE));
                } else {
                    visit_non_type_def(c, p);
                }
            }
            kit_done(&it);
        } else if (ts_node_is_null(a->kwname.items[i])) {
            visit_non_type_def(c, a->kwval.items[i]);
        } else {
            visit_type_def(c, a->kwval.items[i]);
        }
    }
}

/* TypedDict("N", {"f": T}) or TypedDict("N", f=T): the value types are type
 * definitions. */
static void visit_typeddict_args(ctx *c, const call_args *a)
{
    for (int i = 0; i < (int)a->pos.len; i++) {
        if (i > 0 && !strcmp(ts_node_type(a->pos.items[i]), "dictionary")) {
            kid_it it;
            TSNode p;
            kit_init(&it, a->pos.items[i]);
            while (kit_next(&it, &p, NULL)) {
                if (nt_of(p) == NT_PAIR) {
                    visit_non_type_def(c, fld(p, F_KEY));
                    visit_type_def(c, fld(p, F_VALUE));
                } else {
                    visit_type_def(c, p);
                }
            }
            kit_done(&it);
        } else {
            visit_non_type_def(c, a->pos.items[i]);
        }
    }
    for (int i = 0; i < (int)a->kwval.len; i++)
        visit_type_def(c, a->kwval.items[i]);
}

static void visit_call(ctx *c, TSNode n)
{
    TSNode func = fld(n, F_FUNCTION), args = fld(n, F_ARGUMENTS);
    visit_expr(c, func);
    if (ts_node_is_null(args))
        return;
    if (nt_of(args) != NT_ARGUMENT_LIST) { /* f(x for x in y) */
        visit_non_type_def(c, args);
        return;
    }
    call_args a;
    call_args_of(args, &a);
    const char *q = qualified_name(c, func);
    if (q && is_typing(q, "cast")) {
        /* source order: the first positional or typ= is the type */
        kid_it it;
        TSNode k;
        int i = 0;
        kit_init(&it, args);
        while (kit_next(&it, &k, NULL)) {
            if (nt_of(k) == NT_KEYWORD_ARGUMENT) {
                if (kw_is(c, fld(k, F_NAME), "typ"))
                    visit_type_def(c, fld(k, F_VALUE));
                else
                    visit_non_type_def(c, fld(k, F_VALUE));
            } else if (nt_of(k) != NT_DICT_SPLAT) {
                (i == 0 ? visit_type_def : visit_non_type_def)(c, k);
            }
            i++;
        }
        kit_done(&it);
    } else if (q && (is_typing(q, "NewType") || is_typing(q, "TypeAliasType"))) {
        int alias = is_typing(q, "TypeAliasType");
        kid_it it;
        TSNode k;
        int i = 0;
        kit_init(&it, args);
        while (kit_next(&it, &k, NULL)) {
            if (nt_of(k) == NT_KEYWORD_ARGUMENT) {
                TSNode kn = fld(k, F_NAME);
                int ty = alias ? (kw_is(c, kn, "value") || kw_is(c, kn, "type_params"))
                               : kw_is(c, kn, "tp");
                (ty ? visit_type_def : visit_non_type_def)(c, fld(k, F_VALUE));
            } else if (nt_of(k) != NT_DICT_SPLAT) {
                (i == 1 ? visit_type_def : visit_non_type_def)(c, k);
            }
            i++;
        }
        kit_done(&it);
    } else if (q && is_typing(q, "TypeVar")) {
        for (int i = 0; i < (int)a.pos.len; i++)
            (i == 0 ? visit_non_type_def : visit_type_def)(c, a.pos.items[i]);
        for (int i = 0; i < (int)a.kwval.len; i++)
            if (!ts_node_is_null(a.kwname.items[i]))
                (kw_is(c, a.kwname.items[i], "bound") || kw_is(c, a.kwname.items[i], "default")
                     ? visit_type_def
                     : visit_non_type_def)(c, a.kwval.items[i]);
    } else if (q && is_typing(q, "NamedTuple")) {
        visit_namedtuple_args(c, &a);
    } else if (q && is_typing(q, "TypedDict")) {
        visit_typeddict_args(c, &a);
    } else {
        for (int i = 0; i < (int)a.pos.len; i++)
            visit_non_type_def(c, a.pos.items[i]);
        for (int i = 0; i < (int)a.kwval.len; i++)
            visit_non_type_def(c, a.kwval.items[i]);
    }
    call_args_free(&a);
}

static void visit_kids(ctx *c, TSNode n)
{
    kid_it it;
    TSNode k;
    kit_init(&it, n);
    while (kit_next(&it, &k, NULL))
        visit_expr(c, k);
    kit_done(&it);
}

/* f-string replacement fields: their expressions are ordinary loads. */
static void visit_string_parts(ctx *c, TSNode n)
{
    kid_it it;
    TSNode k;
    kit_init(&it, n);
    while (kit_next(&it, &k, NULL)) {
        enum nt t = nt_of(k);
        if (t == NT_STRING)
            visit_string_parts(c, k);
        else if (t == NT_INTERPOLATION)
            visit_kids(c, k);
    }
    kit_done(&it);
}

/* `a + b + c + ...` is a left-leaning tree as deep as it is long; walk its left spine
 * with a loop so that long generated expressions do not exhaust the stack. Operands
 * are visited left to right, as a recursive walk would. */
static void visit_operator_chain(ctx *c, TSNode n)
{
    node_vec spine = VEC_INIT;
    enum nt t = nt_of(n);
    TSNode left = n;
    while (nt_of(left) == t) {
        VEC_PUSH(&spine, left);
        left = fld(left, F_LEFT);
    }
    visit_expr(c, left);
    for (size_t i = spine.len; i-- > 0;)
        visit_expr(c, fld(spine.items[i], F_RIGHT));
    VEC_FREE(&spine);
}

static void visit_expr_inner(ctx *c, TSNode n)
{
    enum nt t = nt_of(n);
    unsigned f = c->cur.flags;
    if (!(f & FL_LITERAL) && !(f & FL_DEFERRED) && (f & FL_TYPE_DEF) && c->future_annotations &&
        (f & FL_ANNOTATION)) {
        /* PEP 563: the annotation is a string at runtime; resolve it at the end */
        if ((t == NT_STRING || t == NT_CONCAT_STRING) && is_plain_string(c, n))
            defer(c, &c->q_strings, n);
        else if (t == NT_TYPE)
            visit_expr_inner(c, untype(n)); /* defer the expression, not its wrapper */
        else
            defer(c, &c->q_futures, n);
        return;
    }
    switch (t) {
    case NT_IDENTIFIER:
        load_name(c, n);
        break;
    case NT_TYPE:
        visit_kids(c, n);
        break;
    case NT_ATTRIBUTE:
        visit_expr(c, fld(n, F_OBJECT));
        break;
    case NT_MEMBER_TYPE:
        visit_expr(c, first_named(n));
        break;
    case NT_CALL:
        visit_call(c, n);
        break;
    case NT_SUBSCRIPT:
        visit_subscript(c, n, fld(n, F_VALUE));
        break;
    case NT_GENERIC_TYPE:
        visit_subscript(c, n, first_named(n));
        break;
    case NT_KEYWORD_ARGUMENT:
        visit_expr(c, fld(n, F_VALUE));
        break;
    case NT_STRING:
    case NT_CONCAT_STRING:
        if (is_plain_string(c, n)) {
            if ((f & FL_TYPE_DEF) && !(f & FL_LITERAL))
                defer(c, &c->q_strings, n);
        } else {
            visit_string_parts(c, n);
        }
        break;
    case NT_LAMBDA: {
        visit_defaults(c, fld(n, F_PARAMETERS));
        scope_push(c, SK_LAMBDA);
        defer(c, &c->q_lambdas, n);
        scope_pop(c);
        break;
    }
    case NT_LISTCOMP:
    case NT_SETCOMP:
    case NT_DICTCOMP:
    case NT_GENEXP:
        visit_comprehension(c, n);
        break;
    case NT_NAMED_EXPR: {
        visit_expr(c, fld(n, F_VALUE));
        unsigned saved = c->cur.flags;
        c->cur.flags |= FL_NAMED_EXPR;
        visit_target(c, fld(n, F_NAME), TG_STORE);
        c->cur.flags = saved;
        break;
    }
    case NT_CONDITIONAL: {
        /* ruff visits the test first: `body if test else orelse` */
        TSNode body = ts_node_named_child(n, 0);
        TSNode test = ts_node_next_named_sibling(body);
        visit_expr(c, test);
        visit_expr(c, body);
        kid_it it;
        TSNode k;
        int i = 0;
        kit_init(&it, n);
        while (kit_next(&it, &k, NULL))
            if (i++ >= 2)
                visit_expr(c, k);
        kit_done(&it);
        break;
    }
    case NT_PAIR:
        visit_expr(c, fld(n, F_KEY));
        visit_expr(c, fld(n, F_VALUE));
        break;
    case NT_BINARY_OPERATOR:
    case NT_BOOLEAN_OPERATOR:
        visit_operator_chain(c, n);
        break;
    default:
        visit_kids(c, n);
        break;
    }
}

static void visit_expr(ctx *c, TSNode n)
{
    if (ts_node_is_null(n) || ts_node_is_extra(n))
        return;
    if (enter(c))
        visit_expr_inner(c, n);
    leave(c);
}

/* ---- patterns (match statements) ------------------------------------------------------ */

static void bind_capture(ctx *c, TSNode id)
{
    if (nt_of(id) != NT_IDENTIFIER || neq(c, id, "_"))
        return;
    scope_bind(c, ndup(c, id), abs_start(c, id), abs_end(c, id), BK_ASSIGNMENT, 0, c->cur.branch);
}

/* `a.b.c` in a pattern is a value (a load of `a`); a single name captures. */
static void visit_dotted_pattern(ctx *c, TSNode d, int capture)
{
    TSNode first = first_named(d);
    if (capture && ts_node_named_child_count(d) == 1)
        bind_capture(c, first);
    else if (!ts_node_is_null(first))
        load_name(c, first);
}

static void visit_pattern(ctx *c, TSNode p)
{
    if (!enter(c))
        goto out;
    kid_it it;
    TSNode k;
    TSFieldId f;
    switch (nt_of(p)) {
    case NT_DOTTED_NAME:
        visit_dotted_pattern(c, p, 1);
        break;
    case NT_IDENTIFIER:
        bind_capture(c, p);
        break;
    case NT_SPLAT_PATTERN:
        bind_capture(c, first_named(p));
        break;
    case NT_AS_PATTERN: {
        /* (as_pattern PATTERN identifier): the name is bound before the pattern is walked */
        TSNode last = ts_node_named_child(p, ts_node_named_child_count(p) - 1);
        bind_capture(c, last);
        kit_init(&it, p);
        while (kit_next(&it, &k, NULL))
            if (!ts_node_eq(k, last))
                visit_pattern(c, k);
        kit_done(&it);
        break;
    }
    case NT_CLASS_PATTERN: {
        int first = 1;
        kit_init(&it, p);
        while (kit_next(&it, &k, NULL)) {
            if (first && nt_of(k) == NT_DOTTED_NAME)
                visit_dotted_pattern(c, k, 0);
            else
                visit_pattern(c, k);
            first = 0;
        }
        kit_done(&it);
        break;
    }
    case NT_KEYWORD_PATTERN: {
        int first = 1;
        kit_init(&it, p);
        while (kit_next(&it, &k, NULL)) {
            if (!first)
                visit_pattern(c, k);
            first = 0;
        }
        kit_done(&it);
        break;
    }
    case NT_DICT_PATTERN:
        kit_init(&it, p);
        while (kit_next(&it, &k, &f)) {
            if (f == fld_id[F_KEY]) {
                if (nt_of(k) == NT_DOTTED_NAME)
                    visit_dotted_pattern(c, k, 0);
                else
                    visit_expr(c, k);
            } else {
                visit_pattern(c, k);
            }
        }
        kit_done(&it);
        break;
    case NT_STRING:
    case NT_CONCAT_STRING:
        break;
    default:
        kit_init(&it, p);
        while (kit_next(&it, &k, NULL))
            visit_pattern(c, k);
        kit_done(&it);
        break;
    }
out:
    leave(c);
}

/* ---- statements ----------------------------------------------------------------------- */

/* Joins the identifiers of a dotted_name with '.' (ignoring layout and comments). */
static const char *dotted(ctx *c, TSNode d)
{
    if (nt_of(d) == NT_IDENTIFIER)
        return ndup(c, d);
    strbuf sb = STRBUF_INIT;
    kid_it it;
    TSNode k;
    kit_init(&it, d);
    while (kit_next(&it, &k, NULL)) {
        size_t len;
        const char *p = ntext(c, k, &len);
        if (sb.len)
            strbuf_addc(&sb, '.');
        strbuf_add(&sb, p, len);
    }
    kit_done(&it);
    const char *r = arena_strndup(&c->ar, sb.buf, sb.len);
    strbuf_free(&sb);
    return r;
}

static void note_module(ctx *c, const char *mod)
{
    size_t n = strcspn(mod, ".");
    if ((n == 6 && !memcmp(mod, "typing", 6)) ||
        (n == 17 && !memcmp(mod, "typing_extensions", 17)) ||
        (n == 9 && !memcmp(mod, "_typeshed", 9)))
        c->seen_typing = 1;
}

static void visit_import(ctx *c, TSNode n)
{
    kid_it it;
    TSNode k;
    TSFieldId f;
    kit_init(&it, n);
    while (kit_next(&it, &k, &f)) {
        if (f != fld_id[F_NAME])
            continue;
        TSNode dn = k, alias = {{0}, NULL, NULL};
        if (nt_of(k) == NT_ALIASED_IMPORT) {
            dn = fld(k, F_NAME);
            alias = fld(k, F_ALIAS);
        }
        const char *qual = dotted(c, dn);
        note_module(c, qual);
        if (ts_node_is_null(alias) && strchr(qual, '.')) {
            const char *head = arena_strndup(&c->ar, qual, strcspn(qual, "."));
            int b = scope_bind(c, head, abs_start(c, dn), abs_end(c, dn), BK_SUBMODULE, 0,
                               c->cur.branch);
            c->b.items[b].qual = qual;
        } else {
            TSNode at = ts_node_is_null(alias) ? dn : alias;
            const char *name = ts_node_is_null(alias) ? qual : ndup(c, alias);
            unsigned fl = !ts_node_is_null(alias) && !strcmp(name, qual) ? BF_EXPLICIT_EXPORT : 0;
            int b =
                scope_bind(c, name, abs_start(c, at), abs_end(c, at), BK_IMPORT, fl, c->cur.branch);
            c->b.items[b].qual = qual;
        }
    }
    kit_done(&it);
}

static void visit_import_from(ctx *c, TSNode n, int future)
{
    TSNode mod = fld(n, F_MODULE_NAME);
    int level = 0;
    const char *modname = "";
    if (nt_of(mod) == NT_RELATIVE_IMPORT) {
        kid_it it;
        TSNode k;
        kit_init(&it, mod);
        while (kit_next(&it, &k, NULL)) {
            if (nt_of(k) == NT_IMPORT_PREFIX) {
                size_t len;
                const char *p = ntext(c, k, &len);
                for (size_t i = 0; i < len; i++)
                    level += p[i] == '.';
            } else if (nt_of(k) == NT_DOTTED_NAME) {
                modname = dotted(c, k);
            }
        }
        kit_done(&it);
    } else if (!ts_node_is_null(mod)) {
        modname = dotted(c, mod);
    }
    if (future)
        modname = "__future__";
    if (level == 0)
        note_module(c, modname);
    kid_it it;
    TSNode k;
    TSFieldId f;
    kit_init(&it, n);
    while (kit_next(&it, &k, &f)) {
        if (nt_of(k) == NT_WILDCARD_IMPORT) {
            c->s.items[c->cur.scope].star = 1;
            continue;
        }
        if (f != fld_id[F_NAME])
            continue;
        TSNode dn = k, alias = {{0}, NULL, NULL};
        if (nt_of(k) == NT_ALIASED_IMPORT) {
            dn = fld(k, F_NAME);
            alias = fld(k, F_ALIAS);
        }
        const char *member = dotted(c, dn);
        TSNode at = ts_node_is_null(alias) ? dn : alias;
        const char *name = ts_node_is_null(alias) ? member : ndup(c, alias);
        if (future) {
            if (!strcmp(member, "annotations"))
                c->future_annotations = 1;
            int b = scope_bind(c, name, abs_start(c, at), abs_end(c, at), BK_FUTURE_IMPORT, 0,
                               c->cur.branch);
            c->b.items[b].from_stmt = 1;
            c->b.items[b].stmt_start = abs_start(c, n);
            continue;
        }
        unsigned fl = !ts_node_is_null(alias) && !strcmp(name, member) ? BF_EXPLICIT_EXPORT : 0;
        int b = scope_bind(c, name, abs_start(c, at), abs_end(c, at), BK_FROM_IMPORT, fl,
                           c->cur.branch);
        c->b.items[b].from_stmt = 1;
        c->b.items[b].stmt_start = abs_start(c, n);
        strbuf sb = STRBUF_INIT;
        strbuf_addrep(&sb, ".", (size_t)level);
        if (modname[0]) {
            strbuf_adds(&sb, modname);
            strbuf_addc(&sb, '.');
        }
        strbuf_adds(&sb, member);
        c->b.items[b].qual = arena_strndup(&c->ar, sb.buf, sb.len);
        strbuf_free(&sb);
    }
    kit_done(&it);
}

static void collect_globals(ctx *c, TSNode n, name_vec *names, node_vec *nodes);

/* The names of the `global` statements of statement k of a body, not looking
 * into nested defs. */
static void collect_global_stmt(ctx *c, TSNode k, name_vec *names, node_vec *nodes)
{
    switch (nt_of(k)) {
    case NT_GLOBAL: {
        kid_it it2;
        TSNode id;
        kit_init(&it2, k);
        while (kit_next(&it2, &id, NULL))
            if (nt_of(id) == NT_IDENTIFIER) {
                VEC_PUSH(names, ndup(c, id));
                VEC_PUSH(nodes, id);
            }
        kit_done(&it2);
        break;
    }
    case NT_BLOCK:
    case NT_IF:
    case NT_ELIF:
    case NT_ELSE:
    case NT_FOR:
    case NT_WHILE:
    case NT_TRY:
    case NT_EXCEPT:
    case NT_EXCEPT_GROUP:
    case NT_FINALLY:
    case NT_WITH:
    case NT_MATCH:
    case NT_CASE_CLAUSE:
        collect_globals(c, k, names, nodes);
        break;
    default:
        break;
    }
}

/* The names of the `global` statements of a body, not looking into nested defs. */
static void collect_globals(ctx *c, TSNode n, name_vec *names, node_vec *nodes)
{
    kid_it it;
    TSNode k;
    kit_init(&it, n);
    while (kit_next(&it, &k, NULL))
        collect_global_stmt(c, k, names, nodes);
    kit_done(&it);
}

/* ruff's set_globals: a `global x` in a def or class body binds x in the module when
 * the def or class is executed, so later module code may read it. */
static void bind_globals(ctx *c, const name_vec *names, const node_vec *nodes);

static void set_globals(ctx *c, TSNode body)
{
    name_vec names = VEC_INIT;
    node_vec nodes = VEC_INIT;
    collect_globals(c, body, &names, &nodes);
    bind_globals(c, &names, &nodes);
    VEC_FREE(&names);
    VEC_FREE(&nodes);
}

/* The module bindings of the names of `global` statements (nodes: where, in the
 * text of the current source). */
static void bind_globals(ctx *c, const name_vec *names, const node_vec *nodes)
{
    for (size_t i = 0; i < names->len; i++) {
        int e = scope_get(c, 0, names->items[i]);
        if (e >= 0 && !scope_is_unbound(&c->b.items[e]))
            continue;
        int id = scope_binding_new(c, BK_ASSIGNMENT, names->items[i], abs_start(c, nodes->items[i]),
                                   abs_end(c, nodes->items[i]), 0, c->cur.branch);
        scope_add(c, 0, names->items[i], id);
    }
}

/* Visits the decorators of a decorated_definition; returns 1 when one is
 * typing.overload. */
static int visit_decorators(ctx *c, TSNode decorated)
{
    int overload = 0;
    if (ts_node_is_null(decorated))
        return 0;
    kid_it it;
    TSNode k;
    kit_init(&it, decorated);
    while (kit_next(&it, &k, NULL)) {
        if (nt_of(k) != NT_DECORATOR)
            continue;
        TSNode e = first_named(k);
        visit_expr(c, e);
        if (c->seen_typing && is_typing(qualified_name(c, e), "overload"))
            overload = 1;
    }
    kit_done(&it);
    return overload;
}

static void visit_funcdef(ctx *c, TSNode n, TSNode decorated)
{
    int overload = visit_decorators(c, decorated);
    TSNode params = fld(n, F_PARAMETERS);
    visit_defaults(c, params);
    int cell = c->s.items[c->cur.scope].kind == SK_CLASS;
    if (cell) {
        /* methods see the implicit `__class__` cell */
        scope_push(c, SK_CLASSCELL);
        int id =
            scope_binding_new(c, BK_CLASS_CELL, "__class__", 0, 0, c->cur.scope, c->cur.branch);
        scope_add(c, c->cur.scope, "__class__", id);
    }
    scope_push(c, SK_TYPE);
    TSNode tp = fld(n, F_TYPE_PARAMETERS);
    if (!ts_node_is_null(tp))
        visit_type_params(c, tp);
    if (!ts_node_is_null(params)) {
        kid_it it;
        TSNode k;
        kit_init(&it, params);
        while (kit_next(&it, &k, NULL)) {
            TSNode ty = fld(k, F_TYPE);
            if (!ts_node_is_null(ty))
                visit_annotation(c, ty);
        }
        kit_done(&it);
    }
    TSNode ret = fld(n, F_RETURN_TYPE);
    if (!ts_node_is_null(ret))
        visit_annotation(c, ret);
    scope_push(c, SK_FUNCTION);
    defer(c, &c->q_functions, n);
    set_globals(c, fld(n, F_BODY));
    scope_pop(c);
    scope_pop(c);
    if (cell)
        scope_pop(c);
    TSNode name = fld(n, F_NAME);
    scope_bind(c, ndup(c, name), abs_start(c, name), abs_end(c, name), BK_FUNCTION,
               overload ? BF_OVERLOAD : 0, c->cur.branch);
}

/* The source map of a forest's statement: its tree's text, its delta. */
static const nm_src *stmt_src(ctx *c, const py_forest_stmt *st)
{
    nm_src *s = arena_alloc(&c->ar, sizeof(*s));
    memset(s, 0, sizeof(*s));
    s->text = st->t->src;
    s->delta = st->delta;
    return s;
}

/* The body of a forest's class parsed in part: its statements, each from its
 * own tree, as visit_body() and set_globals() would visit the body whole (a
 * `global` binds its names as soon as it is found: the same bindings as when
 * all are found first). */
static void visit_split_body(ctx *c, const py_forest_stmt *split)
{
    const nm_src *header = c->cur.src;
    size_t n = split->mem_end - split->mem_begin;
    const py_forest_stmt *m = c->forest->members + split->mem_begin;
    for (size_t i = 0; i < n; i++) {
        name_vec names = VEC_INIT;
        node_vec nodes = VEC_INIT;
        c->cur.src = stmt_src(c, &m[i]);
        collect_global_stmt(c, m[i].node, &names, &nodes);
        bind_globals(c, &names, &nodes);
        VEC_FREE(&names);
        VEC_FREE(&nodes);
    }
    for (size_t i = 0; i < n; i++) {
        c->cur.src = stmt_src(c, &m[i]);
        visit_stmt(c, m[i].node);
    }
    c->cur.src = header;
}

static void visit_classdef(ctx *c, TSNode n, TSNode decorated)
{
    visit_decorators(c, decorated);
    scope_push(c, SK_TYPE);
    TSNode tp = fld(n, F_TYPE_PARAMETERS);
    if (!ts_node_is_null(tp))
        visit_type_params(c, tp);
    TSNode sup = fld(n, F_SUPERCLASSES);
    if (!ts_node_is_null(sup)) {
        call_args a;
        call_args_of(sup, &a);
        for (size_t i = 0; i < a.pos.len; i++)
            visit_expr(c, a.pos.items[i]);
        for (size_t i = 0; i < a.kwval.len; i++)
            visit_expr(c, a.kwval.items[i]);
        call_args_free(&a);
    }
    scope_push(c, SK_CLASS);
    TSNode body = fld(n, F_BODY);
    const py_forest_stmt *split = c->split;
    c->split = NULL;
    if (split && ts_node_eq(body, split->body)) {
        visit_split_body(c, split);
    } else {
        set_globals(c, body);
        visit_body(c, body);
    }
    scope_pop(c);
    scope_pop(c);
    TSNode name = fld(n, F_NAME);
    scope_bind(c, ndup(c, name), abs_start(c, name), abs_end(c, name), BK_CLASS, 0, c->cur.branch);
}

static int is_all_target(ctx *c, TSNode t)
{
    return nt_of(t) == NT_IDENTIFIER && neq(c, t, "__all__");
}

static void visit_assignment(ctx *c, TSNode n)
{
    TSNode left = fld(n, F_LEFT), type = fld(n, F_TYPE), right = fld(n, F_RIGHT);
    if (!ts_node_is_null(type)) {
        /* annotated assignment: annotation, value, target */
        c->cur.stmt = is_all_target(c, left)   ? ST_ALL
                      : ts_node_is_null(right) ? ST_ANN_NOVALUE
                                               : ST_OTHER;
        c->all_value = right;
        visit_annotation(c, type);
        if (!ts_node_is_null(right)) {
            if (c->seen_typing && is_typing(qualified_name(c, untype(type)), "TypeAlias"))
                visit_type_def(c, right);
            else
                visit_expr(c, right);
        }
        visit_target(c, left, TG_STORE);
        return;
    }
    /* a = b = value: the value first, then the targets left to right */
    node_vec targets = VEC_INIT;
    TSNode v = n;
    while (nt_of(v) == NT_ASSIGNMENT && ts_node_is_null(fld(v, F_TYPE))) {
        VEC_PUSH(&targets, fld(v, F_LEFT));
        v = fld(v, F_RIGHT);
    }
    c->cur.stmt = is_all_target(c, targets.items[0]) ? ST_ALL : ST_OTHER;
    c->all_value = v;
    visit_expr(c, v);
    for (size_t i = 0; i < targets.len; i++)
        visit_target(c, targets.items[i], TG_STORE);
    VEC_FREE(&targets);
}

static void visit_aug_assignment(ctx *c, TSNode n)
{
    TSNode left = fld(n, F_LEFT), right = fld(n, F_RIGHT);
    c->cur.stmt = is_all_target(c, left) ? ST_ALL : ST_OTHER;
    c->all_value = right;
    if (nt_of(left) == NT_IDENTIFIER)
        load_name(c, left);
    visit_expr(c, right);
    visit_target(c, left, TG_STORE);
}

static void visit_expr_stmt(ctx *c, TSNode n)
{
    kid_it it;
    TSNode k;
    kit_init(&it, n);
    while (kit_next(&it, &k, NULL)) {
        if (nt_of(k) == NT_ASSIGNMENT)
            visit_assignment(c, k);
        else if (nt_of(k) == NT_AUG_ASSIGNMENT)
            visit_aug_assignment(c, k);
        else
            visit_expr(c, k);
    }
    kit_done(&it);
}

static void visit_if(ctx *c, TSNode n)
{
    c->cur.cond++;
    visit_expr(c, fld(n, F_CONDITION));
    scope_branch_push(c);
    visit_body(c, fld(n, F_CONSEQUENCE));
    scope_branch_pop(c);
    kid_it it;
    TSNode k;
    kit_init(&it, n);
    while (kit_next(&it, &k, NULL)) {
        if (nt_of(k) == NT_ELIF) {
            scope_branch_push(c);
            visit_expr(c, fld(k, F_CONDITION));
            visit_body(c, fld(k, F_CONSEQUENCE));
            scope_branch_pop(c);
        } else if (nt_of(k) == NT_ELSE) {
            scope_branch_push(c);
            visit_body(c, fld(k, F_BODY));
            scope_branch_pop(c);
        }
    }
    kit_done(&it);
    c->cur.cond--;
}

static void visit_else(ctx *c, TSNode n)
{
    TSNode alt = fld(n, F_ALTERNATIVE);
    if (nt_of(alt) == NT_ELSE)
        visit_body(c, fld(alt, F_BODY));
}

/* The type and the bound name of an except clause. */
static void except_parts(TSNode h, TSNode *type, TSNode *name, TSNode *body)
{
    *type = *name = *body = (TSNode){{0}, NULL, NULL};
    kid_it it;
    TSNode k;
    kit_init(&it, h);
    while (kit_next(&it, &k, NULL)) {
        if (nt_of(k) == NT_BLOCK) {
            *body = k;
        } else if (ts_node_is_null(*type)) {
            if (nt_of(k) == NT_AS_PATTERN) {
                *type = first_named(k);
                TSNode tg = fld(k, F_ALIAS);
                TSNode id = nt_of(tg) == NT_AS_PATTERN_TARGET ? first_named(tg) : tg;
                if (nt_of(id) == NT_IDENTIFIER)
                    *name = id;
            } else {
                *type = k;
            }
        }
    }
    kit_done(&it);
}

/* Exceptions the handlers of a try catch that matter here: NameError silences F821. */
/* EXC_NAME_ERROR when an except clause's type is the builtin NameError. */
static unsigned names_error(ctx *c, TSNode type)
{
    const char *q = qualified_name(c, type);
    return q && !strcmp(q, "builtins.NameError") ? EXC_NAME_ERROR : 0;
}

static unsigned handled_exceptions(ctx *c, TSNode try_stmt)
{
    unsigned m = 0;
    kid_it it;
    TSNode h;
    kit_init(&it, try_stmt);
    while (kit_next(&it, &h, NULL)) {
        if (nt_of(h) != NT_EXCEPT && nt_of(h) != NT_EXCEPT_GROUP)
            continue;
        TSNode type, name, body;
        except_parts(h, &type, &name, &body);
        while (nt_of(type) == NT_PAREN_EXPR)
            type = first_named(type);
        if (ts_node_is_null(type))
            continue;
        if (nt_of(type) != NT_TUPLE && nt_of(type) != NT_EXPR_LIST) {
            m |= names_error(c, type);
            continue;
        }
        kid_it it2;
        TSNode e;
        kit_init(&it2, type);
        while (kit_next(&it2, &e, NULL))
            m |= names_error(c, e);
        kit_done(&it2);
    }
    kit_done(&it);
    return m;
}

static void visit_try(ctx *c, TSNode n)
{
    int br = scope_branch_push(c);
    VEC_PUSH(&c->exc, handled_exceptions(c, n));
    visit_body(c, fld(n, F_BODY));
    c->exc.len--;
    scope_branch_pop(c);
    TSNode else_body = {{0}, NULL, NULL}, finally_body = {{0}, NULL, NULL};
    kid_it it;
    TSNode h;
    kit_init(&it, n);
    while (kit_next(&it, &h, NULL)) {
        enum nt t = nt_of(h);
        if (t == NT_ELSE) {
            else_body = fld(h, F_BODY);
        } else if (t == NT_FINALLY) {
            finally_body = first_named(h);
        } else if (t == NT_EXCEPT || t == NT_EXCEPT_GROUP) {
            scope_branch_push(c);
            /* the handler's name is bound by the try statement, on the try's branch */
            int stmt_branch = c->branches.items[c->cur.branch];
            TSNode type, name, body;
            except_parts(h, &type, &name, &body);
            const char *nm = NULL;
            int prev = -1;
            if (!ts_node_is_null(name)) {
                nm = ndup(c, name);
                prev = scope_lookup(c, nm);
                scope_bind(c, nm, abs_start(c, name), abs_end(c, name), BK_BOUND_EXC, 0,
                           stmt_branch);
            }
            visit_expr(c, type);
            visit_body(c, body);
            if (nm) {
                int u = scope_bind(c, nm, abs_start(c, name), abs_end(c, name), BK_UNBOUND_EXC, 0,
                                   stmt_branch);
                c->b.items[u].target = prev;
            }
            scope_branch_pop(c);
        }
    }
    kit_done(&it);
    c->cur.branch = br; /* the else clause runs on the try body's branch */
    if (!ts_node_is_null(else_body))
        visit_body(c, else_body);
    scope_branch_pop(c);
    scope_branch_push(c);
    if (!ts_node_is_null(finally_body))
        visit_body(c, finally_body);
    scope_branch_pop(c);
}

static void visit_with(ctx *c, TSNode n)
{
    c->cur.stmt = ST_WITH;
    kid_it it;
    TSNode cl;
    kit_init(&it, n);
    while (kit_next(&it, &cl, NULL)) {
        if (nt_of(cl) != NT_WITH_CLAUSE)
            continue;
        kid_it it2;
        TSNode item;
        kit_init(&it2, cl);
        while (kit_next(&it2, &item, NULL)) {
            TSNode v = nt_of(item) == NT_WITH_ITEM ? fld(item, F_VALUE) : item;
            if (nt_of(v) == NT_AS_PATTERN) {
                visit_expr(c, first_named(v));
                visit_target(c, fld(v, F_ALIAS), TG_STORE);
            } else {
                visit_expr(c, v);
            }
        }
        kit_done(&it2);
    }
    kit_done(&it);
    scope_branch_push(c);
    visit_body(c, fld(n, F_BODY));
    scope_branch_pop(c);
}

static void visit_match(ctx *c, TSNode n)
{
    kid_it it;
    TSNode k;
    TSFieldId f;
    kit_init(&it, n);
    while (kit_next(&it, &k, &f))
        if (f == fld_id[F_SUBJECT])
            visit_expr(c, k);
    kit_done(&it);
    c->cur.cond++;
    TSNode body = fld(n, F_BODY);
    kit_init(&it, body);
    while (kit_next(&it, &k, NULL)) {
        if (nt_of(k) != NT_CASE_CLAUSE)
            continue;
        kid_it it2;
        TSNode p;
        kit_init(&it2, k);
        while (kit_next(&it2, &p, NULL))
            if (nt_of(p) == NT_CASE_PATTERN)
                visit_pattern(c, p);
        kit_done(&it2);
        TSNode guard = fld(k, F_GUARD);
        if (!ts_node_is_null(guard))
            visit_expr(c, first_named(guard));
        scope_branch_push(c);
        visit_body(c, fld(k, F_CONSEQUENCE));
        scope_branch_pop(c);
    }
    kit_done(&it);
    c->cur.cond--;
}

static void visit_global(ctx *c, TSNode n)
{
    if (c->s.items[c->cur.scope].kind == SK_MODULE)
        return;
    kid_it it;
    TSNode id;
    kit_init(&it, n);
    while (kit_next(&it, &id, NULL)) {
        if (nt_of(id) != NT_IDENTIFIER)
            continue;
        const char *name = ndup(c, id);
        int g = scope_get(c, 0, name);
        int b = scope_binding_new(c, BK_GLOBAL, name, abs_start(c, id), abs_end(c, id),
                                  c->cur.scope, c->cur.branch);
        c->b.items[b].flags = BF_GLOBAL;
        c->b.items[b].target = g;
        scope_add(c, c->cur.scope, name, b);
    }
    kit_done(&it);
}

static void visit_nonlocal(ctx *c, TSNode n)
{
    if (c->s.items[c->cur.scope].kind == SK_MODULE)
        return;
    kid_it it;
    TSNode id;
    kit_init(&it, n);
    while (kit_next(&it, &id, NULL)) {
        if (nt_of(id) != NT_IDENTIFIER)
            continue;
        const char *name = ndup(c, id);
        int found = -1;
        for (int s = c->s.items[c->cur.scope].parent; s >= 0; s = c->s.items[s].parent) {
            uint8_t k = c->s.items[s].kind;
            if (k == SK_MODULE || k == SK_CLASS)
                continue;
            if ((found = scope_get(c, s, name)) >= 0)
                break;
        }
        if (found < 0)
            continue;
        c->b.items[found].refs++;
        int b = scope_binding_new(c, BK_NONLOCAL, name, abs_start(c, id), abs_end(c, id),
                                  c->cur.scope, c->cur.branch);
        c->b.items[b].flags = BF_NONLOCAL;
        c->b.items[b].target = found;
        scope_add(c, c->cur.scope, name, b);
    }
    kit_done(&it);
}

static void visit_type_alias(ctx *c, TSNode n)
{
    TSNode left = untype(fld(n, F_LEFT)), name = left;
    scope_push(c, SK_TYPE);
    if (nt_of(left) == NT_GENERIC_TYPE) {
        name = first_named(left);
        kid_it it;
        TSNode k;
        kit_init(&it, left);
        while (kit_next(&it, &k, NULL))
            if (nt_of(k) == NT_TYPE_PARAMETER)
                visit_type_params(c, k);
        kit_done(&it);
    }
    defer(c, &c->q_typeparams, fld(n, F_RIGHT));
    scope_pop(c);
    if (nt_of(name) == NT_IDENTIFIER)
        store_name(c, name);
}

static void visit_stmt_inner(ctx *c, TSNode n)
{
    c->cur.stmt = ST_OTHER;
    switch (nt_of(n)) {
    case NT_EXPR_STMT:
        visit_expr_stmt(c, n);
        break;
    case NT_IMPORT:
        visit_import(c, n);
        break;
    case NT_FUTURE_IMPORT:
        visit_import_from(c, n, 1);
        break;
    case NT_IMPORT_FROM:
        visit_import_from(c, n, 0);
        break;
    case NT_FUNCDEF:
        visit_funcdef(c, n, (TSNode){{0}, NULL, NULL});
        break;
    case NT_CLASSDEF:
        visit_classdef(c, n, (TSNode){{0}, NULL, NULL});
        break;
    case NT_DECORATED: {
        TSNode def = fld(n, F_DEFINITION);
        if (nt_of(def) == NT_FUNCDEF)
            visit_funcdef(c, def, n);
        else if (nt_of(def) == NT_CLASSDEF)
            visit_classdef(c, def, n);
        break;
    }
    case NT_TYPE_ALIAS:
        visit_type_alias(c, n);
        break;
    case NT_IF:
        visit_if(c, n);
        break;
    case NT_FOR:
        c->cur.stmt = ST_FOR;
        visit_expr(c, fld(n, F_RIGHT));
        visit_target(c, fld(n, F_LEFT), TG_STORE);
        visit_body(c, fld(n, F_BODY));
        visit_else(c, n);
        break;
    case NT_WHILE:
        c->cur.cond++;
        visit_expr(c, fld(n, F_CONDITION));
        visit_body(c, fld(n, F_BODY));
        visit_else(c, n);
        c->cur.cond--;
        break;
    case NT_TRY:
        visit_try(c, n);
        break;
    case NT_WITH:
        visit_with(c, n);
        break;
    case NT_MATCH:
        visit_match(c, n);
        break;
    case NT_DELETE: {
        kid_it it;
        TSNode k;
        kit_init(&it, n);
        while (kit_next(&it, &k, NULL))
            visit_target(c, k, TG_DEL);
        kit_done(&it);
        break;
    }
    case NT_GLOBAL:
        visit_global(c, n);
        break;
    case NT_NONLOCAL:
        visit_nonlocal(c, n);
        break;
    default:
        /* return, raise, assert, print, exec, pass, break, continue: loads only */
        visit_kids(c, n);
        break;
    }
}

static void visit_stmt(ctx *c, TSNode n)
{
    if (ts_node_is_null(n) || ts_node_is_extra(n))
        return;
    int saved = c->cur.stmt;
    if (enter(c))
        visit_stmt_inner(c, n);
    leave(c);
    c->cur.stmt = saved;
}

static void visit_body(ctx *c, TSNode block)
{
    if (ts_node_is_null(block))
        return;
    kid_it it;
    TSNode k;
    kit_init(&it, block);
    while (kit_next(&it, &k, NULL))
        visit_stmt(c, k);
    kit_done(&it);
}

/* ---- deferred visits ------------------------------------------------------------------ */

/* Parses a string annotation's content as an expression, with a source map back to
 * the module. Returns a null node when it does not parse (ruff's F722). */
static TSNode parse_annotation(ctx *c, TSNode str, nm_src **out)
{
    TSNode none = {{0}, NULL, NULL};
    const nm_src *src = c->cur.src;
    int complex = nt_of(str) != NT_STRING;
    strbuf content = STRBUF_INIT;
    uint32_t content_start = 0;
    kid_it it;
    TSNode part;
    node_vec parts = VEC_INIT;
    if (nt_of(str) == NT_STRING) {
        VEC_PUSH(&parts, str);
    } else {
        kit_init(&it, str);
        while (kit_next(&it, &part, NULL))
            VEC_PUSH(&parts, part);
        kit_done(&it);
    }
    for (size_t i = 0; i < parts.len; i++) {
        TSNode st = ts_node_child(parts.items[i], 0);
        TSNode en = ts_node_child(parts.items[i], ts_node_child_count(parts.items[i]) - 1);
        uint32_t a = ts_node_end_byte(st), z = ts_node_start_byte(en);
        if (i == 0)
            content_start = a;
        size_t plen;
        const char *prefix = ntext(c, st, &plen);
        int raw = memchr(prefix, 'r', plen) || memchr(prefix, 'R', plen);
        for (uint32_t p = a; p < z; p++) {
            char ch = src->text[p];
            if (ch == '\\' && !raw && p + 1 < z) {
                complex = 1;
                char e = src->text[++p];
                switch (e) {
                case 'n':
                    strbuf_addc(&content, '\n');
                    break;
                case 't':
                    strbuf_addc(&content, '\t');
                    break;
                case '\n':
                    break; /* line continuation inside the string */
                default:
                    strbuf_addc(&content, e);
                    break;
                }
            } else {
                strbuf_addc(&content, ch);
            }
        }
    }
    VEC_FREE(&parts);
    size_t k = 0;
    while (k < content.len && strchr(" \t\r\n\f", content.buf[k]))
        k++;
    if (k == content.len) {
        strbuf_free(&content);
        return none;
    }
    strbuf buf = STRBUF_INIT;
    strbuf_addc(&buf, '(');
    strbuf_add(&buf, content.buf, content.len);
    strbuf_adds(&buf, "\n)");
    strbuf_free(&content);
    py_tree *t = pgci_calloc(1, sizeof(*t));
    int r = py_parse(t, buf.buf, buf.len, "<annotation>");
    strbuf_free(&buf);
    if (r < 0) {
        free(t);
        pgci_error_clear();
        return none;
    }
    VEC_PUSH(&c->subtrees, t);
    TSNode err;
    if (py_first_error(t, &err))
        return none;
    TSNode root = py_root(t);
    if (ts_node_named_child_count(root) != 1)
        return none;
    TSNode stmt = ts_node_named_child(root, 0);
    if (nt_of(stmt) != NT_EXPR_STMT || ts_node_named_child_count(stmt) != 1)
        return none;
    TSNode e = ts_node_named_child(stmt, 0);
    if (nt_of(e) == NT_PAREN_EXPR)
        e = first_named(e);
    nm_src *s = arena_alloc(&c->ar, sizeof(*s));
    s->text = t->src;
    s->delta = (long)content_start + src->delta - 1;
    if (src->complex) {
        s->complex = 1;
        s->cx_start = src->cx_start;
        s->cx_end = src->cx_end;
    } else if (complex) {
        s->complex = 1;
        s->cx_start = (uint32_t)((long)ts_node_start_byte(str) + src->delta);
        s->cx_end = (uint32_t)((long)ts_node_end_byte(str) + src->delta);
    }
    *out = s;
    return e;
}

static int take(deferred_vec *q, deferred_vec *batch)
{
    *batch = *q;
    q->items = NULL;
    q->len = q->cap = 0;
    return batch->len > 0;
}

static void visit_deferred(ctx *c)
{
    deferred_vec batch;
    for (;;) {
        int any = 0;
        while (take(&c->q_functions, &batch)) {
            any = 1;
            for (size_t i = 0; i < batch.len; i++) {
                c->cur = batch.items[i].s;
                bind_params(c, fld(batch.items[i].node, F_PARAMETERS));
                visit_body(c, fld(batch.items[i].node, F_BODY));
            }
            VEC_FREE(&batch);
        }
        while (take(&c->q_typeparams, &batch)) {
            any = 1;
            for (size_t i = 0; i < batch.len; i++) {
                c->cur = batch.items[i].s;
                c->cur.flags |= FL_TYPEPARAM_DEF | FL_TYPE_DEF;
                visit_expr(c, batch.items[i].node);
            }
            VEC_FREE(&batch);
        }
        while (take(&c->q_lambdas, &batch)) {
            any = 1;
            for (size_t i = 0; i < batch.len; i++) {
                c->cur = batch.items[i].s;
                bind_params(c, fld(batch.items[i].node, F_PARAMETERS));
                visit_expr(c, fld(batch.items[i].node, F_BODY));
            }
            VEC_FREE(&batch);
        }
        while (take(&c->q_futures, &batch)) {
            any = 1;
            for (size_t i = 0; i < batch.len; i++) {
                c->cur = batch.items[i].s;
                c->cur.flags |= FL_TYPE_DEF | FL_FUTURE_DEF;
                visit_expr(c, batch.items[i].node);
            }
            VEC_FREE(&batch);
        }
        while (take(&c->q_strings, &batch)) {
            any = 1;
            for (size_t i = 0; i < batch.len; i++) {
                c->cur = batch.items[i].s;
                nm_src *sub = NULL;
                TSNode e = parse_annotation(c, batch.items[i].node, &sub);
                if (ts_node_is_null(e))
                    continue;
                c->cur.src = sub;
                c->cur.flags |= FL_TYPE_DEF | FL_STRING_DEF;
                visit_expr(c, e);
            }
            VEC_FREE(&batch);
        }
        if (!any)
            break;
    }
}

/* Names listed in `__all__` count as used (F401). */
static void visit_exports(ctx *c)
{
    for (int id = scope_get(c, 0, "__all__"); id >= 0; id = c->b.items[id].prev) {
        const binding *b = &c->b.items[id];
        if (b->kind != BK_EXPORT)
            continue;
        for (size_t i = 0; i < b->nexports; i++) {
            int e = scope_get(c, 0, b->exports[i]);
            if (e >= 0)
                c->b.items[e].refs++;
        }
    }
}

/* ---- entry ---------------------------------------------------------------------------- */

/* The module-level statements of a forest, each from its own tree. */
static void visit_forest(ctx *c)
{
    const nm_src *module = c->cur.src;
    for (size_t i = 0; i < c->forest->ntops; i++) {
        const py_forest_stmt *st = &c->forest->tops[i];
        c->cur.src = stmt_src(c, st);
        c->split = st->mem_end > st->mem_begin ? st : NULL;
        visit_stmt(c, st->node);
        c->split = NULL;
    }
    c->cur.src = module;
}

void scope_walk(ctx *c)
{
    pthread_once(&tables_once, tables_build);
    if (c->forest)
        visit_forest(c);
    else
        visit_body(c, py_root(c->t));
    visit_deferred(c);
    c->cur.scope = 0;
    visit_exports(c);
}
