/*
 * plan_paths.c - the keys of a workspace parallel plan, resolved through the
 * model's `__init__` attributes at both tags (see plan_paths.h), over the classes
 * plan_classes.h reads.
 */
#include "checks/plan_paths.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checks/plan_classes.h"
#include "checks/plan_params.h"
#include "checks/source_text.h"
#include "checks/survey_trees.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "core/vec.h"

#define PLAN_SEARCH_MAX 4000

typedef struct pctx {
    plan_model m;
    findings *out;
} pctx;

/* ---- one key at one tag ---------------------------------------------------------------- */

typedef enum rkind { R_UNKNOWN, R_OK, R_BROKEN } rkind;

typedef struct state {
    const char *cls;
    int list;             /* a ModuleList of cls: the next segment must index it */
    const plan_asg *leaf; /* a torch leaf module (cls NULL): the next segment names its parameter */
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

/* The segment seg after a torch leaf module: R_OK when the leaf certainly has
 * that parameter and the key ends there, R_BROKEN when it certainly has not and
 * the way here was certain, R_UNKNOWN (settled) when it cannot tell, -1 when this
 * way reaches nothing. */
static int leaf_step(const plan_leaf *l, const char *seg, int last, int certain)
{
    if (!last)
        return R_UNKNOWN; /* a parameter has no attributes, and one more may be near */
    if (plan_leaf_must(l, seg))
        return R_OK;
    if (plan_leaf_may(l, seg))
        return R_UNKNOWN;
    return certain ? R_BROKEN : -1;
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
        if (st[s].leaf) {
            int k = leaf_step(&st[s].leaf->leaf, segs->items[i], last, *n == 1 && *certain);
            if (k == R_OK || k == R_BROKEN)
                *r = (res){(rkind)k, i, st[s].leaf->leaf.cls, NULL};
            if (k >= 0)
                return 1;
            continue;
        }
        const plan_asg *f[PLAN_ALTS_MAX];
        size_t nf;
        plan_look lk = plan_class_lookup(&c->m, side, st[s].cls, segs->items[i], f, &nf);
        if (lk == PLAN_L_UNKNOWN)
            return 1;
        if (lk == PLAN_L_ABSENT) {
            if (*n == 1 && *certain) {
                *r = (res){R_BROKEN, i, st[s].cls, st[s].cls};
                return 1;
            }
            continue;
        }
        if (nf > 1 || !f[0]->top)
            *certain = 0;
        for (size_t k = 0; k < nf; k++) {
            if (f[k]->kind == PLAN_V_UNKNOWN || f[k]->kind == PLAN_V_DATA)
                return 1;
            if (last && f[k]->kind == PLAN_V_PARAM) {
                *r = (res){R_OK, i, st[s].cls, NULL};
                return 1;
            }
            if (last || f[k]->kind == PLAN_V_PARAM)
                continue;
            if (f[k]->kind == PLAN_V_LEAF) {
                if (nn < PLAN_ALTS_MAX)
                    next[nn++] = (state){NULL, 0, f[k]};
                continue;
            }
            if (!plan_class_get(&c->m, side, f[k]->cls))
                return 1;
            if (nn < PLAN_ALTS_MAX)
                next[nn++] = (state){f[k]->cls, f[k]->kind == PLAN_V_LIST, NULL};
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
    if (!plan_class_get(&c->m, side, owner))
        return r;
    state st[PLAN_ALTS_MAX] = {{owner, 0, NULL}};
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
        const plan_asg *f[PLAN_ALTS_MAX];
        size_t nf;
        if (is_index(segs->items[i]) ||
            plan_class_lookup(&c->m, side, cls, segs->items[i], f, &nf) != PLAN_L_FOUND ||
            nf != 1 || f[0]->kind != PLAN_V_CLASS)
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
        const plan_asg *f[PLAN_ALTS_MAX];
        size_t nf;
        if (!strcmp(x.cls, holder) && x.depth < max_depth &&
            plan_class_lookup(&c->m, 1, x.cls, leaf, f, &nf) == PLAN_L_FOUND && nf == 1 &&
            f[0]->kind == PLAN_V_PARAM) {
            found = pgci_asprintf("%s%s%s", x.path, sep, leaf);
            break;
        }
        const plan_class *chain[PLAN_CHAIN_MAX];
        size_t len = 0;
        if (x.depth + 1 >= max_depth || plan_class_chain(&c->m, 1, x.cls, chain, &len) < 0)
            continue;
        for (size_t i = 0; i < len; i++)
            for (size_t j = 0; j < chain[i]->init.len; j++) {
                const plan_asg *a = &chain[i]->init.items[j];
                if ((a->kind != PLAN_V_CLASS && a->kind != PLAN_V_LIST) ||
                    strvec_find(&seen, a->cls) >= 0 || !plan_class_get(&c->m, 1, a->cls))
                    continue;
                strvec_push(&seen, a->cls);
                VEC_PUSH(&q, ((node){a->cls, a->kind == PLAN_V_LIST,
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
        } else if (plan_ident_char(s[i]) || s[i] == '*') {
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
        int plain = !(p > s && plan_ident_char(p[-1])) && q - p >= 2 && q[-1] == *p &&
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
static int read_from(const plan_line *l, int *level, char **module, char **name, char **alias)
{
    const char *q = l->s + 5, *e = l->e;
    *level = 0;
    while (q < e && *q == '.')
        (*level)++, q++;
    const char *m = q;
    while (q < e && (plan_ident_char(*q) || *q == '.'))
        q++;
    if (q >= e || *q != ' ' || strncmp(q, " import ", 8))
        return 0;
    *module = pgci_strndup(m, (size_t)(q - m));
    q += 8;
    const char *n = q;
    while (q < e && plan_ident_char(*q))
        q++;
    *name = pgci_strndup(n, (size_t)(q - n));
    *alias = NULL;
    if (!strncmp(q, " as ", 4)) {
        const char *a = q + 4;
        q = a;
        while (q < e && plan_ident_char(*q))
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
        if ((p == text || !plan_ident_char(p[-1])) && p[n] == '(' && (p == text || p[-1] != '.'))
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

/* Where a key breaks at B: segs[0..at) reach a `holder` that has no `segment`
 * (segs[at]); or, past the key's `*` (rest), nothing under `prefix` matches. */
typedef struct brk {
    size_t at;
    const char *holder;
    char *prefix;
    const char *segment;
    int rest;     /* segment is the rest of the key after prefix */
    size_t paths; /* past the `*`: the parameter paths read under the prefix, 0 before */
} brk;

/* The finding's data: the path that went (dead), and where it went when the rest
 * of the key follows it (moved_to). */
static json_t *report_data(const pctx *c, const site *s, const strvec *segs, const brk *b,
                           const char *now)
{
    json_t *data = json_object();
    json_object_set_new(data, "kind", json_string("plan-key-unmatched"));
    json_object_set_new(data, "target", json_string(s->key));
    json_object_set_new(data, "key", json_string(s->key));
    json_object_set_new(data, "owner", json_string(s->owner));
    json_object_set_new(data, "segment", json_string(b->segment));
    json_object_set_new(data, "class", json_string(b->holder));
    json_object_set_new(data, "file", json_string(s->rel));
    json_object_set_new(data, "line", json_integer(s->line));
    json_object_set_new(data, "now", now ? json_string(now) : json_null());
    char *dead = b->rest ? pgci_strdup(s->key) : joined(segs, b->at + 1);
    const char *rest = s->key + strlen(dead);
    size_t nl = now ? strlen(now) : 0, rl = strlen(rest) + strlen(b->segment);
    json_object_set_new(data, "prefix", json_string(b->prefix));
    json_object_set_new(data, "dead", json_string(dead));
    if (!b->rest && now && nl > rl && now[nl - rl - 1] == '.' &&
        !strcmp(now + nl - strlen(rest), rest) &&
        !strncmp(now + nl - rl, b->segment, strlen(b->segment)))
        json_object_set_new(data, "moved_to", json_stringn(now, nl - strlen(rest)));
    if (b->paths)
        json_object_set_new(data, "paths", json_integer((json_int_t)b->paths));
    free(dead);
    json_object_set_new(data, "from", json_string(c->m.p->tag_a));
    json_object_set_new(data, "to", json_string(c->m.p->tag_b));
    return data;
}

/* What B lacks, in the detail: a class's attribute, a leaf's parameter, or
 * anything under the prefix that matches. */
static void report_why(strbuf *d, const char *tag, const char *where, const strvec *segs,
                       const brk *b)
{
    if (!b->rest && !strncmp(b->holder, "nn.", 3))
        strbuf_addf(d, "%s: %s: its constructor call gives it no `%s`.\n", tag, where, b->segment);
    else if (!b->rest)
        strbuf_addf(d, "%s: %s: no `__init__` of its chain sets `self.%s`, nothing else does.\n",
                    tag, where, b->segment);
    if (b->paths) {
        size_t star = 0;
        while (star < segs->len && !strchr(segs->items[star], '*'))
            star++;
        char *under = joined(segs, star);
        strbuf_addf(d,
                    "%s: every parameter under `%s` read, every branch taken (%zu paths): "
                    "none matches the key.\n",
                    tag, under, b->paths);
        free(under);
    }
}

static void report(pctx *c, const site *s, const strvec *segs, const res *ra, const brk *b)
{
    const survey_pair *p = c->m.p;
    const char *was = b->rest ? NULL : prefix_class(c, 0, s->owner, segs, b->at);
    char *now = strchr(ra->holder, '.')
                    ? NULL /* a torch leaf's: every nn.Linear has one */
                    : search(c, s->owner, ra->holder, segs->items[segs->len - 1], segs->len + 3);
    json_t *data = report_data(c, s, segs, b, now);
    strbuf where = STRBUF_INIT;
    if (*b->prefix)
        strbuf_addf(&where, "`%s` (a `%s`)", b->prefix, b->holder);
    else
        strbuf_addf(&where, "the model (a `%s`)", b->holder);
    finding *f = findings_add(c->out, "callees", SEV_ERROR, p->config, s->rel, s->line, 0, data,
                              "`%s` line %u: the parallel plan key `%s` matches no parameter at "
                              "%s: %s has no `%s`%s%s%s: "
                              "ParallelPlan.apply leaves them replicated, silently",
                              s->rel, s->line, s->key, p->tag_b, where.buf, b->segment,
                              now ? " (now `" : "", now ? now : "", now ? "`)" : "");
    strbuf d = STRBUF_INIT;
    strbuf_addf(&d, "%s: `%s.get_parallel_plan`'s key reaches a parameter of `%s`", p->tag_a,
                s->owner, ra->holder);
    if (was)
        strbuf_addf(&d, " through %s%s%s (a `%s`)", b->at ? "`" : "the model", b->prefix,
                    b->at ? "`" : "", was);
    strbuf_adds(&d, ".\n");
    report_why(&d, p->tag_b, where.buf, segs, b);
    if (now)
        strbuf_addf(&d, "%s: the same parameter of a `%s` is `%s`.\n", p->tag_b, ra->holder, now);
    finding_set_detail(f, d.buf);
    strbuf_free(&d);
    strbuf_free(&where);
    free(now);
}

/* The module segs[0..at) certainly reach at side: at each step one store of the
 * attribute in all the chain's methods, at its `__init__`'s own indentation, of
 * a known class or a list of one (an index segment indexes the list). */
static int certain_prefix(pctx *c, int side, const char *owner, const strvec *segs, size_t at,
                          state *out)
{
    state s = {owner, 0, NULL};
    for (size_t i = 0; i < at; i++) {
        const char *seg = segs->items[i];
        if (is_index(seg)) {
            if (!s.list)
                return 0;
            s.list = 0;
            continue;
        }
        const plan_asg *f[PLAN_ALTS_MAX];
        size_t nf, stores = 0, len = 0;
        const plan_class *chain[PLAN_CHAIN_MAX];
        if (s.list || plan_class_lookup(&c->m, side, s.cls, seg, f, &nf) != PLAN_L_FOUND ||
            nf != 1 || !f[0]->top || (f[0]->kind != PLAN_V_CLASS && f[0]->kind != PLAN_V_LIST) ||
            !plan_class_get(&c->m, side, f[0]->cls) ||
            plan_class_chain(&c->m, side, s.cls, chain, &len) < 0)
            return 0;
        for (size_t k = 0; k < len; k++) {
            const plan_asgs *st = plan_class_stores(&c->m, chain[k]);
            if (!st)
                return 0;
            for (size_t j = 0; j < st->len; j++)
                stores += !strcmp(st->items[j].attr, seg);
        }
        if (stores != 1)
            return 0;
        s = (state){f[0]->cls, f[0]->kind == PLAN_V_LIST, NULL};
    }
    *out = s;
    return 1;
}

/* A key whose break at B lies past its first `*` (segs[star]): reported when
 * every parameter under the certain prefix before the `*` is read and none
 * matches the key (plan_params.h). */
static void judge_past_star(pctx *c, const site *s, const strvec *segs, size_t star, const res *ra,
                            const res *rb)
{
    state st;
    size_t paths = 0;
    if (!certain_prefix(c, 1, s->owner, segs, star, &st))
        return;
    char *under = joined(segs, star);
    plan_params_verdict v = plan_params_match(&c->m, 1, st.cls, st.list, under, s->key, &paths);
    free(under);
    if (v != PLAN_PARAMS_NONE)
        return;
    brk b;
    if (rb->kind == R_BROKEN) { /* the way the key takes at A names the segment */
        b = (brk){rb->at, rb->holder, joined(segs, rb->at), segs->items[rb->at], 0, paths};
    } else {
        size_t at = star + (st.list && !strcmp(segs->items[star], "*"));
        b = (brk){at, st.cls, joined(segs, at), s->key, 1, paths};
        b.segment = s->key + strlen(b.prefix) + (*b.prefix ? 1 : 0);
    }
    report(c, s, segs, ra, &b);
    free(b.prefix);
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
    plan_line h;
    const char *bs, *be;
    size_t bi;
    pkeys keys = VEC_INIT;
    if (fs_is_file(path.buf) && fs_read_file(&text, path.buf, 4u << 20) == 0 &&
        plan_find_def(text.buf, text.buf + text.len, fn, 0, &h) &&
        plan_body_of(&h, text.buf + text.len, &bs, &be, &bi))
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
        while (star < segs.len && !strchr(segs.items[star], '*'))
            star++;
        res ra = seen ? (res){0} : resolve(c, 0, owner, &segs);
        res rb = ra.kind == R_OK ? resolve(c, 1, owner, &segs) : (res){0};
        site s = {owner, rel, keys.items[i].key, keys.items[i].line};
        if (rb.kind == R_BROKEN && rb.at < star) {
            brk b = {rb.at, rb.holder, joined(&segs, rb.at), segs.items[rb.at], 0, 0};
            report(c, &s, &segs, &ra, &b);
            free(b.prefix);
        } else if (ra.kind == R_OK && rb.kind != R_OK && star < segs.len) {
            judge_past_star(c, &s, &segs, star, &ra, &rb);
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
    plan_line l;
    while (plan_next_line(&p, end, &l)) {
        int level;
        char *module, *name, *alias;
        if (!plan_starts(&l, "from ") || !read_from(&l, &level, &module, &name, &alias))
            continue;
        char *abs = calls(text, alias ? alias : name) ? absolute(c->m.p->cfg, level, module) : NULL;
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
    pctx c = {.m = {.p = p}, .out = out};
    strvec done = STRVEC_INIT;
    for (size_t i = 0; i < p->cfg->patches.len; i++) {
        const pg_patch *x = &p->cfg->patches.items[i];
        if (x->type == PG_METHOD_OVERRIDE && x->replacement && strchr(x->target, '.') &&
            plan_config_patch(p->cfg, PG_METHOD_OVERRIDE, x->target) == x &&
            strstr(x->target, "__init__") == NULL)
            follow_override(&c, x, root, &done);
    }
    plan_model_free(&c.m);
    strvec_free(&done);
    free(root);
}
