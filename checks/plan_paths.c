/*
 * plan_paths.c - the keys of a workspace parallel plan, resolved through the
 * model's `__init__` attributes at both tags (see plan_paths.h). Read from the
 * texts without a parse: logical lines, brackets and strings followed.
 */
#include "checks/plan_paths.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checks/source_text.h"
#include "checks/survey_trees.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "core/vec.h"

#define PLAN_CHAIN_MAX 16
#define PLAN_ALTS_MAX 8
#define PLAN_SEARCH_MAX 4000

/* ---- text ---------------------------------------------------------------------------- */

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The '\n' that ends the logical line starting at p (or end): brackets, strings,
 * comments and backslash continuations followed. */
static const char *logical_end(const char *p, const char *end)
{
    int depth = 0;
    while (p < end) {
        char c = *p;
        if (c == '"' || c == '\'') {
            p = source_string_end(p, end);
            continue;
        }
        if (c == '#') {
            while (p < end && *p != '\n')
                p++;
            continue;
        }
        if (c == '\\' && p + 1 < end && p[1] == '\n') {
            p += 2;
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0)
            depth--;
        else if (c == '\n' && !depth)
            return p;
        p++;
    }
    return end;
}

/* One logical line of code: [s, e), indented by indent. */
typedef struct lline {
    const char *s, *e;
    size_t indent;
} lline;

/* The next logical line of code at or after *p in [.., end) into *l; 0 at the end. */
static int next_line(const char **p, const char *end, lline *l)
{
    while (*p < end) {
        const char *q = *p;
        while (q < end && (*q == ' ' || *q == '\t'))
            q++;
        if (q >= end)
            break;
        if (*q == '\n' || *q == '#') {
            while (q < end && *q != '\n')
                q++;
            *p = q < end ? q + 1 : end;
            continue;
        }
        l->indent = (size_t)(q - *p);
        l->s = q;
        l->e = logical_end(q, end);
        *p = l->e < end ? l->e + 1 : end;
        return 1;
    }
    return 0;
}

static int starts(const lline *l, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(l->e - l->s) >= n && !strncmp(l->s, w, n);
}

/* The body of the block whose header is the logical line h (a def, a class):
 * [*bs, *be) and its indentation; 0 when it has no body on lines of its own. */
static int body_of(const lline *h, const char *end, const char **bs, const char **be,
                   size_t *indent)
{
    const char *p = h->e < end ? h->e + 1 : end;
    lline l;
    if (!next_line(&p, end, &l) || l.indent <= h->indent)
        return 0;
    *bs = l.s - l.indent;
    *indent = l.indent;
    *be = end;
    while (next_line(&p, end, &l))
        if (l.indent <= h->indent) {
            *be = l.s - l.indent;
            break;
        }
    return 1;
}

/* The header of `def name(` at indentation indent in [s, end) (any indentation
 * when indent is (size_t)-1; name NULL: the first def). */
static int find_def(const char *s, const char *end, const char *name, size_t indent, lline *out)
{
    const char *p = s;
    lline l;
    while (next_line(&p, end, &l)) {
        if (indent != (size_t)-1 && l.indent != indent)
            continue;
        const char *q = l.s;
        if (!strncmp(q, "async ", 6))
            q += 6;
        if (strncmp(q, "def ", 4))
            continue;
        q += 4;
        size_t n = name ? strlen(name) : 0;
        if (!name || (!strncmp(q, name, n) && q[n] == '(')) {
            *out = l;
            return 1;
        }
    }
    return 0;
}

/* The value text [v, e) folded: comments out, whitespace runs one space, none
 * inside brackets' edges. */
static char *fold(const char *v, const char *e)
{
    strbuf b = STRBUF_INIT;
    int space = 0;
    for (const char *p = v; p < e; p++) {
        if (*p == '"' || *p == '\'') {
            const char *q = source_string_end(p, e);
            if (space && b.len)
                strbuf_addc(&b, ' ');
            space = 0;
            strbuf_add(&b, p, (size_t)(q - p));
            p = q - 1;
            continue;
        }
        if (*p == '#') {
            while (p < e && *p != '\n')
                p++;
            space = 1;
            continue;
        }
        if (isspace((unsigned char)*p) || *p == '\\') {
            space = 1;
            continue;
        }
        if (space && b.len && !strchr("([{", b.buf[b.len - 1]) && !strchr(")]},", *p))
            strbuf_addc(&b, ' ');
        space = 0;
        strbuf_addc(&b, *p);
    }
    return strbuf_detach(&b, NULL);
}

/* 1 when the text mentions `self.<name>` or the string "name" / 'name'. */
static int mentions(const char *s, size_t len, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = s; (p = memmem(p, (size_t)(s + len - p), name, n)) != NULL; p++) {
        const char *after = p + n;
        if (after < s + len && ident_char(*after))
            continue;
        if (p > s && (p[-1] == '"' || p[-1] == '\'') && after < s + len && *after == p[-1])
            return 1;
        if (p - s >= 5 && !strncmp(p - 5, "self.", 5) && (p - s == 5 || !ident_char(p[-6])))
            return 1;
    }
    return 0;
}

/* ---- what __init__ assigns ------------------------------------------------------------ */

typedef enum vkind { V_UNKNOWN, V_CLASS, V_LIST, V_PARAM } vkind;

typedef struct asg {
    char *attr;
    vkind kind;
    char *cls; /* V_CLASS, V_LIST: the class's name */
    int top;   /* at the body's own indentation: always runs */
} asg;

/* The ')' matching the '(' at p in [p, e), or NULL. */
static const char *close_paren(const char *p, const char *e)
{
    int depth = 0;
    for (; p < e; p++) {
        if (*p == '"' || *p == '\'') {
            p = source_string_end(p, e) - 1;
            continue;
        }
        if (*p == '(' || *p == '[' || *p == '{')
            depth++;
        else if ((*p == ')' || *p == ']' || *p == '}') && !--depth)
            return p;
    }
    return NULL;
}

/* `Cls(...)` or `Cls._from_config(...)` at v, the call the whole of [v, e): the
 * name's length, 0 when not. */
static size_t class_call(const char *v, const char *e)
{
    const char *q = v;
    if (!isalpha((unsigned char)*q) && *q != '_')
        return 0;
    while (q < e && ident_char(*q))
        q++;
    size_t n = (size_t)(q - v);
    if ((size_t)(e - q) >= 14 && !memcmp(q, "._from_config(", 14))
        q += 13;
    if (q >= e || *q != '(')
        return 0;
    const char *c = close_paren(q, e);
    return c && c + 1 == e ? n : 0;
}

static vkind classify(const char *v, char **cls)
{
    const char *e = v + strlen(v);
    *cls = NULL;
    const char *w = v;
    if (!strncmp(w, "torch.", 6))
        w += 6;
    if (!strncmp(w, "nn.", 3))
        w += 3;
    if (!strncmp(w, "Parameter(", 10))
        return close_paren(w + 9, e) == e - 1 ? V_PARAM : V_UNKNOWN;
    if (!strncmp(w, "ModuleList([", 12) && w != v) {
        const char *c = close_paren(w + 10, e);
        const char *q = w + 12;
        while (q < e && ident_char(*q))
            q++;
        size_t len = (size_t)(q - (w + 12));
        if (c == e - 1 && len &&
            (*q == '(' || ((size_t)(e - q) >= 14 && !memcmp(q, "._from_config(", 14))) &&
            strstr(w, " for ") && e[-2] == ']') {
            *cls = pgci_strndup(w + 12, len);
            return V_LIST;
        }
        return V_UNKNOWN;
    }
    size_t n = class_call(v, e);
    if (!n)
        return V_UNKNOWN;
    *cls = pgci_strndup(v, n);
    return V_CLASS;
}

typedef VEC(asg) asgs;

static void asgs_free(asgs *a)
{
    for (size_t i = 0; i < a->len; i++) {
        free(a->items[i].attr);
        free(a->items[i].cls);
    }
    VEC_FREE(a);
}

/* One logical line of an __init__'s body: `self.x = v`, `self.x: T = v`,
 * `self.register_parameter("x", ...)`. */
static void read_assign(asgs *out, const lline *l, size_t body_indent)
{
    const char *q = l->s, *e = l->e;
    if (strncmp(q, "self.", 5))
        return;
    q += 5;
    const char *n = q;
    while (q < e && ident_char(*q))
        q++;
    if (q == n)
        return;
    asg a = {0};
    a.top = l->indent == body_indent;
    if ((size_t)(q - n) == 18 && !strncmp(n, "register_parameter", 18) && e - q > 2 &&
        q[0] == '(' && (q[1] == '"' || q[1] == '\'')) {
        const char *s = q + 2, *t = memchr(s, q[1], (size_t)(e - s));
        if (!t)
            return;
        a.attr = pgci_strndup(s, (size_t)(t - s));
        a.kind = V_PARAM;
        VEC_PUSH(out, a);
        return;
    }
    const char *r = q;
    while (r < e && *r == ' ')
        r++;
    if (r < e && *r == ':')
        while (r < e && !(*r == '=' && r[1] != '='))
            r++;
    if (r >= e || *r != '=' || r[1] == '=')
        return;
    char *v = fold(r + 1, e);
    a.attr = pgci_strndup(n, (size_t)(q - n));
    a.kind = classify(v, &a.cls);
    free(v);
    VEC_PUSH(out, a);
}

static void read_assigns(asgs *out, const char *bs, const char *be, size_t indent)
{
    const char *p = bs;
    lline l;
    while (next_line(&p, be, &l))
        read_assign(out, &l, indent);
}

/* ---- the classes the generated module holds, at one tag -------------------------------- */

typedef struct kcls {
    char *name;
    int side;
    int ok;
    const char *text; /* the class's definition */
    size_t len;
    asgs init; /* what its __init__ (the config's, when it overrides it) assigns */
    int has_init;
    strvec bases;
} kcls;

typedef struct pctx {
    const survey_pair *p;
    VEC(kcls *) classes;
    strvec texts; /* owned texts the classes point into */
    findings *out;
} pctx;

/* The last patch of type t for target (a later one supersedes), or NULL. */
static const pg_patch *config_patch(const pg_config *cfg, pg_patch_type t, const char *target)
{
    const pg_patch *found = NULL;
    for (size_t i = 0; i < cfg->patches.len; i++) {
        const pg_patch *x = &cfg->patches.items[i];
        if (x->type == t && x->replacement && !strcmp(x->target, target))
            found = x;
    }
    return found;
}

/* The bases of the class header h, each trimmed, into out. */
static void header_bases(strvec *out, const lline *h)
{
    const char *o = memchr(h->s, '(', (size_t)(h->e - h->s));
    const char *c = o ? close_paren(o, h->e) : NULL;
    if (!c)
        return;
    char *all = fold(o + 1, c);
    int depth = 0;
    const char *s = all;
    for (const char *q = all;; q++) {
        if (*q == '[' || *q == '(')
            depth++;
        else if (*q == ']' || *q == ')')
            depth--;
        if ((*q == ',' && !depth) || !*q) {
            while (*s == ' ')
                s++;
            const char *t = q;
            while (t > s && t[-1] == ' ')
                t--;
            if (t > s)
                strvec_pushn(out, s, (size_t)(t - s));
            s = q + 1;
        }
        if (!*q)
            break;
    }
    free(all);
}

/* Reads a class's text: its bases, and its __init__'s assignments (from the
 * config's override of it when there is one). */
static void read_class(pctx *c, kcls *k)
{
    const char *end = k->text + k->len;
    const char *p = k->text;
    lline h, l;
    int found = 0;
    while (!found && next_line(&p, end, &h))
        found = !h.indent && starts(&h, "class ");
    const char *bs, *be;
    size_t bi;
    if (!found || !body_of(&h, end, &bs, &be, &bi))
        return;
    header_bases(&k->bases, &h);
    k->ok = 1;
    char *target = pgci_asprintf("%s.__init__", k->name);
    const pg_patch *ov = config_patch(c->p->cfg, PG_METHOD_OVERRIDE, target);
    free(target);
    if (ov) {
        char *t = signatures_object_text(ov->replacement);
        if (!t) {
            k->ok = 0;
            return;
        }
        strvec_push_owned(&c->texts, t);
        bs = t;
        be = t + strlen(t);
        bi = (size_t)-1;
    }
    const char *ds, *de;
    size_t di;
    if (find_def(bs, be, ov ? NULL : "__init__", bi, &l) && body_of(&l, be, &ds, &de, &di)) {
        k->has_init = 1;
        read_assigns(&k->init, ds, de, di);
    } else if (ov) {
        k->ok = 0;
    }
}

/* Class name as the generated module defines it at side: the config's
 * replacement, else upstream's top-level class; NULL when neither. */
static const kcls *get_class(pctx *c, int side, const char *name)
{
    for (size_t i = 0; i < c->classes.len; i++)
        if (c->classes.items[i]->side == side && !strcmp(c->classes.items[i]->name, name))
            return c->classes.items[i]->ok ? c->classes.items[i] : NULL;
    kcls *k = pgci_calloc(1, sizeof(*k));
    k->name = pgci_strdup(name);
    k->side = side;
    VEC_PUSH(&c->classes, k);
    const pg_patch *r = config_patch(c->p->cfg, PG_CLASS_REPLACEMENT, name);
    if (r) {
        char *t = signatures_object_text(r->replacement);
        if (!t)
            return NULL;
        strvec_push_owned(&c->texts, t);
        k->text = t;
        k->len = strlen(t);
    } else {
        const index_module *m = side ? c->p->b : c->p->a;
        const char *src = side ? c->p->src_b : c->p->src_a;
        size_t len = side ? c->p->src_b_len : c->p->src_a_len;
        const index_def *d = m ? index_find(m, name) : NULL;
        if (!d || d->kind != INDEX_CLASS || d->parent || d->conditional || !src ||
            d->end_byte > len || d->start_byte >= d->end_byte)
            return NULL;
        k->text = src + d->start_byte;
        k->len = d->end_byte - d->start_byte;
    }
    read_class(c, k);
    return k->ok ? k : NULL;
}

/* A base that holds no submodule or parameter of its own. */
static int inert_base(const char *b)
{
    static const char *const inert[] = {
        "nn.Module", "torch.nn.Module",           "Module", "PreTrainedModel", "GenerationMixin",
        "object",    "GradientCheckpointingLayer"};
    for (size_t i = 0; i < sizeof(inert) / sizeof(*inert); i++)
        if (!strcmp(b, inert[i]))
            return 1;
    return 0;
}

/* The classes of name's chain at side, depth first in base order, each once;
 * -1 when a base is not read (another module's, a keyword, written `mod.Base`). */
static int chain_of(pctx *c, int side, const char *name, const kcls **out, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(out[i]->name, name))
            return 0;
    const kcls *k = get_class(c, side, name);
    if (!k || *n >= PLAN_CHAIN_MAX)
        return -1;
    out[(*n)++] = k;
    for (size_t i = 0; i < k->bases.len; i++) {
        char *b = pgci_strdup(k->bases.items[i]);
        char *br = strchr(b, '[');
        if (br)
            *br = 0;
        int r = inert_base(b)                      ? 0
                : strchr(b, '.') || strchr(b, '=') ? -1
                                                   : chain_of(c, side, b, out, n);
        free(b);
        if (r < 0)
            return -1;
    }
    return 0;
}

typedef enum look { L_UNKNOWN, L_ABSENT, L_FOUND } look;

/* What the chain of cls at side sets `self.<attr>` to: the assignments of the
 * first __init__ of the chain that makes any (L_FOUND, into *first and *n), none
 * with certainty (L_ABSENT), or cannot tell. */
static look lookup_attr(pctx *c, int side, const char *cls, const char *attr, const asg **found,
                        size_t *n)
{
    const kcls *chain[PLAN_CHAIN_MAX];
    size_t len = 0;
    *n = 0;
    if (chain_of(c, side, cls, chain, &len) < 0)
        return L_UNKNOWN;
    for (size_t i = 0; i < len; i++) {
        const asgs *a = &chain[i]->init;
        size_t k = 0;
        for (size_t j = 0; j < a->len; j++)
            if (!strcmp(a->items[j].attr, attr)) {
                if (k == PLAN_ALTS_MAX)
                    return L_UNKNOWN;
                found[k++] = &a->items[j];
            }
        if (k) {
            *n = k;
            return L_FOUND;
        }
    }
    static const char *const dynamic[] = {"setattr(",         "add_module(",
                                          "register_module(", "register_parameter(",
                                          "__getattr__",      "__dict__"};
    for (size_t i = 0; i < len; i++) {
        if (mentions(chain[i]->text, chain[i]->len, attr))
            return L_UNKNOWN;
        for (size_t d = 0; d < sizeof(dynamic) / sizeof(*dynamic); d++)
            if (memmem(chain[i]->text, chain[i]->len, dynamic[d], strlen(dynamic[d])))
                return L_UNKNOWN;
        /* the config's overrides of the class's methods run in it too */
        size_t nl = strlen(chain[i]->name);
        for (size_t j = 0; j < c->p->cfg->patches.len; j++) {
            const pg_patch *x = &c->p->cfg->patches.items[j];
            if (x->type != PG_METHOD_OVERRIDE || !x->replacement ||
                strncmp(x->target, chain[i]->name, nl) || x->target[nl] != '.')
                continue;
            char *t = signatures_object_text(x->replacement);
            int m = !t || mentions(t, strlen(t), attr);
            free(t);
            if (m)
                return L_UNKNOWN;
        }
    }
    return L_ABSENT;
}

/* ---- one key at one tag ---------------------------------------------------------------- */

typedef enum rkind { R_UNKNOWN, R_OK, R_BROKEN } rkind;

typedef struct state {
    const char *cls;
    int list; /* a ModuleList of cls: the next segment must index it */
} state;

typedef struct res {
    rkind kind;
    size_t at;          /* R_BROKEN: the segment the class lacks */
    const char *holder; /* R_BROKEN: that class; R_OK: the parameter's class */
    const char *at_cls; /* the class after segment `at`-1 when one (for both tags) */
} res;

static int is_index(const char *s)
{
    if (!strcmp(s, "*"))
        return 1;
    for (const char *q = s; *q; q++)
        if (!isdigit((unsigned char)*q))
            return 0;
    return *s != 0;
}

/* One attribute segment from each state; 0 to go on, 1 when r is settled. */
static int step(pctx *c, int side, const strvec *segs, size_t i, state *st, size_t *n, int *certain,
                res *r)
{
    state next[PLAN_ALTS_MAX];
    size_t nn = 0;
    int last = i + 1 == segs->len;
    for (size_t s = 0; s < *n; s++) {
        if (st[s].list)
            return 1;
        const asg *f[PLAN_ALTS_MAX];
        size_t nf;
        look lk = lookup_attr(c, side, st[s].cls, segs->items[i], f, &nf);
        if (lk == L_UNKNOWN)
            return 1;
        if (lk == L_ABSENT) {
            if (*n == 1 && *certain) {
                *r = (res){R_BROKEN, i, st[s].cls, st[s].cls};
                return 1;
            }
            continue;
        }
        if (nf > 1 || !f[0]->top)
            *certain = 0;
        for (size_t k = 0; k < nf; k++) {
            if (f[k]->kind == V_UNKNOWN)
                return 1;
            if (last && f[k]->kind == V_PARAM) {
                *r = (res){R_OK, i, st[s].cls, NULL};
                return 1;
            }
            if (last || f[k]->kind == V_PARAM)
                continue;
            if (!get_class(c, side, f[k]->cls))
                return 1;
            if (nn < PLAN_ALTS_MAX)
                next[nn++] = (state){f[k]->cls, f[k]->kind == V_LIST};
        }
    }
    memcpy(st, next, nn * sizeof(*st));
    *n = nn;
    return !nn;
}

/* Resolves segs from owner at side. */
static res resolve(pctx *c, int side, const char *owner, const strvec *segs)
{
    res r = {R_UNKNOWN, 0, NULL, NULL};
    if (!get_class(c, side, owner))
        return r;
    state st[PLAN_ALTS_MAX] = {{owner, 0}};
    size_t n = 1;
    int certain = 1;
    for (size_t i = 0; i < segs->len; i++) {
        if (is_index(segs->items[i])) {
            for (size_t s = 0; s < n; s++)
                if (!st[s].list)
                    return r;
            for (size_t s = 0; s < n; s++)
                st[s].list = 0;
            if (i + 1 == segs->len)
                return r;
            continue;
        }
        if (step(c, side, segs, i, st, &n, &certain, &r))
            return r;
    }
    return r;
}

/* The class the certain prefix segs[0..at) reaches at side, or NULL. */
static const char *prefix_class(pctx *c, int side, const char *owner, const strvec *segs, size_t at)
{
    const char *cls = owner;
    for (size_t i = 0; i < at && cls; i++) {
        const asg *f[PLAN_ALTS_MAX];
        size_t nf;
        if (is_index(segs->items[i]) ||
            lookup_attr(c, side, cls, segs->items[i], f, &nf) != L_FOUND || nf != 1 ||
            f[0]->kind != V_CLASS)
            return NULL;
        cls = f[0]->cls;
    }
    return cls;
}

/* ---- where the parameter went: a bounded search at B ---------------------------------- */

typedef struct node {
    const char *cls;
    int list;
    char *path;
    size_t depth;
} node;

/* The shortest path from owner at B to `leaf`, a parameter of a class named
 * holder: malloc'ed, NULL when none within max_depth segments. */
static char *search(pctx *c, const char *owner, const char *holder, const char *leaf,
                    size_t max_depth)
{
    VEC(node) q = VEC_INIT;
    strvec seen = STRVEC_INIT;
    char *found = NULL;
    VEC_PUSH(&q, ((node){owner, 0, pgci_strdup(""), 0}));
    strvec_push(&seen, owner);
    for (size_t h = 0; h < q.len && !found && q.len < PLAN_SEARCH_MAX; h++) {
        node x = q.items[h];
        const char *sep = *x.path ? "." : "";
        if (x.list) {
            VEC_PUSH(&q, ((node){x.cls, 0, pgci_asprintf("%s%s*", x.path, sep), x.depth + 1}));
            continue;
        }
        const asg *f[PLAN_ALTS_MAX];
        size_t nf;
        if (!strcmp(x.cls, holder) && x.depth < max_depth &&
            lookup_attr(c, 1, x.cls, leaf, f, &nf) == L_FOUND && nf == 1 && f[0]->kind == V_PARAM) {
            found = pgci_asprintf("%s%s%s", x.path, sep, leaf);
            break;
        }
        const kcls *chain[PLAN_CHAIN_MAX];
        size_t len = 0;
        if (x.depth + 1 >= max_depth || chain_of(c, 1, x.cls, chain, &len) < 0)
            continue;
        for (size_t i = 0; i < len; i++)
            for (size_t j = 0; j < chain[i]->init.len; j++) {
                const asg *a = &chain[i]->init.items[j];
                if ((a->kind != V_CLASS && a->kind != V_LIST) || strvec_find(&seen, a->cls) >= 0 ||
                    !get_class(c, 1, a->cls))
                    continue;
                strvec_push(&seen, a->cls);
                VEC_PUSH(&q, ((node){a->cls, a->kind == V_LIST,
                                     pgci_asprintf("%s%s%s", x.path, sep, a->attr), x.depth + 1}));
            }
    }
    for (size_t i = 0; i < q.len; i++)
        free(q.items[i].path);
    VEC_FREE(&q);
    strvec_free(&seen);
    return found;
}

/* ---- the plan: the keys of the function a body imports -------------------------------- */

typedef struct pkey {
    char *key;
    unsigned line;
} pkey;
typedef VEC(pkey) pkeys;

/* A dotted key: identifiers, indexes and `*`, two segments at least. */
static int plan_key(const char *s, size_t n)
{
    int dots = 0, seg = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.') {
            if (!seg)
                return 0;
            dots++;
            seg = 0;
        } else if (ident_char(s[i]) || s[i] == '*') {
            seg++;
        } else {
            return 0;
        }
    }
    return dots && seg;
}

/* The string keys of the dict displays in [s, e) of text (whose lines count from
 * 1 at text). */
static void read_keys(pkeys *out, const char *text, const char *s, const char *e)
{
    char prev = 0;
    for (const char *p = s; p < e; p++) {
        if (*p == '#') {
            while (p < e && *p != '\n')
                p++;
            continue;
        }
        if (*p != '"' && *p != '\'') {
            if (!isspace((unsigned char)*p))
                prev = *p;
            continue;
        }
        const char *q = source_string_end(p, e);
        int plain = !(p > s && ident_char(p[-1])) && q - p >= 2 && q[-1] == *p &&
                    !(q - p >= 6 && p[1] == *p && p[2] == *p);
        const char *r = q;
        while (r < e && (*r == ' ' || *r == '\t' || *r == '\n'))
            r++;
        if (plain && (prev == '{' || prev == ',') && r < e && *r == ':' &&
            plan_key(p + 1, (size_t)(q - p - 2))) {
            unsigned line = 1;
            for (const char *t = text; t < p; t++)
                line += *t == '\n';
            pkey k = {pgci_strndup(p + 1, (size_t)(q - p - 2)), line};
            VEC_PUSH(out, k);
        }
        prev = '"';
        p = q - 1;
    }
}

/* `from <dots><module> import <name> [as <alias>]` of a body line: 1 and the
 * parts (malloc'ed). */
static int read_from(const lline *l, int *level, char **module, char **name, char **alias)
{
    const char *q = l->s + 5, *e = l->e;
    *level = 0;
    while (q < e && *q == '.')
        (*level)++, q++;
    const char *m = q;
    while (q < e && (ident_char(*q) || *q == '.'))
        q++;
    if (q >= e || *q != ' ' || strncmp(q, " import ", 8))
        return 0;
    *module = pgci_strndup(m, (size_t)(q - m));
    q += 8;
    const char *n = q;
    while (q < e && ident_char(*q))
        q++;
    *name = pgci_strndup(n, (size_t)(q - n));
    *alias = NULL;
    if (!strncmp(q, " as ", 4)) {
        const char *a = q + 4;
        q = a;
        while (q < e && ident_char(*q))
            q++;
        *alias = pgci_strndup(a, (size_t)(q - a));
    }
    while (q < e && *q == ' ')
        q++;
    if (q != e || !**name) {
        free(*module), free(*name), free(*alias);
        return 0;
    }
    return 1;
}

/* The dotted module an import at level of the generated module reads: the
 * generated module lives at <config's package>/generated/<target_file>. */
static char *absolute(const pg_config *cfg, int level, const char *module)
{
    if (!level)
        return pgci_strdup(module);
    const char *dot = cfg->module ? strrchr(cfg->module, '.') : NULL;
    if (!dot || !cfg->target_file)
        return NULL;
    strbuf pkg = STRBUF_INIT;
    strbuf_addf(&pkg, "%.*s.generated", (int)(dot - cfg->module), cfg->module);
    for (const char *t = cfg->target_file; strchr(t, '/'); t = strchr(t, '/') + 1)
        strbuf_addf(&pkg, ".%.*s", (int)(strchr(t, '/') - t), t);
    for (int up = 1; up < level; up++) {
        char *d = strrchr(pkg.buf, '.');
        if (!d) {
            strbuf_free(&pkg);
            return NULL;
        }
        strbuf_setlen(&pkg, (size_t)(d - pkg.buf));
    }
    if (*module)
        strbuf_addf(&pkg, ".%s", module);
    return strbuf_detach(&pkg, NULL);
}

/* 1 when text calls `name(`. */
static int calls(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text; (p = strstr(p, name)) != NULL; p++)
        if ((p == text || !ident_char(p[-1])) && p[n] == '(' && (p == text || p[-1] != '.'))
            return 1;
    return 0;
}

/* ---- the finding ----------------------------------------------------------------------- */

typedef struct site {
    const char *owner, *rel, *key;
    unsigned line;
} site;

static char *joined(const strvec *segs, size_t n)
{
    strbuf b = STRBUF_INIT;
    for (size_t i = 0; i < n; i++)
        strbuf_addf(&b, "%s%s", i ? "." : "", segs->items[i]);
    return strbuf_detach(&b, NULL);
}

static void report(pctx *c, const site *s, const strvec *segs, const res *ra, const res *rb)
{
    const survey_pair *p = c->p;
    char *prefix = joined(segs, rb->at);
    const char *was = prefix_class(c, 0, s->owner, segs, rb->at);
    char *now = search(c, s->owner, ra->holder, segs->items[segs->len - 1], segs->len + 3);
    json_t *data = json_object();
    json_object_set_new(data, "kind", json_string("plan-key-unmatched"));
    json_object_set_new(data, "target", json_string(s->key));
    json_object_set_new(data, "key", json_string(s->key));
    json_object_set_new(data, "owner", json_string(s->owner));
    json_object_set_new(data, "segment", json_string(segs->items[rb->at]));
    json_object_set_new(data, "class", json_string(rb->holder));
    json_object_set_new(data, "file", json_string(s->rel));
    json_object_set_new(data, "line", json_integer(s->line));
    json_object_set_new(data, "now", now ? json_string(now) : json_null());
    /* the path that went, and where it went when the rest of the key follows it */
    char *dead = joined(segs, rb->at + 1);
    const char *rest = s->key + strlen(dead);
    size_t nl = now ? strlen(now) : 0, rl = strlen(rest) + strlen(segs->items[rb->at]);
    json_object_set_new(data, "prefix", json_string(prefix));
    json_object_set_new(data, "dead", json_string(dead));
    if (now && nl > rl && now[nl - rl - 1] == '.' && !strcmp(now + nl - strlen(rest), rest) &&
        !strncmp(now + nl - rl, segs->items[rb->at], strlen(segs->items[rb->at])))
        json_object_set_new(data, "moved_to", json_stringn(now, nl - strlen(rest)));
    free(dead);
    json_object_set_new(data, "from", json_string(p->tag_a));
    json_object_set_new(data, "to", json_string(p->tag_b));
    strbuf where = STRBUF_INIT;
    if (rb->at)
        strbuf_addf(&where, "`%s` (a `%s`)", prefix, rb->holder);
    else
        strbuf_addf(&where, "the model (a `%s`)", rb->holder);
    finding *f = findings_add(c->out, "callees", SEV_ERROR, p->config, s->rel, s->line, 0, data,
                              "`%s` line %u: the parallel plan key `%s` matches no parameter at "
                              "%s: %s has no `%s`%s%s%s: "
                              "ParallelPlan.apply leaves them replicated, silently",
                              s->rel, s->line, s->key, p->tag_b, where.buf, segs->items[rb->at],
                              now ? " (now `" : "", now ? now : "", now ? "`)" : "");
    strbuf d = STRBUF_INIT;
    strbuf_addf(&d, "%s: `%s.get_parallel_plan`'s key reaches a parameter of `%s`", p->tag_a,
                s->owner, ra->holder);
    if (was)
        strbuf_addf(&d, " through %s%s%s (a `%s`)", rb->at ? "`" : "the model", prefix,
                    rb->at ? "`" : "", was);
    strbuf_addf(&d, ".\n%s: %s: no `__init__` of its chain sets `self.%s`, nothing else does.\n",
                p->tag_b, where.buf, segs->items[rb->at]);
    if (now)
        strbuf_addf(&d, "%s: the same parameter of a `%s` is `%s`.\n", p->tag_b, ra->holder, now);
    finding_set_detail(f, d.buf);
    strbuf_free(&d);
    strbuf_free(&where);
    free(prefix);
    free(now);
}

/* Judges each key of the plan function `fn` of workspace module `module`. */
static void judge_plan(pctx *c, const char *root, const char *module, const char *fn,
                       const char *owner, strvec *done)
{
    strbuf path = STRBUF_INIT, text = STRBUF_INIT;
    strbuf_addf(&path, "%s/", root);
    for (const char *q = module; *q; q++)
        strbuf_addc(&path, *q == '.' ? '/' : *q);
    strbuf_adds(&path, ".py");
    lline h;
    const char *bs, *be;
    size_t bi;
    pkeys keys = VEC_INIT;
    if (fs_is_file(path.buf) && fs_read_file(&text, path.buf, 4u << 20) == 0 &&
        find_def(text.buf, text.buf + text.len, fn, 0, &h) &&
        body_of(&h, text.buf + text.len, &bs, &be, &bi))
        read_keys(&keys, text.buf, bs, be);
    pgci_error_clear();
    const char *rel = path.buf + strlen(root) + 1;
    for (size_t i = 0; i < keys.len; i++) {
        char *id = pgci_asprintf("%s|%u|%s|%s", rel, keys.items[i].line, keys.items[i].key, owner);
        int seen = strvec_find(done, id) >= 0;
        if (!seen)
            strvec_push(done, id);
        free(id);
        strvec segs = STRVEC_INIT;
        for (const char *s = keys.items[i].key;; s = strchr(s, '.') + 1) {
            const char *d = strchr(s, '.');
            strvec_pushn(&segs, s, d ? (size_t)(d - s) : strlen(s));
            if (!d)
                break;
        }
        size_t star = 0;
        while (star < segs.len && strcmp(segs.items[star], "*"))
            star++;
        res ra = seen ? (res){0} : resolve(c, 0, owner, &segs);
        res rb = ra.kind == R_OK ? resolve(c, 1, owner, &segs) : (res){0};
        if (rb.kind == R_BROKEN && rb.at < star) {
            site s = {owner, rel, keys.items[i].key, keys.items[i].line};
            report(c, &s, &segs, &ra, &rb);
        }
        strvec_free(&segs);
        free(keys.items[i].key);
    }
    VEC_FREE(&keys);
    strbuf_free(&path);
    strbuf_free(&text);
}

/* The workspace functions an override's body imports and calls. */
static void follow_override(pctx *c, const pg_patch *x, const char *root, strvec *done)
{
    char *text = signatures_object_text(x->replacement);
    if (!text || !strstr(text, "import")) { /* most bodies import nothing: no line read */
        free(text);
        return;
    }
    char *owner = pgci_strndup(x->target, (size_t)(strrchr(x->target, '.') - x->target));
    const char *p = text, *end = text + strlen(text);
    lline l;
    while (next_line(&p, end, &l)) {
        int level;
        char *module, *name, *alias;
        if (!starts(&l, "from ") || !read_from(&l, &level, &module, &name, &alias))
            continue;
        char *abs = calls(text, alias ? alias : name) ? absolute(c->p->cfg, level, module) : NULL;
        if (abs)
            judge_plan(c, root, abs, name, owner, done);
        free(abs);
        free(module);
        free(name);
        free(alias);
    }
    free(owner);
    free(text);
}

void plan_paths_compare(findings *out, const survey_pair *p)
{
    /* A in B's place (the survey's standing facts): no key can break */
    if (!p->a || !p->b || !p->cfg || !p->src_a || !p->src_b || p->a == p->b)
        return;
    char *root = survey_workspace_root(p->cfg);
    if (!root)
        return;
    pctx c = {.p = p, .out = out};
    strvec done = STRVEC_INIT;
    for (size_t i = 0; i < p->cfg->patches.len; i++) {
        const pg_patch *x = &p->cfg->patches.items[i];
        if (x->type == PG_METHOD_OVERRIDE && x->replacement && strchr(x->target, '.') &&
            config_patch(p->cfg, PG_METHOD_OVERRIDE, x->target) == x &&
            strstr(x->target, "__init__") == NULL)
            follow_override(&c, x, root, &done);
    }
    for (size_t i = 0; i < c.classes.len; i++) {
        kcls *k = c.classes.items[i];
        free(k->name);
        asgs_free(&k->init);
        strvec_free(&k->bases);
        free(k);
    }
    VEC_FREE(&c.classes);
    strvec_free(&c.texts);
    strvec_free(&done);
    free(root);
}
