/*
 * Following what patch bodies use. A patch is written against tag A's upstream:
 * not only the definition it replaces but every method it calls on `self`, every
 * module-level helper it reads, and the construction path that makes upstream
 * instantiate the patched class at all. Each of those can move under the patch
 * without touching its target; this file reads the patch bodies (body_uses.h)
 * and resolves each use at A and at B.
 *
 * Precision before recall: a use that does not resolve at A (a torch method, a
 * method of an external base) is not followed; a rename is only claimed above a
 * similarity a reviewer can check (the score and its parts are in the finding);
 * a method that left the module while the class has an external base may live
 * there now, so that is a warning, not an error.
 */
#include "checks/callees.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/body_uses.h"
#include "checks/contracts.h"
#include "checks/survey_trees.h"
#include "checks/written_instead.h"
#include "checks/deprecate_kwarg.h"
#include "checks/external_bases.h"
#include "checks/inherited.h"
#include "checks/init_fields.h"
#include "checks/kwargs_flow.h"
#include "checks/source_text.h"
#include "checks/plan_paths.h"
#include "checks/ws_imports.h"
#include "py/structural.h"
#include "core/error.h"
#include "patchgen/codegen_source.h"

typedef struct cctx {
    findings *out;
    const survey_pair *p;
    const pg_patch *patch; /* NULL for a helper */
    const char *where;     /* the patch target or the helper's name */
    strvec emitted;
    survey_site site; /* where a finding goes when there is no patch (a helper's) */
} cctx;

static finding *add(cctx *c, severity sev, json_t *data, const char *kind, const char *target,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static finding *add(cctx *c, severity sev, json_t *data, const char *kind, const char *target,
                    const char *fmt, ...)
{
    strbuf t = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&t, fmt, ap);
    va_end(ap);
    finding *f = NULL;
    if (strvec_find(&c->emitted, t.buf) < 0) {
        strvec_push(&c->emitted, t.buf);
        if (!data)
            data = json_object();
        json_object_set_new(data, "kind", json_string(kind));
        json_object_set_new(data, "target", json_string(target));
        json_object_set_new(data, "used_by", json_string(c->where));
        json_object_set_new(data, "module", json_string(c->p->cfg->source_module));
        json_object_set_new(data, "from", json_string(c->p->tag_a));
        json_object_set_new(data, "to", json_string(c->p->tag_b));
        survey_site s = c->site;
        if (c->patch)
            s.path = pg_patch_site(c->patch, c->p->config_path, &s.line, &s.col);
        f = findings_add(c->out, "callees", sev, c->p->config, s.path ? s.path : c->p->config_path,
                         s.line, s.col, data, "%s", t.buf);
    } else if (data) {
        json_decref(data);
    }
    strbuf_free(&t);
    return f;
}

/* ---- resolving a method on a class and its bases in one module ------------------ */

char *callees_base_name(const char *b)
{
    if (strchr(b, '='))
        return NULL;
    const char *dot = strrchr(b, '.');
    const char *s = dot ? dot + 1 : b;
    return pgci_strndup(s, strcspn(s, "[( "));
}

int callees_walk_first(callees_walk *w, const index_def *c)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->seen[i] == c)
            return 0;
    if (w->n == CALLEES_WALK_MAX)
        return 0;
    w->seen[w->n++] = c;
    return 1;
}

static const index_def *resolve_depth(const index_module *m, const char *cls, const char *name,
                                      int depth, callees_walk *w)
{
    const index_def *c = depth < 12 ? index_find(m, cls) : NULL;
    if (!c || c->kind != INDEX_CLASS || !callees_walk_first(w, c))
        return NULL;
    const index_def *d = index_member(c, name);
    for (size_t i = 0; !d && i < c->n_bases; i++) {
        char *b = callees_base_name(c->bases[i]);
        if (b && strcmp(b, cls))
            d = resolve_depth(m, b, name, depth + 1, w);
        free(b);
    }
    return d;
}

const index_def *callees_resolve(const index_module *m, const char *cls, const char *name)
{
    callees_walk w = {.n = 0};
    return resolve_depth(m, cls, name, 0, &w);
}

static int external_depth(const index_module *m, const char *cls, int depth, callees_walk *w)
{
    const index_def *c = depth < 12 ? index_find(m, cls) : NULL;
    if (!c || !callees_walk_first(w, c))
        return 0;
    for (size_t i = 0; i < c->n_bases; i++) {
        char *b = callees_base_name(c->bases[i]);
        int ext = b && strcmp(b, "Module") && strcmp(b, "object") && strcmp(b, cls) &&
                  (!index_find(m, b) || external_depth(m, b, depth + 1, w));
        free(b);
        if (ext)
            return 1;
    }
    return 0;
}

/* 1 when cls, or a base of it the module defines, has a base the module does not
 * define other than nn.Module / object: a method may come from there. */
static int has_external_base(const index_module *m, const char *cls)
{
    callees_walk w = {.n = 0};
    return external_depth(m, cls, 0, &w);
}

/* The config provides cls.name itself: an override of it, or a replacement of cls
 * that defines it. */
int callees_config_defines(const pg_config *cfg, const char *cls, const char *name)
{
    size_t n = strlen(cls);
    for (size_t i = 0; i < cfg->patches.len; i++) {
        const pg_patch *p = &cfg->patches.items[i];
        if (!strncmp(p->target, cls, n) && p->target[n] == '.' && !strcmp(p->target + n + 1, name))
            return 1;
        if (p->type == PG_CLASS_REPLACEMENT && !strcmp(p->target, cls) && p->replacement) {
            char *text = signatures_object_text(p->replacement);
            char *def = pgci_asprintf("def %s(", name);
            int has = text && strstr(text, def);
            free(def);
            free(text);
            if (has)
                return 1;
        }
    }
    return 0;
}

/* ---- calls through self / cls ----------------------------------------------------- */

/* The candidates into data.candidates and, but for `named` (a successor the caller
 * names for another reason, with its score), one detail line each. */
static void add_candidates_but(json_t *data, strbuf *detail, const char **names,
                               const double *scores, size_t n, const char *named)
{
    json_t *cands = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(names[i]));
        json_object_set_new(o, "score", json_real((double)(long)(scores[i] * 100 + 0.5) / 100));
        json_array_append_new(cands, o);
        if (named && !strcmp(named, names[i]))
            continue;
        strbuf_addf(detail,
                    "successor candidate: %s (similarity %.2f: name tokens, body, "
                    "parameters)\n",
                    names[i], scores[i]);
    }
    json_object_set_new(data, "candidates", cands);
}

static void add_candidates(json_t *data, strbuf *detail, const char **names, const double *scores,
                           size_t n)
{
    add_candidates_but(data, detail, names, scores, n, NULL);
}

static void callee_vanished(cctx *c, const char *cls, const body_call *call, const index_def *da)
{
    /* moved up into a base class of transformers.modeling_utils: the call binds */
    char *from = c->p->base_b ? inherited_from(c->p->b, c->p->base_b, cls, call->method) : NULL;
    if (from) {
        json_t *data = json_object();
        json_object_set_new(data, "inherited_from", json_string(from));
        add(c, SEV_INFO, data, "callee-inherited", da->qualname,
            "`%s` calls `self.%s()`, which `%s` no longer defines at %s: it inherits `%s.%s` "
            "(transformers.modeling_utils) now",
            c->where, call->method, da->parent ? da->parent->qualname : cls, c->p->tag_b, from,
            call->method);
        free(from);
        return;
    }
    const char *names[3];
    double scores[3];
    size_t n = signatures_rename_candidates(c->p->a, c->p->b, da->qualname, names, scores, 3);
    json_t *data = json_object();
    strbuf detail = STRBUF_INIT, succ = STRBUF_INIT;
    add_candidates(data, &detail, names, scores, n);
    if (n && scores[0] >= SIGNATURES_CONFIDENT)
        strbuf_addf(&succ, "; likely successor `%s`", names[0]);
    /* what A's definition told its callers to do instead, when it announced its
     * removal ("Use `get_vision_window_index` ... instead.") */
    contracts_note_advice(&succ, data, c->p, da);
    int ext = has_external_base(c->p->b, cls);
    /* what the survey reads at B to settle it (checks/external_bases.h) */
    if (ext && external_bases_ask(data, c->p->b, c->p->base_b, cls, call->method))
        json_object_set_new(data, "owner", json_string(da->parent ? da->parent->qualname : cls));
    finding *f = add(c, ext ? SEV_WARNING : SEV_ERROR, data, "callee-vanished", da->qualname,
                     "`%s` calls `self.%s()`, which `%s` no longer defines at %s%s%s", c->where,
                     call->method, da->parent ? da->parent->qualname : cls, c->p->tag_b, succ.buf,
                     ext ? " (an external base class may provide it now)" : "");
    if (f && detail.len)
        finding_set_detail(f, detail.buf);
    strbuf_free(&detail);
    strbuf_free(&succ);
}

static char *unbound_param(const body_call *call, const index_def *fn, size_t first,
                           size_t positional, int var_pos, const strvec *passed);

/* Why the call as the body writes it no longer binds to fn; NULL when it does. */
static char *call_breaks(const body_call *call, const index_def *fn)
{
    if (call->star_args)
        return NULL;
    int var_kw = 0, var_pos = 0;
    size_t positional = 0, first = fn->parent && fn->n_params ? 1 : 0; /* self / cls */
    for (size_t i = first; i < fn->n_params; i++) {
        index_param_kind k = fn->params[i].kind;
        var_kw |= k == INDEX_PARAM_VAR_KEYWORD;
        var_pos |= k == INDEX_PARAM_VAR_POSITIONAL;
        positional += k == INDEX_PARAM_POSITIONAL_ONLY || k == INDEX_PARAM_POSITIONAL_OR_KEYWORD;
    }
    /* the names the call binds: a keyword an @deprecate_kwarg shim renames binds
     * the new name */
    strvec passed = STRVEC_INIT;
    for (size_t k = 0; k < call->keywords.len; k++) {
        const char *kw = call->keywords.items[k];
        deprecated_kwarg shim;
        int kept = deprecated_kwarg_find(&shim, fn, kw);
        strvec_push(&passed, kept && shim.new_name ? shim.new_name : kw);
        deprecated_kwarg_free(&shim);
        if (!var_kw && !kept && !index_param_find(fn, kw)) {
            strvec_free(&passed);
            return pgci_asprintf("it passes `%s=`, which the new signature lacks", kw);
        }
    }
    char *why = unbound_param(call, fn, first, positional, var_pos, &passed);
    strvec_free(&passed);
    return why;
}

/* A parameter of fn the call leaves unbound, or more positional arguments than fn
 * takes; NULL when the call binds. */
static char *unbound_param(const body_call *call, const index_def *fn, size_t first,
                           size_t positional, int var_pos, const strvec *passed)
{
    if (!var_pos && call->n_positional > positional)
        return pgci_asprintf("it passes %zu positional arguments, the new signature takes %zu",
                             call->n_positional, positional);
    for (size_t i = first; i < fn->n_params; i++) {
        const index_param *q = &fn->params[i];
        if (q->default_value || q->kind == INDEX_PARAM_VAR_POSITIONAL ||
            q->kind == INDEX_PARAM_VAR_KEYWORD)
            continue;
        int bound = strvec_find(passed, q->name) >= 0 ||
                    (q->kind != INDEX_PARAM_KEYWORD_ONLY && i - first < call->n_positional);
        if (!bound)
            return pgci_asprintf("it does not pass `%s`, now required", q->name);
    }
    return NULL;
}

static int same_params(const index_def *a, const index_def *b)
{
    if (a->n_params != b->n_params)
        return 0;
    for (size_t i = 0; i < a->n_params; i++)
        if (strcmp(a->params[i].name, b->params[i].name) ||
            a->params[i].kind != b->params[i].kind ||
            !a->params[i].default_value != !b->params[i].default_value)
            return 0;
    return 1;
}

static void sig_detail(strbuf *d, const cctx *c, const index_def *a, const index_def *b)
{
    strbuf_addf(d, "%s: ", c->p->tag_a);
    signatures_render(d, a);
    strbuf_addf(d, "\n%s: ", c->p->tag_b);
    signatures_render(d, b);
    strbuf_addc(d, '\n');
}

/* A callee at A and B as one call reaches it, with the sources their spans index. */
typedef struct callee {
    const char *how;  /* the call as the messages name it: "self.m()", "f()" */
    const char *from; /* the module it is imported from; NULL: the model's own */
    const char *note; /* after the call in the message: " (a `Cls`)"; "" for none */
    int quiet;        /* a library's or a submodule's contract: a changed signature only when the
                       * call no longer binds or a positional argument lands elsewhere, no body */
    const index_def *a, *b;
    const char *src_a, *src_b; /* NULL: not read */
    size_t src_a_len, src_b_len;
} callee;

/* What a body does with a callee's result, against what the callee returns now. */
static void callee_returns(cctx *c, const body_call *call, const callee *k)
{
    const index_def *a = k->a, *b = k->b;
    if (!call->result_used)
        return;
    int ra = k->src_a ? source_return_arity(k->src_a, k->src_a_len, a) : 0;
    int rb = k->src_b ? source_return_arity(k->src_b, k->src_b_len, b) : 0;
    /* a library's or a submodule's annotation moves with its releases: only the
     * number of values it returns is followed there */
    int ann = !k->quiet && !signatures_annotation_eq(a->returns, b->returns);
    if ((!ra || !rb || ra == rb) && !ann)
        return;
    json_t *data = json_object();
    if (ra && rb && ra != rb) {
        json_object_set_new(data, "old_arity", json_integer(ra));
        json_object_set_new(data, "new_arity", json_integer(rb));
        int breaks = call->unpacked && call->unpacked != rb;
        add(c, breaks ? SEV_ERROR : SEV_WARNING, data, "callee-return-changed", b->qualname,
            "`%s` uses what `%s` returns, which now returns %d values instead of %d%s", c->where,
            k->how, rb, ra, breaks ? " (the body unpacks the old number)" : "");
        return;
    }
    json_object_set_new(data, "old_returns", a->returns ? json_string(a->returns) : json_null());
    json_object_set_new(data, "new_returns", b->returns ? json_string(b->returns) : json_null());
    add(c, SEV_WARNING, data, "callee-return-changed", b->qualname,
        "`%s` uses what `%s` returns, annotated `%s` at %s (was `%s`)", c->where, k->how,
        b->returns ? b->returns : "(none)", c->p->tag_b, a->returns ? a->returns : "(none)");
}

static int same_body(const cctx *c, const index_def *a, const index_def *b)
{
    if (index_def_fingerprint(a) == index_def_fingerprint(b))
        return 1;
    return survey_same_def_body(c->p, a, b) || survey_same_def_body_inlined(c->p, a, b);
}

/* The first positional argument the call passes that binds a parameter of another
 * name at B than at A: what the call passes means something else now. */
static char *positional_moved(const body_call *call, const index_def *a, const index_def *b)
{
    size_t fa = a->parent && a->n_params ? 1 : 0, fb = b->parent && b->n_params ? 1 : 0;
    for (size_t i = 0; !call->star_args && i < call->n_positional; i++) {
        if (fa + i >= a->n_params || fb + i >= b->n_params)
            return NULL;
        const index_param *pa = &a->params[fa + i], *pb = &b->params[fb + i];
        if (pa->kind == INDEX_PARAM_VAR_POSITIONAL || pb->kind == INDEX_PARAM_VAR_POSITIONAL ||
            pa->kind == INDEX_PARAM_KEYWORD_ONLY || pb->kind == INDEX_PARAM_KEYWORD_ONLY)
            return NULL;
        if (strcmp(pa->name, pb->name))
            return pgci_asprintf("its positional argument %zu now binds `%s` (was `%s`)", i + 1,
                                 pb->name, pa->name);
    }
    return NULL;
}

/* Whether the body reads value i of what the call returns (n values). */
static int reads_value(const body_call *call, size_t i, size_t n)
{
    if (!call->result_used)
        return 0;
    if (!call->unpacked)
        return 1; /* the whole result, or its only value */
    return (size_t)call->unpacked == n && i < 64 && (call->kept >> i & 1);
}

/* A value the body reads of what the callee returns, computed by other steps at B
 * (returned.h): the callee's body changed what the body gets. 1 when reported. */
static int callee_values(cctx *c, const body_call *call, const callee *k)
{
    returned ra, rb;
    if (!call->result_used || survey_returned(c->p, k->src_a, k->src_a_len, k->a, &ra) < 0) {
        pgci_error_clear();
        return 0;
    }
    if (survey_returned(c->p, k->src_b, k->src_b_len, k->b, &rb) < 0) {
        pgci_error_clear();
        returned_free(&ra);
        return 0;
    }
    strbuf names = STRBUF_INIT, d = STRBUF_INIT;
    json_t *values = json_array();
    for (size_t i = 0; ra.n == rb.n && i < ra.n; i++) {
        if (!reads_value(call, i, ra.n) || !returned_value_changed(&ra, &rb, i))
            continue;
        strbuf_addf(&names, "%s`%s`", json_array_size(values) ? ", " : "",
                    returned_value_name(&ra, &rb, i));
        json_array_append_new(values, json_string(returned_value_name(&ra, &rb, i)));
        returned_describe(&d, &ra, &rb, i, c->p->tag_a, c->p->tag_b);
    }
    size_t changed = json_array_size(values);
    if (!changed) {
        json_decref(values);
    } else {
        json_t *data = json_object();
        json_object_set_new(data, "values", values);
        if (k->from)
            json_object_set_new(data, "defined_in", json_string(k->from));
        /* one value: the body uses what it returns, the name its body gives it */
        finding *f =
            ra.n == 1
                ? add(c, SEV_WARNING, data, "callee-value-changed", k->b->qualname,
                      "`%s` uses what `%s`%s returns, computed by other steps at %s (%s there)",
                      c->where, k->how, k->note, c->p->tag_b, names.buf)
                : add(c, SEV_WARNING, data, "callee-value-changed", k->b->qualname,
                      "`%s` uses %s of what `%s`%s returns, computed by other steps at %s",
                      c->where, names.buf, k->how, k->note, c->p->tag_b);
        if (f)
            finding_set_detail(f, d.buf);
    }
    strbuf_free(&names);
    strbuf_free(&d);
    returned_free(&ra);
    returned_free(&rb);
    return changed > 0;
}

static char *kwarg_collision(cctx *c, const body_call *call, const callee *k);

static void callee_changed(cctx *c, const body_call *call, const callee *k)
{
    const index_def *a = k->a, *b = k->b;
    char *why = same_params(a, b) ? NULL : call_breaks(call, b);
    if (!why && !same_params(a, b))
        why = kwarg_collision(c, call, k);
    char *moved = !why && k->quiet && !same_params(a, b) ? positional_moved(call, a, b) : NULL;
    if (!same_params(a, b) && (!k->quiet || why || moved)) {
        json_t *data = json_object();
        strbuf d = STRBUF_INIT;
        sig_detail(&d, c, a, b);
        strbuf x = STRBUF_INIT;
        signatures_render(&x, a);
        json_object_set_new(data, "old_signature", json_string(x.buf));
        strbuf_reset(&x);
        signatures_render(&x, b);
        json_object_set_new(data, "new_signature", json_string(x.buf));
        strbuf_free(&x);
        if (k->from)
            json_object_set_new(data, "defined_in", json_string(k->from));
        const char *because = why ? why : moved;
        if (because) { /* for the note's change section: how this call is hit */
            json_object_set_new(data, "call", json_string(k->how));
            json_object_set_new(data, "because", json_string(because));
        }
        finding *f =
            add(c, why ? SEV_ERROR : SEV_WARNING, data, "callee-signature-changed", b->qualname,
                "`%s` calls `%s`%s, whose signature changed at %s%s%s", c->where, k->how, k->note,
                c->p->tag_b, because ? ": " : "", because ? because : "");
        if (f)
            finding_set_detail(f, d.buf);
        strbuf_free(&d);
    }
    free(why);
    free(moved);
    callee_returns(c, call, k);
    /* a quiet callee's body is its own unless the body reads what it returns */
    if ((k->quiet && !call->result_used) || same_body(c, a, b) || callee_values(c, call, k))
        return;
    if (!k->quiet)
        add(c, SEV_INFO, NULL, "callee-body-changed", b->qualname,
            "`%s` calls `%s`%s, whose upstream body changed (%s → %s)", c->where, k->how, k->note,
            c->p->tag_a, c->p->tag_b);
}

/* The length of a class's factory call after its name, `._from_config(` or
 * `.from_config(` (`self.model = TextModel._from_config(config.text_config)`); 0
 * when s is neither. */
static size_t factory_call(const char *s)
{
    static const char *const factories[] = {"._from_config(", ".from_config("};
    for (size_t i = 0; i < sizeof(factories) / sizeof(*factories); i++)
        if (!strncmp(s, factories[i], strlen(factories[i])))
            return strlen(factories[i]);
    return 0;
}

/* The class of what cls's `__init__` in module m (src) assigns to self.<attr>, a
 * class m defines: the value's call `Cls(...)` (`self.rotary = Rope(dim)`) or
 * `Cls._from_config(...)`, or with `anywhere` the first such call in it
 * (`self.layers = nn.ModuleList([Layer(c, i) for i in ...])`: each element's
 * class); NULL when none. */
static char *class_made(const index_module *m, const char *src, size_t len, const char *cls,
                        const char *attr, int anywhere)
{
    const index_def *init = src ? callees_resolve(m, cls, "__init__") : NULL;
    char *v = init ? source_attr_value(src, len, init, attr) : NULL;
    char *found = NULL;
    for (const char *p = v; p && *p && !found;) {
        if (!isalpha((unsigned char)*p) && *p != '_') {
            if (!anywhere)
                break;
            p++;
            continue;
        }
        const char *q = p;
        while (isalnum((unsigned char)*q) || *q == '_')
            q++;
        const index_def *d;
        if ((*q == '(' || factory_call(q)) && (p == v || p[-1] != '.')) {
            char *name = pgci_strndup(p, (size_t)(q - p));
            if ((d = index_find(m, name)) && d->kind == INDEX_CLASS && !d->parent)
                found = name;
            else
                free(name);
        }
        if (!anywhere)
            break;
        p = q;
    }
    free(v);
    return found;
}

/* `self.<attr>(...)` (or, for an element, a call of each element of self.<attr>):
 * an instance of the class cls's `__init__` makes there, whose forward nn.Module's
 * call runs, followed as quietly as a library's function. */
static void forward_call(cctx *c, const char *cls, const body_call *call, int element)
{
    const survey_pair *p = c->p;
    char *ca = class_made(p->a, p->src_a, p->src_a_len, cls, call->method, element);
    char *cb = ca ? class_made(p->b, p->src_b, p->src_b_len, cls, call->method, element) : NULL;
    const index_def *fa = ca ? callees_resolve(p->a, ca, "forward") : NULL;
    const index_def *fb = cb ? callees_resolve(p->b, cb, "forward") : NULL;
    if (fa && fb && fa->kind == INDEX_FUNCTION && fb->kind == INDEX_FUNCTION &&
        !callees_config_defines(p->cfg, cb, "forward")) {
        char *how = pgci_asprintf(element ? "self.%s[i]()" : "self.%s()", call->method);
        /* the attribute holds another class at B (Qwen3-Omni's thinker, 5.22.2: the
         * text model became a multimodal wrapper): both, or the signature reads as
         * the same class's */
        char *note = strcmp(ca, cb) ? pgci_asprintf(" (a `%s` at %s, a `%s` at %s)", cb, p->tag_b,
                                                    ca, p->tag_a)
                                    : pgci_asprintf(" (a `%s`)", cb);
        callee k = {how, NULL, note, 1, fa, fb, p->src_a, p->src_b, p->src_a_len, p->src_b_len};
        callee_changed(c, call, &k);
        free(how);
        free(note);
    }
    free(ca);
    free(cb);
}

/* ---- a keyword passed on through **kwargs ----------------------------------------- */

static int identifier(const char *s)
{
    if (!*s || isdigit((unsigned char)*s))
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* Where keyword kw, taken by the `**kwargs` of fn (a method of module B), is passed
 * by name a second time: "`attention_interface()` (in `Cls.forward`, line N)"; NULL
 * when nowhere or when where it goes cannot be told (kwargs_flow.h). Follows the
 * calls that pass `**kwargs` on to a method of the class or to a submodule's
 * forward, four deep; one the config provides runs the config's code, not B's. */
typedef struct kw_seen { /* the methods a search walked, each at its shallowest depth */
    const index_def *fn[64];
    int depth[64];
    size_t n;
} kw_seen;

/* 1 when fn is to be walked at depth: not walked before at this depth or less (a
 * method a hostile module calls a thousand times is read once, and what a
 * shallower walk reaches is still reached). */
static int kw_first(kw_seen *seen, const index_def *fn, int depth)
{
    for (size_t i = 0; i < seen->n; i++)
        if (seen->fn[i] == fn) {
            if (seen->depth[i] <= depth)
                return 0;
            seen->depth[i] = depth;
            return 1;
        }
    if (seen->n == 64)
        return 0;
    seen->fn[seen->n] = fn;
    seen->depth[seen->n++] = depth;
    return 1;
}

static char *kw_second(cctx *c, const index_def *fn, const char *kw, int depth, kw_seen *seen)
{
    const survey_pair *p = c->p;
    if (depth > 3 || !fn->parent || fn->kind != INDEX_FUNCTION || index_param_find(fn, kw) ||
        !kw_first(seen, fn, depth))
        return NULL;
    py_tree t;
    kw_flow f;
    int rc = survey_def_tree(p, p->src_b, p->src_b_len, fn, &t);
    if (rc == 0) {
        rc = kw_flow_read(&f, &t, fn->start_byte);
        survey_tree_release(p, &t);
    }
    if (rc < 0) {
        pgci_error_clear();
        return NULL;
    }
    const char *cls = fn->parent->qualname;
    char *at = NULL;
    for (size_t i = 0; !f.other_use && !at && i < f.n; i++) {
        const kw_splat *s = &f.splats[i];
        if (strvec_find(&s->keywords, kw) >= 0) {
            at = pgci_asprintf("`%s()` (in `%s`, line %u)", s->callee, fn->qualname, s->line);
            break;
        }
        if (strncmp(s->callee, "self.", 5) || !identifier(s->callee + 5))
            continue;
        const index_def *g = callees_resolve(p->b, cls, s->callee + 5);
        char *sub = g ? NULL : class_made(p->b, p->src_b, p->src_b_len, cls, s->callee + 5, 0);
        if (sub)
            g = callees_resolve(p->b, sub, "forward");
        if (g && g->parent && !callees_config_defines(p->cfg, g->parent->qualname, g->name))
            at = kw_second(c, g, kw, depth + 1, seen);
        free(sub);
    }
    kw_flow_free(&f);
    return at;
}

/* A keyword the call passes that the callee took by name at A and takes through its
 * `**kwargs` at B, which pass it on to a call that names it too: a TypeError there
 * ("got multiple values for keyword argument"). Why, or NULL. */
static char *kwarg_collision(cctx *c, const body_call *call, const callee *k)
{
    if (k->from || k->src_b != c->p->src_b)
        return NULL; /* another module's function: its body is its own */
    for (size_t i = 0; i < call->keywords.len; i++) {
        const char *kw = call->keywords.items[i];
        if (!index_param_find(k->a, kw) || index_param_find(k->b, kw))
            continue;
        kw_seen seen = {.n = 0};
        char *at = kw_second(c, k->b, kw, 0, &seen);
        if (at) {
            char *why = pgci_asprintf("`%s=` now goes into its `**kwargs` and on to %s, which "
                                      "passes `%s=` too: a TypeError (multiple values for one "
                                      "keyword)",
                                      kw, at, kw);
            free(at);
            return why;
        }
    }
    return NULL;
}

/* cls (or a base the module defines) sets self.attr in its __init__, or has attr as
 * a method or class attribute. */
static int provides_attr_depth(const index_module *m, const char *cls, const char *attr, int depth,
                               callees_walk *w)
{
    const index_def *c = depth < 12 ? index_find(m, cls) : NULL;
    if (!c || c->kind != INDEX_CLASS || !callees_walk_first(w, c))
        return 0;
    for (size_t i = 0; i < c->n_init_attrs; i++)
        if (!strcmp(c->init_attrs[i], attr))
            return 1;
    for (size_t i = 0; i < c->n_attrs; i++)
        if (!strcmp(c->attrs[i].name, attr))
            return 1;
    if (index_member(c, attr))
        return 1;
    for (size_t i = 0; i < c->n_bases; i++) {
        char *b = callees_base_name(c->bases[i]);
        int has = b && strcmp(b, cls) && provides_attr_depth(m, b, attr, depth + 1, w);
        free(b);
        if (has)
            return 1;
    }
    return 0;
}

static int provides_attr(const index_module *m, const char *cls, const char *attr)
{
    callees_walk w = {.n = 0};
    return provides_attr_depth(m, cls, attr, 0, &w);
}

/* What a loop over self.<container> does with each element: an attribute of it the
 * element's class no longer provides, a call of it (its forward). */
static void element_uses(cctx *c, const char *cls, const body_uses *u)
{
    const survey_pair *p = c->p;
    for (size_t i = 0; i + 1 < u->elem_attrs.len; i += 2) {
        const char *container = u->elem_attrs.items[i], *attr = u->elem_attrs.items[i + 1];
        char *ca = class_made(p->a, p->src_a, p->src_a_len, cls, container, 1);
        char *cb = ca ? class_made(p->b, p->src_b, p->src_b_len, cls, container, 1) : NULL;
        if (cb && !callees_config_defines(p->cfg, cb, "__init__") &&
            !signatures_config_binds(p, cb) && provides_attr(p->a, ca, attr) &&
            !provides_attr(p->b, cb, attr)) {
            int ext = has_external_base(p->b, cb);
            json_t *data = json_object();
            json_object_set_new(data, "attribute", json_string(attr));
            json_object_set_new(data, "container", json_string(container));
            add(c, ext ? SEV_WARNING : SEV_ERROR, data, "element-attr-removed", cb,
                "`%s` reads `.%s` of each `%s` in `self.%s`, which `%s` no longer sets at %s%s",
                c->where, attr, cb, container, cb, p->tag_b,
                ext ? " (an external base class may set it)" : "");
        }
        free(ca);
        free(cb);
    }
    for (size_t i = 0; i < u->n_elem_calls; i++)
        forward_call(c, cls, &u->elem_calls[i], 1);
}

static void self_calls(cctx *c, const char *cls, const body_uses *u)
{
    const survey_pair *p = c->p;
    strvec seen = STRVEC_INIT;
    for (size_t i = 0; i < u->n_calls; i++) {
        const body_call *call = &u->calls[i];
        if (strvec_find(&seen, call->method) >= 0)
            continue;
        strvec_push(&seen, call->method);
        const index_def *da = callees_resolve(p->a, cls, call->method);
        if (callees_config_defines(p->cfg, cls, call->method) || !index_find(p->b, cls))
            continue;
        if (!da) { /* a submodule, unless the config's __init__ makes what it calls */
            if (!callees_config_defines(p->cfg, cls, "__init__"))
                forward_call(c, cls, call, 0);
            continue;
        }
        if (da->kind != INDEX_FUNCTION)
            continue;
        const index_def *db = callees_resolve(p->b, cls, call->method);
        char *how = pgci_asprintf("self.%s()", call->method);
        callee k = {how, NULL, "", 0, da, db, p->src_a, p->src_b, p->src_a_len, p->src_b_len};
        if (!db)
            callee_vanished(c, cls, call, da);
        else if (db->kind == INDEX_FUNCTION)
            callee_changed(c, call, &k);
        free(how);
    }
    strvec_free(&seen);
}

char *callees_class_made(const index_module *m, const char *src, size_t len, const char *cls,
                         const char *attr, int anywhere)
{
    return class_made(m, src, len, cls, attr, anywhere);
}

/* ---- calls of module-level and imported functions ---------------------------------- */

static const index_def *module_function(const index_module *m, const char *name)
{
    const index_def *d = m ? index_find(m, name) : NULL;
    return d && !d->parent && d->kind == INDEX_FUNCTION ? d : NULL;
}

static char *import_source(const index_module *m, const char *name, int under_if)
{
    for (size_t i = 0; m && i < m->n_imports; i++) {
        const index_import *im = &m->imports[i];
        const char *bound = im->alias ? im->alias : im->name;
        if (im->scope || (im->in_if && !under_if) || !im->name || !bound || strcmp(bound, name) ||
            !*im->module)
            continue;
        if (!im->level)
            return !strncmp(im->module, "transformers.", 13) ? pgci_strdup(im->module) : NULL;
        /* relative: the package of m, less level - 1 trailing parts */
        const char *end = m->name ? strrchr(m->name, '.') : NULL;
        for (int up = 1; end && up < im->level; up++) {
            const char *q = end;
            while (q > m->name && q[-1] != '.')
                q--;
            end = q > m->name ? q - 1 : NULL;
        }
        if (!end || strncmp(m->name, "transformers", 12))
            return NULL;
        return pgci_asprintf("%.*s.%s", (int)(end - m->name), m->name, im->module);
    }
    return NULL;
}

char *callees_import_source(const index_module *m, const char *name)
{
    return import_source(m, name, 0);
}

char *callees_import_source_any(const index_module *m, const char *name)
{
    return import_source(m, name, 1);
}

static const survey_ext *find_ext(const survey_pair *p, const char *module)
{
    for (size_t i = 0; i < p->n_ext; i++)
        if (!strcmp(p->ext[i].module, module))
            return &p->ext[i];
    return NULL;
}

/* Of the calls of one name, the first that no longer binds to fn, else the first. */
static const body_call *telling_call(const body_uses *u, const char *name, const index_def *fn)
{
    const body_call *first = NULL;
    for (size_t i = 0; i < u->n_name_calls; i++) {
        const body_call *call = &u->name_calls[i];
        if (strcmp(call->method, name))
            continue;
        char *why = call_breaks(call, fn);
        int breaks = why != NULL;
        free(why);
        if (breaks)
            return call;
        if (!first)
            first = call;
    }
    return first;
}

/* A function of the module, or one it imports from another transformers module at
 * both tags from the same place: the callee the call reaches, in k. */
static int name_callee(const cctx *c, const char *name, callee *k)
{
    const survey_pair *p = c->p;
    k->a = module_function(p->a, name);
    if (k->a) {
        k->b = module_function(p->b, name); /* gone: name-removed's */
        k->src_a = p->src_a, k->src_a_len = p->src_a_len;
        k->src_b = p->src_b, k->src_b_len = p->src_b_len;
        return k->b != NULL;
    }
    char *ma = callees_import_source(p->a, name), *mb = callees_import_source(p->b, name);
    const survey_ext *e = ma && mb && !strcmp(ma, mb) ? find_ext(p, ma) : NULL;
    free(ma);
    free(mb);
    if (!e || !(k->a = module_function(e->a, name)) || !(k->b = module_function(e->b, name)))
        return 0;
    k->from = e->module;
    k->quiet = 1;
    k->src_a = e->src_a, k->src_a_len = e->src_a_len;
    k->src_b = e->src_b, k->src_b_len = e->src_b_len;
    return 1;
}

static void name_calls(cctx *c, const body_uses *u)
{
    strvec seen = STRVEC_INIT;
    for (size_t i = 0; i < u->n_name_calls; i++) {
        const char *name = u->name_calls[i].method;
        if (strvec_find(&seen, name) >= 0)
            continue;
        strvec_push(&seen, name);
        callee k;
        memset(&k, 0, sizeof(k));
        if (signatures_config_binds(c->p, name) || !name_callee(c, name, &k))
            continue;
        char *how = pgci_asprintf("%s()", name);
        char *note = k.from ? pgci_asprintf(" (imported from `%s`)", k.from) : pgci_strdup("");
        k.how = how;
        k.note = note;
        callee_changed(c, telling_call(u, name, k.b), &k);
        free(how);
        free(note);
    }
    strvec_free(&seen);
}

/* The dataclasses a body builds by name (`Out(loss=..., rope_deltas=...)`, the name
 * as the generated code reads it): a keyword the class's fields took at A and do
 * not at B is a TypeError whenever the call runs (checks/init_fields.h). One
 * finding a class, from its first call that breaks. */
static void built_classes(cctx *c, const body_uses *u)
{
    strvec done = STRVEC_INIT;
    for (size_t i = 0; i < u->n_name_calls; i++) {
        const body_call *call = &u->name_calls[i];
        if (!isupper((unsigned char)call->method[0]))
            continue;
        strbuf name = STRBUF_INIT;
        strbuf_adds(&name, call->method);
        if (c->patch && c->patch->name_map_len)
            cgsrc_apply_name_map(&name, c->patch->name_map, c->patch->name_map_len);
        init_fields_break b;
        if (strvec_find(&done, name.buf) < 0 && init_fields_call_breaks(c->p, name.buf, call, &b)) {
            strvec_push(&done, name.buf);
            json_t *data = json_object();
            json_object_set_new(data, "dataclass", json_string(name.buf));
            json_object_set_new(data, "field", json_string(b.keyword));
            if (b.renamed)
                json_object_set_new(data, "renamed", json_true());
            if (b.notice)
                json_object_set_new(data, "advice", json_string(b.notice));
            char *how = pgci_asprintf("%s()", name.buf);
            json_object_set_new(data, "call", json_string(how));
            json_object_set_new(data, "because", json_string(b.because));
            finding *f = add(c, SEV_ERROR, data, "dataclass-field-removed", b.declared_by,
                             "`%s` builds `%s(...)`, whose fields changed at %s: %s", c->where,
                             name.buf, c->p->tag_b, b.because);
            if (f)
                finding_set_detail(f, b.detail);
            free(how);
            init_fields_break_free(&b);
        }
        strbuf_free(&name);
    }
    strvec_free(&done);
}

/* 1 when the name at p (in text) is what a local a body calls may hold: the value
 * of an assignment (`fn = name`, `fn = name if c else other`) or the choice after
 * `else`. */
static int assigned_name(const char *text, const char *p)
{
    const char *b = p;
    while (b > text && b[-1] == ' ')
        b--;
    if (b > text && b[-1] == '=')
        return b - 1 == text || !strchr("=!<>", b[-2]);
    return b - text >= 5 && !strncmp(b - 4, "else", 4) && !isalnum((unsigned char)b[-5]) &&
           b[-5] != '_';
}

/* Every name followed by `(`, or assigned to a local (assigned_name), in text, into
 * names (a set): what a body may call. An over-approximation (strings and comments
 * count), for choosing what to fetch. */
static void called_names(hashmap *names, const char *text)
{
    for (const char *p = text; *p;) {
        if (!isalpha((unsigned char)*p) && *p != '_') {
            p++;
            continue;
        }
        const char *q = p;
        while (isalnum((unsigned char)*q) || *q == '_')
            q++;
        const char *r = q;
        while (*r == ' ')
            r++;
        if ((p == text || p[-1] != '.') && (*r == '(' || assigned_name(text, p)))
            hashmap_putn(names, p, (size_t)(q - p), names);
        p = q;
    }
}

/* The file of o scanned by called_names, once per file (texts: those scanned). */
static void scan_object(hashmap *names, strvec *texts, const pg_object *o)
{
    char key[32];
    if (!o || !o->text)
        return;
    snprintf(key, sizeof(key), "%p", (const void *)o->text);
    if (strvec_find(texts, key) >= 0)
        return;
    strvec_push(texts, key);
    called_names(names, o->text);
}

void callees_imported_modules(strvec *mods, const pg_config *cfg, const index_module *a)
{
    hashmap names = HASHMAP_INIT;
    strvec texts = STRVEC_INIT;
    for (size_t i = 0; i < cfg->patches.len; i++)
        scan_object(&names, &texts, cfg->patches.items[i].replacement);
    for (size_t i = 0; i < cfg->helpers.len; i++)
        scan_object(&names, &texts, cfg->helpers.items[i]);
    for (size_t i = 0; i < cfg->positioned_helpers.len; i++)
        scan_object(&names, &texts, cfg->positioned_helpers.items[i].helper);
    strvec_free(&texts);
    for (size_t i = 0; i < a->n_imports; i++) {
        const index_import *im = &a->imports[i];
        const char *bound = im->alias ? im->alias : im->name;
        /* only functions are followed: a CapWords name is a class (PEP 8), and its
         * module is not worth fetching for it */
        if (!bound || isupper((unsigned char)bound[0]) || !hashmap_get(&names, bound))
            continue;
        char *m = callees_import_source(a, bound);
        if (m && strvec_find(mods, m) < 0)
            strvec_push_owned(mods, m);
        else
            free(m);
    }
    hashmap_free(&names);
}

/* ---- module-level names ----------------------------------------------------------- */

static int defined_at(const index_module *m, const char *name)
{
    const index_def *d = index_find(m, name);
    if (d && !d->parent)
        return 1;
    for (size_t i = 0; i < m->n_assigns; i++)
        if (!strcmp(m->assigns[i].name, name))
            return 1;
    return 0;
}

static void tokens(strvec *out, const char *name)
{
    const char *p = name;
    while (*p) {
        size_t k = strcspn(p, "_");
        if (k)
            strvec_pushn(out, p, k);
        p += k;
        while (*p == '_')
            p++;
    }
}

/* The one top-level function or class of b whose snake_case name is name's with
 * exactly one token added or dropped (apply_rotary_pos_emb ->
 * apply_rotary_pos_emb_interleave, torch_causal_conv1d_update ->
 * causal_conv1d_update); NULL when none or several. *extra: "+tok" or "-tok". */
static const char *one_token_apart(const index_module *b, const char *name, char **extra)
{
    strvec t = STRVEC_INIT;
    tokens(&t, name);
    const char *found = NULL;
    int many = 0;
    for (size_t i = 0; i < b->n_defs && !many; i++) {
        const index_def *d = b->defs[i];
        strvec u = STRVEC_INIT;
        tokens(&u, d->name);
        const strvec *big = u.len > t.len ? &u : &t, *small = u.len > t.len ? &t : &u;
        size_t miss = 0, at = 0;
        for (size_t k = 0; k < big->len; k++)
            if (strvec_find(small, big->items[k]) < 0)
                miss++, at = k;
        if (big->len == small->len + 1 && miss == 1 && t.len >= 2) {
            if (found)
                many = 1;
            found = d->name;
            free(*extra);
            *extra = pgci_asprintf("%c%s", big == &u ? '+' : '-', big->items[at]);
        }
        strvec_free(&u);
    }
    strvec_free(&t);
    if (many) {
        free(*extra);
        *extra = NULL;
        return NULL;
    }
    return found;
}

/* loads: the body's free names as the generated code reads them (name_map_loads) */
static void module_names(cctx *c, const strvec *loads)
{
    for (size_t i = 0; i < loads->len; i++) {
        const char *name = loads->items[i];
        /* imports that went are signatures.h's import-removed */
        if (!defined_at(c->p->a, name) || signatures_module_binds(c->p->b, name) ||
            signatures_config_binds(c->p, name))
            continue;
        const char *names[3];
        double scores[3];
        size_t n = signatures_rename_candidates(c->p->a, c->p->b, name, names, scores, 3);
        json_t *data = json_object();
        json_object_set_new(data, "name", json_string(name));
        strbuf detail = STRBUF_INIT, succ = STRBUF_INIT;
        char *extra = NULL;
        const char *near = n && scores[0] >= SIGNATURES_CONFIDENT ? names[0] : NULL;
        const char *by_name = near ? NULL : one_token_apart(c->p->b, name, &extra);
        /* a candidate named by both rules is one line, with both reasons */
        add_candidates_but(data, &detail, names, scores, n, by_name);
        if (by_name) {
            near = by_name;
            json_object_set_new(data, "name_successor", json_string(near));
            strbuf_addf(&detail, "successor candidate: %s (its name is this one's with `%s` %s",
                        near, extra + 1, extra[0] == '+' ? "added" : "dropped");
            for (size_t k = 0; k < n; k++)
                if (!strcmp(names[k], near))
                    strbuf_addf(&detail, "; similarity %.2f", scores[k]);
            strbuf_adds(&detail, ")\n");
        }
        char *instead = near ? NULL : written_instead(c->p, name, c->where, &detail);
        if (instead) /* upstream's own code writes it in the old name's place */
            strbuf_addf(&succ, "; successor `%s` (upstream's code writes it in its place)",
                        instead);
        else if (near)
            strbuf_addf(&succ, "; likely successor `%s`", near);
        if (instead)
            json_object_set_new(data, "written_instead", json_string(instead));
        free(instead);
        free(extra);
        /* what A's definition told its callers to do instead */
        contracts_note_advice(&succ, data, c->p, index_find(c->p->a, name));
        finding *f = add(c, SEV_ERROR, data, "name-removed", name,
                         "`%s` uses `%s`, which upstream no longer defines at %s%s", c->where, name,
                         c->p->tag_b, succ.buf);
        if (f && detail.len)
            finding_set_detail(f, detail.buf);
        strbuf_free(&detail);
        strbuf_free(&succ);
    }
}

/* ---- reachability ------------------------------------------------------------------ */

/* The config's own code builds cls: a body of a patch (but of cls's own methods), a
 * helper or a post-import block calls `cls(...)` or `cls._from_config(...)`. The
 * generated module then builds the patched class there whatever upstream does (an
 * override of `Model.__init__` that keeps `Vision._from_config(...)`). */
static int config_builds(const pg_config *cfg, const char *cls)
{
    size_t n = strlen(cls);
    for (size_t i = 0; i < cfg->patches.len; i++) {
        const pg_patch *p = &cfg->patches.items[i];
        if (!p->replacement || (!strncmp(p->target, cls, n) && p->target[n] == '.') ||
            (p->type == PG_CLASS_REPLACEMENT && !strcmp(p->target, cls)))
            continue;
        char *text = signatures_object_text(p->replacement);
        int has = text && source_instantiates(text, strlen(text), cls);
        free(text);
        if (has)
            return 1;
    }
    const pg_object *const *hs = (const pg_object *const *)cfg->helpers.items;
    for (size_t i = 0; i < cfg->helpers.len + cfg->positioned_helpers.len; i++) {
        const pg_object *h = i < cfg->helpers.len
                                 ? hs[i]
                                 : cfg->positioned_helpers.items[i - cfg->helpers.len].helper;
        char *text = signatures_object_text(h);
        int has = text && source_instantiates(text, strlen(text), cls);
        free(text);
        if (has)
            return 1;
    }
    for (size_t i = 0; i < cfg->post_import_blocks.len; i++) {
        const char *b = cfg->post_import_blocks.items[i];
        if (source_instantiates(b, strlen(b), cls))
            return 1;
    }
    return 0;
}

/* The existing rule: a patched class the module built by name at A and does not
 * mention at all at B. */
static int unreachable_at_b(const survey_pair *p, const char *cls)
{
    return index_find(p->a, cls) && index_find(p->b, cls) &&
           source_instantiates(p->src_a, p->src_a_len, cls) &&
           !source_references(p->src_b, p->src_b_len, cls) && !config_builds(p->cfg, cls);
}

static void patched_under(const survey_pair *p, const char *cls, const strvec *patched,
                          strvec *out);

/* "`a`, `b`, and `c`" of v[from..). */
static void name_list(strbuf *sb, const strvec *v, size_t from)
{
    size_t n = v->len - from;
    for (size_t u = 0; u < n; u++)
        strbuf_addf(sb, "%s`%s`",
                    !u           ? ""
                    : u + 1 == n ? (n == 2 ? " and " : ", and ")
                                 : ", ",
                    v->items[from + u]);
}

/* A class the module built by name at A and does not mention at all at B: whatever
 * builds it now (a factory, AutoModel.from_config) bypasses the patched class, and
 * with it the patched classes it builds (patched_under: in an instance of the
 * factory's class none of the generated module's runs). */
static void reachability(cctx *c, const char *cls, const strvec *patched)
{
    const survey_pair *p = c->p;
    if (!unreachable_at_b(p, cls))
        return;
    strvec under = STRVEC_INIT;
    patched_under(p, cls, patched, &under);
    json_t *data = NULL;
    strbuf also = STRBUF_INIT;
    if (under.len > 1) { /* under.items[0] is cls */
        data = json_object();
        json_t *arr = json_array();
        for (size_t u = 1; u < under.len; u++)
            json_array_append_new(arr, json_string(under.items[u]));
        json_object_set_new(data, "patched", arr);
        strbuf_adds(&also, ", and so do the patches of ");
        name_list(&also, &under, 1);
        strbuf_adds(&also, " inside it (it builds them)");
    }
    add(c, SEV_ERROR, data, "unreachable", cls,
        "`%s` is patched, but upstream no longer instantiates it at %s (nothing in the module "
        "names it): the patch silently stops applying%s",
        cls, p->tag_b, also.buf ? also.buf : "");
    strbuf_free(&also);
    strvec_free(&under);
}

/* def's span of src (a top-level class of the module). */
static int span_instantiates(const char *src, size_t len, const index_def *d, const char *name)
{
    if (!src || d->end_byte > len || d->start_byte >= d->end_byte)
        return 0;
    return source_instantiates(src + d->start_byte, d->end_byte - d->start_byte, name);
}

static int span_references(const char *src, size_t len, const index_def *d, const char *name)
{
    if (!src || d->end_byte > len || d->start_byte >= d->end_byte)
        return 0;
    return source_references(src + d->start_byte, d->end_byte - d->start_byte, name);
}

/* The patched classes (of classes) the module at B builds from cls by name, cls
 * included, in the order met: what an instance of cls runs of the patches. */
static void patched_under(const survey_pair *p, const char *cls, const strvec *patched, strvec *out)
{
    strvec seen = STRVEC_INIT;
    strvec_push(&seen, cls);
    for (size_t i = 0; i < seen.len; i++) {
        const char *x = seen.items[i];
        if (strvec_find(patched, x) >= 0 && strvec_find(out, x) < 0)
            strvec_push(out, x);
        const index_def *d = index_find(p->b, x);
        if (!d || d->kind != INDEX_CLASS)
            continue;
        for (size_t k = 0; k < p->b->n_defs; k++) {
            const index_def *y = p->b->defs[k];
            if (y->kind == INDEX_CLASS && strvec_find(&seen, y->name) < 0 &&
                span_instantiates(p->src_b, p->src_b_len, d, y->name))
                strvec_push(&seen, y->name);
        }
    }
    strvec_free(&seen);
}

/* A class X that built a class T by name at A and, at B, names T no more and builds
 * through `AutoModel` (`self.language_model = AutoModel.from_config(...)`): the
 * factory builds transformers' own T, not the generated module's, so every patch
 * of T and of what T builds stops applying inside X, though T may still be built
 * by name elsewhere (`Qwen3_5ForCausalLM`) and so escape the rule above. Not when
 * the config owns the method of X that calls the factory, or builds T itself. */
static void auto_built(cctx *c, const strvec *patched)
{
    const survey_pair *p = c->p;
    if (!p->src_a || !p->src_b || !source_instantiates(p->src_b, p->src_b_len, "AutoModel"))
        return;
    for (size_t i = 0; i < p->b->n_defs; i++) {
        const index_def *xb = p->b->defs[i];
        const index_def *xa = index_find(p->a, xb->name);
        if (xb->kind != INDEX_CLASS || !xa || xa->kind != INDEX_CLASS ||
            !span_instantiates(p->src_b, p->src_b_len, xb, "AutoModel"))
            continue;
        int owned = 0;
        for (size_t m = 0; m < xb->n_members; m++) {
            const index_def *md = xb->members[m];
            if (md->kind == INDEX_FUNCTION &&
                span_instantiates(p->src_b, p->src_b_len, md, "AutoModel") &&
                callees_config_defines(p->cfg, xb->name, md->name))
                owned = 1;
        }
        for (size_t k = 0; k < p->cfg->patches.len; k++)
            owned |= p->cfg->patches.items[k].type == PG_CLASS_REPLACEMENT &&
                     !strcmp(p->cfg->patches.items[k].target, xb->name);
        if (owned)
            continue;
        for (size_t k = 0; k < p->a->n_defs; k++) {
            const index_def *t = p->a->defs[k];
            if (t->kind != INDEX_CLASS || t == xa || !index_find(p->b, t->name) ||
                !span_instantiates(p->src_a, p->src_a_len, xa, t->name) ||
                span_references(p->src_b, p->src_b_len, xb, t->name) ||
                config_builds(p->cfg, t->name))
                continue;
            /* the rule above has it, the class's name gone from the whole module */
            if (strvec_find(patched, t->name) >= 0 && unreachable_at_b(p, t->name))
                continue;
            strvec under = STRVEC_INIT;
            patched_under(p, t->name, patched, &under);
            if (under.len) {
                strbuf list = STRBUF_INIT;
                json_t *data = json_object();
                json_t *arr = json_array();
                name_list(&list, &under, 0);
                for (size_t u = 0; u < under.len; u++)
                    json_array_append_new(arr, json_string(under.items[u]));
                json_object_set_new(data, "builder", json_string(xb->name));
                json_object_set_new(data, "patched", arr);
                c->where = xb->name;
                c->site = signatures_class_site(p, under.items[0]);
                add(c, SEV_ERROR, data, "auto-built", t->name,
                    "`%s` builds its `%s` through `AutoModel` at %s (%s named the class): "
                    "transformers' own class runs there, so the patches of %s silently stop "
                    "applying inside `%s`",
                    xb->name, t->name, p->tag_b, p->tag_a, list.buf, xb->name);
                c->site = (survey_site){NULL, 0, 0};
                strbuf_free(&list);
            }
            strvec_free(&under);
        }
    }
}

/* ---- per config -------------------------------------------------------------------- */

/* The class whose instances run the patch: "C" for C.m and for a replaced C. */
static char *patched_class(const pg_patch *p)
{
    const char *dot = strchr(p->target, '.');
    if (p->type == PG_METHOD_OVERRIDE && dot)
        return pgci_strndup(p->target, (size_t)(dot - p->target));
    if (p->type == PG_CLASS_REPLACEMENT && !dot)
        return pgci_strdup(p->target);
    return NULL;
}

/* A later registration of the same target and type replaces patch i (patchgen). */
static int superseded(const pg_config *cfg, size_t i)
{
    const pg_patch *p = &cfg->patches.items[i];
    for (size_t k = i + 1; k < cfg->patches.len; k++)
        if (cfg->patches.items[k].type == p->type &&
            !strcmp(cfg->patches.items[k].target, p->target))
            return 1;
    return 0;
}

/* What upstream's Cls.method at side (a or b) reads off self; 0 when read. */
static int method_reads(const cctx *c, int side_b, const index_def *d, strvec *out)
{
    const char *src = side_b ? c->p->src_b : c->p->src_a;
    size_t len = side_b ? c->p->src_b_len : c->p->src_a_len;
    py_tree t;
    if (survey_def_tree(c->p, src, len, d, &t) < 0)
        return -1;
    int rc = self_reads(out, &t, d->start_byte);
    survey_tree_release(c->p, &t);
    return rc;
}

/* A method the body runs on a stand-in for self (body_stand_in) that reads, at B, an
 * attribute it did not read at A and the stand-in lacks: an AttributeError there. */
static void stand_ins(cctx *c, const body_uses *u)
{
    const survey_pair *p = c->p;
    for (size_t i = 0; i < u->n_stand_ins; i++) {
        const body_stand_in *s = &u->stand_ins[i];
        const index_def *a = callees_resolve(p->a, s->cls, s->method);
        const index_def *b = callees_resolve(p->b, s->cls, s->method);
        strvec ra = STRVEC_INIT, rb = STRVEC_INIT;
        if (a && b && a->kind == INDEX_FUNCTION && b->kind == INDEX_FUNCTION &&
            !callees_config_defines(p->cfg, s->cls, s->method) && !same_body(c, a, b) &&
            method_reads(c, 0, a, &ra) == 0 && method_reads(c, 1, b, &rb) == 0) {
            for (size_t j = 0; j < rb.len; j++) {
                const char *x = rb.items[j];
                if (strvec_find(&ra, x) >= 0 || strvec_find(&s->attrs, x) >= 0)
                    continue;
                json_t *data = json_object();
                json_object_set_new(data, "attribute", json_string(x));
                json_t *has = json_array();
                for (size_t k = 0; k < s->attrs.len; k++)
                    json_array_append_new(has, json_string(s->attrs.items[k]));
                json_object_set_new(data, "stand_in", has);
                add(c, SEV_ERROR, data, "stand-in-attr-missing", b->qualname,
                    "`%s` runs `%s.%s` on a `SimpleNamespace` standing in for `self`, and at %s "
                    "that method reads `self.%s`, which the stand-in lacks: an AttributeError",
                    c->where, s->cls, s->method, p->tag_b, x);
            }
        }
        pgci_error_clear();
        strvec_free(&ra);
        strvec_free(&rb);
    }
}

static void follow(cctx *c, const pg_object *o, const char *cls)
{
    char *text = signatures_object_text(o);
    body_uses own;
    const body_uses *u = text ? survey_object_uses(c->p, o, text, strlen(text), &own) : NULL;
    if (u) {
        if (cls) {
            self_calls(c, cls, u);
            element_uses(c, cls, u);
        }
        name_calls(c, u);
        built_classes(c, u);
        strvec mapped;
        module_names(c, name_map_loads(c->patch, &u->loads, &mapped));
        strvec_free(&mapped);
        stand_ins(c, u);
        body_uses_free(&own);
    }
    pgci_error_clear();
    free(text);
}

void check_callees(findings *out, const survey_pair *p)
{
    if (!p->a || !p->b)
        return;
    cctx c = {out, p, NULL, NULL, STRVEC_INIT, {NULL, 0, 0}};
    strvec classes = STRVEC_INIT;
    VEC(const pg_patch *) first = VEC_INIT; /* the first patch of each class, beside it */
    for (size_t i = 0; i < p->cfg->patches.len; i++) {
        const pg_patch *patch = &p->cfg->patches.items[i];
        if (superseded(p->cfg, i))
            continue;
        char *cls = patched_class(patch);
        c.patch = patch;
        c.where = patch->target;
        if (patch->replacement)
            follow(&c, patch->replacement, cls);
        if (cls && strvec_find(&classes, cls) < 0) {
            strvec_push(&classes, cls);
            VEC_PUSH(&first, patch);
        }
        free(cls);
    }
    /* every patched class known: what an unreachable one built goes with it */
    for (size_t i = 0; i < classes.len; i++) {
        c.patch = first.items[i];
        c.where = first.items[i]->target;
        reachability(&c, classes.items[i], &classes);
    }
    VEC_FREE(&first);
    c.patch = NULL;
    auto_built(&c, &classes);
    for (size_t i = 0; i < p->cfg->helpers.len; i++) {
        c.where = p->cfg->helpers.items[i]->name;
        c.site = signatures_helper_site(p, p->cfg->helpers.items[i], NULL);
        follow(&c, p->cfg->helpers.items[i], NULL);
    }
    for (size_t i = 0; i < p->cfg->positioned_helpers.len; i++) {
        const pg_positioned_helper *ph = &p->cfg->positioned_helpers.items[i];
        c.where = ph->helper->name;
        c.site = signatures_helper_site(p, ph->helper, ph);
        follow(&c, ph->helper, NULL);
    }
    strvec_free(&classes);
    strvec_free(&c.emitted);
    /* what the generated module imports through the workspace's own modules */
    ws_imports_compare(out, p);
    /* the parallel plan's keys, resolved through the __init__ attributes */
    plan_paths_compare(out, p);
}
