/*
 * GitHub workflow commands: one annotation per place, e.g.
 *   ::error file=demo/x.py,line=12,col=5,title=pgci names (cfg)::undefined name 'Optional'
 * and first, when the gate could not run, one for its error.
 * The runner parses these lines, so values are escaped exactly as it expects:
 * in the message %, CR and LF; in properties also ':' and ','.
 *
 * GitHub shows at most 10 annotations of each kind (error, warning, notice) a step
 * and drops the rest in silence, first come first shown. So a kind's annotations
 * say each thing once and the first say the most:
 * - findings equal but for their config are one fact naming the configs
 *   (finding_groups.h), and the facts of a kind at one line of one file are one
 *   annotation, each fact a line of it (a signature changed and its body changed
 *   under one override; a regeneration failure and the name that caused it);
 * - the annotations of a kind go broadest first (the most configs), then one for
 *   each file before a second for any, then in the run's order: the ten shown
 *   name as many configs and files as they can;
 * - a kind with more than GitHub shows opens with one annotation saying how many
 *   there are and where the others are, so a reader of the PR's checks knows when
 *   there is more than they see.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "pipeline/run_shard.h"
#include "reports/finding_groups.h"
#include "reports/render.h"

static void esc_data(strbuf *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '%')
            strbuf_adds(out, "%25");
        else if (*s == '\r')
            strbuf_adds(out, "%0D");
        else if (*s == '\n')
            strbuf_adds(out, "%0A");
        else
            strbuf_addc(out, *s);
    }
}

static void esc_prop(strbuf *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == ':')
            strbuf_adds(out, "%3A");
        else if (*s == ',')
            strbuf_adds(out, "%2C");
        else if (*s == '%')
            strbuf_adds(out, "%25");
        else if (*s == '\r')
            strbuf_adds(out, "%0D");
        else if (*s == '\n')
            strbuf_adds(out, "%0A");
        else
            strbuf_addc(out, *s);
    }
}

static const char *command_of(const char *sev)
{
    return !strcmp(sev, "error") ? "error" : !strcmp(sev, "warning") ? "warning" : "notice";
}

/* The annotations of one kind at one line of one file, or of one fact without
 * a line: the groups of finding_groups, chained in the run's order. */
typedef struct place {
    size_t first, last; /* groups; next[] chains the others */
    size_t ngroups;
    strvec configs; /* every group's configs, once each */
    size_t nth;     /* places of its kind and file before it */
    size_t order;   /* in the run */
} place;

typedef struct places {
    place *items;
    size_t len, cap;
} places;

static const char *str_of(json_t *f, const char *k)
{
    return json_string_value(json_object_get(f, k));
}

static json_int_t int_of(json_t *f, const char *k)
{
    return json_integer_value(json_object_get(f, k));
}

static int same_set(const strvec *a, const strvec *b)
{
    if (a->len != b->len)
        return 0;
    for (size_t i = 0; i < a->len; i++)
        if (strvec_find(b, a->items[i]) < 0)
            return 0;
    return 1;
}

/* A fact's configs: their names, or, when they are every config of a run of
 * more than three, that (a workspace file every config imports). */
static void add_configs(strbuf *sb, const strvec *cs, size_t run_configs)
{
    if (cs->len > 3 && cs->len == run_configs) {
        strbuf_addf(sb, "every config of the run (%zu)", cs->len);
        return;
    }
    for (size_t i = 0; i < cs->len; i++)
        strbuf_addf(sb, "%s%s", i ? ", " : "", cs->items[i]);
}

static void annotate(strbuf *out, const finding_groups *gs, const size_t *next, const place *p,
                     size_t run_configs)
{
    json_t *f = gs->items[p->first].first;
    const char *path = str_of(f, "path");
    json_int_t line = int_of(f, "line"), col = int_of(f, "col");
    strvec checks = STRVEC_INIT;
    int configs_differ = 0;
    for (size_t g = p->first;; g = next[g]) {
        const finding_group *fg = &gs->items[g];
        if (strvec_find(&checks, str_of(fg->first, "check")) < 0)
            strvec_push(&checks, str_of(fg->first, "check"));
        if (int_of(fg->first, "col") != col)
            col = 0; /* facts at several columns: the line */
        configs_differ |= !same_set(&fg->configs, &gs->items[p->first].configs);
        if (g == p->last)
            break;
    }
    strbuf_addf(out, "::%s ", command_of(str_of(f, "severity")));
    if (path) {
        strbuf_adds(out, "file=");
        esc_prop(out, path);
        if (line > 0)
            strbuf_addf(out, ",line=%lld", (long long)line);
        if (col > 0)
            strbuf_addf(out, ",col=%lld", (long long)col);
        strbuf_addc(out, ',');
    }
    strbuf_adds(out, "title=");
    strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, "pgci ");
    for (size_t i = 0; i < checks.len; i++)
        strbuf_addf(&sb, "%s%s", i ? ", " : "", checks.items[i]);
    if (p->configs.len == 1)
        strbuf_addf(&sb, " (%s)", p->configs.items[0]);
    else if (p->configs.len > 1)
        strbuf_addf(&sb, " (%zu configs)", p->configs.len);
    esc_prop(out, sb.buf);
    strbuf_reset(&sb);
    strbuf_adds(out, "::");
    for (size_t g = p->first;; g = next[g]) {
        const finding_group *fg = &gs->items[g];
        if (p->ngroups > 1) {
            strbuf_adds(&sb, g == p->first ? "- " : "\n- ");
            if (checks.len > 1)
                strbuf_addf(&sb, "%s: ", str_of(fg->first, "check"));
        }
        strbuf_adds(&sb, str_of(fg->first, "title"));
        if (configs_differ && fg->configs.len) {
            strbuf_adds(&sb, " (");
            add_configs(&sb, &fg->configs, run_configs);
            strbuf_addc(&sb, ')');
        }
        if (g == p->last)
            break;
    }
    if (!configs_differ && p->configs.len > 1) {
        strbuf_adds(&sb, "\n\nconfigs: ");
        add_configs(&sb, &p->configs, run_configs);
    }
    esc_data(out, sb.buf);
    strbuf_free(&sb);
    strvec_free(&checks);
    strbuf_addc(out, '\n');
}

/* The annotation that opens a kind with more than GitHub shows. */
static void announce(strbuf *out, const char *cmd, const char *noun, size_t nplaces, size_t groups,
                     size_t nfindings, size_t shown)
{
    strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%zu %ss", groups, noun);
    if (nfindings > groups && nplaces < groups)
        strbuf_addf(&sb,
                    " (%zu findings) in %zu annotations: one under several configs, and those "
                    "at one line, are one annotation",
                    nfindings, nplaces);
    else if (nfindings > groups)
        strbuf_addf(&sb, " (%zu findings: one under several configs is one annotation)", nfindings);
    else if (nplaces < groups)
        strbuf_addf(&sb, " in %zu annotations: those at one line are one", nplaces);
    strbuf_addf(&sb,
                ". GitHub shows %d annotations of each kind a step, this one and the first %zu; "
                "every one is in this step's log and the job summary.",
                GITHUB_ANNOTATIONS_PER_KIND, shown);
    strbuf_addf(out, "::%s title=pgci::", cmd);
    esc_data(out, sb.buf);
    strbuf_addc(out, '\n');
    strbuf_free(&sb);
}

/* The places of one kind (a command), in the run's order: the groups of that
 * kind at one file and line share one; a group without a line has its own. */
static void places_build(places *ps, size_t **next_out, const finding_groups *gs, const char *cmd)
{
    hashmap at = HASHMAP_INIT;    /* path \x1f line -> place index + 1 */
    hashmap files = HASHMAP_INIT; /* path -> places so far + 1 */
    strbuf k = STRBUF_INIT;
    size_t *next = pgci_calloc(gs->len ? gs->len : 1, sizeof *next);
    for (size_t i = 0; i < gs->len; i++) {
        json_t *f = gs->items[i].first;
        if (strcmp(command_of(str_of(f, "severity")), cmd))
            continue;
        const char *path = str_of(f, "path");
        json_int_t line = int_of(f, "line");
        size_t pi = 0;
        if (path && line > 0) {
            strbuf_reset(&k);
            strbuf_addf(&k, "%s\x1f%lld", path, (long long)line);
            pi = (size_t)(uintptr_t)hashmap_get(&at, k.buf);
        }
        if (pi) {
            place *p = &ps->items[pi - 1];
            next[p->last] = i;
            p->last = i;
            p->ngroups++;
        } else {
            place p = {i, i, 1, STRVEC_INIT, 0, ps->len};
            if (path) {
                size_t seen = (size_t)(uintptr_t)hashmap_get(&files, path);
                p.nth = seen;
                hashmap_put(&files, path, (void *)(uintptr_t)(p.nth + 1));
            }
            VEC_PUSH(ps, p);
            if (path && line > 0)
                hashmap_put(&at, k.buf, (void *)(uintptr_t)ps->len);
            pi = ps->len;
        }
        strvec *cs = &ps->items[pi - 1].configs;
        for (size_t c = 0; c < gs->items[i].configs.len; c++)
            if (strvec_find(cs, gs->items[i].configs.items[c]) < 0)
                strvec_push(cs, gs->items[i].configs.items[c]);
    }
    strbuf_free(&k);
    hashmap_free(&at);
    hashmap_free(&files);
    *next_out = next;
}

/* Broadest first, then the first place of each file before any second, then the
 * run's order. */
static int by_rank(const void *a, const void *b)
{
    const place *x = a, *y = b;
    if (x->configs.len != y->configs.len)
        return x->configs.len > y->configs.len ? -1 : 1;
    if (x->nth != y->nth)
        return x->nth < y->nth ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static void places_free(places *ps)
{
    for (size_t i = 0; i < ps->len; i++)
        strvec_free(&ps->items[i].configs);
    VEC_FREE(ps);
}

void report_github(strbuf *out, const run_doc *d)
{
    static const struct {
        const char *sev, *cmd, *noun;
    } kinds[] = {
        {"error", "error", "error"}, {"warning", "warning", "warning"}, {"info", "notice", "note"}};
    enum { NKINDS = sizeof kinds / sizeof kinds[0] };
    finding_groups gs = FINDING_GROUPS_INIT;
    finding_groups_build(&gs, run_doc_findings(d));
    size_t run_configs = json_array_size(run_doc_configs(d));
    /* a gate that could not run fails the job with no finding to show why: one
     * annotation says so in the PR's checks */
    int gate_error = run_doc_error(d) != NULL;
    if (gate_error) {
        strbuf_adds(out, "::error title=pgci::");
        esc_data(out, run_doc_error(d));
        strbuf_addc(out, '\n');
    }
    places ps[NKINDS];
    size_t *next[NKINDS];
    for (size_t k = 0; k < NKINDS; k++) {
        ps[k] = (places){NULL, 0, 0};
        places_build(&ps[k], &next[k], &gs, kinds[k].cmd);
        size_t groups = 0, nfindings = 0;
        for (size_t i = 0; i < ps[k].len; i++) {
            groups += ps[k].items[i].ngroups;
            for (size_t g = ps[k].items[i].first;; g = next[k][g]) {
                nfindings += gs.items[g].count;
                if (g == ps[k].items[i].last)
                    break;
            }
        }
        size_t before = k == 0 && gate_error; /* the gate's error is shown first */
        if (before + ps[k].len > GITHUB_ANNOTATIONS_PER_KIND)
            announce(out, kinds[k].cmd, kinds[k].noun, ps[k].len, groups, nfindings,
                     GITHUB_ANNOTATIONS_PER_KIND - 1 - before);
    }
    for (size_t k = 0; k < NKINDS; k++) {
        if (ps[k].len > 1)
            qsort(ps[k].items, ps[k].len, sizeof *ps[k].items, by_rank);
        for (size_t i = 0; i < ps[k].len; i++)
            annotate(out, &gs, next[k], &ps[k].items[i], run_configs);
        places_free(&ps[k]);
        free(next[k]);
    }
    finding_groups_free(&gs);
}
