/*
 * inlined.c - one-use temporaries written in place (inlined.h), in rounds: each
 * round parses the text, finds the temporaries it may fold, and rewrites them.
 */
#include "checks/inlined.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/source_text.h"
#include "core/error.h"
#include "core/hashmap.h"
#include "core/strbuf.h"
#include "py/py.h"
#include "py/pynode.h"

enum { MAX_ROUNDS = 16, MAX_DEPTH = 400 };

/* One fold: the statement [del_start, del_end) goes (its whole lines), and the read
 * [use_start, use_end) becomes `(` value `)`. */
typedef struct fold {
    uint32_t del_start, del_end, use_start, use_end, val_start, val_end;
} fold;

/* How many times each name occurs in def as a name (not an attribute after a dot,
 * not a keyword argument's keyword): counts[name] as a pointer-sized integer. */
static void count_names(const py_tree *t, TSNode def, hashmap *counts)
{
    TSTreeCursor c = ts_tree_cursor_new(def);
    uint32_t keyword_at = UINT32_MAX;
    do {
        TSNode n = ts_tree_cursor_current_node(&c);
        if (py_is(n, "keyword_argument")) {
            TSNode k = py_field(n, "name");
            keyword_at = ts_node_is_null(k) ? UINT32_MAX : ts_node_start_byte(k);
        } else if (py_is(n, "identifier") && ts_node_start_byte(n) != keyword_at) {
            const char *f = ts_tree_cursor_current_field_name(&c);
            if (!f || strcmp(f, "attribute")) {
                size_t len;
                const char *s = py_text(t, n, &len);
                uintptr_t k = (uintptr_t)hashmap_getn(counts, s, len);
                hashmap_putn(counts, s, len, (void *)(k + 1));
            }
        }
    } while (py_cursor_next(&c, 1));
    ts_tree_cursor_delete(&c);
}

static int is_constant(TSNode n)
{
    if (py_is(n, "integer") || py_is(n, "float") || py_is(n, "true") || py_is(n, "false") ||
        py_is(n, "none"))
        return 1;
    if (py_is(n, "concatenated_string")) {
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
            if (!is_constant(ts_node_named_child(n, i)))
                return 0;
        return 1;
    }
    if (!py_is(n, "string"))
        return 0;
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
        if (py_is(ts_node_named_child(n, i), "interpolation"))
            return 0;
    return 1;
}

/* n without the parentheses around it (an earlier round's fold wrote some). */
static TSNode unparen(TSNode n)
{
    while (py_is(n, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
        n = ts_node_named_child(n, 0);
    return n;
}

/* What may be evaluated before the read without E's place mattering: a name, a
 * constant, a keyword argument of one. */
static int is_pure(TSNode n)
{
    if (py_is(n, "keyword_argument"))
        n = py_field(n, "value");
    n = unparen(n);
    return !ts_node_is_null(n) && (py_is(n, "identifier") || is_constant(n));
}

/* A call's callee that E is taken not to rebind: a name or attributes of one. */
static int is_callee(TSNode n)
{
    n = unparen(n);
    while (py_is(n, "attribute"))
        n = unparen(py_field(n, "object"));
    return py_is(n, "identifier");
}

/* 1 when every named child of p before child is pure. */
static int pure_before(TSNode p, TSNode child)
{
    uint32_t at = ts_node_start_byte(child);
    for (uint32_t i = 0; i < ts_node_named_child_count(p); i++) {
        TSNode k = ts_node_named_child(p, i);
        if (ts_node_start_byte(k) >= at)
            break;
        if (!pynode_is_comment(k) && !is_pure(k))
            return 0;
    }
    return 1;
}

static int field_is(TSNode p, const char *field, TSNode child)
{
    TSNode f = py_field(p, field);
    return !ts_node_is_null(f) && ts_node_eq(f, child);
}

/* 1 when the read `use`, inside the statement stmt, is evaluated first of what
 * stmt evaluates but names, constants and callees (inlined.h). */
static int read_first(TSNode use, TSNode stmt)
{
    TSNode c = use;
    while (!ts_node_eq(c, stmt)) {
        TSNode p = ts_node_parent(c);
        if (ts_node_is_null(p))
            return 0;
        int ok;
        if (py_is(p, "call"))
            ok = field_is(p, "function", c) ||
                 (py_is(c, "argument_list") && is_callee(py_field(p, "function")));
        else if (py_is(p, "argument_list") || py_is(p, "tuple") || py_is(p, "expression_list") ||
                 py_is(p, "list"))
            ok = pure_before(p, c);
        else if (py_is(p, "keyword_argument"))
            ok = field_is(p, "value", c);
        else if (py_is(p, "attribute"))
            ok = field_is(p, "object", c);
        else if (py_is(p, "subscript")) /* the value, then each index in turn */
            ok = pure_before(p, c);
        else if (py_is(p, "binary_operator"))
            ok = field_is(p, "left", c) || is_pure(py_field(p, "left"));
        else if (py_is(p, "boolean_operator"))
            ok = field_is(p, "left", c);
        else if (py_is(p, "comparison_operator"))
            ok = ts_node_named_child_count(p) == 2 && pure_before(p, c);
        else if (py_is(p, "unary_operator") || py_is(p, "not_operator") ||
                 py_is(p, "parenthesized_expression"))
            ok = 1;
        else if (py_is(p, "assignment"))
            ok = field_is(p, "right", c);
        else if (py_is(p, "expression_statement")) /* `f(), x` is a tuple's statement */
            ok = ts_node_eq(p, stmt) && pure_before(p, c);
        else if (py_is(p, "return_statement"))
            ok = ts_node_eq(p, stmt);
        else
            ok = 0;
        if (!ok)
            return 0;
        c = p;
    }
    return 1;
}

/* The one node under n that is the name s[0..len) read (not an attribute's name
 * nor a keyword); a null node when there is none or more than one. */
static TSNode find_read(const py_tree *t, TSNode n, const char *s, size_t len)
{
    TSNode found = {0};
    int seen = 0;
    TSTreeCursor c = ts_tree_cursor_new(n);
    do {
        TSNode k = ts_tree_cursor_current_node(&c);
        const char *f = ts_tree_cursor_current_field_name(&c);
        size_t kl;
        if (py_is(k, "identifier") && (!f || (strcmp(f, "attribute") && strcmp(f, "name")))) {
            const char *ks = py_text(t, k, &kl);
            if (kl == len && !memcmp(ks, s, len)) {
                found = k;
                seen++;
            }
        }
    } while (py_cursor_next(&c, 1));
    ts_tree_cursor_delete(&c);
    if (seen != 1)
        memset(&found, 0, sizeof(found));
    return found;
}

/* The start of the line holding byte at, when only blanks come before it there;
 * UINT32_MAX otherwise. */
static uint32_t alone_from(const char *s, uint32_t at)
{
    uint32_t i = at;
    while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
        i--;
    return i == 0 || s[i - 1] == '\n' ? i : UINT32_MAX;
}

/* Past the end of the line holding byte at (its newline included), when only
 * blanks or a comment follow it there; UINT32_MAX otherwise. */
static uint32_t alone_to(const char *s, uint32_t len, uint32_t at)
{
    uint32_t i = at;
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i < len && s[i] == '#')
        while (i < len && s[i] != '\n')
            i++;
    if (i == len)
        return i;
    return s[i] == '\n' ? i + 1 : UINT32_MAX;
}

/* The fold of the statement stmt into next, when it is one (inlined.h). */
static int fold_of(const py_tree *t, const hashmap *counts, TSNode stmt, TSNode next, fold *f)
{
    if (!py_is(stmt, "expression_statement") || ts_node_child_count(stmt) != 1 ||
        (!py_is(next, "expression_statement") && !py_is(next, "return_statement")))
        return 0;
    TSNode as = ts_node_child(stmt, 0);
    if (!py_is(as, "assignment") || !ts_node_is_null(py_field(as, "type")))
        return 0;
    TSNode left = py_field(as, "left"), right = py_field(as, "right");
    if (!py_is(left, "identifier") || ts_node_is_null(right) || py_is(right, "assignment") ||
        py_is(right, "augmented_assignment"))
        return 0;
    size_t len;
    const char *name = py_text(t, left, &len);
    if ((uintptr_t)hashmap_getn(counts, name, len) != 2)
        return 0;
    TSNode use = find_read(t, next, name, len);
    if (ts_node_is_null(use) || !read_first(use, next))
        return 0;
    uint32_t from = alone_from(t->src, ts_node_start_byte(stmt));
    uint32_t to = alone_to(t->src, (uint32_t)t->len, ts_node_end_byte(stmt));
    if (from == UINT32_MAX || to == UINT32_MAX || to > ts_node_start_byte(next))
        return 0;
    *f = (fold){from,
                to,
                ts_node_start_byte(use),
                ts_node_end_byte(use),
                ts_node_start_byte(right),
                ts_node_end_byte(right)};
    return 1;
}

/* The folds of one round, over every block under def: a statement in two folds
 * (a chain) waits for the next round. */
static void find_folds(const py_tree *t, TSNode def, const hashmap *counts, fold **folds, size_t *n)
{
    TSTreeCursor c = ts_tree_cursor_new(def);
    do {
        TSNode b = ts_tree_cursor_current_node(&c);
        if (!py_is(b, "block"))
            continue;
        TSNode *kids;
        size_t nk = pynode_children(b, 1, &kids);
        for (size_t i = 0; i + 1 < nk; i++) {
            fold f;
            if (!fold_of(t, counts, kids[i], kids[i + 1], &f))
                continue;
            *folds = pgci_realloc(*folds, (*n + 1) * sizeof(**folds));
            (*folds)[(*n)++] = f;
            i++; /* the next statement is this fold's: not a temporary this round */
        }
        free(kids);
    } while (py_cursor_next(&c, 1));
    ts_tree_cursor_delete(&c);
}

static int by_start(const void *x, const void *y)
{
    const fold *a = x, *b = y;
    return a->del_start < b->del_start ? -1 : a->del_start > b->del_start;
}

/* The text s[0..len), which starts at byte `base` of the tree the folds were
 * found in, with the folds made, into *out. */
static void apply(strbuf *out, const char *s, size_t len, uint32_t base, fold *folds, size_t n)
{
    qsort(folds, n, sizeof(*folds), by_start);
    strbuf_setlen(out, 0);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const fold *f = &folds[i];
        strbuf_add(out, s + at, f->del_start - base - at);
        strbuf_add(out, s + f->del_end - base, f->use_start - f->del_end);
        strbuf_addc(out, '(');
        strbuf_add(out, s + f->val_start - base, f->val_end - f->val_start);
        strbuf_addc(out, ')');
        at = f->use_end - base;
    }
    strbuf_add(out, s + at, len - at);
}

/* The folds of one round over the function d of t. */
static size_t round_folds(const py_tree *t, TSNode d, fold **folds)
{
    size_t n = 0;
    *folds = NULL;
    if (ts_node_is_null(d) || pynode_deeper_than(d, MAX_DEPTH))
        return 0;
    hashmap counts = HASHMAP_INIT;
    count_names(t, d, &counts);
    find_folds(t, d, &counts, folds, &n);
    hashmap_free(&counts);
    return n;
}

/* The function definition the text starts with, decorated or not; null otherwise. */
static TSNode first_def(const py_tree *t)
{
    TSNode d = pynode_named_child(py_root(t), 0);
    if (py_is(d, "decorated_definition"))
        d = py_field(d, "definition");
    TSNode none = {0};
    return py_is(d, "function_definition") ? d : none;
}

/* ---- the filter: tokens ---------------------------------------------------------- */

static int word_byte(unsigned char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c >= 0x80;
}

/* Adds `sign` to counts[token] for each token of the body of the definition
 * s[0..len) (after the `:` that ends its `def` line): names and keywords, and
 * each other character but those a fold adds or removes or the structural
 * comparison reads loosely (blanks, `(`, `)`, `,`, `=`, `;`, `\`); strings,
 * numbers and comments are left out. */
static void count_tokens(const char *s, size_t len, int sign, hashmap *counts)
{
    const char *p = s, *end = s + len;
    int depth = 0, in_body = 0, after_def = 0;
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        const char *t = p;
        if (c == '#') {
            while (p < end && *p != '\n')
                p++;
            continue;
        }
        if (c == '"' || c == '\'') {
            p = source_string_end(p, end);
            continue;
        }
        if (word_byte(c)) {
            while (p < end && word_byte((unsigned char)*p))
                p++;
            if (c >= '0' && c <= '9') { /* a number, with its exponent's sign */
                while (p < end && (*p == '.' || word_byte((unsigned char)*p) ||
                                   ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E'))))
                    p++;
                continue;
            }
            if (p < end && (*p == '"' || *p == '\'') && p - t <= 3) /* a string's prefix */
                continue;
            if (!in_body) {
                after_def |= depth == 0 && p - t == 3 && !memcmp(t, "def", 3);
                continue;
            }
        } else {
            p++;
            if (c == '(' || c == '[' || c == '{')
                depth++;
            else if ((c == ')' || c == ']' || c == '}') && depth > 0)
                depth--;
            if (!in_body) {
                in_body = after_def && depth == 0 && c == ':';
                continue;
            }
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(' || c == ')' ||
                c == ',' || c == '=' || c == ';' || c == '\\')
                continue;
        }
        intptr_t k = (intptr_t)hashmap_getn(counts, t, (size_t)(p - t));
        hashmap_putn(counts, t, (size_t)(p - t), (void *)(k + sign));
    }
}

int inlined_may_read_same(const char *a, size_t alen, const char *b, size_t blen)
{
    hashmap counts = HASHMAP_INIT;
    count_tokens(a, alen, 1, &counts);
    count_tokens(b, blen, -1, &counts);
    int names = 0, ok = 1;
    for (size_t i = 0; ok && i < counts.len; i++) {
        const hashmap_entry *e = &counts.entries[i];
        intptr_t d = e->key ? (intptr_t)e->value : 0;
        if (!d)
            continue;
        names++;
        ok = word_byte((unsigned char)e->key[0]) && d % 2 == 0;
    }
    hashmap_free(&counts);
    return ok && names > 0;
}

/* The rounds from the text in *next, made from `before` by `pending` folds
 * (round `first` is the next one; 0 and none for a text as given): *out gets the
 * last text that parsed. */
static int rounds(strbuf *out, strbuf *next, const char *before, size_t before_len, int pending,
                  int first)
{
    strbuf cur = STRBUF_INIT; /* the last text that parsed; *next is made from it */
    strbuf_add(&cur, before, before_len);
    int total = 0;
    for (int round = first; round <= MAX_ROUNDS; round++) {
        py_tree t;
        int r = py_parse(&t, next->buf, next->len, "<definition>");
        if (r == 0)
            r = py_check_syntax(&t);
        pgci_error_clear();
        if (r < 0) {
            if (t.tree)
                py_tree_free(&t);
            /* at the first round the input is not Python; later, a fold would have
             * broken the text (it keeps it Python: never), and the last good stands */
            if (round == 0)
                total = PGCI_EINVALID;
            break;
        }
        strbuf tmp = cur;
        cur = *next;
        *next = tmp;
        total += pending;
        pending = 0;
        fold *folds = NULL;
        size_t n = round < MAX_ROUNDS ? round_folds(&t, first_def(&t), &folds) : 0;
        if (n)
            apply(next, cur.buf, cur.len, 0, folds, n);
        free(folds);
        py_tree_free(&t);
        if (!n)
            break;
        pending = (int)n;
    }
    if (total >= 0) {
        strbuf_setlen(out, 0);
        strbuf_add(out, cur.buf, cur.len);
    }
    strbuf_free(&cur);
    return total;
}

int inlined_temporaries(strbuf *out, const char *def, size_t len)
{
    strbuf next = STRBUF_INIT;
    strbuf_add(&next, def, len);
    int r = rounds(out, &next, NULL, 0, 0, 0);
    strbuf_free(&next);
    return r;
}

int inlined_temporaries_at(strbuf *out, const py_tree *t, uint32_t start, uint32_t end)
{
    if (start > end || end > t->len)
        return pgci_error_set(PGCI_EINVALID, "%s: bytes %u-%u are not in it", t->path, start, end);
    TSNode d;
    if (pynode_function_at(t, start, &d) < 0 || ts_node_end_byte(d) > end) {
        pgci_error_clear();
        return inlined_temporaries(out, t->src + start, end - start);
    }
    /* the first round reads the module's tree: most definitions have nothing to
     * fold, and cost no parse */
    fold *folds;
    size_t n = round_folds(t, d, &folds);
    if (!n) {
        free(folds);
        strbuf_setlen(out, 0);
        strbuf_add(out, t->src + start, end - start);
        return 0;
    }
    strbuf next = STRBUF_INIT;
    apply(&next, t->src + start, end - start, start, folds, n);
    free(folds);
    int r = rounds(out, &next, t->src + start, end - start, (int)n, 1);
    strbuf_free(&next);
    return r;
}
