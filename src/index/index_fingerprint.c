/*
 * index_fingerprint.c - a hash of a body that formatting cannot change.
 *
 * The signatures check asks "did upstream change the body under this override?"
 * between two tags, and the answer must not flip because ruff re-wrapped a call,
 * a comment was edited, quotes were swapped or a docstring was re-indented. So the
 * hash is taken over the syntax tree, not the text: each named node contributes
 * its type and brackets around its children, each token its text. Left out are
 * what formatting owns: comments, the commas and semicolons between elements (the
 * tree's shape already says where elements end, so a magic trailing comma does not
 * count), and redundant parentheses (a parenthesized_expression is transparent; the
 * grouping it expresses is in the tree). String literals count by value, so
 * 'a' "a" and ("a" "") agree; the docstring counts dedented, as inspect.cleandoc
 * reads it. Number literals count lowercased (0XFF and 0xff agree).
 *
 * A class's body holds its methods' bodies, each fingerprinted on its own first.
 * The class's walk does not walk them again: a method's body counts as one token,
 * its fingerprint. Two classes still agree exactly when their bodies do, up to
 * formatting: everything but the method bodies is walked, and each method body
 * counts by a hash that agrees exactly when those bodies do.
 */
#include <string.h>

#include "core/strbuf.h"
#include "index/index.h"
#include "index/index_internal.h"
#include "py/pynode.h"
#include "py/pystr.h"

/* What a node is to the fingerprint, cached per grammar symbol: the walk visits
 * every node of every body, and comparing type names there was a tenth of the
 * index's time. */
enum fp_kind {
    K_UNSET = 0,
    K_OTHER,
    K_SKIP,         /* comment, line_continuation */
    K_STRING,       /* string, concatenated_string */
    K_STRING_START, /* of an f-string with fields */
    K_STRING_END,
    K_NUMBER,
    K_BLOCK,
    K_DEF,     /* function_definition, class_definition */
    K_PRIMARY, /* attribute, subscript, call */
    K_SPLAT,   /* list_splat */
    K_WRAP,    /* parenthesized_expression, type, type_parameter */
    K_TUPLE_PATTERN,
    K_EXPR_LIST,
    K_UNION,
    K_GENERIC,
};

static enum fp_kind classify(const char *type)
{
    static const struct {
        const char *type;
        enum fp_kind kind;
    } table[] = {
        {"comment", K_SKIP},
        {"line_continuation", K_SKIP},
        {"string", K_STRING},
        {"concatenated_string", K_STRING},
        {"string_start", K_STRING_START},
        {"string_end", K_STRING_END},
        {"integer", K_NUMBER},
        {"float", K_NUMBER},
        {"block", K_BLOCK},
        {"function_definition", K_DEF},
        {"class_definition", K_DEF},
        {"attribute", K_PRIMARY},
        {"subscript", K_PRIMARY},
        {"call", K_PRIMARY},
        {"list_splat", K_SPLAT},
        {"parenthesized_expression", K_WRAP},
        {"type", K_WRAP},
        {"type_parameter", K_WRAP},
        {"tuple_pattern", K_TUPLE_PATTERN},
        {"expression_list", K_EXPR_LIST},
        {"union_type", K_UNION},
        {"generic_type", K_GENERIC},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(*table); i++)
        if (!strcmp(type, table[i].type))
            return table[i].kind;
    return K_OTHER;
}

static enum fp_kind kind_of(index_fp_cache *c, TSNode n)
{
    TSSymbol sym = ts_node_symbol(n);
    if (sym >= sizeof(c->kind))
        return classify(ts_node_type(n));
    if (!c->kind[sym])
        c->kind[sym] = (unsigned char)classify(ts_node_type(n));
    return (enum fp_kind)c->kind[sym];
}

typedef struct fp_state {
    uint64_t h;
    const py_tree *t;
    TSNode doc;   /* the docstring of the innermost def whose body is being walked */
    TSNode splat; /* a misparsed star being hoisted (see splat_under) */
    index_fp_cache *cache;
    const index_fp_known *known; /* bodies fingerprinted already */
    size_t n_known;
    strbuf tmp, tmp2;
} fp_state;

static void fp_bytes(fp_state *st, const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = st->h;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    st->h = h;
}

static void fp_token(fp_state *st, char tag, const char *s, size_t n)
{
    unsigned char sep[2] = {0xff, (unsigned char)tag};
    fp_bytes(st, sep, 2);
    fp_bytes(st, s, n);
}

/* A string or concatenated string by value; 0 when it has no constant value. */
static int fp_string(fp_state *st, TSNode n)
{
    strbuf_reset(&st->tmp);
    if (pystr_decode_node(&st->tmp, st->t, n) < 0)
        return 0;
    const char *v = st->tmp.buf;
    size_t vlen = st->tmp.len;
    if (ts_node_eq(n, st->doc)) {
        strbuf_reset(&st->tmp2);
        index_cleandoc(&st->tmp2, st->tmp.buf);
        v = st->tmp2.buf;
        vlen = st->tmp2.len;
    }
    fp_token(st, 'S', v, vlen);
    return 1;
}

static int has_comma(TSNode n)
{
    uint32_t c = ts_node_child_count(n);
    for (uint32_t i = 0; i < c; i++) {
        TSNode ch = ts_node_child(n, i);
        if (!ts_node_is_named(ch) && !strcmp(ts_node_type(ch), ","))
            return 1;
    }
    return 0;
}

/* In a bare tuple (`a = *m.shape, v`) the pinned grammar binds the star tighter
 * than the attribute: attribute(list_splat(m), shape), where the parenthesized form
 * gives list_splat(attribute(m, shape)) as Python does. Returns the misplaced
 * list_splat at the bottom of n's chain of attribute/subscript/call, if any. */
static TSNode splat_under(fp_state *st, TSNode n)
{
    TSNode null = {0};
    while (kind_of(st->cache, n) == K_PRIMARY)
        n = ts_node_child(n, 0);
    return !ts_node_is_null(n) && kind_of(st->cache, n) == K_SPLAT ? n : null;
}

static void fp_walk(fp_state *st, TSTreeCursor *cur, int def_body)
{
    TSNode n = ts_tree_cursor_current_node(cur);
    enum fp_kind k = kind_of(st->cache, n);
    if (def_body && k == K_BLOCK) {
        uint32_t at = ts_node_start_byte(n);
        for (size_t i = 0; i < st->n_known; i++)
            if (st->known[i].start_byte == at) {
                uint64_t fp = st->known[i].fingerprint;
                unsigned char v[8];
                for (int b = 0; b < 8; b++)
                    v[b] = (unsigned char)(fp >> (8 * b));
                fp_token(st, 'F', (const char *)v, sizeof(v));
                return;
            }
        /* A nested def's docstring counts dedented too (re-indenting a class
         * re-indents the docstrings of its methods). */
        TSNode saved = st->doc;
        st->doc = pynode_docstring(st->t, n);
        fp_walk(st, cur, 0);
        st->doc = saved;
        return;
    }
    if (k == K_SKIP)
        return;
    if (k == K_STRING && fp_string(st, n))
        return;
    uint32_t kids = ts_node_child_count(n);
    if (kids == 0) {
        size_t len;
        const char *s = py_text(st->t, n, &len);
        if (!ts_node_is_named(n) && len == 1 &&
            (s[0] == ',' || s[0] == ';' || s[0] == '(' || s[0] == ')'))
            return;
        if (k == K_STRING_END)
            return;
        if (k == K_STRING_START) {
            /* An f-string with fields: its prefix counts, its quote style does not. */
            strbuf_reset(&st->tmp);
            for (size_t i = 0; i < len && s[i] != '\'' && s[i] != '"'; i++)
                strbuf_addc(&st->tmp, (char)(s[i] | 0x20));
            fp_token(st, 'Q', st->tmp.buf, st->tmp.len);
            return;
        }
        if (k == K_NUMBER) {
            strbuf_reset(&st->tmp);
            for (size_t i = 0; i < len; i++)
                if (s[i] != '_')
                    strbuf_addc(&st->tmp,
                                (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] | 0x20) : s[i]);
            fp_token(st, 'N', st->tmp.buf, st->tmp.len);
            return;
        }
        fp_token(st, 'T', s, len);
        return;
    }
    if (k == K_PRIMARY) {
        TSNode sp = splat_under(st, n);
        if (!ts_node_is_null(sp) && !ts_node_eq(sp, st->splat)) {
            /* hoist the star: list_splat(<n without it>) */
            TSNode saved = st->splat;
            st->splat = sp;
            fp_token(st, '(', "list_splat", 10);
            fp_token(st, 'T', "*", 1);
            fp_walk(st, cur, def_body);
            fp_token(st, ')', "", 0);
            st->splat = saved;
            return;
        }
    }
    if (k == K_SPLAT && ts_node_eq(n, st->splat)) {
        /* the hoisted star itself: only its operand is left here */
        if (ts_tree_cursor_goto_first_child(cur)) {
            while (ts_tree_cursor_goto_next_sibling(cur))
                fp_walk(st, cur, 0);
            ts_tree_cursor_goto_parent(cur);
        }
        return;
    }
    /* Wrappers that carry no meaning of their own: parentheses, the grammar's
     * `type` around an annotation, a one-element "tuple" pattern without a comma
     * (`for (x) in` binds a name, as Python reads it). */
    int transparent = k == K_WRAP || (k == K_TUPLE_PATTERN && !has_comma(n));
    const char *type = ts_node_type(n);
    /* `a, b = x` and `(a, b) = x`, `return a, b` and `return (a, b)` are the same
     * tuple to Python and differ only in formatting. The grammar parses an
     * annotation as a type (`A | None`, `list[int]`) unless it is parenthesized,
     * when it is an expression again; Python sees one. */
    if (k == K_TUPLE_PATTERN)
        type = "pattern_list";
    else if (k == K_EXPR_LIST)
        type = "tuple";
    else if (k == K_UNION)
        type = "binary_operator";
    else if (k == K_GENERIC)
        type = "subscript";
    if (!transparent && ts_node_is_named(n))
        fp_token(st, '(', type, strlen(type));
    if (ts_tree_cursor_goto_first_child(cur)) {
        do {
            fp_walk(st, cur, k == K_DEF);
        } while (ts_tree_cursor_goto_next_sibling(cur));
        ts_tree_cursor_goto_parent(cur);
    }
    if (!transparent && ts_node_is_named(n))
        fp_token(st, ')', "", 0);
}

uint64_t index_fingerprint(const py_tree *t, TSNode body, TSNode docstring, index_fp_cache *cache,
                           const index_fp_known *known, size_t n_known)
{
    fp_state st = {.h = 0xcbf29ce484222325ULL,
                   .t = t,
                   .doc = docstring,
                   .cache = cache,
                   .known = known,
                   .n_known = n_known,
                   .tmp = STRBUF_INIT,
                   .tmp2 = STRBUF_INIT};
    if (ts_node_is_null(body))
        return st.h;
    TSTreeCursor cur = ts_tree_cursor_new(body);
    fp_walk(&st, &cur, 0);
    ts_tree_cursor_delete(&cur);
    strbuf_free(&st.tmp);
    strbuf_free(&st.tmp2);
    return st.h;
}
