/*
 * Changes, not standing facts. Each two-tag check compares A with B; running the
 * same checks with B := A (same labels, A's sources on both sides) gives what they
 * would say with no bump at all, and whatever appears in both is not the bump's.
 */
#include "checks/survey_compare.h"

#include <stdlib.h>
#include <string.h>

#include "checks/check.h"
#include "core/error.h"
#include "core/vec.h"
#include "core/version.h"

static void push(findings *fs, finding *f)
{
    if (fs->len == fs->cap) {
        fs->cap = fs->cap ? 2 * fs->cap : 16;
        fs->items = pgci_realloc(fs->items, fs->cap * sizeof(*fs->items));
    }
    fs->items[fs->len++] = f;
}

static void run_checks(findings *out, const survey_pair *p)
{
    for (const check_entry *e = check_registry; e->def; e++)
        if (e->where == CHECK_IN_SURVEY && e->def->compare)
            e->def->compare(out, p);
}

static char *fact_key(const finding *f)
{
    return pgci_asprintf("%s|%s|%s", f->config ? f->config : "", f->check, f->title);
}

/* A deprecation already announced at A that falls due after A and by B is news
 * for this bump even though it stands. */
static int due_in_bump(const finding *f, const survey_pair *p)
{
    const char *v = json_string_value(json_object_get(f->data, "removal_version"));
    return !strcmp(f->check, "deprecations") && v && version_cmp(v, p->tag_a) > 0 &&
           version_cmp(v, p->tag_b) <= 0;
}

static void take_targets(findings *out, const survey_pair *p, findings *targets)
{
    findings keep = FINDINGS_INIT, moved = FINDINGS_INIT;
    for (size_t i = 0; i < targets->len; i++) {
        finding *f = targets->items[i];
        const char *kind = json_string_value(json_object_get(f->data, "kind"));
        const char *target = json_string_value(json_object_get(f->data, "target"));
        int mine = f->config && !strcmp(f->config, p->config);
        int bump =
            kind && !strcmp(kind, "missing-target") && target && p->a && index_find(p->a, target);
        if (mine && bump && f->data && !json_object_get(f->data, "module"))
            json_object_set_new(f->data, "module", json_string(p->cfg->source_module));
        push(mine && bump ? &moved : &keep, f);
    }
    free(targets->items);
    *targets = keep;
    findings_move(out, &moved);
    findings_free(&moved);
}

/* A copy of modules e[0..n) with each one's A in its B's place (malloc'ed). */
static survey_ext *a_for_b(const survey_ext *e, size_t n)
{
    survey_ext *same = pgci_calloc(n + 1, sizeof(*same));
    for (size_t i = 0; i < n; i++) {
        same[i] = e[i];
        same[i].b = e[i].a;
        same[i].src_b = e[i].src_a;
        same[i].src_b_len = e[i].src_a_len;
    }
    return same;
}

void survey_compare_checks(survey_checked *c, const survey_pair *p, const index_module *config_a)
{
    findings got = FINDINGS_INIT, standing = FINDINGS_INIT;
    c->got = got;
    c->standing = standing;
    run_checks(&c->got, p);
    survey_pair same = *p;
    same.b = p->a;
    same.src_b = p->src_a;
    same.src_b_len = p->src_a_len;
    same.config_b = config_a;
    same.base_b = p->base_a;
    same.base_src_b = p->base_src_a;
    same.base_src_b_len = p->base_src_a_len;
    same.docs_b = p->docs_a;
    survey_ext *ext = a_for_b(p->ext, p->n_ext), *ws_ext = a_for_b(p->ws_ext, p->n_ws_ext);
    same.ext = ext;
    same.ws_ext = ws_ext;
    if (p->a && p->src_a)
        run_checks(&c->standing, &same);
    free(ext);
    free(ws_ext);
}

static const char *data_str(const finding *f, const char *key)
{
    return json_string_value(json_object_get(f->data, key));
}

/* A target the signatures check found vanished is one fact: the targets check's
 * "not in the module: patchgen drops the patch" of the same target goes (the
 * vanished finding names the successor). */
static void drop_missing_vanished(findings *got)
{
    strvec gone = STRVEC_INIT;
    for (size_t i = 0; i < got->len; i++) {
        const char *kind = data_str(got->items[i], "kind"), *t = data_str(got->items[i], "target");
        if (kind && t && !strcmp(kind, "vanished"))
            strvec_push(&gone, t);
    }
    size_t k = 0;
    for (size_t i = 0; i < got->len; i++) {
        finding *f = got->items[i];
        const char *kind = data_str(f, "kind"), *t = data_str(f, "target");
        if (kind && t && !strcmp(kind, "missing-target") && strvec_find(&gone, t) >= 0) {
            finding_free(f);
            continue;
        }
        got->items[k++] = f;
    }
    got->len = k;
    strvec_free(&gone);
}

void survey_compare_finish(findings *out, const survey_pair *p, survey_checked *c,
                           findings *targets)
{
    findings got = FINDINGS_INIT;
    take_targets(&got, p, targets);
    findings_move(&got, &c->got);
    drop_missing_vanished(&got);
    strvec drop = STRVEC_INIT, seen = STRVEC_INIT;
    for (size_t i = 0; i < c->standing.len; i++)
        strvec_push_owned(&drop, fact_key(c->standing.items[i]));
    findings kept = FINDINGS_INIT;
    for (size_t i = 0; i < got.len; i++) {
        finding *f = got.items[i];
        char *key = fact_key(f);
        int gone =
            (strvec_find(&drop, key) >= 0 && !due_in_bump(f, p)) || strvec_find(&seen, key) >= 0;
        if (gone) {
            free(key);
            continue;
        }
        strvec_push_owned(&seen, key);
        push(&kept, f);
        got.items[i] = NULL;
    }
    /* the dropped ones: freed through a list of their own */
    findings rest = FINDINGS_INIT;
    for (size_t i = 0; i < got.len; i++)
        if (got.items[i])
            push(&rest, got.items[i]);
    free(got.items);
    findings_free(&rest);
    findings_move(out, &kept);
    findings_free(&kept);
    survey_checked_free(c);
    strvec_free(&drop);
    strvec_free(&seen);
}

void survey_checked_free(survey_checked *c)
{
    findings_free(&c->got);
    findings_free(&c->standing);
}

void survey_compare(findings *out, const survey_pair *p, const index_module *config_a,
                    findings *targets)
{
    survey_checked c;
    survey_compare_checks(&c, p, config_a);
    survey_compare_finish(out, p, &c, targets);
}

int *survey_failing_at_a(const workspace *ws, const ws_config *const *sel, size_t n,
                         const regen_batch_opts *at_b, const regen_output *outs, const char *tag_a,
                         char ***why_a)
{
    int *standing = pgci_calloc(n ? n : 1, sizeof(int));
    char **why = *why_a = pgci_calloc(n ? n : 1, sizeof(char *));
    const ws_config **again = pgci_calloc(n ? n : 1, sizeof(*again));
    pg_config **cfgs = pgci_calloc(n ? n : 1, sizeof(*cfgs));
    const char **errs = pgci_calloc(n ? n : 1, sizeof(*errs));
    size_t *at = pgci_calloc(n ? n : 1, sizeof(size_t)), m = 0;
    for (size_t i = 0; i < n; i++)
        if (outs[i].status < 0) {
            at[m] = i;
            if (at_b->evaluated) {
                cfgs[m] = at_b->evaluated[i];
                errs[m] = at_b->eval_errors ? at_b->eval_errors[i] : NULL;
            }
            again[m++] = sel[i];
        }
    if (m && !strcmp(tag_a, at_b->base.tag)) {
        for (size_t k = 0; k < m; k++)
            standing[at[k]] = 1;
    } else if (m) {
        regen_batch_opts o = *at_b;
        o.base.tag = tag_a;
        o.verdict_only = 1; /* standing or not, and why (regen_causes.h) */
        /* the configs B had evaluated, if it had them */
        o.evaluated = at_b->evaluated ? cfgs : NULL;
        o.eval_errors = at_b->evaluated ? errs : NULL;
        regen_output *outs_a = pgci_calloc(m, sizeof(*outs_a));
        regen_workspace(ws, again, m, &o, outs_a);
        pgci_error_clear();
        for (size_t k = 0; k < m; k++) {
            standing[at[k]] = outs_a[k].status < 0;
            if (standing[at[k]] && outs_a[k].error)
                why[at[k]] = pgci_strdup(outs_a[k].error);
            regen_output_free(&outs_a[k]);
        }
        free(outs_a);
    }
    free(again);
    free(cfgs);
    free(errs);
    free(at);
    return standing;
}
