/*
 * The signature survey between two tags. One function per kind of comparison;
 * each appends findings whose title names the target and the change, never the
 * config, so the report groups one upstream change across the configs it hits.
 *
 * Severity follows what the change does to a patch written against tag A:
 *   error   - the patch breaks or silently stops applying: target vanished, a
 *             required parameter added, a parameter renamed or reordered, an
 *             `__init__` attribute the patch uses renamed or removed, a name the
 *             patch uses no longer imported;
 *   warning - the contract moved under the patch: optional parameter added,
 *             parameter removed, kind or default changed, decorators, bases, the
 *             body of an overridden method, the bodies of a replaced class's
 *             methods (one finding a class);
 *   info    - annotations, a target that appeared.
 */
#include "checks/signatures.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "checks/body_uses.h"
#include "checks/contracts.h"
#include "checks/deprecate_kwarg.h"
#include "checks/keyword_calls.h"
#include "checks/source_text.h"
#include "checks/survey_trees.h"
#include "checks/unpackers.h"
#include "core/error.h"
#include "patchgen/codegen_text.h"
#include "patchgen/difflib.h"
#include "core/vec.h"
#include "py/py.h"
#include "py/pynode.h"
#include "py/pystr.h"
#include "py/structural.h"

typedef struct sig_ctx {
    findings *out;
    const survey_pair *p;
    const pg_patch *patch;  /* the patch the current target came from */
    const char *patch_text; /* the replacement's source, when it has one */
    strvec *emitted;        /* keys of the facts reported so far (see first_time) */
    const strvec *renames;  /* the owning class's __init__ renames (old, new), for a method */
    int replaced;     /* the target is replaced (class, function, import): the config's source */
    survey_site site; /* where a finding goes when there is no patch (a helper's) */
} sig_ctx;

static finding *add(sig_ctx *c, severity sev, json_t *data, const char *kind, const char *target,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static finding *add(sig_ctx *c, severity sev, json_t *data, const char *kind, const char *target,
                    const char *fmt, ...)
{
    strbuf t = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&t, fmt, ap);
    va_end(ap);
    if (!data)
        data = json_object();
    json_object_set_new(data, "kind", json_string(kind));
    json_object_set_new(data, "target", json_string(target));
    json_object_set_new(data, "module", json_string(c->p->cfg->source_module));
    json_object_set_new(data, "from", json_string(c->p->tag_a));
    json_object_set_new(data, "to", json_string(c->p->tag_b));
    const char *check = !strncmp(kind, "auto-docstring", 14) ? "auto-docstring" : "signatures";
    survey_site s = c->site;
    if (c->patch)
        s.path = pg_patch_site(c->patch, c->p->config_path, &s.line, &s.col);
    finding *f = findings_add(c->out, check, sev, c->p->config, s.path ? s.path : c->p->config_path,
                              s.line, s.col, data, "%s", t.buf);
    strbuf_free(&t);
    return f;
}

static int str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

/* ---- rendering ------------------------------------------------------------- */

void signatures_render(strbuf *out, const index_def *fn)
{
    strbuf_addf(out, "%s(", fn->name);
    int star_done = 0;
    for (size_t i = 0; i < fn->n_params; i++) {
        const index_param *p = &fn->params[i];
        if (i)
            strbuf_adds(out, ", ");
        if (p->kind == INDEX_PARAM_KEYWORD_ONLY && !star_done) {
            strbuf_adds(out, "*, ");
            star_done = 1;
        }
        if (p->kind == INDEX_PARAM_VAR_POSITIONAL) {
            strbuf_addc(out, '*');
            star_done = 1;
        }
        if (p->kind == INDEX_PARAM_VAR_KEYWORD)
            strbuf_adds(out, "**");
        strbuf_adds(out, p->name);
        if (p->annotation)
            strbuf_addf(out, ": %s", p->annotation);
        if (p->default_value)
            strbuf_addf(out, p->annotation ? " = %s" : "=%s", p->default_value);
        if (p->kind == INDEX_PARAM_POSITIONAL_ONLY &&
            (i + 1 == fn->n_params || fn->params[i + 1].kind != INDEX_PARAM_POSITIONAL_ONLY))
            strbuf_adds(out, ", /");
    }
    strbuf_addc(out, ')');
    if (fn->returns)
        strbuf_addf(out, " -> %s", fn->returns);
}

static json_t *sig_data(const index_def *a, const index_def *b)
{
    json_t *d = json_object();
    strbuf s = STRBUF_INIT;
    if (a) {
        signatures_render(&s, a);
        json_object_set_new(d, "old_signature", json_string(s.buf));
        strbuf_reset(&s);
    }
    if (b) {
        signatures_render(&s, b);
        json_object_set_new(d, "new_signature", json_string(s.buf));
    }
    strbuf_free(&s);
    return d;
}

static void set_sig_detail(finding *f, const index_def *a, const index_def *b, const char *ta,
                           const char *tb)
{
    strbuf s = STRBUF_INIT, x = STRBUF_INIT;
    signatures_render(&x, a);
    strbuf_addf(&s, "%s: %s\n", ta, x.buf);
    strbuf_reset(&x);
    signatures_render(&x, b);
    strbuf_addf(&s, "%s: %s\n", tb, x.buf);
    finding_set_detail(f, s.buf);
    strbuf_free(&s);
    strbuf_free(&x);
}

/* ---- similarity for rename candidates ---------------------------------------- */

static void name_tokens(strvec *out, const char *name)
{
    strbuf t = STRBUF_INIT;
    for (const char *p = name;; p++) {
        int boundary = !*p || *p == '_' || *p == '.' ||
                       (p > name && isupper((unsigned char)*p) && islower((unsigned char)p[-1]));
        if (boundary && t.len) {
            if (strvec_find(out, t.buf) < 0)
                strvec_push(out, t.buf);
            strbuf_reset(&t);
        }
        if (!*p)
            break;
        if (*p != '_' && *p != '.')
            strbuf_addc(&t, (char)tolower((unsigned char)*p));
    }
    strbuf_free(&t);
}

static double jaccard(const strvec *a, const strvec *b)
{
    if (!a->len && !b->len)
        return 1.0;
    size_t both = 0;
    for (size_t i = 0; i < a->len; i++)
        both += strvec_find(b, a->items[i]) >= 0;
    return (double)both / (double)(a->len + b->len - both);
}

/* The names a definition is made of: parameters of a function, members of a class. */
static void shape_names(strvec *out, const index_def *d)
{
    if (d->kind == INDEX_FUNCTION) {
        for (size_t i = 0; i < d->n_params; i++)
            strvec_push(out, d->params[i].name);
    } else {
        for (size_t i = 0; i < d->n_members; i++)
            strvec_push(out, d->members[i]->name);
        for (size_t i = 0; i < d->n_init_attrs; i++)
            strvec_push(out, d->init_attrs[i]);
    }
}

static double similarity(const index_def *a, const index_def *b)
{
    strvec ta = STRVEC_INIT, tb = STRVEC_INIT, sa = STRVEC_INIT, sb = STRVEC_INIT;
    name_tokens(&ta, a->name);
    name_tokens(&tb, b->name);
    shape_names(&sa, a);
    shape_names(&sb, b);
    double name = jaccard(&ta, &tb);
    double shape = jaccard(&sa, &sb);
    double body = index_def_fingerprint(a) == index_def_fingerprint(b) ? 1.0 : 0.0;
    if (a->kind == INDEX_CLASS && body < 1.0) {
        /* a class whose methods kept their bodies is much the same class */
        size_t same = 0;
        for (size_t i = 0; i < a->n_members; i++) {
            const index_def *m = index_member(b, a->members[i]->name);
            same += m && index_def_fingerprint(m) == index_def_fingerprint(a->members[i]);
        }
        if (a->n_members)
            body = (double)same / (double)a->n_members;
    }
    strvec_free(&ta);
    strvec_free(&tb);
    strvec_free(&sa);
    strvec_free(&sb);
    return 0.35 * name + 0.40 * body + 0.25 * shape;
}

size_t signatures_rename_candidates(const index_module *a, const index_module *b,
                                    const char *qualname, const char **names, double *scores,
                                    size_t max)
{
    const index_def *old = index_find(a, qualname);
    if (!old || !max)
        return 0;
    const index_def *const *pool;
    size_t n_pool;
    if (old->parent) {
        const index_def *cls = index_find(b, old->parent->qualname);
        if (!cls)
            return 0;
        pool = (const index_def *const *)cls->members;
        n_pool = cls->n_members;
    } else {
        pool = (const index_def *const *)b->defs;
        n_pool = b->n_defs;
    }
    size_t n = 0;
    for (size_t i = 0; i < n_pool; i++) {
        const index_def *d = pool[i];
        if (d->kind != old->kind || index_find(a, d->qualname))
            continue;
        double s = similarity(old, d);
        if (s < 0.30)
            continue;
        /* insertion into the top-max list, best first, ties by name */
        size_t at = n;
        while (at > 0 && (scores[at - 1] < s ||
                          (scores[at - 1] == s && strcmp(names[at - 1], d->qualname) > 0)))
            at--;
        if (at >= max)
            continue;
        size_t end = n < max ? n : max - 1;
        for (size_t k = end; k > at; k--) {
            names[k] = names[k - 1];
            scores[k] = scores[k - 1];
        }
        names[at] = d->qualname;
        scores[at] = s;
        if (n < max)
            n++;
    }
    return n;
}

/* ---- annotations ----------------------------------------------------------------- */

/* Splits "a, b[c, d], e" at its top-level commas. */
static void split_top(strvec *out, const char *s, size_t n)
{
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || (s[i] == ',' && depth == 0)) {
            size_t a = start, b = i;
            while (a < b && s[a] == ' ')
                a++;
            while (b > a && s[b - 1] == ' ')
                b--;
            if (b > a)
                strvec_pushn(out, s + a, b - a);
            start = i + 1;
        } else if (s[i] == '[' || s[i] == '(') {
            depth++;
        } else if (s[i] == ']' || s[i] == ')') {
            depth--;
        }
    }
}

static void norm_annotation(strbuf *out, const char *s, size_t n);

/* Adds the members of a union to v, flattening nested Optional/Union/|. */
static void union_members(strvec *v, const char *s, size_t n)
{
    while (n && s[0] == ' ')
        s++, n--;
    while (n && s[n - 1] == ' ')
        n--;
    int is_opt = n > 9 && !strncmp(s, "Optional[", 9) && s[n - 1] == ']';
    int is_union = n > 6 && !strncmp(s, "Union[", 6) && s[n - 1] == ']';
    if (is_opt || is_union) {
        size_t off = is_opt ? 9 : 6;
        strvec parts = STRVEC_INIT;
        split_top(&parts, s + off, n - off - 1);
        for (size_t i = 0; i < parts.len; i++)
            union_members(v, parts.items[i], strlen(parts.items[i]));
        if (is_opt && strvec_find(v, "None") < 0)
            strvec_push(v, "None");
        strvec_free(&parts);
        return;
    }
    /* a | b at the top level */
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '[' || s[i] == '(')
            depth++;
        else if (s[i] == ']' || s[i] == ')')
            depth--;
        else if (s[i] == '|' && depth == 0) {
            union_members(v, s, i);
            union_members(v, s + i + 1, n - i - 1);
            return;
        }
    }
    strbuf one = STRBUF_INIT;
    norm_annotation(&one, s, n);
    if (strvec_find(v, one.buf) < 0)
        strvec_push(v, one.buf);
    strbuf_free(&one);
}

/* A canonical spelling of an annotation: Optional[X], Union[X, None] and X | None
 * are one type, whatever their order; typing's List/Dict/Tuple are the builtins. */
static void norm_annotation(strbuf *out, const char *s, size_t n)
{
    strvec members = STRVEC_INIT;
    int depth = 0,
        has_union = (n > 9 && !strncmp(s, "Optional[", 9)) || (n > 6 && !strncmp(s, "Union[", 6));
    for (size_t i = 0; i < n && !has_union; i++) {
        if (s[i] == '[' || s[i] == '(')
            depth++;
        else if (s[i] == ']' || s[i] == ')')
            depth--;
        else if (s[i] == '|' && depth == 0)
            has_union = 1;
    }
    if (has_union) {
        union_members(&members, s, n);
        strvec_sort(&members);
        for (size_t i = 0; i < members.len; i++)
            strbuf_addf(out, "%s%s", i ? " | " : "", members.items[i]);
        strvec_free(&members);
        return;
    }
    const char *br = memchr(s, '[', n);
    if (!br || s[n - 1] != ']') {
        strbuf_add(out, s, n);
        return;
    }
    size_t head = (size_t)(br - s);
    static const char *const aliases[][2] = {
        {"List", "list"}, {"Dict", "dict"}, {"Tuple", "tuple"}, {"Set", "set"}, {"Type", "type"}};
    int done = 0;
    for (size_t i = 0; i < 5 && !done; i++)
        if (strlen(aliases[i][0]) == head && !strncmp(s, aliases[i][0], head)) {
            strbuf_adds(out, aliases[i][1]);
            done = 1;
        }
    if (!done)
        strbuf_add(out, s, head);
    strbuf_addc(out, '[');
    strvec args = STRVEC_INIT;
    split_top(&args, br + 1, n - head - 2);
    for (size_t i = 0; i < args.len; i++) {
        if (i)
            strbuf_adds(out, ", ");
        norm_annotation(out, args.items[i], strlen(args.items[i]));
    }
    strvec_free(&args);
    strbuf_addc(out, ']');
}

int signatures_annotation_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    strbuf x = STRBUF_INIT, y = STRBUF_INIT;
    norm_annotation(&x, a, strlen(a));
    norm_annotation(&y, b, strlen(b));
    int eq = !strcmp(x.buf, y.buf);
    strbuf_free(&x);
    strbuf_free(&y);
    return eq;
}

/* ---- parameters ---------------------------------------------------------------- */

static long param_index(const index_def *fn, const char *name)
{
    for (size_t i = 0; i < fn->n_params; i++)
        if (!strcmp(fn->params[i].name, name))
            return (long)i;
    return -1;
}

static int is_required(const index_param *p)
{
    return !p->default_value && p->kind != INDEX_PARAM_VAR_POSITIONAL &&
           p->kind != INDEX_PARAM_VAR_KEYWORD;
}

/* Same position and kind is a rename when the names share a token (past_key_value
 * -> past_key_values), or when the lists kept their length and the two parameters
 * have one annotation and one default (one name swapped for another, the contract
 * kept), or when upstream's `@deprecate_kwarg` shim names the new one. Otherwise it is a removal
 * plus an addition: `cache_position: torch.LongTensor | None` dropped where `mm_token_type_ids:
 * torch.IntTensor | None` came (5.2.0 -> 5.9.0) is not a rename. */
static int likely_rename(const index_def *a, const index_def *b, const index_param *pa,
                         const index_param *pb)
{
    deprecated_kwarg k;
    int shim = deprecated_kwarg_find(&k, b, pa->name);
    int named = shim && k.new_name && !strcmp(k.new_name, pb->name);
    deprecated_kwarg_free(&k);
    if (named) /* upstream says so: `@deprecate_kwarg("old", new_name="new")` */
        return 1;
    if (shim) /* and here that it goes away, or has another successor */
        return 0;
    if (a->n_params == b->n_params && pa->annotation && pb->annotation &&
        signatures_annotation_eq(pa->annotation, pb->annotation) &&
        str_eq(pa->default_value, pb->default_value))
        return 1;
    strvec tx = STRVEC_INIT, ty = STRVEC_INIT;
    name_tokens(&tx, pa->name);
    name_tokens(&ty, pb->name);
    double s = jaccard(&tx, &ty);
    strvec_free(&tx);
    strvec_free(&ty);
    return s >= 0.3;
}

static int replacement_carries(const sig_ctx *c, const char *name);

/* The patch's own function for target, read from its text (an override's def; a
 * replaced function; a replaced class's method of target's name), and *own to free
 * with index_module_free (may be NULL); NULL when the text does not tell. */
static const index_def *patch_def(const sig_ctx *c, const char *target, index_module **own)
{
    *own = NULL;
    if (!c->patch_text)
        return NULL;
    const index_def *fn = survey_object_def(c->p, c->patch ? c->patch->replacement : NULL,
                                            c->patch_text, strlen(c->patch_text), own);
    pgci_error_clear();
    const char *dot = strrchr(target, '.');
    if (fn && fn->kind == INDEX_CLASS)
        fn = dot ? index_member(fn, dot + 1) : NULL;
    return fn && fn->kind == INDEX_FUNCTION ? fn : NULL;
}

/* What the patch's own function for target takes (patch_def): 1 when it has a
 * parameter `name`, 2 when it has none but a `**kwargs`, 0 when neither, -1 when
 * the text does not tell (no text, no such def). */
static int patch_takes(const sig_ctx *c, const char *target, const char *name)
{
    index_module *own;
    const index_def *fn = patch_def(c, target, &own);
    int r = -1;
    if (fn) {
        r = index_param_find(fn, name) ? 1 : 0;
        for (size_t i = 0; !r && i < fn->n_params; i++)
            if (fn->params[i].kind == INDEX_PARAM_VAR_KEYWORD)
                r = 2;
    }
    if (own)
        index_module_free(own);
    return r;
}

/* A call of the patched `Cls.m` passing old= or new= by name: upstream's (module
 * B) or the config's own overrides of the classes that call it (for `forward`,
 * those that hold a Cls; for another method, Cls itself). For a module-level
 * function f, a call `f(...)` of module B where its code still runs, or of any of
 * the config's bodies but f's own replacement. */
static char *keyword_caller_at(const sig_ctx *c, int side, const char *target,
                               const char *const *kws, size_t n_kws, long max_positional,
                               char **call)
{
    *call = NULL;
    const char *dot = strchr(target, '.');
    if (dot && strchr(dot + 1, '.'))
        return NULL;
    const pg_config *cfg = c->p->cfg;
    keyword_calls_text *texts = pgci_calloc(cfg->patches.len + 1, sizeof(*texts));
    size_t n = 0;
    strvec overridden = STRVEC_INIT;
    for (size_t i = 0; i < cfg->patches.len; i++) {
        const pg_patch *p = &cfg->patches.items[i];
        const char *d = strchr(p->target, '.');
        if (p->type == PG_METHOD_OVERRIDE || p->type == PG_CLASS_REPLACEMENT ||
            p->type == PG_FUNCTION_REPLACEMENT)
            strvec_push(&overridden, p->target);
        if (!p->replacement ||
            (dot ? p->type != PG_METHOD_OVERRIDE || !d
                 : (p->type != PG_METHOD_OVERRIDE && p->type != PG_CLASS_REPLACEMENT &&
                    p->type != PG_FUNCTION_REPLACEMENT) ||
                       !strcmp(p->target, target)))
            continue;
        char *text = signatures_object_text(p->replacement);
        if (!text)
            continue;
        texts[n].owner = d ? pgci_strndup(p->target, (size_t)(d - p->target)) : NULL;
        texts[n].what = pgci_asprintf("the config's `%s`", p->target);
        texts[n].text = text;
        texts[n].len = strlen(text);
        n++;
    }
    keyword_calls_ctx k = {kws,
                           n_kws,
                           texts,
                           n,
                           &overridden,
                           max_positional >= 0,
                           max_positional >= 0 ? (size_t)max_positional : 0};
    const index_module *m = side ? c->p->b : c->p->a;
    const char *src = side ? c->p->src_b : c->p->src_a;
    size_t len = side ? c->p->src_b_len : c->p->src_a_len;
    char *found;
    if (dot) {
        char *cls = pgci_strndup(target, (size_t)(dot - target));
        found = keyword_calls_find(m, src, len, cls, dot + 1, &k, call);
        free(cls);
    } else {
        found = keyword_calls_find_function(m, src, len, target, &k, call);
    }
    strvec_free(&overridden);
    for (size_t i = 0; i < n; i++) {
        free((char *)texts[i].owner);
        free((char *)texts[i].what);
        free((char *)texts[i].text);
    }
    free(texts);
    return found;
}

/* keyword_caller_at() at tag B: where the patched code runs. */
static char *keyword_caller(const sig_ctx *c, const char *target, const char *const *kws,
                            size_t n_kws, char **call)
{
    return keyword_caller_at(c, 1, target, kws, n_kws, -1, call);
}

/* The patch's own text reads the keyword `key` out of its `**kwargs` by name: a
 * string literal spelled `"key"` or `'key'` (`kwargs.get("key")`, `kwargs["key"]`). */
static int patch_reads_key(const sig_ctx *c, const char *key)
{
    const pg_patch *pt = c->patch;
    char *text = pt && pt->replacement ? signatures_object_text(pt->replacement) : NULL;
    char *dq = pgci_asprintf("\"%s\"", key), *sq = pgci_asprintf("'%s'", key);
    int r = !text || strstr(text, dq) || strstr(text, sq);
    free(dq);
    free(sq);
    free(text);
    return r;
}

/* The patch's own text tests `name` for None (`name is None`, `name is not None`,
 * `if name`, `if not name`, `name or`) or passes it on as it is (`name=name`): its
 * default is a case the body handles, or the callee's to handle (a cache left None
 * on a training step). A body that only reads it (`apply_rotary_pos_emb_vision(q,
 * rotary_pos_emb)`) fails on the default; one that names it only in its signature
 * does not read it. */
static int patch_tests_none(const sig_ctx *c, const char *name)
{
    const pg_patch *pt = c->patch;
    char *text = pt && pt->replacement ? signatures_object_text(pt->replacement) : NULL;
    static const char *const forms[] = {"%s is None", "%s is not None", "if %s:",   "if not %s",
                                        "if %s ",     "%s or ",         "%s if %s", "%s=%s"};
    int r = !text, uses = 0;
    size_t n = strlen(name);
    for (const char *q = text; !r && (q = strstr(q, name)); q += n)
        uses += (q == text || !(isalnum((unsigned char)q[-1]) || q[-1] == '_')) &&
                !(isalnum((unsigned char)q[n]) || q[n] == '_');
    r |= uses < 2; /* the parameter alone: the body does not read it */
    for (size_t i = 0; !r && i < sizeof(forms) / sizeof(forms[0]); i++) {
        char *f = pgci_asprintf(forms[i], name, name);
        for (const char *q = text; !r && (q = strstr(q, f)); q++)
            r = q == text || !(isalnum((unsigned char)q[-1]) || q[-1] == '_' || q[-1] == '.');
        free(f);
    }
    free(text);
    return r;
}

/* What an override that carries upstream's renaming shim gets (takes: patch_takes
 * of the new name); *caller, *call when a call passing either name is found. */
static void override_shim(const sig_ctx *c, strbuf *t, json_t *data, const char *target,
                          const char *old, const char *new_name, int takes, char **caller)
{
    const char *kws[] = {new_name, old};
    char *call = NULL;
    *caller =
        takes == 0 || (takes == 2 && !patch_reads_key(c, new_name) && !patch_tests_none(c, old))
            ? keyword_caller(c, target, kws, 2, &call)
            : NULL;
    strbuf_addf(
        t, "; the override keeps upstream's `@deprecate_kwarg`, which turns `%s=` into `%s=`, ",
        old, new_name);
    if (takes == 2 && *caller)
        strbuf_addf(t,
                    "and `%s=` goes into the override's `**kwargs`: %s, so `%s` keeps its "
                    "default there",
                    new_name, *caller, old);
    else if (takes == 2)
        strbuf_addf(t,
                    "and `%s=` goes into the override's `**kwargs`: a call passing either by name "
                    "no longer reaches `%s`",
                    new_name, old);
    else if (*caller)
        strbuf_addf(t, "which the override does not take: %s, a TypeError", *caller);
    else
        strbuf_addf(t, "which the override does not take: a call passing either by name raises a "
                       "TypeError (no call found passes it by name)");
    if (*caller) { /* for the note's "Why it breaks" */
        json_object_set_new(data, "call", json_string(call));
        char *why = takes == 2 ? pgci_asprintf("%s, which the override's `**kwargs` takes in "
                                               "place of `%s`",
                                               *caller, old)
                               : pgci_asprintf("%s, which the override's `@deprecate_kwarg` "
                                               "turns into `%s=`: the override does not take it",
                                               *caller, new_name);
        json_object_set_new(data, "because", json_string(why));
        free(why);
    }
    free(call);
}

/* What a replacement that does not carry the shim gets: upstream's callers now pass
 * the new name, which reaches the replacement as it is. */
static void replacement_shim(const sig_ctx *c, strbuf *t, json_t *data, const char *target,
                             const char *old, const char *new_name, int takes, char **caller)
{
    const char *kws[] = {new_name};
    char *call = NULL;
    *caller = takes == 0 ? keyword_caller(c, target, kws, 1, &call) : NULL;
    if (takes == 1)
        strbuf_addf(t, "; the replacement takes `%s`", new_name);
    else if (takes == 2)
        strbuf_addf(t,
                    "; the replacement does not carry upstream's `@deprecate_kwarg`: `%s=` goes "
                    "into its `**kwargs`, and `%s` no longer gets the value",
                    new_name, old);
    else if (*caller)
        strbuf_addf(t,
                    "; the replacement does not carry upstream's `@deprecate_kwarg` and does not "
                    "take `%s`: %s, a TypeError",
                    new_name, *caller);
    else
        strbuf_addf(t,
                    "; the replacement does not carry upstream's `@deprecate_kwarg` and does not "
                    "take `%s`: a call passing it by name raises a TypeError (no call found "
                    "passes it by name)",
                    new_name);
    if (*caller) {
        json_object_set_new(data, "call", json_string(call));
        char *why = pgci_asprintf("%s, which the replacement does not take", *caller);
        json_object_set_new(data, "because", json_string(why));
        free(why);
    }
    free(call);
}

/* A renamed parameter breaks a patch written against the old name. Upstream's
 * `@deprecate_kwarg` keeps the old name working for upstream's callers, but an
 * override carries that shim itself (patchgen keeps upstream's decorators on it):
 * a call passing either name by keyword reaches the override as `new=`; and a
 * replacement carries its own decorators, not the shim, while upstream's callers
 * pass the new name. So the rename is a warning when the patch takes the new name
 * or `**kwargs`; when it takes neither, a call passing the argument by name is a
 * TypeError: an error once one is found (upstream's, or the config's own). */
static void param_renamed(sig_ctx *c, const char *target, const index_def *a, const index_def *b,
                          const char *old, const char *new_name)
{
    const char *ta = c->p->tag_a, *tb = c->p->tag_b;
    deprecated_kwarg k;
    int shim = deprecated_kwarg_find(&k, b, old) && k.new_name && !strcmp(k.new_name, new_name);
    const pg_patch *pt = c->patch;
    int override = shim && pt && pt->type == PG_METHOD_OVERRIDE && !strcmp(pt->target, target);
    int replacement = shim && pt && !override &&
                      (pt->type == PG_CLASS_REPLACEMENT || pt->type == PG_FUNCTION_REPLACEMENT) &&
                      !replacement_carries(c, "deprecate_kwarg");
    int takes = override || replacement ? patch_takes(c, target, new_name) : -1;
    char *caller = NULL;
    json_t *data = sig_data(a, b);
    json_object_set_new(data, "parameter", json_string(old));
    json_object_set_new(data, "new_parameter", json_string(new_name));
    if (shim) {
        json_object_set_new(data, "shim", json_string("deprecate_kwarg"));
        if (k.version)
            json_object_set_new(data, "removal_version", json_string(k.version));
    }
    strbuf t = STRBUF_INIT;
    strbuf_addf(&t, "`%s`: parameter `%s` renamed to `%s` (%s → %s)", target, old, new_name, ta,
                tb);
    if (override && (takes == 0 || takes == 2))
        override_shim(c, &t, data, target, old, new_name, takes, &caller);
    else if (replacement && takes >= 0)
        replacement_shim(c, &t, data, target, old, new_name, takes, &caller);
    else if (shim)
        strbuf_addf(&t, "; `@deprecate_kwarg` keeps `%s` working until %s", old,
                    k.version ? k.version : "its removal");
    finding *f = add(c, shim && !caller ? SEV_WARNING : SEV_ERROR, data, "param-renamed", target,
                     "%s", t.buf);
    set_sig_detail(f, a, b, ta, tb);
    strbuf_free(&t);
    free(caller);
    deprecated_kwarg_free(&k);
}

/* A parameter upstream dropped: its callers at B no longer pass it. When B's
 * `@deprecate_kwarg("old")` announces it (with a new name the list does not hold
 * in its place, or none), the finding says so and carries the removal version, and
 * the deprecation check leaves the argument to it. */
static void param_removed(sig_ctx *c, const char *target, const index_def *a, const index_def *b,
                          const char *name)
{
    const char *ta = c->p->tag_a, *tb = c->p->tag_b;
    deprecated_kwarg k;
    int shim = deprecated_kwarg_find(&k, b, name);
    json_t *data = sig_data(a, b);
    json_object_set_new(data, "parameter", json_string(name));
    strbuf t = STRBUF_INIT;
    strbuf_addf(&t, "`%s`: parameter `%s` removed (%s → %s)", target, name, ta, tb);
    if (shim) {
        const char *v = deprecated_kwarg_version(&k);
        json_object_set_new(data, "shim", json_string("deprecate_kwarg"));
        if (v)
            json_object_set_new(data, "removal_version", json_string(v));
        strbuf_adds(&t, "; upstream deprecates it through `@deprecate_kwarg`");
        if (k.new_name) {
            json_object_set_new(data, "new_parameter", json_string(k.new_name));
            strbuf_addf(&t, " in favour of `%s`", k.new_name);
        }
        if (v)
            strbuf_addf(&t, " (removal in %s)", v);
    }
    finding *f = add(c, SEV_WARNING, data, "param-removed", target, "%s", t.buf);
    set_sig_detail(f, a, b, ta, tb);
    strbuf_free(&t);
    deprecated_kwarg_free(&k);
}

/* How many arguments the patch's own function for target (patch_def) takes by
 * position, as its callers pass them (a method's self or cls bound): -1 when it
 * takes `*args`, is a staticmethod, or the text does not tell. */
static long patch_positional(const sig_ctx *c, const char *target)
{
    index_module *own;
    const index_def *fn = patch_def(c, target, &own);
    long n = fn ? 0 : -1;
    for (size_t i = 0; fn && n >= 0 && i < fn->n_params; i++) {
        index_param_kind k = fn->params[i].kind;
        if (k == INDEX_PARAM_VAR_POSITIONAL)
            n = -1;
        else if (k == INDEX_PARAM_POSITIONAL_ONLY || k == INDEX_PARAM_POSITIONAL_OR_KEYWORD)
            n++;
    }
    for (size_t i = 0; fn && n >= 0 && i < fn->n_decorators; i++)
        if (!strcmp(fn->decorators[i], "staticmethod"))
            n = -1;
    if (strchr(target, '.') && n >= 0)
        n = n > 0 ? n - 1 : -1; /* self */
    if (own)
        index_module_free(own);
    return n;
}

/* A call of the patched target at B passing one of kws by name, or more than
 * max_positional arguments by position (-1: not looked at), where none did at A
 * (a standing call is no change of the bump's). */
static char *new_caller(const sig_ctx *c, const char *target, const char *const *kws, size_t n_kws,
                        long max_positional, char **call)
{
    char *found = keyword_caller_at(c, 1, target, kws, n_kws, max_positional, call);
    char *call_a = NULL,
         *standing =
             found ? keyword_caller_at(c, 0, target, kws, n_kws, max_positional, &call_a) : NULL;
    if (standing) {
        free(found);
        free(*call);
        found = *call = NULL;
    }
    free(standing);
    free(call_a);
    return found;
}

/* An optional parameter upstream added to a patched target. Upstream's callers may
 * pass it now: by name, which a patch taking neither it nor `**kwargs` refuses, or
 * by position, past what the patch takes so (no `*args`): a TypeError either way.
 * An error once such a call is found in code that still runs at B (upstream's, or
 * the config's own bodies) and none was at A; a warning otherwise, as before. */
static void param_added_optional(sig_ctx *c, const char *target, const index_def *a,
                                 const index_def *b, const char *name)
{
    const char *ta = c->p->tag_a, *tb = c->p->tag_b;
    const pg_patch *pt = c->patch;
    int patched = pt && ((pt->type == PG_METHOD_OVERRIDE && !strcmp(pt->target, target)) ||
                         pt->type == PG_CLASS_REPLACEMENT || pt->type == PG_FUNCTION_REPLACEMENT);
    const char *kws[] = {name};
    char *call = NULL, *caller = NULL;
    long cap = patched ? patch_positional(c, target) : -1;
    if (patched && patch_takes(c, target, name) == 0)
        caller = new_caller(c, target, kws, 1, -1, &call);
    int by_position = !caller && cap >= 0 && (caller = new_caller(c, target, NULL, 0, cap, &call));
    json_t *data = sig_data(a, b);
    json_object_set_new(data, "parameter", json_string(name));
    strbuf t = STRBUF_INIT;
    strbuf_addf(&t, "`%s`: optional parameter `%s` added (%s → %s)", target, name, ta, tb);
    if (caller) {
        const char *who = pt->type == PG_METHOD_OVERRIDE ? "override" : "replacement";
        if (by_position)
            strbuf_addf(&t, "; the %s takes %ld argument%s by position: %s, a TypeError", who, cap,
                        cap == 1 ? "" : "s", caller);
        else
            strbuf_addf(&t, "; the %s takes neither `%s` nor `**kwargs`: %s, a TypeError", who,
                        name, caller);
        json_object_set_new(data, "call", json_string(call));
        char *why = pgci_asprintf("%s, which the %s does not take", caller, who);
        json_object_set_new(data, "because", json_string(why));
        free(why);
    }
    finding *f =
        add(c, caller ? SEV_ERROR : SEV_WARNING, data, "param-added-optional", target, "%s", t.buf);
    set_sig_detail(f, a, b, ta, tb);
    strbuf_free(&t);
    free(caller);
    free(call);
}

/* A required parameter upstream added to a target: an error, upstream's callers at
 * B passing it to a patch written without it; unless the target is a method
 * override whose callers are the module's own (unpackers.h) and none of them that
 * still runs (upstream's, or the config's bodies) passes it in a way the override
 * refuses (GLM-MoE-DSA's indexer at 5.12.1, called only by the attention the
 * config also overrides): a warning, the contract changed under the patch. */
static void param_added_required(sig_ctx *c, const char *target, const index_def *a,
                                 const index_def *b, const char *name)
{
    const char *ta = c->p->tag_a, *tb = c->p->tag_b;
    const pg_patch *pt = c->patch;
    const char *quiet = NULL;
    if (pt && pt->type == PG_METHOD_OVERRIDE && !strcmp(pt->target, target) && b->parent &&
        unpackers_callers_in_module(c->p, b->parent->qualname, b->name)) {
        /* a call that still runs passes it by name, or by position (as many
         * arguments as reach its place: the override's parameter there may be
         * another, `cache_position` taking `past_key_values`) */
        const char *kws[] = {name};
        char *call = NULL, *caller = NULL;
        long at = param_index(b, name), self = b->n_params && !strcmp(b->params[0].name, "self");
        int takes = patch_takes(c, target, name);
        if (takes == 0)
            caller = keyword_caller_at(c, 1, target, kws, 1, -1, &call);
        if (!caller && at >= self) {
            free(call);
            caller = keyword_caller_at(c, 1, target, NULL, 0, at - self, &call);
        }
        if (!caller && takes >= 0)
            quiet = "; no call of it that still runs passes it (upstream's callers in the "
                    "module are patched too)";
        free(caller);
        free(call);
    }
    json_t *data = sig_data(a, b);
    json_object_set_new(data, "parameter", json_string(name));
    finding *f = add(c, quiet ? SEV_WARNING : SEV_ERROR, data, "param-added-required", target,
                     "`%s`: required parameter `%s` added (%s → %s)%s", target, name, ta, tb,
                     quiet ? quiet : "");
    set_sig_detail(f, a, b, ta, tb);
}

/* The parameters renamed from a to b: same position and kind, both names gone from
 * the other side, and likely_rename; renamed[i] set for each (a's index i, which
 * is b's too). */
static void renamed_params(const index_def *a, const index_def *b, int *renamed)
{
    size_t n = a->n_params < b->n_params ? a->n_params : b->n_params;
    for (size_t i = 0; i < n; i++) {
        const index_param *pa = &a->params[i], *pb = &b->params[i];
        renamed[i] = strcmp(pa->name, pb->name) && pa->kind == pb->kind &&
                     param_index(b, pa->name) < 0 && param_index(a, pb->name) < 0 &&
                     likely_rename(a, b, pa, pb);
    }
}

static void compare_params(sig_ctx *c, const char *target, const index_def *a, const index_def *b)
{
    const char *ta = c->p->tag_a, *tb = c->p->tag_b;
    int *renamed_a = pgci_calloc(a->n_params + 1, sizeof(int));
    int *renamed_b = pgci_calloc(b->n_params + 1, sizeof(int));
    renamed_params(a, b, renamed_a);
    for (size_t i = 0; i < a->n_params && i < b->n_params; i++)
        if ((renamed_b[i] = renamed_a[i]))
            param_renamed(c, target, a, b, a->params[i].name, b->params[i].name);
    for (size_t i = 0; i < a->n_params; i++) {
        if (renamed_a[i] || param_index(b, a->params[i].name) >= 0)
            continue;
        param_removed(c, target, a, b, a->params[i].name);
    }
    for (size_t i = 0; i < b->n_params; i++) {
        if (renamed_b[i] || param_index(a, b->params[i].name) >= 0)
            continue;
        if (!is_required(&b->params[i])) {
            param_added_optional(c, target, a, b, b->params[i].name);
            continue;
        }
        param_added_required(c, target, a, b, b->params[i].name);
    }
    /* reordered: the names both sides have, in a different relative order */
    strvec oa = STRVEC_INIT, ob = STRVEC_INIT;
    for (size_t i = 0; i < a->n_params; i++)
        if (param_index(b, a->params[i].name) >= 0)
            strvec_push(&oa, a->params[i].name);
    for (size_t i = 0; i < b->n_params; i++)
        if (param_index(a, b->params[i].name) >= 0)
            strvec_push(&ob, b->params[i].name);
    int reordered = 0;
    for (size_t i = 0; i < oa.len; i++)
        reordered |= strcmp(oa.items[i], ob.items[i]) != 0;
    if (reordered) {
        strbuf x = STRBUF_INIT, y = STRBUF_INIT;
        for (size_t i = 0; i < oa.len; i++)
            strbuf_addf(&x, "%s%s", i ? ", " : "", oa.items[i]);
        for (size_t i = 0; i < ob.len; i++)
            strbuf_addf(&y, "%s%s", i ? ", " : "", ob.items[i]);
        finding *f = add(c, SEV_ERROR, sig_data(a, b), "param-reordered", target,
                         "`%s`: parameters reordered: (%s) → (%s)", target, x.buf, y.buf);
        set_sig_detail(f, a, b, ta, tb);
        strbuf_free(&x);
        strbuf_free(&y);
    }
    strvec_free(&oa);
    strvec_free(&ob);
    /* per-parameter changes */
    for (size_t i = 0; i < a->n_params; i++) {
        const index_param *pa = &a->params[i];
        long j = param_index(b, pa->name);
        if (j < 0)
            continue;
        const index_param *pb = &b->params[j];
        if (pa->kind != pb->kind)
            add(c, SEV_WARNING, sig_data(a, b), "param-kind-changed", target,
                "`%s`: parameter `%s` changed from %s to %s", target, pa->name,
                index_param_kind_name(pa->kind), index_param_kind_name(pb->kind));
        if (!str_eq(pa->default_value, pb->default_value))
            add(c, SEV_WARNING, sig_data(a, b), "param-default-changed", target,
                "`%s`: default of `%s` changed: %s → %s", target, pa->name,
                pa->default_value ? pa->default_value : "(none)",
                pb->default_value ? pb->default_value : "(none)");
        if (!signatures_annotation_eq(pa->annotation, pb->annotation))
            add(c, SEV_INFO, sig_data(a, b), "param-annotation-changed", target,
                "`%s`: annotation of `%s` changed: %s → %s", target, pa->name,
                pa->annotation ? pa->annotation : "(none)",
                pb->annotation ? pb->annotation : "(none)");
    }
    if (!signatures_annotation_eq(a->returns, b->returns))
        add(c, SEV_INFO, sig_data(a, b), "return-annotation-changed", target,
            "`%s`: return annotation changed: %s → %s", target, a->returns ? a->returns : "(none)",
            b->returns ? b->returns : "(none)");
    free(renamed_a);
    free(renamed_b);
}

/* ---- decorators, bases, attributes ----------------------------------------------- */

static int ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

/* "deprecate_kwarg(...)" -> "deprecate_kwarg" */
static char *decorator_name(const char *d)
{
    size_t n = strcspn(d, "(");
    while (n > 0 && isspace((unsigned char)d[n - 1]))
        n--;
    return pgci_strndup(d, n);
}

static long find_decorator(const index_def *d, const char *name)
{
    for (size_t i = 0; i < d->n_decorators; i++) {
        char *n = decorator_name(d->decorators[i]);
        int eq = !strcmp(n, name);
        free(n);
        if (eq)
            return (long)i;
    }
    return -1;
}

static int is_kwarg_shim(const char *decorator_name)
{
    size_t n = strlen(decorator_name);
    return n >= 15 && !strcmp(decorator_name + n - 15, "deprecate_kwarg");
}

/* Decorators compare_decorators leaves to another check: `@deprecate_kwarg` is an
 * argument's deprecation (check_deprecations); `@auto_docstring` only writes
 * docs, and what it does to an override, an error printed at import for each
 * argument it finds undocumented, is what the auto-docstring check reports. */
static int compared_elsewhere(const char *decorator_name)
{
    return is_kwarg_shim(decorator_name) || !strcmp(decorator_name, "auto_docstring");
}

/* Whether the replacement's source has a decorator `@name` (a line starting with
 * it); without the source, assumed so. */
static int replacement_carries(const sig_ctx *c, const char *name)
{
    const char *t = c->patch_text;
    if (!t)
        return 1;
    size_t n = strlen(name);
    for (const char *p = t; (p = strchr(p, '@')); p++) {
        const char *q = p;
        while (q > t && (q[-1] == ' ' || q[-1] == '\t'))
            q--;
        if ((q == t || q[-1] == '\n') && !strncmp(p + 1, name, n) && !ident_char(p[1 + n]) &&
            p[1 + n] != '.')
            return 1;
    }
    return 0;
}

/* A decorator upstream dropped or changed on a replaced class or function (or a
 * replaced class's method) does not reach the generated code, which is the
 * replacement's source, unless the replacement carries it too: then a note. */
static severity dropped_decorator_severity(const sig_ctx *c, const char *name)
{
    return c->replaced && !replacement_carries(c, name) ? SEV_INFO : SEV_WARNING;
}

/* The argument list of a decorator, "(...)", or "" when it has none. */
static const char *decorator_args(const char *d)
{
    const char *p = strchr(d, '(');
    return p ? p : "";
}

/* An upstream decorator dropped for another of a new name with the same non-empty
 * arguments (`@use_kernel_func_from_hub("rotary_pos_emb")` →
 * `@use_kernel_forward_from_hub("rotary_pos_emb")`): the index in a of the one
 * dropped, not yet paired, or -1. */
static long renamed_decorator(const index_def *a, const index_def *b, const char *added,
                              const int *paired)
{
    const char *args = decorator_args(added);
    if (strlen(args) <= 2)
        return -1;
    for (size_t i = 0; i < a->n_decorators; i++) {
        if (paired[i] || strcmp(decorator_args(a->decorators[i]), args))
            continue;
        char *n = decorator_name(a->decorators[i]);
        int dropped = !compared_elsewhere(n) && find_decorator(b, n) < 0;
        free(n);
        if (dropped)
            return (long)i;
    }
    return -1;
}

static void decorator_changed(sig_ctx *c, const char *target, const char *old, const char *new)
{
    char *n = decorator_name(old);
    severity sev = dropped_decorator_severity(c, n);
    add(c, sev, NULL, "decorator-changed", target, "`%s`: decorator changed: `@%s` → `@%s`%s",
        target, old, new, sev == SEV_INFO ? " (the replacement does not carry it)" : "");
    free(n);
}

static void compare_decorators(sig_ctx *c, const char *target, const index_def *a,
                               const index_def *b)
{
    int *paired = pgci_calloc(a->n_decorators + 1, sizeof(int));
    for (size_t i = 0; i < b->n_decorators; i++) {
        char *n = decorator_name(b->decorators[i]);
        if (compared_elsewhere(n)) {
            free(n);
            continue;
        }
        long j = find_decorator(a, n), k;
        if (j < 0 && (k = renamed_decorator(a, b, b->decorators[i], paired)) >= 0) {
            paired[k] = 1;
            decorator_changed(c, target, a->decorators[k], b->decorators[i]);
        } else if (j < 0) {
            add(c, SEV_WARNING, NULL, "decorator-added", target, "`%s`: decorator `@%s` added",
                target, b->decorators[i]);
        } else if (strcmp(a->decorators[j], b->decorators[i])) {
            decorator_changed(c, target, a->decorators[j], b->decorators[i]);
        }
        free(n);
    }
    for (size_t i = 0; i < a->n_decorators; i++) {
        char *n = decorator_name(a->decorators[i]);
        if (!paired[i] && !compared_elsewhere(n) && find_decorator(b, n) < 0) {
            severity sev = dropped_decorator_severity(c, n);
            add(c, sev, NULL, "decorator-removed", target, "`%s`: decorator `@%s` removed%s",
                target, a->decorators[i],
                sev == SEV_INFO ? " (the replacement does not carry it)" : "");
        }
        free(n);
    }
    free(paired);
}

static int text_mentions_attr(const char *text, const char *attr)
{
    if (!text)
        return 0;
    size_t n = strlen(attr);
    for (const char *p = text; (p = strstr(p, "self.")); p += 5) {
        if (!strncmp(p + 5, attr, n) && !isalnum((unsigned char)p[5 + n]) && p[5 + n] != '_')
            return 1;
    }
    return 0;
}

/* Whether any method override of class cls in the config reads self.attr: every
 * override, not only the one being compared, since the attribute is the class's
 * (an override of `forward` reads `self.visual` while `get_audio_features`, met
 * first, does not). */
static int class_patches_mention_attr(const sig_ctx *c, const char *cls, const char *attr)
{
    size_t n = strlen(cls);
    const pg_config *cfg = c->p->cfg;
    for (size_t i = 0; i < cfg->patches.len; i++) {
        const pg_patch *p = &cfg->patches.items[i];
        if (p->type != PG_METHOD_OVERRIDE || strncmp(p->target, cls, n) || p->target[n] != '.')
            continue;
        char *text = p == c->patch ? NULL : signatures_object_text(p->replacement);
        int uses = text_mentions_attr(p == c->patch ? c->patch_text : text, attr);
        free(text);
        if (uses)
            return 1;
    }
    return 0;
}

/* How a method's text (a def) treats self.attr, an attribute upstream's
 * `__init__` no longer sets: ATTR_SET_FIRST when the first statement of its body
 * that names it assigns it (`self.attr = E`, E not naming it), so no read comes
 * before it; ATTR_SET_LATER when it assigns it in some other place (under an `if`,
 * after a read); ATTR_READ_ONLY when it never assigns it. */
enum { ATTR_READ_ONLY, ATTR_SET_LATER, ATTR_SET_FIRST };

static int assigns_attr(const char *text, const char *attr)
{
    size_t n = strlen(attr);
    for (const char *p = text; (p = strstr(p, "self.")); p += 5) {
        const char *q = p + 5 + n;
        if (strncmp(p + 5, attr, n) || isalnum((unsigned char)*q) || *q == '_')
            continue;
        while (*q == ' ')
            q++;
        if (*q == '=' && q[1] != '=')
            return 1;
    }
    return 0;
}

static int attr_set_first(const char *text, const char *attr)
{
    if (!text || !assigns_attr(text, attr))
        return ATTR_READ_ONLY;
    py_tree t;
    if (py_parse(&t, text, strlen(text), "<patch>") < 0) {
        pgci_error_clear();
        return ATTR_SET_LATER;
    }
    int how = ATTR_SET_LATER;
    TSNode def = pynode_named_child(py_root(&t), 0);
    if (py_is(def, "decorated_definition"))
        def = py_field(def, "definition");
    TSNode body = py_is(def, "function_definition") ? py_field(def, "body") : def;
    uint32_t k =
        ts_node_is_null(body) || !py_is(body, "block") ? 0 : ts_node_named_child_count(body);
    for (uint32_t i = 0; i < k; i++) {
        char *st = py_text_dup(&t, ts_node_named_child(body, i));
        int names = text_mentions_attr(st, attr);
        if (names) {
            /* `self.attr = E` alone: the statement's text up to its '=' is the target */
            const char *eq = strchr(st, '=');
            char *rhs = eq && eq[1] != '=' ? pgci_strdup(eq + 1) : NULL;
            int target = eq && !strncmp(st, "self.", 5) && !strncmp(st + 5, attr, strlen(attr));
            size_t tl = 5 + strlen(attr);
            while (target && st[tl] == ' ')
                tl++;
            if (target && st + tl == eq && rhs && !text_mentions_attr(rhs, attr))
                how = ATTR_SET_FIRST;
            free(rhs);
        }
        free(st);
        if (names)
            break;
    }
    py_tree_free(&t);
    return how;
}

/* How the config's method overrides of cls treat self.attr, which they read
 * (attr_set_first): ATTR_SET_FIRST when every override naming it assigns it
 * before anything else names it, else ATTR_SET_LATER when one assigns it, else
 * ATTR_READ_ONLY. */
static int class_patches_set_attr(const sig_ctx *c, const char *cls, const char *attr)
{
    size_t n = strlen(cls);
    const pg_config *cfg = c->p->cfg;
    int all_first = 1, any_set = 0;
    for (size_t i = 0; i < cfg->patches.len; i++) {
        const pg_patch *p = &cfg->patches.items[i];
        if (p->type != PG_METHOD_OVERRIDE || strncmp(p->target, cls, n) || p->target[n] != '.')
            continue;
        char *own = p == c->patch ? NULL : signatures_object_text(p->replacement);
        const char *text = p == c->patch ? c->patch_text : own;
        if (text_mentions_attr(text, attr)) {
            int how = attr_set_first(text, attr);
            all_first &= how == ATTR_SET_FIRST;
            any_set |= how != ATTR_READ_ONLY;
        }
        free(own);
    }
    return all_first ? ATTR_SET_FIRST : any_set ? ATTR_SET_LATER : ATTR_READ_ONLY;
}

static long find_str(const char **v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], s))
            return (long)i;
    return -1;
}

/* "Cls.__init__" overridden, or Cls replaced by a class that defines __init__:
 * upstream's __init__ no longer runs, so its attributes are not the patch's. */
static int config_owns_init(const pg_config *cfg, const char *cls)
{
    size_t n = strlen(cls);
    for (size_t i = 0; i < cfg->patches.len; i++) {
        const pg_patch *p = &cfg->patches.items[i];
        if (p->type == PG_METHOD_OVERRIDE && !strncmp(p->target, cls, n) &&
            !strcmp(p->target + n, ".__init__"))
            return 1;
        if (p->type == PG_CLASS_REPLACEMENT && !strcmp(p->target, cls) && p->replacement) {
            char *text = signatures_object_text(p->replacement);
            int has = text && strstr(text, "def __init__(") != NULL;
            free(text);
            if (has)
                return 1;
        }
    }
    return 0;
}

/* Emits a finding once per (config, kind, target, subject): several patches of one
 * config that use the same attribute are one fact. */
static int first_time(sig_ctx *c, const char *kind, const char *target, const char *subject)
{
    char *key = pgci_asprintf("%s|%s|%s|%s", c->p->config, kind, target, subject);
    if (strvec_find(c->emitted, key) >= 0) {
        free(key);
        return 0;
    }
    strvec_push_owned(c->emitted, key);
    return 1;
}

/* The __init__ attributes of class a renamed at b, as pairs (old, new) in `out`:
 * only with evidence, a new attribute assigned the very value the old one was
 * (self.gate = Router(config) -> self.router = Router(config)); names alone prove
 * nothing (self.next_skip_topk vs self.hidden_size). */
static void init_renames(const sig_ctx *c, const index_def *a, const index_def *b, strvec *out)
{
    const index_def *ia = index_member(a, "__init__"), *ib = index_member(b, "__init__");
    int *used_b = pgci_calloc(b->n_init_attrs + 1, sizeof(int));
    for (size_t i = 0; i < a->n_init_attrs; i++) {
        const char *old = a->init_attrs[i];
        if (find_str(b->init_attrs, b->n_init_attrs, old) >= 0)
            continue;
        char *va = source_attr_value(c->p->src_a, c->p->src_a_len, ia, old);
        for (size_t j = 0; va && j < b->n_init_attrs; j++) {
            if (used_b[j] || find_str(a->init_attrs, a->n_init_attrs, b->init_attrs[j]) >= 0)
                continue;
            char *vb = source_attr_value(c->p->src_b, c->p->src_b_len, ib, b->init_attrs[j]);
            int same = vb && !strcmp(va, vb);
            free(vb);
            if (same) {
                used_b[j] = 1;
                strvec_push(out, old);
                strvec_push(out, b->init_attrs[j]);
                break;
            }
        }
        free(va);
    }
    free(used_b);
}

/* The new name of `old` in renames (pairs old, new), or NULL. */
static const char *renamed_to(const strvec *renames, const char *old)
{
    for (size_t k = 0; renames && k + 1 < renames->len; k += 2)
        if (!strcmp(renames->items[k], old))
            return renames->items[k + 1];
    return NULL;
}

/* The names n (under the receiver self) registers by a literal: calls
 * `self.register_buffer("x", ...)`, `self.register_parameter("x", ...)`,
 * `self.add_module("x", ...)`, each setting self.x as an assignment would;
 * nested definitions left out (they have their own receiver). */
static void registered_in(const py_tree *t, TSNode n, const char *self, strvec *out)
{
    static const char *const registers[] = {"register_buffer", "register_parameter", "add_module"};
    if (py_is(n, "function_definition") || py_is(n, "class_definition") || py_is(n, "lambda"))
        return;
    if (py_is(n, "call")) {
        TSNode fn = py_field(n, "function"), args = py_field(n, "arguments");
        TSNode obj = py_is(fn, "attribute") ? py_field(fn, "object") : fn;
        TSNode first = ts_node_is_null(args) ? args : pynode_named_child(args, 0);
        int reg = 0;
        for (size_t i = 0; !reg && i < sizeof(registers) / sizeof(*registers); i++)
            reg = py_is(fn, "attribute") && py_text_eq(t, py_field(fn, "attribute"), registers[i]);
        if (reg && py_is(obj, "identifier") && py_text_eq(t, obj, self) && py_is(first, "string")) {
            strbuf v = STRBUF_INIT;
            if (pystr_decode_node(&v, t, first) == 0 && v.len)
                strvec_push(out, v.buf);
            else
                pgci_error_clear();
            strbuf_free(&v);
        }
    }
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++)
        registered_in(t, ts_node_named_child(n, i), self, out);
}

/* What class cls's `__init__` (in src, the module at one tag) sets of self: its
 * `self.x = ...` targets (the index's) and the names it registers (registered_in).
 * A name set either way at B is not gone, one set either way at A is not added. */
static void init_sets(const sig_ctx *c, const char *src, size_t len, const index_def *cls,
                      strvec *out)
{
    for (size_t i = 0; i < cls->n_init_attrs; i++)
        strvec_push(out, cls->init_attrs[i]);
    const index_def *init = index_member(cls, "__init__");
    py_tree t;
    TSNode def;
    /* the walk only where a registering call can be: most __init__s have none */
    if (!init || !src || init->end_byte > len || init->start_byte >= init->end_byte)
        return;
    const char *body = src + init->start_byte;
    size_t n = init->end_byte - init->start_byte;
    if (!memmem(body, n, "register_", 9) && !memmem(body, n, "add_module", 10))
        return;
    if (!init->n_params || survey_def_tree(c->p, src, len, init, &t) < 0) {
        pgci_error_clear();
        return;
    }
    if (pynode_function_at(&t, init->start_byte, &def) == 0)
        registered_in(&t, py_field(def, "body"), init->params[0].name, out);
    else
        pgci_error_clear();
    survey_tree_release(c->p, &t);
}

/* The name of the first parameter after `self` of method fn; NULL when none. */
static const char *first_param(const index_def *fn)
{
    return fn && fn->n_params > 1 ? fn->params[1].name : NULL;
}

/* Where class b (at B) moved `old`, which its `__init__` no longer sets but set at A
 * to `va`: an attribute `self.<holder> = Cls(<config>)` of b's `__init__`, Cls a
 * class of the module whose own `__init__` takes that same config under the same
 * name and sets `self.<old>` to the very value A's did (5.22.2 split
 * `Qwen2_5OmniThinkerForConditionalGeneration` into it and a
 * `Qwen2_5OmniThinkerModel` in `self.model`, which sets `self.audio_tower =
 * Qwen2_5OmniAudioEncoder._from_config(config.audio_config)` as the thinker did).
 * Returns the holder's name (malloc'ed) and the class in *cls; NULL when none. */
static char *moved_into(const sig_ctx *c, const index_def *b, const char *old, const char *va,
                        const char **cls)
{
    const index_def *ib = index_member(b, "__init__");
    const char *cfg = first_param(ib);
    if (!cfg || !va || !c->p->b)
        return NULL;
    for (size_t j = 0; j < b->n_init_attrs; j++) {
        char *v = source_attr_value(c->p->src_b, c->p->src_b_len, ib, b->init_attrs[j]);
        const char *q = v;
        while (q && (isalnum((unsigned char)*q) || *q == '_'))
            q++;
        size_t n = q ? (size_t)(q - v) : 0, k = strlen(cfg);
        int call = n && *q == '(' && !strncmp(q + 1, cfg, k) && !strcmp(q + 1 + k, ")");
        char *name = call ? pgci_strndup(v, n) : NULL;
        free(v);
        const index_def *d = name ? index_find(c->p->b, name) : NULL;
        free(name);
        if (!d || d->kind != INDEX_CLASS || d->parent || d == b ||
            find_str(d->init_attrs, d->n_init_attrs, old) < 0)
            continue;
        const index_def *id = index_member(d, "__init__");
        const char *p = first_param(id);
        char *vd =
            p && !strcmp(p, cfg) ? source_attr_value(c->p->src_b, c->p->src_b_len, id, old) : NULL;
        int same = vd && !strcmp(vd, va);
        free(vd);
        if (same) {
            *cls = d->name;
            return pgci_strdup(b->init_attrs[j]);
        }
    }
    return NULL;
}

static void compare_init_attrs(sig_ctx *c, const char *target, const index_def *a,
                               const index_def *b)
{
    if (config_owns_init(c->p->cfg, target))
        return;
    strvec renames = STRVEC_INIT, sets_a = STRVEC_INIT, sets_b = STRVEC_INIT;
    init_renames(c, a, b, &renames);
    init_sets(c, c->p->src_a, c->p->src_a_len, a, &sets_a);
    init_sets(c, c->p->src_b, c->p->src_b_len, b, &sets_b);
    const index_def *ia = index_member(a, "__init__");
    for (size_t i = 0; i < a->n_init_attrs; i++) {
        const char *old = a->init_attrs[i];
        if (strvec_find(&sets_b, old) >= 0)
            continue;
        const char *to = renamed_to(&renames, old);
        int uses =
            text_mentions_attr(c->patch_text, old) || class_patches_mention_attr(c, target, old);
        severity sev = uses ? SEV_ERROR : SEV_WARNING;
        const char *why = uses ? " and the patch still uses it" : "";
        const char *kind = to ? "init-attr-renamed" : "init-attr-removed";
        if (!first_time(c, kind, target, old))
            continue;
        json_t *data = json_object();
        json_object_set_new(data, "attribute", json_string(old));
        if (to) {
            char *va = source_attr_value(c->p->src_a, c->p->src_a_len, ia, old);
            json_object_set_new(data, "new_attribute", json_string(to));
            json_object_set_new(data, "evidence", json_string(va));
            finding *f =
                add(c, sev, data, kind, target, "`%s.__init__`: `self.%s` renamed to `self.%s`%s",
                    target, old, to, why);
            strbuf ev = STRBUF_INIT;
            strbuf_addf(&ev, "evidence: both are assigned `%s`\n", va);
            finding_set_detail(f, ev.buf);
            strbuf_free(&ev);
            free(va);
        } else {
            const char *cls = NULL;
            char *va = source_attr_value(c->p->src_a, c->p->src_a_len, ia, old);
            char *holder = moved_into(c, b, old, va, &cls);
            if (holder) {
                char *dest = pgci_asprintf("%s.%s", holder, old);
                json_object_set_new(data, "moved_to", json_string(dest));
                json_object_set_new(data, "holder_class", json_string(cls));
                json_object_set_new(data, "evidence", json_string(va));
                finding *f = add(c, sev, data, kind, target,
                                 "`%s.__init__`: `self.%s` moved to `self.%s` (a `%s`)%s", target,
                                 old, dest, cls, why);
                char *ev = pgci_asprintf("evidence: `%s.__init__` sets `self.%s = %s(...)`, whose "
                                         "`__init__` assigns `self.%s = %s` as `%s.__init__` did "
                                         "at %s\n",
                                         target, holder, cls, old, va, target, c->p->tag_a);
                finding_set_detail(f, ev);
                free(ev);
                free(dest);
                free(holder);
            } else {
                add(c, sev, data, kind, target, "`%s.__init__`: `self.%s` no longer set%s", target,
                    old, why);
            }
            free(va);
        }
    }
    /* a name only registered at A (`self.register_buffer("x", None)` reads None
     * until assigned) that B neither registers nor assigns: a read of it raises
     * AttributeError at B as an assigned one's does, unless each override that
     * names it assigns it first (GlmMoeDsaIndexer's `_cached_keys`, which 5.12.1
     * moved into the cache: the override assigns it only when `seq_len > 1`, and
     * reads it with `use_cache`) */
    for (size_t i = 0; i < sets_a.len; i++) {
        const char *old = sets_a.items[i];
        if (find_str(a->init_attrs, a->n_init_attrs, old) >= 0 || strvec_find(&sets_b, old) >= 0)
            continue;
        int uses =
            text_mentions_attr(c->patch_text, old) || class_patches_mention_attr(c, target, old);
        int how = uses ? class_patches_set_attr(c, target, old) : ATTR_READ_ONLY;
        if ((uses && how == ATTR_SET_FIRST) || !first_time(c, "init-attr-removed", target, old))
            continue;
        json_t *data = json_object();
        json_object_set_new(data, "attribute", json_string(old));
        json_object_set_new(data, "registered", json_true());
        add(c, uses && how == ATTR_READ_ONLY ? SEV_ERROR : SEV_WARNING, data, "init-attr-removed",
            target, "`%s.__init__`: `self.%s` no longer registered%s", target, old,
            !uses                   ? ""
            : how == ATTR_READ_ONLY ? " and the patch still uses it"
                                    : ", and the patch can read it before it sets it");
    }
    for (size_t j = 0; j < sets_b.len; j++) {
        const char *name = sets_b.items[j];
        int renamed = 0;
        for (size_t k = 1; k < renames.len && !renamed; k += 2)
            renamed = !strcmp(renames.items[k], name);
        if (renamed || strvec_find(&sets_a, name) >= 0)
            continue;
        if (first_time(c, "init-attr-added", target, name))
            add(c, SEV_INFO, NULL, "init-attr-added", target, "`%s.__init__`: `self.%s` added",
                target, name);
    }
    strvec_free(&renames);
    strvec_free(&sets_a);
    strvec_free(&sets_b);
}

static void compare_bases(sig_ctx *c, const char *target, const index_def *a, const index_def *b)
{
    strbuf x = STRBUF_INIT, y = STRBUF_INIT;
    for (size_t i = 0; i < a->n_bases; i++)
        strbuf_addf(&x, "%s%s", i ? ", " : "", a->bases[i]);
    for (size_t i = 0; i < b->n_bases; i++)
        strbuf_addf(&y, "%s%s", i ? ", " : "", b->bases[i]);
    if (strcmp(x.buf, y.buf))
        add(c, SEV_WARNING, NULL, "bases-changed", target,
            "`%s`: base classes changed: (%s) → (%s)", target, x.buf, y.buf);
    strbuf_free(&x);
    strbuf_free(&y);
}

/* The value class d's body leaves in attribute `name`: its last assignment, as
 * Python runs a class body top to bottom; NULL when it assigns none. */
static const index_assign *last_attr(const index_def *d, const char *name)
{
    const index_assign *v = NULL;
    for (size_t j = 0; j < d->n_attrs; j++)
        if (!strcmp(d->attrs[j].name, name))
            v = &d->attrs[j];
    return v;
}

/* Whether two class attribute values are one value as Python reads them: the
 * same text, or the same expression but for layout, quotes and trailing commas
 * (structural.h), `x = ["a",\n "b",\n]` as `x = ['a', 'b']`. */
static int same_value(const char *x, const char *y)
{
    if (str_eq(x, y))
        return 1;
    if (!x || !y)
        return 0;
    char *sa = pgci_asprintf("v = %s\n", x), *sb = pgci_asprintf("v = %s\n", y);
    structural_result res = {0};
    int same = structural_compare(sa, strlen(sa), sb, strlen(sb), &res) == 0 && res.equal;
    pgci_error_clear();
    structural_result_free(&res);
    free(sa);
    free(sb);
    return same;
}

static void compare_class_attrs(sig_ctx *c, const char *target, const index_def *a,
                                const index_def *b)
{
    for (size_t i = 0; i < a->n_attrs; i++) {
        const index_assign *x = &a->attrs[i];
        if (last_attr(a, x->name) != x)
            continue; /* assigned again below: the later value is the class's */
        const index_assign *y = last_attr(b, x->name);
        if (!y)
            add(c, SEV_WARNING, NULL, "class-attr-removed", target,
                "`%s`: class attribute `%s` removed", target, x->name);
        else if (!same_value(x->value, y->value))
            add(c, SEV_WARNING, NULL, "class-attr-changed", target,
                "`%s`: class attribute `%s` changed: %s → %s", target, x->name,
                x->value ? x->value : "(none)", y->value ? y->value : "(none)");
    }
    for (size_t j = 0; j < b->n_attrs; j++)
        if (last_attr(b, b->attrs[j].name) == &b->attrs[j] && !last_attr(a, b->attrs[j].name))
            add(c, SEV_INFO, NULL, "class-attr-added", target, "`%s`: class attribute `%s` added",
                target, b->attrs[j].name);
}

/* The fingerprint covers the docstring; a docstring-only change (a parameter's
 * doc line dropped with the parameter) is not a body change. */
static int same_body(sig_ctx *c, const index_def *a, const index_def *b)
{
    return survey_same_def_body(c->p, a, b);
}

/* The unified diff of definitions a (of A's source) and b (of B's) into *d, its
 * headers labelled la and lb; 0 when a span lies outside its source. */
static int def_diff(strbuf *d, const sig_ctx *c, const index_def *a, const index_def *b,
                    const char *la, const char *lb)
{
    const survey_pair *p = c->p;
    if (!p->src_a || !p->src_b || a->end_byte > p->src_a_len || b->end_byte > p->src_b_len)
        return 0;
    strbuf x = STRBUF_INIT, y = STRBUF_INIT;
    /* a definition ends where its last statement does, before the newline: each
     * side gets one, or its last line runs into the next line of the diff ("-
     * return router_logits+ scores = ...") and reads as changed when it is not */
    strbuf_add(&x, p->src_a + a->start_byte, a->end_byte - a->start_byte);
    strbuf_add(&y, p->src_b + b->start_byte, b->end_byte - b->start_byte);
    if (x.len && x.buf[x.len - 1] != '\n')
        strbuf_addc(&x, '\n');
    if (y.len && y.buf[y.len - 1] != '\n')
        strbuf_addc(&y, '\n');
    difflib_unified_diff(d, x.buf ? x.buf : "", x.len, y.buf ? y.buf : "", y.len, la, lb, 1);
    strbuf_free(&x);
    strbuf_free(&y);
    return 1;
}

/* d cut after its first `lines` lines from byte `from` on, with a line saying so. */
static void cut_lines(strbuf *d, size_t from, size_t lines)
{
    size_t n = 0, at = from;
    while (at < d->len && n < lines)
        n += d->buf[at++] == '\n';
    if (at < d->len) {
        strbuf_setlen(d, at);
        strbuf_adds(d, "... (cut at 40 lines)\n");
    }
}

/* The upstream change under an override as a unified diff of the two bodies, cut
 * to its first 40 lines (the note folds it). */
static void body_diff(finding *f, const sig_ctx *c, const index_def *a, const index_def *b,
                      const char *lead)
{
    if (!f)
        return;
    strbuf d = STRBUF_INIT;
    strbuf_adds(&d, lead ? lead : "");
    if (!def_diff(&d, c, a, b, c->p->tag_a, c->p->tag_b)) {
        strbuf_free(&d);
        return;
    }
    cut_lines(&d, 0, 40 + (lead ? 10 : 0));
    if (d.len)
        finding_set_detail(f, d.buf);
    strbuf_free(&d);
}

/* Whether b's text is a's with each renamed `self.<old>` written `self.<new>`:
 * the body change is the class's attribute rename, which compare_init_attrs
 * reports (with what to do) - one fact, one finding. */
static int only_renames(const sig_ctx *c, const index_def *a, const index_def *b)
{
    const survey_pair *p = c->p;
    if (!c->renames || !c->renames->len || !p->src_a || !p->src_b || a->end_byte > p->src_a_len ||
        b->end_byte > p->src_b_len)
        return 0;
    const char *s = p->src_a + a->start_byte, *end = p->src_a + a->end_byte;
    strbuf t = STRBUF_INIT;
    while (s < end) {
        const char *at = s;
        if ((size_t)(end - s) > 5 && !memcmp(s, "self.", 5) &&
            (s == p->src_a + a->start_byte || !ident_char(s[-1]))) {
            const char *w = s + 5, *e = w;
            while (e < end && ident_char(*e))
                e++;
            char *word = pgci_strndup(w, (size_t)(e - w));
            const char *to = renamed_to(c->renames, word);
            free(word);
            if (to) {
                strbuf_addf(&t, "self.%s", to);
                s = e;
            }
        }
        if (s == at)
            strbuf_addc(&t, *s++);
    }
    int same =
        t.len == b->end_byte - b->start_byte && !memcmp(t.buf, p->src_b + b->start_byte, t.len);
    strbuf_free(&t);
    return same;
}

/* The new name of the renamed parameter whose old name is w[0..n), or NULL. */
static const char *renamed_to_name(const strvec *from, const strvec *to, const char *w, size_t n)
{
    for (size_t i = 0; i < from->len; i++)
        if (strlen(from->items[i]) == n && !memcmp(from->items[i], w, n))
            return to->items[i];
    return NULL;
}

/* a's text with each renamed parameter written by its new name wherever it is a
 * name (a keyword argument's too); attributes, comments and string literals (a
 * dict key spelled like it is another function's keyword) left alone */
static void rename_names(strbuf *out, const char *s, size_t len, const strvec *from,
                         const strvec *to)
{
    const char *end = s + len, *p = s;
    while (p < end) {
        if (*p == '#') { /* a comment, to its line's end: its quotes open nothing */
            const char *e = memchr(p, '\n', (size_t)(end - p));
            e = e ? e : end;
            strbuf_add(out, p, (size_t)(e - p));
            p = e;
        } else if (*p == '"' || *p == '\'') {
            const char *e = source_string_end(p, end);
            strbuf_add(out, p, (size_t)(e - p));
            p = e;
        } else if (ident_char(*p)) { /* a whole word: renamed unless an attribute */
            const char *e = p;
            while (e < end && ident_char(*e))
                e++;
            const char *t =
                p > s && p[-1] == '.' ? NULL : renamed_to_name(from, to, p, (size_t)(e - p));
            if (t)
                strbuf_adds(out, t);
            else
                strbuf_add(out, p, (size_t)(e - p));
            p = e;
        } else {
            strbuf_addc(out, *p++);
        }
    }
}

/* Whether b's body is a's with its parameter changes and nothing else: the names
 * of the parameters b renamed written by their new names, and without the lines
 * that only passed a parameter b dropped on by keyword (`cache_position=
 * cache_position,` in a call). The body change is then those parameters' renames
 * and removals, which compare_params reports - one fact, one finding. A line doing
 * more with a dropped parameter (a default computed, a value read) is a change. */
static int only_param_changes(const sig_ctx *c, const index_def *a, const index_def *b)
{
    const survey_pair *p = c->p;
    if (!p->src_a || !p->src_b || a->end_byte > p->src_a_len || b->end_byte > p->src_b_len ||
        a->start_byte > a->end_byte || b->start_byte > b->end_byte)
        return 0;
    strvec dropped = STRVEC_INIT, from = STRVEC_INIT, to = STRVEC_INIT;
    int *renamed = pgci_calloc(a->n_params + 1, sizeof(int));
    renamed_params(a, b, renamed);
    for (size_t i = 0; i < a->n_params; i++) {
        if (renamed[i]) {
            strvec_push(&from, a->params[i].name);
            strvec_push(&to, b->params[i].name);
        } else if (a->params[i].kind != INDEX_PARAM_VAR_KEYWORD &&
                   a->params[i].kind != INDEX_PARAM_VAR_POSITIONAL &&
                   strcmp(a->params[i].name, "self") && !index_param_find(b, a->params[i].name)) {
            strvec_push(&dropped, a->params[i].name);
        }
    }
    free(renamed);
    strbuf t = STRBUF_INIT;
    size_t cut = 0;
    const char *s = p->src_a + a->start_byte, *end = p->src_a + a->end_byte;
    while ((dropped.len || from.len) && s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl + 1 : end;
        const char *w = s, *we = e;
        while (w < we && (*w == ' ' || *w == '\t'))
            w++;
        while (we > w && (we[-1] == '\n' || we[-1] == '\r' || we[-1] == ' ' || we[-1] == ','))
            we--;
        int pass = 0;
        for (size_t i = 0; i < dropped.len && !pass; i++) {
            size_t n = strlen(dropped.items[i]);
            pass = (size_t)(we - w) == 2 * n + 1 && !memcmp(w, dropped.items[i], n) &&
                   w[n] == '=' && !memcmp(w + n + 1, dropped.items[i], n);
        }
        if (pass)
            cut++;
        else
            strbuf_add(&t, s, (size_t)(e - s));
        s = e;
    }
    int same = 0;
    if (cut || from.len) {
        strbuf r = STRBUF_INIT;
        rename_names(&r, t.buf, t.len, &from, &to);
        same = structural_bodies_equal(r.buf, r.len, p->src_b + b->start_byte,
                                       b->end_byte - b->start_byte) == 1;
        pgci_error_clear();
        strbuf_free(&r);
    }
    strbuf_free(&t);
    strvec_free(&dropped);
    strvec_free(&from);
    strvec_free(&to);
    return same;
}

/* The values upstream's function returns whose steps changed in place (returned.h):
 * what its callers at B take from it is not what the patch, written against A,
 * returns. The names, "`a`, `b`", into *names and their steps into *d; 0 when none. */
static size_t values_changed(const sig_ctx *c, const returned *ra, const returned *rb,
                             strbuf *names, json_t *values, strbuf *d)
{
    size_t changed = 0;
    for (size_t i = 0; ra->n == rb->n && i < ra->n; i++) {
        if (!returned_value_changed(ra, rb, i))
            continue;
        strbuf_addf(names, "%s`%s`", changed++ ? ", " : "", returned_value_name(ra, rb, i));
        json_array_append_new(values, json_string(returned_value_name(ra, rb, i)));
        returned_describe(d, ra, rb, i, c->p->tag_a, c->p->tag_b);
    }
    return changed;
}

/* What a's and b's last `return` give (returned.h), read once for the value and
 * count rules; 0 when either cannot be read (both empty then). */
static int read_returns(const sig_ctx *c, const index_def *a, const index_def *b, returned *ra,
                        returned *rb)
{
    const survey_pair *p = c->p;
    memset(rb, 0, sizeof(*rb));
    if (survey_returned(p, p->src_a, p->src_a_len, a, ra) < 0) {
        pgci_error_clear();
        return 0;
    }
    if (survey_returned(p, p->src_b, p->src_b_len, b, rb) < 0) {
        pgci_error_clear();
        returned_free(ra);
        return 0;
    }
    return 1;
}

/* What the method override returns: the number of values of its last top-level
 * `return` (1 for one name or attribute); 0 when that cannot be told (no such
 * return, one value of another form, not an override). */
static size_t patch_returns(const sig_ctx *c)
{
    if (!c->patch_text || !c->patch || c->patch->type != PG_METHOD_OVERRIDE)
        return 0;
    size_t len = strlen(c->patch_text), n = 0;
    index_module *own = NULL;
    const index_module *ix = survey_patch_index(c->p, c->patch_text, len, &own);
    py_tree t;
    if (ix && ix->n_defs && survey_tree_get(c->p, &t, c->patch_text, len, "<patch>") == 0) {
        returned r;
        if (returned_read(&r, &t, ix->defs[0]->start_byte) == 0)
            n = r.many ? r.n : (size_t)r.single_plain;
        returned_free(&r);
        survey_tree_release(c->p, &t);
    }
    pgci_error_clear();
    if (own)
        index_module_free(own);
    return n;
}

/* Whether upstream changed what a's body runs by b's, beyond what another finding
 * says: not formatting, comments, docstrings or a name's annotation (same_body),
 * not the class's reported `self.` renames alone, not its own parameters'
 * removals and renames alone, not a one-use temporary folded in place. The
 * override's body change and a replaced class's methods ask the same. */
static int body_changed(sig_ctx *c, const index_def *a, const index_def *b)
{
    return index_def_fingerprint(a) != index_def_fingerprint(b) && !same_body(c, a, b) &&
           !only_renames(c, a, b) && !only_param_changes(c, a, b) &&
           !survey_same_def_body_inlined(c->p, a, b);
}

/* Upstream's last `return` gives another number of values (returned.h): an error
 * when an upstream caller the config does not patch unpacks another number than
 * the override returns (unpackers.h), else a warning naming both returns. */
static finding *return_count(sig_ctx *c, const char *target, const index_def *b, const returned *ra,
                             const returned *rb)
{
    size_t n_was = ra->many ? ra->n : 1, n_now = rb->many ? rb->n : 1;
    json_t *data = json_object();
    json_object_set_new(data, "returned", json_string(ra->text));
    json_object_set_new(data, "returns", json_string(rb->text));
    size_t n_patch = b->parent ? patch_returns(c) : 0;
    unpack_site site;
    if (n_patch && n_patch != n_now &&
        unpackers_find(c->p, b->parent->qualname, b->name, n_patch, &site)) {
        json_object_set_new(data, "caller", json_string(site.where));
        json_object_set_new(data, "caller_line", json_integer(site.line));
        finding *f = add(c, SEV_ERROR, data, "return-count-changed", target,
                         "`%s`: at %s upstream's `%s` (line %u) unpacks %zu values of `%s`, and "
                         "the override returns %zu, as upstream did at %s (`%s`, now `%s`): a "
                         "ValueError on every call",
                         target, c->p->tag_b, site.where, site.line, site.count, site.call, n_patch,
                         c->p->tag_a, ra->text, rb->text);
        unpack_site_free(&site);
        return f;
    }
    char how_now[32] = "", how_was[32] = "";
    if (n_now > 1)
        snprintf(how_now, sizeof(how_now), "%zu values, ", n_now);
    if (n_was > 1)
        snprintf(how_was, sizeof(how_was), "%zu values, ", n_was);
    return add(c, SEV_WARNING, data, "return-count-changed", target,
               "`%s`: upstream now returns %s`%s`, where it returned %s`%s` (the patch was "
               "written against %s)",
               target, how_now, rb->text, how_was, ra->text, c->p->tag_a);
}

static void compare_function(sig_ctx *c, const char *target, const index_def *a, const index_def *b,
                             int body_matters)
{
    compare_params(c, target, a, b);
    compare_decorators(c, target, a, b);
    if (!body_matters || !body_changed(c, a, b))
        return;
    strbuf names = STRBUF_INIT, d = STRBUF_INIT;
    finding *f;
    json_t *values = json_array();
    returned ra, rb;
    int have = read_returns(c, a, b, &ra, &rb);
    if (have && values_changed(c, &ra, &rb, &names, values, &d)) {
        strbuf_addc(&d, '\n');
        json_t *data = json_object();
        json_object_set_new(data, "values", values);
        f = add(c, SEV_WARNING, data, "return-value-changed", target,
                "`%s`: upstream now computes what it returns as %s by other steps (the patch was "
                "written against %s)",
                target, names.buf, c->p->tag_a);
    } else if ((json_decref(values), have && returned_count_changed(&ra, &rb))) {
        f = return_count(c, target, b, &ra, &rb);
    } else {
        f = add(c, SEV_WARNING, NULL, "body-changed", target,
                "`%s`: the upstream body changed under the patch (written against %s)", target,
                c->p->tag_a);
    }
    if (have) {
        returned_free(&ra);
        returned_free(&rb);
    }
    body_diff(f, c, a, b, d.len ? d.buf : NULL);
    strbuf_free(&names);
    strbuf_free(&d);
}

/* b's member that a->members[i] stands for: the one of the same name and the same
 * rank among the members of that name (a property's getter with the getter, its
 * setter with the setter), NULL when b has fewer. */
static const index_def *same_member(const index_def *a, size_t i, const index_def *b)
{
    const char *name = a->members[i]->name;
    size_t rank = 0;
    for (size_t j = 0; j < i; j++)
        rank += !strcmp(a->members[j]->name, name);
    for (size_t j = 0; j < b->n_members; j++)
        if (!strcmp(b->members[j]->name, name) && !rank--)
            return b->members[j];
    return NULL;
}

/* "`a`", "`a` and `b`", "`a`, `b` and `c`" of names, the last joined by conj
 * (" and ", " or "). */
static void name_list(strbuf *t, const strvec *names, const char *conj)
{
    for (size_t i = 0; i < names->len; i++)
        strbuf_addf(t, "%s`%s`", i ? (i + 1 == names->len ? conj : ", ") : "", names->items[i]);
}

/* Upstream changed the bodies of methods from[i] -> to[i] of class `target`, which
 * the config replaces: the replacement stands in for each (a method it does not
 * define is its own bases', not upstream's, which it no longer has at all), so the
 * change is the maintainer's to read and port, as under an override. One finding
 * for the class, the methods' diffs its detail, and which of them the
 * replacement defines (read from its source; an import's is not read). */
static void replaced_bodies(sig_ctx *c, const char *target, const index_def **from,
                            const index_def **to, size_t n)
{
    strvec names = STRVEC_INIT, defined = STRVEC_INIT, missing = STRVEC_INIT;
    for (size_t i = 0; i < n; i++)
        if (strvec_find(&names, from[i]->name) < 0)
            strvec_push(&names, from[i]->name);
    index_module *own = NULL;
    const index_def *repl = c->patch_text
                                ? survey_object_def(c->p, c->patch ? c->patch->replacement : NULL,
                                                    c->patch_text, strlen(c->patch_text), &own)
                                : NULL;
    pgci_error_clear();
    if (repl && repl->kind != INDEX_CLASS)
        repl = NULL;
    json_t *data = json_object(), *ms = json_array(), *ds = json_array();
    for (size_t i = 0; i < names.len; i++) {
        json_array_append_new(ms, json_string(names.items[i]));
        if (repl && index_member(repl, names.items[i])) {
            strvec_push(&defined, names.items[i]);
            json_array_append_new(ds, json_string(names.items[i]));
        } else {
            strvec_push(&missing, names.items[i]);
        }
    }
    json_object_set_new(data, "methods", ms);
    if (repl)
        json_object_set_new(data, "defined", ds);
    else
        json_decref(ds);
    strbuf t = STRBUF_INIT;
    strbuf_addf(&t, "`%s` changed under the replacement: ", target);
    name_list(&t, &names, " and ");
    strbuf_addf(&t, " changed %s (written against %s)",
                names.len == 1 ? "its body" : "their bodies", c->p->tag_a);
    if (repl && !missing.len) {
        strbuf_adds(&t, "; the replacement defines ");
        name_list(&t, &defined, " and ");
    } else if (repl && !defined.len) {
        strbuf_adds(&t, "; the replacement does not define ");
        name_list(&t, &missing, " or ");
    } else if (repl) {
        strbuf_adds(&t, "; the replacement defines ");
        name_list(&t, &defined, " and ");
        strbuf_adds(&t, ", not ");
        name_list(&t, &missing, " or ");
    }
    finding *f = add(c, SEV_WARNING, data, "replaced-body-changed", target, "%s", t.buf);
    strbuf d = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        size_t at = d.len;
        char *la = pgci_asprintf("%s %s", c->p->tag_a, from[i]->qualname);
        char *lb = pgci_asprintf("%s %s", c->p->tag_b, to[i]->qualname);
        if (def_diff(&d, c, from[i], to[i], la, lb))
            cut_lines(&d, at, 40);
        free(la);
        free(lb);
    }
    if (d.len)
        finding_set_detail(f, d.buf);
    strbuf_free(&d);
    strbuf_free(&t);
    strvec_free(&names);
    strvec_free(&defined);
    strvec_free(&missing);
    if (own)
        index_module_free(own);
}

static void compare_class(sig_ctx *c, const char *target, const index_def *a, const index_def *b,
                          int replaced)
{
    compare_bases(c, target, a, b);
    compare_decorators(c, target, a, b);
    compare_init_attrs(c, target, a, b);
    if (!replaced)
        return;
    /* a replaced class stands in for all of upstream's: every method matters */
    compare_class_attrs(c, target, a, b);
    const index_def **from = pgci_calloc(a->n_members + 1, sizeof(*from));
    const index_def **to = pgci_calloc(a->n_members + 1, sizeof(*to));
    size_t changed = 0;
    for (size_t i = 0; i < a->n_members; i++) {
        const index_def *ma = a->members[i];
        if (ma->kind != INDEX_FUNCTION)
            continue;
        const index_def *mb = same_member(a, i, b);
        if (!mb) {
            add(c, SEV_WARNING, NULL, "method-removed", ma->qualname,
                "`%s`: method removed from the replaced class", ma->qualname);
            continue;
        }
        compare_function(c, ma->qualname, ma, mb, 0);
        if (body_changed(c, ma, mb)) {
            from[changed] = ma;
            to[changed++] = mb;
        }
    }
    if (changed)
        replaced_bodies(c, target, from, to, changed);
    free(from);
    free(to);
    for (size_t i = 0; i < b->n_members; i++) {
        const index_def *mb = b->members[i];
        if (mb->kind == INDEX_FUNCTION && !same_member(b, i, a))
            add(c, SEV_WARNING, NULL, "method-added", mb->qualname,
                "`%s`: method added upstream; the replacement class does not have it unless it "
                "defines it",
                mb->qualname);
    }
}

/* ---- removed imports used by patches --------------------------------------------- */

static const char *bound_name(const index_import *im, char *buf, size_t n)
{
    if (im->alias)
        return im->alias;
    if (im->name)
        return im->name;
    size_t k = strcspn(im->module, ".");
    if (k >= n)
        k = n - 1;
    memcpy(buf, im->module, k);
    buf[k] = '\0';
    return buf;
}

int signatures_module_binds(const index_module *m, const char *name)
{
    char buf[256];
    for (size_t i = 0; i < m->n_imports; i++)
        if (!strcmp(bound_name(&m->imports[i], buf, sizeof(buf)), name))
            return 1;
    for (size_t i = 0; i < m->n_defs; i++)
        if (!strcmp(m->defs[i]->name, name))
            return 1;
    for (size_t i = 0; i < m->n_assigns; i++)
        if (!strcmp(m->assigns[i].name, name))
            return 1;
    return 0;
}

char *signatures_object_text(const pg_object *o)
{
    if (!o || !o->text)
        return NULL;
    /* line by line with memchr: the text is the whole config file, and the checks
     * ask for every patch's lines */
    const char *p = o->text, *end = o->text + (o->text_len ? o->text_len : strlen(o->text)), *nl;
    unsigned line = 1;
    while (line < o->start_line && (nl = memchr(p, '\n', (size_t)(end - p)))) {
        p = nl + 1;
        line++;
    }
    if (line < o->start_line)
        p = end;
    const char *start = p;
    while (line <= o->end_line && (nl = memchr(p, '\n', (size_t)(end - p)))) {
        p = nl + 1;
        line++;
    }
    if (line <= o->end_line)
        p = end;
    return pgci_strndup(start, (size_t)(p - start));
}

/* A post-import block binds name (signatures_config_binds). One that does not parse
 * binds whatever it mentions, as before blocks were read. */
static int block_binds(const survey_pair *p, const char *block, const char *name)
{
    strbuf d = STRBUF_INIT;
    cgtext_dedent(&d, block, strlen(block));
    index_module *own;
    const index_module *m = survey_patch_index(p, d.buf ? d.buf : "", d.len, &own);
    int binds = m ? signatures_module_binds(m, name) : strstr(block, name) != NULL;
    pgci_error_clear();
    if (own)
        index_module_free(own);
    strbuf_free(&d);
    return binds;
}

/* `import a.b.c` binds `a`. */
static int import_binds(const char *module, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(module, name, n) && (module[n] == '\0' || module[n] == '.');
}

int signatures_config_binds(const survey_pair *sp, const char *name)
{
    const pg_config *cfg = sp->cfg;
    for (size_t i = 0; i < cfg->helpers.len; i++)
        if (cfg->helpers.items[i]->name && !strcmp(cfg->helpers.items[i]->name, name))
            return 1;
    for (size_t i = 0; i < cfg->positioned_helpers.len; i++) {
        const pg_object *h = cfg->positioned_helpers.items[i].helper;
        if (h && h->name && !strcmp(h->name, name))
            return 1;
    }
    for (size_t i = 0; i < cfg->patches.len; i++) {
        const pg_patch *p = &cfg->patches.items[i];
        if (!strchr(p->target, '.') && !strcmp(p->target, name))
            return 1; /* a replaced function or class keeps its upstream name */
    }
    for (size_t i = 0; i < cfg->additional_imports.len; i++) {
        const pg_import *im = &cfg->additional_imports.items[i];
        if (im->alias && !strcmp(im->alias, name))
            return 1;
        for (size_t k = 0; k < im->names_len; k++)
            if (!strcmp(im->names[k], name))
                return 1;
        if (!im->is_from_import && !im->alias && import_binds(im->module, name))
            return 1;
    }
    for (size_t i = 0; i < cfg->post_import_blocks.len; i++)
        if (block_binds(sp, cfg->post_import_blocks.items[i], name))
            return 1;
    return 0;
}

static void removed_imports(sig_ctx *c, const pg_patch *patch, const pg_object *o, const char *text)
{
    const index_module *a = c->p->a, *b = c->p->b;
    body_uses own;
    const body_uses *u =
        text && a && b ? survey_object_uses(c->p, o, text, strlen(text), &own) : NULL;
    if (!u) {
        pgci_error_clear();
        return;
    }
    /* every distinct name, once per patch, as the generated code reads it */
    char buf[256];
    strvec done = STRVEC_INIT, mapped;
    const strvec *loads = name_map_loads(patch, &u->loads, &mapped);
    for (size_t i = 0; i < a->n_imports; i++) {
        const index_import *im = &a->imports[i];
        const char *name = bound_name(im, buf, sizeof(buf));
        if (strvec_find(loads, name) < 0 || strvec_find(&done, name) >= 0 ||
            signatures_module_binds(b, name) || signatures_config_binds(c->p, name))
            continue;
        strvec_push(&done, name);
        json_t *data = json_object();
        json_object_set_new(data, "name", json_string(name));
        add(c, SEV_ERROR, data, "import-removed", patch->target,
            "`%s` uses `%s`, which upstream no longer imports at %s", patch->target, name,
            c->p->tag_b);
    }
    strvec_free(&done);
    strvec_free(&mapped);
    body_uses_free(&own);
}

/* ---- auto-docstring ---------------------------------------------------------------- */

static int has_auto_docstring(const index_def *d)
{
    return d && find_decorator(d, "auto_docstring") >= 0;
}

/* The `*Args` class of auto_docstring.py (ModelArgs, ...) that documents an argument
 * by its name alone, at the tag the generated code runs against; NULL when none. */
static const char *documented_by_name(const index_module *docs, const char *param)
{
    for (size_t i = 0; docs && i < docs->n_defs; i++) {
        const index_def *d = docs->defs[i];
        size_t n = strlen(d->name);
        if (d->kind != INDEX_CLASS || n < 4 || strcmp(d->name + n - 4, "Args"))
            continue;
        for (size_t k = 0; k < d->n_attrs; k++)
            if (!strcmp(d->attrs[k].name, param))
                return d->name;
    }
    return NULL;
}

/* Upstream renamed param behind `@deprecate_kwarg(param, new_name=...)`: the override
 * keeps the old name, which the rename's finding tells it to change; its docs follow. */
static int renamed_by_shim(const index_def *upstream, const char *param)
{
    deprecated_kwarg shim;
    int kept = deprecated_kwarg_find(&shim, upstream, param);
    int renamed = kept && shim.new_name && index_param_find(upstream, shim.new_name);
    deprecated_kwarg_free(&shim);
    return renamed;
}

/* @auto_docstring on a method documents it; on a class, only its `__init__`
 * (transformers' auto_class_docstring). */
static int is_auto_docstring(const index_def *upstream)
{
    return upstream && (has_auto_docstring(upstream) || (!strcmp(upstream->name, "__init__") &&
                                                         has_auto_docstring(upstream->parent)));
}

/* The override's arguments @auto_docstring prints "[ERROR] `x` is part of ...'s
 * signature, but not documented" for, where upstream (at one tag, with that tag's
 * *Args tables) is @auto_docstring: the generated method carries the override's
 * docstring, not upstream's, so an argument is documented only by the override's
 * docstring or by name in the tables. */
static void undocumented(const index_def *fn, const index_def *upstream, const index_module *docs,
                         strvec *out)
{
    if (!is_auto_docstring(upstream))
        return;
    for (size_t i = 0; i < fn->n_params; i++) {
        const char *p = fn->params[i].name;
        if (strcmp(p, "self") && fn->params[i].kind != INDEX_PARAM_VAR_KEYWORD &&
            fn->params[i].kind != INDEX_PARAM_VAR_POSITIONAL &&
            find_str(fn->doc_args, fn->n_doc_args, p) < 0 && !documented_by_name(docs, p) &&
            !renamed_by_shim(upstream, p))
            strvec_push(out, p);
    }
}

static void list_names(strbuf *out, const strvec *v)
{
    for (size_t i = 0; i < v->len; i++)
        strbuf_addf(out, "%s`%s`", i ? ", " : "", v->items[i]);
}

/* What the generated method prints those errors for at B and did not at A: only
 * the bump's. An argument upstream's own signature has at B and documents nowhere
 * either is upstream's error, not the override's. Each finding says why the
 * arguments went undocumented (data.cause): upstream became @auto_docstring
 * ("decorated"), or auto_docstring.py's table documented them at A ("table", with
 * data.table), else "other"; the report groups the findings by it. */
static void auto_docstring(sig_ctx *c, const char *target, const index_def *up_a,
                           const index_def *up_b, const char *text)
{
    if (!text || !is_auto_docstring(up_b))
        return;
    index_module *own;
    const index_def *fn =
        survey_object_def(c->p, c->patch ? c->patch->replacement : NULL, text, strlen(text), &own);
    if (!fn) {
        pgci_error_clear();
        if (own)
            index_module_free(own);
        return;
    }
    strvec at_a = STRVEC_INIT, at_b = STRVEC_INIT;
    strvec added = STRVEC_INIT, dropped = STRVEC_INIT;
    const char *table = NULL;
    int all_table = 1;
    if (fn && fn->kind == INDEX_FUNCTION) {
        undocumented(fn, up_a, c->p->docs_a, &at_a);
        undocumented(fn, up_b, c->p->docs_b, &at_b);
    }
    for (size_t i = 0; i < at_b.len; i++) {
        const char *p = at_b.items[i];
        if (strvec_find(&at_a, p) >= 0)
            continue;
        int upstreams = index_param_find(up_b, p) != NULL;
        if (upstreams && find_str(up_b->doc_args, up_b->n_doc_args, p) < 0)
            continue;
        strvec_push(upstreams ? &dropped : &added, p);
        const char *t = is_auto_docstring(up_a) ? documented_by_name(c->p->docs_a, p) : NULL;
        if (!t)
            all_table = 0;
        else if (!table)
            table = t;
    }
    if (added.len || dropped.len) {
        const char *cause = !is_auto_docstring(up_a) ? "decorated" : all_table ? "table" : "other";
        json_t *data = json_object();
        json_t *names = json_array();
        for (size_t i = 0; i < added.len; i++)
            json_array_append_new(names, json_string(added.items[i]));
        for (size_t i = 0; i < dropped.len; i++)
            json_array_append_new(names, json_string(dropped.items[i]));
        json_object_set_new(data, "arguments", names);
        json_object_set_new(data, "cause", json_string(cause));
        if (!strcmp(cause, "table"))
            json_object_set_new(data, "table", json_string(table));
        strbuf a = STRBUF_INIT, d = STRBUF_INIT;
        list_names(&a, &added);
        list_names(&d, &dropped);
        if (!strcmp(cause, "table") && !dropped.len)
            add(c, SEV_WARNING, data, "auto-docstring", target,
                "`%s` is @auto_docstring upstream; auto_docstring.py's `%s` no longer "
                "documents %s, which the override takes and its docstring leaves out",
                target, table, a.buf);
        else if (added.len && dropped.len)
            add(c, SEV_WARNING, data, "auto-docstring", target,
                "`%s` is @auto_docstring upstream; the override adds %s, missing from its "
                "docstring's Args:, and its docstring, which replaces upstream's, leaves out "
                "%s",
                target, a.buf, d.buf);
        else if (added.len)
            add(c, SEV_WARNING, data, "auto-docstring", target,
                "`%s` is @auto_docstring upstream; the override adds %s, missing from its "
                "docstring's Args:",
                target, a.buf);
        else
            add(c, SEV_WARNING, data, "auto-docstring", target,
                "`%s` is @auto_docstring upstream; the override's docstring, which replaces "
                "upstream's, leaves out %s",
                target, d.buf);
        strbuf_free(&a);
        strbuf_free(&d);
    }
    strvec_free(&at_a);
    strvec_free(&at_b);
    strvec_free(&added);
    strvec_free(&dropped);
    if (own)
        index_module_free(own);
}

/* ---- per target ----------------------------------------------------------------------- */

/* Upstream put `@use_kernel_forward_from_hub("Name")` on class cb, whose `forward`
 * the config overrides (ca: the class at A, without it): with kernels enabled
 * (`use_kernels=True`), kernels' kernelize replaces the forward of a module of a
 * class so marked by the hub layer mapped to that name, the override's with it
 * (5.12.1 -> 5.14.1: `Qwen3_5GatedDeltaNet`; 5.16.1 -> 5.18.0: `Qwen3_5RMSNorm`). */
static void kernel_forward_added(sig_ctx *c, const index_def *ca, const index_def *cb)
{
    static const char kf[] = "use_kernel_forward_from_hub";
    for (size_t i = 0; i < cb->n_decorators; i++) {
        char *n = decorator_name(cb->decorators[i]);
        size_t len = strlen(n), k = sizeof(kf) - 1;
        int marks = len >= k && !strcmp(n + len - k, kf) && (len == k || n[len - k - 1] == '.') &&
                    find_decorator(ca, n) < 0;
        free(n);
        if (!marks || !first_time(c, "kernel-forward-added", cb->qualname, ""))
            continue;
        add(c, SEV_WARNING, NULL, "kernel-forward-added", cb->qualname,
            "`%s`: decorator `@%s` added: with kernels enabled (`use_kernels=True`), a hub layer "
            "mapped to it replaces `%s.forward`, which the config overrides",
            cb->qualname, cb->decorators[i], cb->qualname);
    }
}

/* The config's override of another method of `cls`, one upstream still has at B,
 * whose body calls `self.<method>(...)`: patchgen appends an override whose method
 * upstream no longer defines to the class (PATCHGEN_SPEC §3), so that call runs it
 * and the patch still applies. Its target, or NULL when none calls it. */
static const char *appended_caller(const sig_ctx *c, const char *cls, const char *method)
{
    size_t n = strlen(cls);
    const pg_config *cfg = c->p->cfg;
    for (size_t i = 0; i < cfg->patches.len; i++) {
        const pg_patch *q = &cfg->patches.items[i];
        if (q == c->patch || q->type != PG_METHOD_OVERRIDE || strncmp(q->target, cls, n) ||
            q->target[n] != '.' || !strcmp(q->target + n + 1, method) ||
            !index_find(c->p->b, q->target))
            continue;
        char *text = signatures_object_text(q->replacement);
        if (!text)
            continue;
        survey_calls own;
        const survey_calls *calls =
            survey_object_calls(c->p, q->replacement, text, strlen(text), &own);
        int hit = 0;
        for (size_t k = 0; calls && k < calls->len && !hit; k++)
            hit = calls->items[k].self_ && !strcmp(calls->items[k].name, method);
        survey_calls_free(&own);
        free(text);
        if (hit)
            return q->target;
    }
    return NULL;
}

static void vanished(sig_ctx *c, const char *target)
{
    const char *names[3];
    double scores[3];
    size_t n = signatures_rename_candidates(c->p->a, c->p->b, target, names, scores, 3);
    char *via_class[3] = {NULL, NULL, NULL};
    const index_def *old = index_find(c->p->a, target);
    if (!n && old && old->parent && !index_find(c->p->b, old->parent->qualname)) {
        /* the method went with its class: follow the class's successors */
        const char *cls[3];
        double cs[3];
        size_t m =
            signatures_rename_candidates(c->p->a, c->p->b, old->parent->qualname, cls, cs, 3);
        for (size_t i = 0; i < m; i++) {
            const index_def *succ = index_find(c->p->b, cls[i]);
            if (succ && index_member(succ, old->name)) {
                via_class[n] = pgci_asprintf("%s.%s", cls[i], old->name);
                names[n] = via_class[n];
                scores[n] = cs[i];
                n++;
            }
        }
    }
    json_t *data = json_object();
    json_t *cands = json_array();
    strbuf detail = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(names[i]));
        json_object_set_new(o, "score", json_real((double)(long)(scores[i] * 100 + 0.5) / 100));
        json_array_append_new(cands, o);
        strbuf_addf(&detail, "rename candidate: %s (score %.2f)\n", names[i], scores[i]);
    }
    json_object_set_new(data, "candidates", cands);
    /* what A's definition told its callers to do instead, when it announced its
     * removal */
    strbuf said = STRBUF_INIT;
    contracts_note_advice(&said, data, c->p, old);
    finding *f;
    /* a method override whose class stays, called by another override of the
     * config: appended to the class, it still runs (a warning, not a patch
     * silently dropped) */
    const char *caller = c->patch && c->patch->type == PG_METHOD_OVERRIDE && old && old->parent &&
                                 index_find(c->p->b, old->parent->qualname)
                             ? appended_caller(c, old->parent->qualname, old->name)
                             : NULL;
    if (caller) {
        json_object_set_new(data, "called_by", json_string(caller));
        f = add(c, SEV_WARNING, data, "vanished-called", target,
                "`%s` vanished upstream between %s and %s; patchgen appends the override to "
                "`%s`, where the config's `%s` still calls it%s",
                target, c->p->tag_a, c->p->tag_b, old->parent->qualname, caller,
                said.buf ? said.buf : "");
    }
    /* a successor is claimed in the title only at a similarity a reviewer can
     * check; weaker candidates stay in the data and the detail */
    else if (n && scores[0] >= SIGNATURES_CONFIDENT)
        f = add(c, SEV_ERROR, data, "vanished", target,
                "`%s` vanished upstream between %s and %s; most likely successor: `%s`%s", target,
                c->p->tag_a, c->p->tag_b, names[0], said.buf ? said.buf : "");
    else
        f = add(c, SEV_ERROR, data, "vanished", target,
                "`%s` vanished upstream between %s and %s%s", target, c->p->tag_a, c->p->tag_b,
                said.buf ? said.buf : "");
    strbuf_free(&said);
    if (detail.len)
        finding_set_detail(f, detail.buf);
    strbuf_free(&detail);
    for (size_t i = 0; i < 3; i++)
        free(via_class[i]);
}

static void compare_target(sig_ctx *c, const pg_patch *patch, const char *target)
{
    const index_module *a = c->p->a, *b = c->p->b;
    const index_def *da = a ? index_find(a, target) : NULL;
    const index_def *db = b ? index_find(b, target) : NULL;
    if (!da && !db)
        return; /* added by the config: nothing upstream to compare */
    if (da && !db) {
        vanished(c, target);
        return;
    }
    if (!da) {
        add(c, SEV_INFO, NULL, "appeared", target, "`%s` appears upstream at %s (not at %s)",
            target, c->p->tag_b, c->p->tag_a);
        return;
    }
    /* the renames compare_init_attrs reports: a body changed by them alone is
     * that finding; when the config owns __init__ none is reported, and a rename
     * there is what the override must now set for upstream's other methods */
    strvec renames = STRVEC_INIT;
    if (patch->type == PG_METHOD_OVERRIDE && da->parent && db->parent &&
        !config_owns_init(c->p->cfg, da->parent->qualname))
        init_renames(c, da->parent, db->parent, &renames);
    else if ((patch->type == PG_INIT_MODIFICATION || patch->type == PG_CLASS_REPLACEMENT) &&
             da->kind == INDEX_CLASS && db->kind == INDEX_CLASS &&
             !config_owns_init(c->p->cfg, target))
        init_renames(c, da, db, &renames);
    c->renames = &renames;
    c->replaced = patch->type == PG_FUNCTION_REPLACEMENT || patch->type == PG_ADDITIONAL_IMPORT ||
                  patch->type == PG_CLASS_REPLACEMENT;
    switch (patch->type) {
    case PG_METHOD_OVERRIDE:
        if (da->kind == INDEX_FUNCTION) {
            compare_function(c, target, da, db, 1);
            auto_docstring(c, target, da, db, c->patch_text);
            if (!strcmp(da->name, "forward") && da->parent && db->parent)
                kernel_forward_added(c, da->parent, db->parent);
        }
        break;
    case PG_FUNCTION_REPLACEMENT:
    case PG_ADDITIONAL_IMPORT:
        if (da->kind == INDEX_FUNCTION)
            compare_function(c, target, da, db, 1);
        else
            compare_class(c, target, da, db, 1);
        break;
    case PG_CLASS_REPLACEMENT:
        if (da->kind == INDEX_CLASS)
            compare_class(c, target, da, db, 1);
        else
            compare_function(c, target, da, db, 1);
        break;
    case PG_INIT_MODIFICATION: {
        if (da->kind == INDEX_CLASS) {
            compare_init_attrs(c, target, da, db);
            const index_def *ia = index_member(da, "__init__"), *ib = index_member(db, "__init__");
            if (ia && ib) {
                char *t = pgci_asprintf("%s.__init__", target);
                compare_function(c, t, ia, ib, 1);
                free(t);
            }
        }
        break;
    }
    }
    c->renames = NULL;
    c->replaced = 0;
    strvec_free(&renames);
    /* an override of a method: the class's __init__ attributes the patch uses */
    if (patch->type == PG_METHOD_OVERRIDE && da->parent && db->parent)
        compare_init_attrs(c, da->parent->qualname, da->parent, db->parent);
}

survey_site signatures_class_site(const survey_pair *p, const char *cls)
{
    survey_site s = {p->config_path, 0, 0};
    size_t n = cls ? strlen(cls) : 0;
    for (size_t i = 0; n && p->cfg && i < p->cfg->patches.len; i++) {
        const pg_patch *pt = &p->cfg->patches.items[i];
        if (!pt->target || strncmp(pt->target, cls, n) ||
            (pt->target[n] != '\0' && pt->target[n] != '.') || !pt->reg_line || !pt->reg_file)
            continue;
        /* the config's own file first, then the earliest line */
        int own = p->config_path && !strcmp(pt->reg_file, p->config_path);
        int best_own = s.line && p->config_path && !strcmp(s.path, p->config_path);
        if (s.line && (best_own > own || (best_own == own && pt->reg_line >= s.line)))
            continue;
        s.path = pt->reg_file;
        s.line = pt->reg_line;
        s.col = pt->reg_col;
    }
    return s;
}

survey_site signatures_positioned_site(const survey_pair *p, const pg_positioned_helper *ph)
{
    survey_site s = {p->config_path, 0, 0};
    if (ph && ph->reg_line && ph->reg_file) {
        s.path = ph->reg_file;
        s.line = ph->reg_line;
        s.col = ph->reg_col;
    }
    return s;
}

survey_site signatures_helper_site(const survey_pair *p, const pg_object *h,
                                   const pg_positioned_helper *ph)
{
    const char *rel = h && h->start_line && p->cfg
                          ? pg_workspace_relative(h->file, p->cfg->file, p->config_path)
                          : NULL;
    if (rel) {
        survey_site s = {rel, h->start_line, 1};
        return s;
    }
    return signatures_positioned_site(p, ph);
}

/* A helper's names, `add_helper` or `add_helper_after`: its text lands in the
 * generated module, decorators and all (transformers 5.24.0's Qwen3.5 module no
 * longer imports the `dataclass` a positioned helper of the configs is under). */
static void helper_imports(sig_ctx *c, const pg_object *helper)
{
    if (!helper || !helper->name)
        return;
    char *text = signatures_object_text(helper);
    pg_patch fake = {0};
    fake.target = helper->name;
    c->patch = NULL;
    removed_imports(c, &fake, helper, text);
    free(text);
}

void signatures_compare(findings *out, const survey_pair *p)
{
    strvec seen = STRVEC_INIT, emitted = STRVEC_INIT;
    sig_ctx c = {out, p, NULL, NULL, &emitted, NULL, 0, {NULL, 0, 0}};
    const pg_config *cfg = p->cfg;
    for (size_t i = 0; i < cfg->patches.len; i++) {
        const pg_patch *patch = &cfg->patches.items[i];
        /* the later registration for a target wins, as in patchgen */
        int later = 0;
        for (size_t k = i + 1; k < cfg->patches.len && !later; k++)
            later = !strcmp(cfg->patches.items[k].target, patch->target) &&
                    cfg->patches.items[k].type == patch->type;
        if (later || strvec_find(&seen, patch->target) >= 0)
            continue;
        strvec_push(&seen, patch->target);
        char *text = signatures_object_text(patch->replacement);
        c.patch = patch;
        c.patch_text = text;
        compare_target(&c, patch, patch->target);
        removed_imports(&c, patch, patch->replacement, text);
        free(text);
    }
    for (size_t i = 0; i < cfg->positioned_helpers.len; i++) {
        const pg_positioned_helper *h = &cfg->positioned_helpers.items[i];
        c.patch = NULL;
        c.patch_text = NULL;
        const index_def *da = p->a ? index_find(p->a, h->target) : NULL;
        const index_def *db = p->b ? index_find(p->b, h->target) : NULL;
        c.site = signatures_positioned_site(p, h);
        if (da && !db)
            vanished(&c, h->target);
        c.site = signatures_helper_site(p, h->helper, h);
        helper_imports(&c, h->helper);
    }
    for (size_t i = 0; i < cfg->helpers.len; i++) {
        c.site = signatures_helper_site(p, cfg->helpers.items[i], NULL);
        helper_imports(&c, cfg->helpers.items[i]);
    }
    strvec_free(&seen);
    strvec_free(&emitted);
}
