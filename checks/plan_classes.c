/*
 * plan_classes.c - the classes a generated module holds at one tag, read for the
 * parallel plan's keys (see plan_classes.h). Read from the texts without a parse:
 * logical lines, brackets and strings followed.
 */
#include "checks/plan_classes.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checks/source_text.h"
#include "core/strbuf.h"
#include "core/vec.h"

/* ---- text ---------------------------------------------------------------------------- */

int plan_ident_char(char c)
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

/* The next logical line of code at or after *p in [.., end) into *l; 0 at the end. */
int plan_next_line(const char **p, const char *end, plan_line *l)
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

int plan_starts(const plan_line *l, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(l->e - l->s) >= n && !strncmp(l->s, w, n);
}

/* The body of the block whose header is the logical line h (a def, a class):
 * [*bs, *be) and its indentation; 0 when it has no body on lines of its own. */
int plan_body_of(const plan_line *h, const char *end, const char **bs, const char **be,
                 size_t *indent)
{
    const char *p = h->e < end ? h->e + 1 : end;
    plan_line l;
    if (!plan_next_line(&p, end, &l) || l.indent <= h->indent)
        return 0;
    *bs = l.s - l.indent;
    *indent = l.indent;
    *be = end;
    while (plan_next_line(&p, end, &l))
        if (l.indent <= h->indent) {
            *be = l.s - l.indent;
            break;
        }
    return 1;
}

/* The header of `def name(` at indentation indent in [s, end) (any indentation
 * when indent is (size_t)-1; name NULL: the first def). */
int plan_find_def(const char *s, const char *end, const char *name, size_t indent, plan_line *out)
{
    const char *p = s;
    plan_line l;
    while (plan_next_line(&p, end, &l)) {
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
char *plan_fold(const char *v, const char *e)
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
        if (after < s + len && plan_ident_char(*after))
            continue;
        if (p > s && (p[-1] == '"' || p[-1] == '\'') && after < s + len && *after == p[-1])
            return 1;
        if (p - s >= 5 && !strncmp(p - 5, "self.", 5) && (p - s == 5 || !plan_ident_char(p[-6])))
            return 1;
    }
    return 0;
}

/* ---- what __init__ assigns ------------------------------------------------------------ */

/* The ')' matching the '(' at p in [p, e), or NULL. */
const char *plan_close_paren(const char *p, const char *e)
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

static void asgs_free(plan_asgs *a)
{
    for (size_t i = 0; i < a->len; i++) {
        free(a->items[i].attr);
        free(a->items[i].cls);
    }
    VEC_FREE(a);
}

/* One logical line of the body of the def whose header is h: `self.x = v`,
 * `self.x: T = v`, `self.register_parameter("x", ...)`. */
static void read_assign(plan_asgs *out, const plan_line *l, size_t body_indent, const plan_line *h)
{
    const char *q = l->s, *e = l->e;
    if (strncmp(q, "self.", 5))
        return;
    q += 5;
    const char *n = q;
    while (q < e && plan_ident_char(*q))
        q++;
    if (q == n)
        return;
    plan_asg a = {0};
    a.top = l->indent == body_indent;
    if ((size_t)(q - n) == 18 && !strncmp(n, "register_parameter", 18) && e - q > 2 &&
        q[0] == '(' && (q[1] == '"' || q[1] == '\'')) {
        const char *s = q + 2, *t = memchr(s, q[1], (size_t)(e - s));
        if (!t)
            return;
        a.attr = pgci_strndup(s, (size_t)(t - s));
        a.kind = PLAN_V_PARAM;
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
    char *v = plan_fold(r + 1, e);
    a.attr = pgci_strndup(n, (size_t)(q - n));
    a.kind =
        plan_value_kind(v, h ? h->s : NULL, h ? (size_t)(h->e - h->s) : 0, out, &a.cls, &a.leaf);
    free(v);
    VEC_PUSH(out, a);
}

static void read_assigns(plan_asgs *out, const char *bs, const char *be, size_t indent,
                         const plan_line *h)
{
    const char *p = bs;
    plan_line l;
    while (plan_next_line(&p, be, &l))
        read_assign(out, &l, indent, h);
}

/* ---- the classes the generated module holds, at one tag -------------------------------- */

/* The last patch of type t for target (a later one supersedes), or NULL. */
const pg_patch *plan_config_patch(const pg_config *cfg, pg_patch_type t, const char *target)
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
static void header_bases(strvec *out, const plan_line *h)
{
    const char *o = memchr(h->s, '(', (size_t)(h->e - h->s));
    const char *c = o ? plan_close_paren(o, h->e) : NULL;
    if (!c)
        return;
    char *all = plan_fold(o + 1, c);
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
static void read_class(plan_model *m, plan_class *k)
{
    const char *end = k->text + k->len;
    const char *p = k->text;
    plan_line h, l;
    int found = 0;
    while (!found && plan_next_line(&p, end, &h))
        found = !h.indent && plan_starts(&h, "class ");
    const char *bs, *be;
    size_t bi;
    if (!found || !plan_body_of(&h, end, &bs, &be, &bi))
        return;
    header_bases(&k->bases, &h);
    k->ok = 1;
    char *target = pgci_asprintf("%s.__init__", k->name);
    const pg_patch *ov = plan_config_patch(m->p->cfg, PG_METHOD_OVERRIDE, target);
    free(target);
    if (ov) {
        char *t = signatures_object_text(ov->replacement);
        if (!t) {
            k->ok = 0;
            return;
        }
        strvec_push_owned(&m->texts, t);
        bs = t;
        be = t + strlen(t);
        bi = (size_t)-1;
    }
    const char *ds, *de;
    size_t di;
    if (plan_find_def(bs, be, ov ? NULL : "__init__", bi, &l) &&
        plan_body_of(&l, be, &ds, &de, &di)) {
        k->has_init = 1;
        read_assigns(&k->init, ds, de, di, &l);
    } else if (ov) {
        k->ok = 0;
    }
}

/* Class name as the generated module defines it at side: the config's
 * replacement, else upstream's top-level class; NULL when neither. */
const plan_class *plan_class_get(plan_model *m, int side, const char *name)
{
    for (size_t i = 0; i < m->classes.len; i++)
        if (m->classes.items[i]->side == side && !strcmp(m->classes.items[i]->name, name))
            return m->classes.items[i]->ok ? m->classes.items[i] : NULL;
    plan_class *k = pgci_calloc(1, sizeof(*k));
    k->name = pgci_strdup(name);
    k->side = side;
    VEC_PUSH(&m->classes, k);
    const pg_patch *r = plan_config_patch(m->p->cfg, PG_CLASS_REPLACEMENT, name);
    if (r) {
        char *t = signatures_object_text(r->replacement);
        if (!t)
            return NULL;
        strvec_push_owned(&m->texts, t);
        k->text = t;
        k->len = strlen(t);
    } else {
        const index_module *mod = side ? m->p->b : m->p->a;
        const char *src = side ? m->p->src_b : m->p->src_a;
        size_t len = side ? m->p->src_b_len : m->p->src_a_len;
        const index_def *d = mod ? index_find(mod, name) : NULL;
        if (!d || d->kind != INDEX_CLASS || d->parent || d->conditional || !src ||
            d->end_byte > len || d->start_byte >= d->end_byte)
            return NULL;
        k->text = src + d->start_byte;
        k->len = d->end_byte - d->start_byte;
    }
    read_class(m, k);
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
int plan_class_chain(plan_model *m, int side, const char *name, const plan_class **out, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(out[i]->name, name))
            return 0;
    const plan_class *k = plan_class_get(m, side, name);
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
                                                   : plan_class_chain(m, side, b, out, n);
        free(b);
        if (r < 0)
            return -1;
    }
    return 0;
}

/* What the chain of cls at side sets `self.<attr>` to: the assignments of the
 * first __init__ of the chain that makes any (PLAN_L_FOUND, into *first and *n), none
 * with certainty (PLAN_L_ABSENT), or cannot tell. */
plan_look plan_class_lookup(plan_model *m, int side, const char *cls, const char *attr,
                            const plan_asg **found, size_t *n)
{
    const plan_class *chain[PLAN_CHAIN_MAX];
    size_t len = 0;
    *n = 0;
    if (plan_class_chain(m, side, cls, chain, &len) < 0)
        return PLAN_L_UNKNOWN;
    for (size_t i = 0; i < len; i++) {
        const plan_asgs *a = &chain[i]->init;
        size_t k = 0;
        for (size_t j = 0; j < a->len; j++)
            if (!strcmp(a->items[j].attr, attr)) {
                if (k == PLAN_ALTS_MAX)
                    return PLAN_L_UNKNOWN;
                found[k++] = &a->items[j];
            }
        if (k) {
            *n = k;
            return PLAN_L_FOUND;
        }
    }
    static const char *const dynamic[] = {"setattr(",         "add_module(",
                                          "register_module(", "register_parameter(",
                                          "__getattr__",      "__dict__"};
    for (size_t i = 0; i < len; i++) {
        if (mentions(chain[i]->text, chain[i]->len, attr))
            return PLAN_L_UNKNOWN;
        for (size_t d = 0; d < sizeof(dynamic) / sizeof(*dynamic); d++)
            if (memmem(chain[i]->text, chain[i]->len, dynamic[d], strlen(dynamic[d])))
                return PLAN_L_UNKNOWN;
        /* the config's overrides of the class's methods run in it too */
        size_t nl = strlen(chain[i]->name);
        for (size_t j = 0; j < m->p->cfg->patches.len; j++) {
            const pg_patch *x = &m->p->cfg->patches.items[j];
            if (x->type != PG_METHOD_OVERRIDE || !x->replacement ||
                strncmp(x->target, chain[i]->name, nl) || x->target[nl] != '.')
                continue;
            char *t = signatures_object_text(x->replacement);
            int named = !t || mentions(t, strlen(t), attr);
            free(t);
            if (named)
                return PLAN_L_UNKNOWN;
        }
    }
    return PLAN_L_ABSENT;
}

/* ---- every store of a class, for its parameters (plan_params.h) ------------------------ */

/* 1 when [s, e) names `self.` (not `myself.`). */
static int names_self(const char *s, const char *e)
{
    for (const char *p = s; (p = memmem(p, (size_t)(e - p), "self.", 5)) != NULL; p++)
        if (p == s || !plan_ident_char(p[-1]))
            return 1;
    return 0;
}

/* What the logical line l stores to `self`: 0 nothing, 1 a plain `self.x = v` (or
 * `self.x: T = v`) that read_assign reads, -1 anything else (`a, self.x = ...`,
 * `self.x.y = ...`, `self.x[0] = ...`, `a = self.x = ...`, `for self.x in`, `with
 * ... as self.x`). An augmented assignment stores nothing new. */
static int line_store(const plan_line *l)
{
    const char *s = l->s, *e = l->e, *last = NULL;
    int depth = 0, eqs = 0;
    if (plan_starts(l, "for ") || plan_starts(l, "async for ")) {
        const char *in = memmem(s, (size_t)(e - s), " in ", 4);
        return in && names_self(s, in) ? -1 : 0;
    }
    if ((plan_starts(l, "with ") || plan_starts(l, "async with ")) &&
        memmem(s, (size_t)(e - s), "as self.", 8))
        return -1;
    for (const char *q = s; q < e; q++) {
        if (*q == '"' || *q == '\'') {
            q = source_string_end(q, e) - 1;
            continue;
        }
        if (*q == '(' || *q == '[' || *q == '{')
            depth++;
        else if ((*q == ')' || *q == ']' || *q == '}') && depth > 0)
            depth--;
        else if (*q == '=' && !depth) {
            if (q + 1 < e && q[1] == '=') {
                q++;
                continue;
            }
            char b = q > s ? q[-1] : 0;
            if (b == '!' || b == ':' || ((b == '<' || b == '>') && !(q - 1 > s && q[-2] == b)))
                continue; /* !=, :=, <=, >= */
            if (b && strchr("+-*/%&|^@<>", b))
                return 0; /* an augmented assignment: nothing new */
            eqs++;
            last = q;
        }
    }
    if (!eqs || !names_self(s, last))
        return 0;
    if (eqs > 1 || strncmp(s, "self.", 5))
        return -1;
    const char *q = s + 5;
    while (q < last && plan_ident_char(*q))
        q++;
    while (q < last && *q == ' ')
        q++;
    return q == last || *q == ':' ? 1 : -1;
}

/* 1 when the def header l names a method of cls the config overrides: the
 * generated module runs the override instead. */
static int overridden(const plan_model *m, const char *cls, const plan_line *l)
{
    const char *q = l->s + (plan_starts(l, "async ") ? 10 : 4), *n = q;
    while (q < l->e && plan_ident_char(*q))
        q++;
    char *target = pgci_asprintf("%s.%.*s", cls, (int)(q - n), n);
    int r = plan_config_patch(m->p->cfg, PG_METHOD_OVERRIDE, target) != NULL;
    free(target);
    return r;
}

/* The stores of [s, e) (a class of cls, when cls is not NULL, or a method) into
 * out, each read in the def it is in (its parameters), the bodies of the class's
 * methods the config overrides left out; -1 when one is not a plain
 * `self.x = v`. */
static int read_stores(const plan_model *m, const char *cls, plan_asgs *out, const char *s,
                       const char *e)
{
    plan_line defs[PLAN_CHAIN_MAX], l;
    size_t nd = 0, skip = (size_t)-1; /* the indentation of an overridden method's def */
    const char *p = s;
    while (plan_next_line(&p, e, &l)) {
        if (skip != (size_t)-1 && l.indent > skip)
            continue;
        skip = (size_t)-1;
        while (nd && l.indent <= defs[nd - 1].indent)
            nd--;
        if (plan_starts(&l, "def ") || plan_starts(&l, "async def ")) {
            if (nd == PLAN_CHAIN_MAX)
                return -1;
            if (cls && !nd && overridden(m, cls, &l))
                skip = l.indent;
            else
                defs[nd++] = l;
            continue;
        }
        int r = line_store(&l);
        if (r < 0)
            return -1;
        if (r)
            read_assign(out, &l, l.indent, nd ? &defs[nd - 1] : NULL);
    }
    return 0;
}

/* 1 when every decorator over the class header in [s, e) is one known to add no
 * parameter: transformers' auto_docstring, and the kernels hooks, which replace a
 * forward or a function, or set flags (use_experts_implementation); or a patch
 * decorator of a config's replacement (`@config.replace_class(...)`), which
 * patchgen drops (PATCHGEN_SPEC.md section 2). */
static int known_decorators(const char *s, const char *e)
{
    static const char *const known[] = {"auto_docstring",
                                        "use_kernel_forward_from_hub",
                                        "use_kernelized_func",
                                        "use_experts_implementation",
                                        "config",
                                        "replace_class",
                                        "override_method",
                                        "replace_function",
                                        "modify_init",
                                        "add_helper",
                                        "add_helper_after"};
    const char *p = s;
    plan_line l;
    while (plan_next_line(&p, e, &l) && *l.s == '@') {
        const char *q = l.s + 1;
        while (q < l.e && plan_ident_char(*q))
            q++;
        int ok = 0;
        for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
            ok |= strlen(known[i]) == (size_t)(q - l.s - 1) &&
                  !strncmp(l.s + 1, known[i], (size_t)(q - l.s - 1));
        if (!ok || (q < l.e && *q != '(' && strncmp(l.s, "@config.", 8)))
            return 0;
    }
    return 1;
}

static int sets_by_name(const char *s, size_t len)
{
    static const char *const dynamic[] = {
        "setattr(",    "add_module(", "register_module(", "register_parameter(",
        "__getattr__", "__setattr__", "__dict__"};
    for (size_t d = 0; d < sizeof(dynamic) / sizeof(*dynamic); d++)
        if (memmem(s, len, dynamic[d], strlen(dynamic[d])))
            return 1;
    return 0;
}

/* Reads k's stores: its text's, then those of the config's overrides of its methods. */
static int read_class_stores(plan_model *m, plan_class *k)
{
    if (!known_decorators(k->text, k->text + k->len) || sets_by_name(k->text, k->len) ||
        read_stores(m, k->name, &k->stores, k->text, k->text + k->len) < 0)
        return -1;
    size_t nl = strlen(k->name);
    for (size_t j = 0; j < m->p->cfg->patches.len; j++) {
        const pg_patch *x = &m->p->cfg->patches.items[j];
        if (x->type != PG_METHOD_OVERRIDE || !x->replacement || strncmp(x->target, k->name, nl) ||
            x->target[nl] != '.')
            continue;
        char *t = signatures_object_text(x->replacement);
        int r = !t || sets_by_name(t, strlen(t))
                    ? -1
                    : read_stores(m, NULL, &k->stores, t, t + strlen(t));
        free(t);
        if (r < 0)
            return -1;
    }
    return 0;
}

const plan_asgs *plan_class_stores(plan_model *m, const plan_class *kc)
{
    plan_class *k = NULL;
    for (size_t i = 0; i < m->classes.len && !k; i++)
        if (m->classes.items[i] == kc)
            k = m->classes.items[i];
    if (!k || !k->ok)
        return NULL;
    if (!k->stores_read)
        k->stores_read = read_class_stores(m, k) < 0 ? -1 : 1;
    return k->stores_read > 0 ? &k->stores : NULL;
}

void plan_model_free(plan_model *m)
{
    for (size_t i = 0; i < m->classes.len; i++) {
        plan_class *k = m->classes.items[i];
        free(k->name);
        asgs_free(&k->init);
        asgs_free(&k->stores);
        strvec_free(&k->bases);
        free(k);
    }
    VEC_FREE(&m->classes);
    strvec_free(&m->texts);
}
