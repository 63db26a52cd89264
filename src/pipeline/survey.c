/*
 * The pin-bump survey. Stages, in order: resolve the two tags; evaluate the
 * configs (once: the regenerations take them as evaluated); fetch and index every
 * source module (and, where the rope-compat check reads it, its configuration
 * module) at both tags; regenerate every
 * config against B while, on a thread of its own (with -j > 1), the two-tag
 * checks compare A with B under each patch; then the targets check's findings
 * of the regeneration join each config's comparison. Each stage's failures
 * become findings or not-run records, never a silent skip.
 */
#include "pipeline/survey.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "checks/callees.h"
#include "checks/changes.h"
#include "checks/checks.h"
#include "checks/contracts.h"
#include "checks/external_bases.h"
#include "checks/init_fields.h"
#include "checks/regen_causes.h"
#include "checks/regen_finding.h"
#include "checks/signatures.h"
#include "checks/survey_compare.h"
#include "checks/survey_trees.h"
#include "checks/ws_imports.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/par.h"
#include "core/sha256.h"
#include "core/version.h"
#include "index/index.h"
#include "patchgen/config_eval.h"
#include "patchgen/codegen_shared.h"
#include "patchgen/regen.h"
#include "pipeline/pipeline.h"
#include "upstream/upstream.h"

/* ---- tags -------------------------------------------------------------------------- */

/* --from and --to as tags; --to latest is the newest release the upstream lists. */
static int resolve_tags(const workspace *ws, const survey_opts *o, upstream *up, survey_result *out)
{
    const char *from = o->from ? o->from : "pin";
    if (!strcmp(from, "pin")) {
        if (!ws->pin)
            return workspace_no_tag_error(ws, "--from pin: %s pins no transformers version",
                                          ws->pyproject);
        out->from = workspace_pin_tag(ws);
    } else {
        out->from = pgci_strdup(from);
    }
    const char *to = o->to ? o->to : "latest";
    if (strcmp(to, "latest")) {
        out->to = pgci_strdup(to);
        return 0;
    }
    strvec tags = STRVEC_INIT;
    int r = upstream_list_tags(up, &tags);
    if (r < 0) {
        strvec_free(&tags);
        return pgci_error_wrap(r, "--to latest needs the list of upstream tags (name the tag)");
    }
    out->to = version_latest(&tags, out->from);
    strvec_free(&tags);
    if (!out->to)
        return pgci_error_set(PGCI_ENOTFOUND, "no release newer than %s upstream", out->from);
    return 0;
}

/* ---- the survey ------------------------------------------------------------------------ */

typedef struct module_pair {
    char *module;
    strbuf src_a, src_b;
    index_module *a, *b;
    char *err_a, *err_b;
    /* the SHA-256 of src_a and src_b for run.json, taken from the parse sets
     * while indexing (empty: hashed when recorded) */
    char hex_a[SHA256_HEX_LEN + 1], hex_b[SHA256_HEX_LEN + 1];
} module_pair;

static long find_module(module_pair *mods, size_t n, const char *m)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(mods[i].module, m))
            return (long)i;
    return -1;
}

/* transformers.models.llama.modeling_llama -> transformers.models.llama.configuration_llama */
static char *configuration_module(const char *m)
{
    const char *last = strrchr(m, '.');
    if (!last || strncmp(last + 1, "modeling_", 9))
        return NULL;
    return pgci_asprintf("%.*s.configuration_%s", (int)(last - m), m, last + 10);
}

/* Indexing the fetched modules of both sides on worker threads: item i is module
 * i % n at side i / n; each writes its own slot, so the result is the same with one
 * thread or many. */
typedef struct index_jobs {
    py_parse_set *parses[2];
    module_pair *mods;
    size_t n;
} index_jobs;

/* 1 when the module was read at both tags and its bytes are the same: one index
 * serves both sides (module_pair.b is .a, or err_b a copy of err_a), made by side
 * A's item. Asked of the fetched bytes only, which indexing does not write. */
static int same_at_both(const module_pair *m)
{
    return m->src_a.buf && m->src_b.buf && m->src_a.len == m->src_b.len &&
           (!m->src_a.len || !memcmp(m->src_a.buf, m->src_b.buf, m->src_a.len));
}

static void index_one(void *arg, size_t worker, size_t i)
{
    (void)worker;
    const index_jobs *j = arg;
    int side = i >= j->n;
    module_pair *m = &j->mods[i % j->n];
    strbuf *src = side ? &m->src_b : &m->src_a;
    char **err = side ? &m->err_b : &m->err_a;
    index_module **ix = side ? &m->b : &m->a;
    /* B's side of a module the bump left alone is A's item's to fill: checked
     * on the bytes alone, which no item writes */
    if (side && same_at_both(m))
        return;
    if (*err || *ix) /* unread, or indexed before (survey_fetch_callees) */
        return;
    /* fingerprints on demand: the comparison reads those of the definitions the
     * patches touch and call, a small part of each module */
    if (index_module_from_parse_set_lazy(ix, j->parses[side], src->buf, src->len, m->module,
                                         m->module) < 0) {
        *err = pgci_strdup(pgci_error_last());
        *ix = NULL;
        pgci_error_clear();
    } else if (j->parses[side]) {
        py_parse_set_digest(j->parses[side], src->buf, src->len, side ? m->hex_b : m->hex_a);
    }
    if (!side && same_at_both(m)) {
        m->b = m->a;
        m->err_b = m->err_a && !m->err_b ? pgci_strdup(m->err_a) : m->err_b;
        memcpy(m->hex_b, m->hex_a, sizeof(m->hex_b));
    }
}

/* Fetches every module at the tags of sides `from`..1 (0: A, 1: B) in one batch (one
 * round of transfers; each module validated, which is its parse, into its side's
 * parse set). */
static void fetch_sides(upstream *up, py_parse_set *const parses[2], const char *const tags[2],
                        module_pair *mods, size_t n, int from)
{
    size_t first = (size_t)from * n, total = 2 * n - first;
    upstream_item *items = pgci_calloc(total + 1, sizeof(*items));
    strbuf *res = pgci_calloc(total + 1, sizeof(strbuf));
    char **errs = pgci_calloc(total + 1, sizeof(char *));
    for (size_t k = 0; k < total; k++) {
        size_t i = first + k;
        items[k].tag = tags[i >= n];
        items[k].module = mods[i % n].module;
        items[k].parses = parses[i >= n];
        strbuf_init(&res[k], 0);
    }
    upstream_fetch_batch(up, items, total, res, errs);
    pgci_error_clear();
    for (size_t k = 0; k < total; k++) {
        size_t i = first + k;
        int side = i >= n;
        module_pair *m = &mods[i % n];
        if (errs[k]) {
            *(side ? &m->err_b : &m->err_a) = errs[k];
            strbuf_free(&res[k]);
            continue;
        }
        *(side ? &m->src_b : &m->src_a) = res[k];
    }
    free(items);
    free(res);
    free(errs);
}

static void fetch_both(upstream *up, py_parse_set *const parses[2], const char *const tags[2],
                       module_pair *mods, size_t n)
{
    fetch_sides(up, parses, tags, mods, n, 0);
}

/* One config's comparison: its pair of modules at A and B, and what the two-tag
 * checks found, made while the configs are regenerated against B. */
typedef struct survey_cmp {
    int ready; /* both tags' modules indexed: sp and config_a are set */
    survey_pair sp;
    const index_module *config_a; /* the configuration module at A */
    survey_checked checked;
    int checked_done; /* checked holds findings not yet taken */
} survey_cmp;

/* One survey run: what each stage hands the next. Zeroed at the start, so the one
 * cleanup path (survey_state_free) frees whatever the stages got to. */
typedef struct survey_state {
    const workspace *ws;
    const survey_opts *o;
    survey_result *out;
    upstream *up;
    const ws_config **sel; /* the selected configs, n of them */
    size_t n;
    pg_config **cfgs;  /* evaluated, one per config; NULL where evaluation failed */
    char **eval_errs;  /* why cfgs[i] is NULL */
    module_pair *mods; /* the source modules (and configuration modules), at A and B */
    size_t nmods;
    regen_output *outs; /* regenerated against B, one per config */
    check_input *in;
    char *ruff;
    py_parse_set *parses;   /* one parse per upstream module: validated, indexed, generated from */
    py_parse_set *parses_a; /* A's trees, until the failing configs are regenerated at A */
    survey_bodies *bodies;  /* what each patch body uses, read once (checks/survey_trees.h) */
    rcache *results;        /* the result cache; NULL: --no-cache */
    int *standing;          /* configs failing against A too: not the bump's (pgci check) */
    char **standing_why;    /* each one's failure at A (survey_failing_at_a) */
    findings targets;       /* the targets check's, sorted into changes per config */
    survey_cmp *cmps;       /* one per config: the comparison, beside the regeneration */
    pthread_t cmp_thread;
    int cmp_started, cmp_joined;
    /* the configs' comparisons are taken one at a time, by the comparison's thread
     * and by the regeneration's once it is done (survey_compare_help) */
    pthread_mutex_t cmp_lock;
    pthread_cond_t cmp_cond;
    int cmp_ready;   /* the pairs are made: comparisons may be taken */
    size_t cmp_next; /* the next config whose comparison nobody has taken */
    /* the modules' indexes before them, taken one at a time the same way: items
     * [0, nmods) are A's, [nmods, 2 nmods) B's (index_one) */
    size_t ix_next, ix_done;
    int cmp_shared; /* set before the comparison's thread starts: it shares its work */
    double cmp_ms;  /* the comparison's own time on its thread */
    int index_jobs; /* the index's threads: 1 beside the regeneration */
    double index_ms;
    strvec ext;       /* the modules patch bodies call functions from (checks/callees.h) */
    survey_ext *exts; /* ext's modules at both tags, for every config's pair */
    strvec wsext;     /* those the workspace's imported modules import from (ws_imports.h) */
    survey_ext *wsexts;
} survey_state;

/* The upstream and the two tags, recorded as the run's inputs. */
static int survey_resolve(survey_state *s)
{
    const workspace *ws = s->ws;
    survey_result *out = s->out;
    const char *spec = s->o->source ? s->o->source : ws->upstream;
    if (!s->o->no_cache) {
        strbuf d = STRBUF_INIT;
        if (s->o->cache_dir)
            fs_join(&d, s->o->cache_dir, "results");
        if (rcache_open(&s->results, d.len ? d.buf : NULL, 0) < 0)
            pgci_error_clear();
        strbuf_free(&d);
    }
    s->parses = py_parse_set_new();
    int r = pipeline_upstream_open_with(&s->up, ws, spec, s->o->cache_dir, s->o->jobs, s->parses,
                                        s->results, s->o->no_cache);
    if (r < 0)
        return r;
    if ((r = resolve_tags(ws, s->o, s->up, out)) < 0)
        return r;
    run_doc_set_input(&out->doc, "workspace", ws->root);
    run_doc_set_input(&out->doc, "from", out->from);
    run_doc_set_input(&out->doc, "to", out->to);
    run_doc_set_input(&out->doc, "pin", ws->pin);
    run_doc_set_input(&out->doc, "upstream", upstream_describe(s->up));
    return 0;
}

/* The configs evaluated on -j worker threads; each outcome in its own slot. */
static void evaluate_all(survey_state *s)
{
    int *rcs = pgci_calloc(s->n + 1, sizeof(int));
    config_eval_all(s->ws, (const ws_config *const *)s->sel, s->n, s->o->var_name, s->o->jobs,
                    s->cfgs, rcs, s->eval_errs, NULL);
    free(rcs);
}

/* Every selected config evaluated; one that does not evaluate is a finding. Collects
 * the modules to fetch, in config order: each source module and, for a config
 * that replaces a rotary function, its configuration module. */
static int survey_evaluate(survey_state *s)
{
    const survey_opts *o = s->o;
    int r = pipeline_select(s->ws, o->only, o->shard_k, o->shard_n, &s->sel, &s->n);
    if (r < 0)
        return r;
    size_t n = s->n;
    const ws_config **sel = s->sel;
    s->out->n_configs = n;
    pg_config **cfgs = s->cfgs = pgci_calloc(n ? n : 1, sizeof(*cfgs));
    s->eval_errs = pgci_calloc(n ? n : 1, sizeof(*s->eval_errs));
    evaluate_all(s);
    module_pair *mods = s->mods = pgci_calloc(2 * n + 3, sizeof(*mods));
    size_t nmods = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cfgs[i]) {
            regen_finding(&s->out->fs, sel[i]->module, sel[i]->path, NULL, "cannot evaluate",
                          s->eval_errs[i]);
            continue;
        }
        const char *m = cfgs[i]->source_module;
        /* the configuration module only where a check reads it */
        char *cm = rope_compat_reads_configuration(cfgs[i]) ? configuration_module(m) : NULL;
        if (find_module(mods, nmods, m) < 0)
            mods[nmods++].module = pgci_strdup(m);
        if (cm && find_module(mods, nmods, cm) < 0)
            mods[nmods++].module = cm;
        else
            free(cm);
    }
    /* the base classes every model inherits (checks/inherited.h) */
    if (nmods && find_module(mods, nmods, "transformers.modeling_utils") < 0)
        mods[nmods++].module = pgci_strdup("transformers.modeling_utils");
    /* the argument docs @auto_docstring fills in by name (checks/signatures.c) */
    if (nmods && find_module(mods, nmods, "transformers.utils.auto_docstring") < 0)
        mods[nmods++].module = pgci_strdup("transformers.utils.auto_docstring");
    s->nmods = nmods;
    return 0;
}

/* Fetch both tags. Each module is parsed once per tag: A's trees, in a parse set
 * of their own, stay until the comparison is done and the configs that fail
 * against B are regenerated against A; B's stay for the regeneration. The
 * modules are indexed on the comparison's thread (survey_index). */
static void survey_fetch(survey_state *s)
{
    double t0 = now_ms();
    s->parses_a = py_parse_set_new();
    py_parse_set_pair(s->parses_a, s->parses); /* a module the bump left alone: one parse */
    py_parse_set *const parses[2] = {s->parses_a, s->parses};
    const char *const tags[2] = {s->out->from, s->out->to};
    fetch_both(s->up, parses, tags, s->mods, s->nmods);
    run_doc_add_timing(&s->out->doc, "fetch+index", now_ms() - t0);
}

/* The pair survey_fetch_callees reads config i's bodies and A's module through: A's
 * module on both sides (what is fetched depends on A alone); s->bodies made. */
static survey_pair fetch_pair(const survey_state *s, size_t i, const module_pair *mp)
{
    return (survey_pair){.config = s->sel[i]->module,
                         .cfg = s->cfgs[i],
                         .a = mp->a,
                         .b = mp->a,
                         .src_a = mp->src_a.buf,
                         .src_a_len = mp->src_a.len,
                         .src_b = mp->src_a.buf,
                         .src_b_len = mp->src_a.len,
                         .parses = s->parses,
                         .parses_a = s->parses_a,
                         .bodies = s->bodies};
}

/* What one config's bodies name, read on the workers (each config's own vector):
 * `each` reads config i, whose model's module mp was fetched at A, into per[i]. */
typedef struct callee_scan callee_scan;
struct callee_scan {
    survey_state *s;
    strvec *per;        /* [n]: each config's modules, in its order */
    const strvec *read; /* for the second pass: the modules read anyway */
    void (*each)(callee_scan *cs, size_t i, const module_pair *mp);
};

/* par_for's callback: cs->each on config i, when it has a model's module at A. */
static void scan_config(void *arg, size_t worker, size_t i)
{
    (void)worker;
    callee_scan *cs = arg;
    if (!cs->s->cfgs[i])
        return;
    const module_pair *mp =
        &cs->s->mods[find_module(cs->s->mods, cs->s->nmods, cs->s->cfgs[i]->source_module)];
    if (mp->a)
        cs->each(cs, i, mp);
}

static void scan_callees(callee_scan *cs, size_t i, const module_pair *mp)
{
    callees_imported_modules(&cs->per[i], cs->s->cfgs[i], mp->a);
    /* the modules the dataclasses the bodies build take their fields from
     * (checks/init_fields.h); the bodies' reading is the comparison's, kept */
    survey_pair sp = fetch_pair(cs->s, i, mp);
    init_fields_modules(&cs->per[i], &sp);
}

static void scan_ws_imports(callee_scan *cs, size_t i, const module_pair *mp)
{
    survey_pair sp = fetch_pair(cs->s, i, mp);
    ws_imports_modules(&cs->per[i], &sp, cs->read);
}

/* Each config's modules into *into, in the configs' order, each once: what one
 * loop over the configs pushing into *into would make. */
static void scan_merge(callee_scan *cs, strvec *into)
{
    for (size_t i = 0; i < cs->s->n; i++) {
        for (size_t k = 0; k < cs->per[i].len; k++)
            if (strvec_find(into, cs->per[i].items[k]) < 0)
                strvec_push(into, cs->per[i].items[k]);
        strvec_free(&cs->per[i]);
    }
}

/* The modules patch bodies call functions from, as each model's module imports them
 * at A (checks/callees.h), fetched at both tags in one more batch. The model's
 * modules at A are indexed here for their imports; the comparison keeps those.
 * Then the modules the workspace's modules each generated module imports import
 * names from (checks/ws_imports.h): the models' modules, and those read anyway. */
static void survey_fetch_callees(survey_state *s)
{
    double t0 = now_ms();
    index_jobs j = {{s->parses_a, s->parses}, s->mods, s->nmods};
    par_for(s->nmods, s->o->jobs, index_one, &j); /* items below nmods: side A */
    if (!s->bodies)                               /* made here: the workers share it */
        s->bodies = survey_bodies_new();
    callee_scan cs = {s, pgci_calloc(s->n ? s->n : 1, sizeof(strvec)), NULL, scan_callees};
    par_for(s->n, s->o->jobs, scan_config, &cs);
    scan_merge(&cs, &s->ext);
    strvec read = STRVEC_INIT;
    for (size_t i = 0; i < s->nmods; i++)
        strvec_push(&read, s->mods[i].module);
    for (size_t i = 0; i < s->ext.len; i++)
        strvec_push(&read, s->ext.items[i]);
    cs.read = &read;
    cs.each = scan_ws_imports;
    par_for(s->n, s->o->jobs, scan_config, &cs);
    scan_merge(&cs, &s->wsext);
    free(cs.per);
    strvec_free(&read);
    size_t first = s->nmods;
    s->mods = pgci_realloc(s->mods, (s->nmods + s->ext.len + s->wsext.len + 1) * sizeof(*s->mods));
    for (size_t k = 0; k < 2; k++) {
        const strvec *more = k ? &s->wsext : &s->ext;
        for (size_t i = 0; i < more->len; i++)
            if (find_module(s->mods, s->nmods, more->items[i]) < 0) {
                memset(&s->mods[s->nmods], 0, sizeof(*s->mods));
                s->mods[s->nmods++].module = pgci_strdup(more->items[i]);
            }
    }
    if (s->nmods > first) {
        py_parse_set *const parses[2] = {s->parses_a, s->parses};
        const char *const tags[2] = {s->out->from, s->out->to};
        fetch_both(s->up, parses, tags, s->mods + first, s->nmods - first);
    }
    run_doc_add_timing(&s->out->doc, "callees", now_ms() - t0);
}

/* Index both tags' modules on `jobs` threads. */
static void survey_index(survey_state *s, int jobs)
{
    double t0 = now_ms();
    index_jobs j = {{s->parses_a, s->parses}, s->mods, s->nmods};
    par_for(2 * s->nmods, jobs, index_one, &j);
    s->index_ms = now_ms() - t0;
}

/* Indexes modules, one at a time, until none is left to take (each writes its own
 * module_pair side only). */
static void index_some(survey_state *s)
{
    index_jobs j = {{s->parses_a, s->parses}, s->mods, s->nmods};
    for (;;) {
        pthread_mutex_lock(&s->cmp_lock);
        size_t i = s->ix_next++;
        pthread_mutex_unlock(&s->cmp_lock);
        if (i >= 2 * s->nmods)
            break;
        index_one(&j, 0, i);
        pthread_mutex_lock(&s->cmp_lock);
        if (++s->ix_done == 2 * s->nmods)
            pthread_cond_broadcast(&s->cmp_cond);
        pthread_mutex_unlock(&s->cmp_lock);
    }
}

/* When not one module could be read at a tag, the tag or the source is what failed
 * (an unknown tag, no network): an error of the run, never findings against every
 * config. A module missing while others are read is a finding (removed upstream). */
static int survey_tags_readable(const survey_state *s)
{
    for (int side = 0; side < 2; side++) {
        const char *first = NULL;
        size_t read = 0;
        for (size_t i = 0; i < s->nmods; i++) {
            const char *err = side ? s->mods[i].err_b : s->mods[i].err_a;
            read += !err;
            if (err && !first)
                first = err;
        }
        if (s->nmods && !read)
            return pgci_error_set(PGCI_ENOTFOUND,
                                  "cannot read any of the %zu upstream modules at %s: %s", s->nmods,
                                  side ? s->out->to : s->out->from, first);
    }
    return 0;
}

/* Regenerate every config against B; then the targets check over the regenerations. */
static void survey_regenerate(survey_state *s)
{
    const workspace *ws = s->ws;
    const survey_opts *o = s->o;
    survey_result *out = s->out;
    size_t n = s->n;
    const ws_config **sel = s->sel;
    regen_batch_opts bo;
    memset(&bo, 0, sizeof(bo));
    bo.base.tag = out->to;
    bo.base.no_ruff = o->no_ruff;
    char *ruff = s->ruff = pipeline_ruff_command(ws, o->ruff);
    strbuf ruff_version = STRBUF_INIT;
    if (!o->no_ruff) {
        bo.base.ruff.ruff = ruff;
        bo.base.ruff.extra_ignore = &ws->ruff_extra_ignore;
        bo.base.ruff.isolated = ws->ruff_isolated;
        bo.base.ruff.cwd = ws->root;
        if (s->results && normalize_ruff_version(ruff, &ruff_version) < 0)
            pgci_error_clear(); /* no version: no cached ruff results */
        bo.base.ruff.ruff_version = ruff_version.len ? ruff_version.buf : NULL;
        bo.base.ruff.cache = s->results;
    }
    bo.base.cache = s->results;
    bo.parses = s->parses;
    bo.var_name = o->var_name;
    bo.jobs = o->jobs;
    bo.up = s->up;
    bo.evaluated = s->cfgs; /* evaluated above: not a second time */
    bo.eval_errors = (const char *const *)s->eval_errs;
    /* what the survey reads of a regeneration against B is whether it fails, and
     * why, in ruff's words, and the code generator's notes: not the normalised
     * file or its .diff, so ruff's format is not run */
    bo.verdict_only = 1;
    bo.verdict_words = 1;
    /* one memo of the class rewrites for both regenerations: the configs' overrides
     * are the same at A and B, and so are most classes they go into */
    bo.base.shared = cg_shared_new(s->parses);
    regen_output *outs = s->outs = pgci_calloc(n ? n : 1, sizeof(*outs));
    double t0 = now_ms();
    regen_workspace(ws, sel, n, &bo, outs);
    pgci_error_clear();
    run_doc_add_timing(&out->doc, "regen", now_ms() - t0);
    /* the failing ones again at A, from A's trees; then those go */
    regen_batch_opts at_a = bo;
    at_a.parses = s->parses_a;
    upstream_set_parse_set(s->up, s->parses_a);
    cg_shared_set_parse_set(bo.base.shared, s->parses_a);
    s->standing = survey_failing_at_a(ws, sel, n, &at_a, outs, out->from, &s->standing_why);
    cg_shared_free(bo.base.shared);
    upstream_set_parse_set(s->up, s->parses);
    strbuf_free(&ruff_version); /* bo's ruff settings are used up to here */
    check_input *in = s->in = pgci_calloc(n ? n : 1, sizeof(*in));
    for (size_t i = 0; i < n; i++) {
        in[i].module = sel[i]->module;
        in[i].config_path = sel[i]->path;
        in[i].cfg = s->cfgs[i];
        out->n_failed += !s->cfgs[i] || outs[i].status < 0;
        if (!s->cfgs[i])
            continue;
        in[i].source_module = s->cfgs[i]->source_module;
        if (outs[i].status < 0 && s->standing[i]) {
            out->n_standing++;
            continue; /* fails at A too: not the bump's (pgci check) */
        }
        if (outs[i].status < 0) {
            char *what = pgci_asprintf("fails to regenerate against %s", out->to);
            regen_finding(&out->fs, sel[i]->module, sel[i]->path, s->cfgs[i], what,
                          outs[i].error ? outs[i].error : "error");
            free(what);
            continue;
        }
        in[i].notes = outs[i].cg.notes.items;
        in[i].n_notes = outs[i].cg.notes.len;
    }
    check_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.ws = ws;
    ctx.tag = out->to;
    ctx.inputs = in;
    ctx.n_inputs = n;
    strbuf why = STRBUF_INIT;
    check_run(&check_targets, &ctx, &s->targets, &why);
    strbuf_free(&why);
    run_doc_set_check(&out->doc, "regen", "ran", NULL);
    run_doc_set_check(&out->doc, "targets", "ran", NULL);
}

/* Each config's pair of modules, when both tags have its source module. */
static void survey_pairs(survey_state *s)
{
    survey_result *out = s->out;
    module_pair *mods = s->mods;
    size_t nmods = s->nmods;
    long ui = find_module(mods, nmods, "transformers.modeling_utils");
    long di = find_module(mods, nmods, "transformers.utils.auto_docstring");
    s->cmps = pgci_calloc(s->n ? s->n : 1, sizeof(*s->cmps));
    if (!s->bodies)
        s->bodies = survey_bodies_new();
    s->exts = pgci_calloc(s->ext.len + 1, sizeof(*s->exts));
    for (size_t i = 0; i < s->ext.len; i++) {
        const module_pair *m = &mods[find_module(mods, nmods, s->ext.items[i])];
        s->exts[i] = (survey_ext){m->module,    m->a,         m->b,        m->src_a.buf,
                                  m->src_b.buf, m->src_a.len, m->src_b.len};
    }
    s->wsexts = pgci_calloc(s->wsext.len + 1, sizeof(*s->wsexts));
    for (size_t i = 0; i < s->wsext.len; i++) {
        const module_pair *m = &mods[find_module(mods, nmods, s->wsext.items[i])];
        s->wsexts[i] = (survey_ext){m->module,    m->a,         m->b,        m->src_a.buf,
                                    m->src_b.buf, m->src_a.len, m->src_b.len};
    }
    for (size_t i = 0; i < s->n; i++) {
        if (!s->cfgs[i])
            continue;
        module_pair *mp = &mods[find_module(mods, nmods, s->cfgs[i]->source_module)];
        if (!mp->a || !mp->b)
            continue;
        char *cm = configuration_module(s->cfgs[i]->source_module);
        long ci = cm ? find_module(mods, nmods, cm) : -1;
        free(cm);
        survey_cmp *c = &s->cmps[i];
        c->ready = 1;
        c->config_a = ci >= 0 ? mods[ci].a : NULL;
        c->sp = (survey_pair){
            .config = s->sel[i]->module,
            .config_path = s->sel[i]->path,
            .cfg = s->cfgs[i],
            .a = mp->a,
            .b = mp->b,
            .tag_a = out->from,
            .tag_b = out->to,
            .src_b = mp->src_b.buf,
            .src_b_len = mp->src_b.len,
            .src_a = mp->src_a.buf,
            .src_a_len = mp->src_a.len,
            .config_b = ci >= 0 ? mods[ci].b : NULL,
            .parses = s->parses,
            .parses_a = s->parses_a,
            .bodies = s->bodies,
            .docs_a = di >= 0 ? mods[di].a : NULL,
            .docs_b = di >= 0 ? mods[di].b : NULL,
            .ext = s->exts,
            .n_ext = s->ext.len,
            .ws_ext = s->wsexts,
            .n_ws_ext = s->wsext.len,
        };
        if (ui >= 0 && mods[ui].a && mods[ui].b) {
            c->sp.base_a = mods[ui].a;
            c->sp.base_b = mods[ui].b;
            c->sp.base_src_a = mods[ui].src_a.buf;
            c->sp.base_src_a_len = mods[ui].src_a.len;
            c->sp.base_src_b = mods[ui].src_b.buf;
            c->sp.base_src_b_len = mods[ui].src_b.len;
        }
    }
}

/* Compares configs, one at a time, until none is left to take. Each config's
 * comparison reads its pair and writes its own survey_cmp only; what configs share
 * (the parse sets, the indexes' fingerprints, the memos of checks/survey_trees.h)
 * is made under locks and the same whichever thread asks first, so the findings do
 * not depend on which thread compared what. */
static void compare_some(survey_state *s)
{
    for (;;) {
        pthread_mutex_lock(&s->cmp_lock);
        size_t i = s->cmp_next++;
        pthread_mutex_unlock(&s->cmp_lock);
        if (i >= s->n)
            break;
        survey_cmp *c = &s->cmps[i];
        if (!c->ready)
            continue;
        survey_compare_checks(&c->checked, &c->sp, c->config_a);
        c->checked_done = 1;
    }
    pgci_error_clear();
}

/* The modules of both tags indexed, then the two-tag checks of every config
 * (checks/survey_compare.h). They read the indexes and sources of both tags, the
 * evaluated configs and the run's parse sets, all of which the regeneration only
 * reads too (the trees the index reads are the upstream layer's, made before). */
static void *compare_main(void *arg)
{
    survey_state *s = arg;
    if (s->cmp_shared) {
        /* the regeneration's thread may take some of them once it is done */
        double t0 = now_ms();
        index_some(s);
        pthread_mutex_lock(&s->cmp_lock);
        while (s->ix_done < 2 * s->nmods)
            pthread_cond_wait(&s->cmp_cond, &s->cmp_lock);
        pthread_mutex_unlock(&s->cmp_lock);
        s->index_ms = now_ms() - t0;
    } else {
        survey_index(s, s->index_jobs);
    }
    survey_pairs(s);
    pthread_mutex_lock(&s->cmp_lock);
    s->cmp_ready = 1;
    pthread_cond_broadcast(&s->cmp_cond);
    pthread_mutex_unlock(&s->cmp_lock);
    double t0 = now_ms();
    compare_some(s);
    s->cmp_ms = now_ms() - t0;
    return NULL;
}

/* With more than one job, the index and the comparison run on a thread of their
 * own while the configs are regenerated against B; with -j 1 (or no thread), here
 * and now. */
static void survey_compare_start(survey_state *s)
{
    s->index_jobs = 1;
    s->cmp_shared = s->o->jobs > 1;
    s->cmp_started = s->cmp_shared && pthread_create(&s->cmp_thread, NULL, compare_main, s) == 0;
    if (!s->cmp_started) {
        s->cmp_shared = 0;
        s->index_jobs = s->o->jobs;
        compare_main(s);
    }
}

/* The regeneration's thread, done, takes the comparisons the comparison's thread
 * has not reached yet (with the result cache warm, the regeneration takes a
 * fraction of the comparison's time). */
static void survey_compare_help(survey_state *s)
{
    if (!s->cmp_started || s->cmp_joined)
        return;
    index_some(s);
    pthread_mutex_lock(&s->cmp_lock);
    while (!s->cmp_ready)
        pthread_cond_wait(&s->cmp_cond, &s->cmp_lock);
    pthread_mutex_unlock(&s->cmp_lock);
    compare_some(s);
}

static void survey_compare_wait(survey_state *s)
{
    if (s->cmp_started && !s->cmp_joined) {
        pthread_join(s->cmp_thread, NULL);
        s->cmp_joined = 1;
    }
}

/* Compare A with B under each config: the survey's contract checks, the
 * CHECK_IN_SURVEY rows of check_registry[] in order, joined by the targets
 * check's findings of the regeneration against B. */
static void survey_run_checks(survey_state *s)
{
    survey_result *out = s->out;
    const ws_config **sel = s->sel;
    pg_config **cfgs = s->cfgs;
    module_pair *mods = s->mods;
    survey_compare_wait(s);
    double t0 = now_ms();
    size_t missing_a = 0, missing_b = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!cfgs[i])
            continue;
        survey_cmp *c = &s->cmps[i];
        if (c->ready) {
            /* the registry's survey checks, changes only (checks/survey_compare.h) */
            survey_compare_finish(&out->fs, &c->sp, &c->checked, &s->targets);
            c->checked_done = 0;
            continue;
        }
        module_pair *mp = &mods[find_module(mods, s->nmods, cfgs[i]->source_module)];
        const char *why_not = !mp->a ? mp->err_a : mp->err_b;
        missing_a += !mp->a;
        missing_b += !mp->b;
        findings_add(&out->fs, "signatures", SEV_ERROR, sel[i]->module, sel[i]->path, 0, 0, NULL,
                     "cannot compare %s between %s and %s: %s", cfgs[i]->source_module, out->from,
                     out->to, why_not ? why_not : "not available");
    }
    run_doc_add_timing(&out->doc, "compare", s->cmp_ms + now_ms() - t0);
    /* A's trees: the comparison read the bodies under overrides from them; A's
     * indexes let theirs go too (a fingerprint asked later parses again). A
     * process that exits after the run leaves them to its exit, as B's: what
     * follows allocates little (the bases' modules at B, the record), and freeing
     * them node by node here, on one thread at the run's end, was a fortieth of
     * the cold survey's time */
    if (s->o->exits_after)
        py_parse_set_leave(s->parses_a);
    else
        py_parse_set_free_jobs(s->parses_a, s->o->jobs);
    for (size_t i = 0; i < s->nmods; i++)
        if (s->mods[i].a != s->mods[i].b) /* B's too when the same: kept */
            index_module_drop_tree(s->mods[i].a);
    s->parses_a = NULL;
    for (const check_entry *e = check_registry; e->def; e++)
        if (e->where == CHECK_IN_SURVEY)
            run_doc_set_check(&out->doc, e->def->id, missing_a || missing_b ? "failed" : "ran",
                              missing_a || missing_b ? "upstream modules missing at a tag" : NULL);
}

/* Fetches and indexes mods at B only (side A stays unread, with no error: those
 * are read for B's classes alone). */
static void fetch_bases_at_b(survey_state *s, module_pair *mods, size_t n)
{
    py_parse_set *const parses[2] = {NULL, s->parses};
    const char *const tags[2] = {s->out->from, s->out->to};
    fetch_sides(s->up, parses, tags, mods, n, 1);
    index_jobs j = {{NULL, s->parses}, mods, n};
    for (size_t i = n; i < 2 * n; i++)
        index_one(&j, 0, i);
}

/* A method a patch body calls through self that left the model's module while the
 * class has bases outside it: the modules those bases come from, read at B a round
 * at a time (a package's `__init__` that re-exports a class is one more round),
 * settle it (checks/external_bases.h). Nothing is read when no finding asks. A
 * module is tried as `M.py` and as the package `M/__init__.py`; what was read
 * joins the run's inputs. */
static void survey_settle_bases(survey_state *s)
{
    double t0 = now_ms();
    xbases *x = xbases_new();
    /* what was read at B already; a module not read as `M.py` (a package:
     * transformers.utils, which patch bodies import functions from) is asked again */
    for (size_t i = 0; i < s->nmods; i++)
        if (s->mods[i].b)
            xbases_add(x, s->mods[i].module, s->mods[i].b);
    strvec need = STRVEC_INIT;
    for (int round = 0; round < 6; round++) {
        strvec_free(&need);
        xbases_needed(x, &s->out->fs, &need);
        if (!need.len)
            break;
        size_t first = s->nmods, n = 2 * need.len;
        s->mods = pgci_realloc(s->mods, (s->nmods + n) * sizeof(*s->mods));
        memset(s->mods + first, 0, n * sizeof(*s->mods));
        for (size_t i = 0; i < need.len; i++) {
            s->mods[first + 2 * i].module = pgci_asprintf("%s.__init__", need.items[i]);
            s->mods[first + 2 * i + 1].module = pgci_strdup(need.items[i]);
        }
        s->nmods += n;
        fetch_bases_at_b(s, s->mods + first, n);
        for (size_t i = 0; i < need.len; i++) {
            const module_pair *pkg = &s->mods[first + 2 * i], *mod = pkg + 1;
            xbases_add(x, need.items[i], pkg->b ? pkg->b : mod->b);
        }
    }
    xbases_settle(x, &s->out->fs);
    xbases_free(x);
    strvec_free(&need);
    run_doc_add_timing(&s->out->doc, "bases", now_ms() - t0);
}

/* A config failing at both tags fails at B for a cause of the bump's when ruff's
 * words at B name, undefined, a name a patch body reads that A's module had and
 * B's has not (a name-removed or import-removed finding): 5.14.1 dropped
 * `apply_rotary_pos_emb` from a module whose config already failed at 5.12.1 on
 * another name, which 5.14.1 brought back. Those findings are the failure's cause
 * (data.fails_regen), and the failure is the bump's, not standing. */
static void standing_new_causes(survey_state *s)
{
    survey_result *out = s->out;
    for (size_t i = 0; i < s->n; i++) {
        const char *err = s->outs[i].error;
        if (!s->cfgs[i] || s->outs[i].status >= 0 || !s->standing[i] || !err)
            continue;
        for (size_t k = 0; k < out->fs.len; k++) {
            finding *f = out->fs.items[k];
            const char *kind = json_string_value(json_object_get(f->data, "kind"));
            const char *name = json_string_value(json_object_get(f->data, "name"));
            if (!f->config || strcmp(f->config, s->sel[i]->module) || !kind || !name ||
                (strcmp(kind, "name-removed") && strcmp(kind, "import-removed")))
                continue;
            char *undefined = pgci_asprintf("F821 Undefined name `%s`", name);
            if (strstr(err, undefined)) {
                json_object_set_new(f->data, "fails_regen", json_true());
                if (s->standing[i]) {
                    s->standing[i] = 0;
                    out->n_standing--;
                }
            }
            free(undefined);
        }
    }
}

/* A config failing at both tags whose failure at B has a cause its failure at A
 * had not (regen_causes.h; a name the bump removed is standing_new_causes'): what
 * the maintainer meets next after the bump, an error of its own, not standing. */
static void standing_other_causes(survey_state *s)
{
    survey_result *out = s->out;
    for (size_t i = 0; i < s->n; i++) {
        const char *err = s->outs[i].error, *was = s->standing_why[i];
        if (!s->cfgs[i] || s->outs[i].status >= 0 || !s->standing[i] || !err || !was)
            continue;
        regen_causes ca, cb;
        regen_causes_read(&ca, was);
        regen_causes_read(&cb, err);
        strvec fresh = STRVEC_INIT;
        if (regen_causes_new(&ca, &cb, &fresh) && fresh.len) {
            s->standing[i] = 0;
            out->n_standing--;
            strbuf list = STRBUF_INIT; /* each new cause, the first in full: the change */
            for (size_t k = 0; k < fresh.len; k++) {
                char *c = k ? regen_cause_short(fresh.items[k]) : pgci_strdup(fresh.items[k]);
                strbuf_addf(&list, "%s%s", k ? ", " : "", c);
                free(c);
            }
            char *what =
                pgci_asprintf("fails to regenerate against %s, for %s it had not at %s "
                              "(%s)",
                              out->to, fresh.len > 1 ? "causes" : "a cause", out->from, list.buf);
            regen_finding(&out->fs, s->sel[i]->module, s->sel[i]->path, s->cfgs[i], what, err);
            free(what);
            strbuf_free(&list);
        }
        strvec_free(&fresh);
        regen_causes_free(&ca);
        regen_causes_free(&cb);
    }
}

/* Counts and each config's status from the findings. */
static void survey_config_status(survey_state *s)
{
    survey_result *out = s->out;
    standing_new_causes(s);
    standing_other_causes(s);
    strvec vanished = STRVEC_INIT, changed = STRVEC_INIT;
    for (size_t k = 0; k < out->fs.len; k++) {
        const finding *f = out->fs.items[k];
        const char *kind = json_string_value(json_object_get(f->data, "kind"));
        const char *target = json_string_value(json_object_get(f->data, "target"));
        if (!target)
            continue;
        int counted = changes_target_count_kind(f->check, kind);
        strvec *into = counted == 1 ? &vanished : counted == 2 ? &changed : NULL;
        if (into && strvec_find(into, target) < 0)
            strvec_push(into, target);
    }
    out->n_vanished = vanished.len;
    out->n_changed = changed.len;
    strvec_free(&vanished);
    strvec_free(&changed);
    const ws_config **sel = s->sel;
    const regen_output *outs = s->outs;
    for (size_t i = 0; i < s->n; i++) {
        int failed = !s->cfgs[i] || outs[i].status < 0;
        int errors = 0;
        for (size_t k = 0; k < out->fs.len; k++)
            errors |= out->fs.items[k]->config &&
                      !strcmp(out->fs.items[k]->config, sel[i]->module) &&
                      out->fs.items[k]->sev == SEV_ERROR;
        json_t *c = run_doc_set_config(&out->doc, sel[i]->module, sel[i]->path,
                                       failed   ? "failed"
                                       : errors ? "drift"
                                                : "ok",
                                       failed && outs[i].error ? outs[i].error : NULL);
        /* fails against `from` as well: in the count, not among the findings */
        if (failed && s->cfgs[i] && s->standing[i])
            json_object_set_new(c, "standing", json_true());
    }
}

/* The SHA-256 of a module's text: the one indexing took from the parse set, or
 * hashed now. */
static void module_digest(const strbuf *src, const char *known, char hex[SHA256_HEX_LEN + 1])
{
    if (known[0])
        memcpy(hex, known, SHA256_HEX_LEN + 1);
    else
        sha256_hex(src->buf, src->len, hex);
}

/* The upstream files compared, by hash; then the findings. */
static void survey_record(survey_state *s)
{
    survey_result *out = s->out;
    const module_pair *mods = s->mods;
    for (size_t i = 0; i < s->nmods; i++) {
        char hex[SHA256_HEX_LEN + 1];
        strbuf name = STRBUF_INIT;
        if (mods[i].a) {
            module_digest(&mods[i].src_a, mods[i].hex_a, hex);
            strbuf_addf(&name, "upstream:%s@%s", mods[i].module, out->from);
            run_doc_add_input_file(&out->doc, name.buf, hex);
        }
        if (mods[i].b) {
            strbuf_reset(&name);
            module_digest(&mods[i].src_b, mods[i].hex_b, hex);
            strbuf_addf(&name, "upstream:%s@%s", mods[i].module, out->to);
            run_doc_add_input_file(&out->doc, name.buf, hex);
        }
        strbuf_free(&name);
    }
    findings_sort(&out->fs);
    run_doc_set_findings(&out->doc, &out->fs);
    /* the findings grouped by upstream change: an id on each, the list beside */
    json_object_set_new(out->doc.root, "changes", changes_group(run_doc_findings(&out->doc)));
}

/* What a run must still do before its process exits: the comparison's thread
 * joined, the upstream's and the result cache's handles closed (a cache's writes
 * settled, a temporary directory removed). */
static void survey_state_close(survey_state *s)
{
    survey_compare_wait(s);
    upstream_free(s->up);
    s->up = NULL;
    rcache_free(s->results);
    s->results = NULL;
}

/* The states left to the process's exit (survey_state_leave), kept reachable so
 * that a leak checker reads them as memory in use, not lost. */
static struct {
    pthread_mutex_t lock;
    survey_state *states[4];
    size_t n;
} left_states = {PTHREAD_MUTEX_INITIALIZER, {NULL}, 0};

/* The run's memory left to the process's exit, which gives it back at once:
 * freeing its indexes, configs, trees and regenerations piece by piece took
 * 12 ms on one thread at the end of a 0.8 s cold survey. Returns 0 when left,
 * -1 when there was no room (the caller frees). */
static int survey_state_leave(const survey_state *s)
{
    pthread_mutex_lock(&left_states.lock);
    int kept = left_states.n < sizeof(left_states.states) / sizeof(left_states.states[0]);
    if (kept) {
        survey_state *copy = pgci_calloc(1, sizeof(*copy));
        *copy = *s;
        left_states.states[left_states.n++] = copy;
    }
    pthread_mutex_unlock(&left_states.lock);
    return kept ? 0 : -1;
}

static void survey_state_free(survey_state *s)
{
    survey_state_close(s);
    for (size_t i = 0; s->cmps && i < s->n; i++)
        if (s->cmps[i].checked_done)
            survey_checked_free(&s->cmps[i].checked);
    free(s->cmps);
    survey_bodies_free(s->bodies);
    strvec_free(&s->ext);
    free(s->exts);
    strvec_free(&s->wsext);
    free(s->wsexts);
    module_pair *mods = s->mods;
    for (size_t i = 0; i < s->nmods; i++) {
        free(mods[i].module);
        strbuf_free(&mods[i].src_a);
        strbuf_free(&mods[i].src_b);
        if (mods[i].a)
            index_module_free(mods[i].a);
        if (mods[i].b && mods[i].b != mods[i].a)
            index_module_free(mods[i].b);
        free(mods[i].err_a);
        free(mods[i].err_b);
    }
    for (size_t i = 0; i < s->n; i++) {
        if (s->outs)
            regen_output_free(&s->outs[i]);
        if (s->cfgs && s->cfgs[i])
            pg_config_free(s->cfgs[i]);
        if (s->eval_errs)
            free(s->eval_errs[i]);
    }
    free(s->eval_errs);
    free(mods);
    for (size_t i = 0; s->standing_why && i < s->n; i++)
        free(s->standing_why[i]);
    free(s->standing_why);
    free(s->standing);
    findings_free(&s->targets);
    free(s->outs);
    free(s->in);
    free(s->cfgs);
    free(s->sel);
    if (s->o->exits_after)
        py_parse_set_leave(s->parses);
    else
        py_parse_set_free_jobs(s->parses, s->o->jobs);
    py_parse_set_free_jobs(s->parses_a, s->o->jobs);
    free(s->ruff);
    pthread_mutex_destroy(&s->cmp_lock);
    pthread_cond_destroy(&s->cmp_cond);
}

int survey_run(const workspace *ws, const survey_opts *o, survey_result *out)
{
    memset(out, 0, sizeof(*out));
    run_doc_init(&out->doc, "survey", o->timestamp);
    survey_state s;
    memset(&s, 0, sizeof(s));
    s.ws = ws;
    s.o = o;
    s.out = out;
    pthread_mutex_init(&s.cmp_lock, NULL);
    pthread_cond_init(&s.cmp_cond, NULL);
    int r;
    if ((r = survey_resolve(&s)) < 0 || (r = survey_evaluate(&s)) < 0)
        goto out;
    survey_fetch(&s);
    if ((r = survey_tags_readable(&s)) < 0)
        goto out;
    survey_fetch_callees(&s);
    survey_compare_start(&s);
    survey_regenerate(&s);
    survey_compare_help(&s);
    /* a module fetched but not indexed counts as unread, as a fetch failure does */
    survey_compare_wait(&s);
    run_doc_add_timing(&s.out->doc, "fetch+index", s.index_ms);
    if ((r = survey_tags_readable(&s)) < 0)
        goto out;
    survey_run_checks(&s);
    survey_settle_bases(&s);
    survey_config_status(&s);
    survey_record(&s);
out:
    if (o->exits_after) {
        survey_state_close(&s);
        if (survey_state_leave(&s) == 0)
            return r;
    }
    survey_state_free(&s);
    return r;
}

void survey_result_free(survey_result *r)
{
    findings_free(&r->fs);
    run_doc_free(&r->doc);
    free(r->from);
    free(r->to);
    strvec_free(&r->not_run);
}
