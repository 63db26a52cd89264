/*
 * GitHub workflow commands: one annotation per distinct finding, e.g.
 *   ::error file=demo/x.py,line=12,col=5,title=pgci names (cfg)::undefined name 'Optional'
 * and first, when the gate could not run, one for its error.
 * The runner parses these lines, so values are escaped exactly as it expects:
 * in the message %, CR and LF; in properties also ':' and ','.
 *
 * GitHub shows at most 10 annotations of each kind (error, warning, notice) a step
 * and drops the rest in silence, first come first shown. So findings equal but for
 * their config are one annotation naming the configs (finding_groups.h), and a kind
 * with more than GitHub shows opens with one annotation saying how many there are
 * and where the others are: the first ones shown are never all one fact, and a
 * reader of the PR's checks knows when there is more than they see.
 */
#include <string.h>

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

static void annotate(strbuf *out, const finding_group *g)
{
    json_t *f = g->first;
    const char *path = json_string_value(json_object_get(f, "path"));
    json_int_t line = json_integer_value(json_object_get(f, "line"));
    json_int_t col = json_integer_value(json_object_get(f, "col"));
    strbuf_addf(out, "::%s ", command_of(json_string_value(json_object_get(f, "severity"))));
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
    strbuf_addf(&sb, "pgci %s", json_string_value(json_object_get(f, "check")));
    if (g->configs.len == 1)
        strbuf_addf(&sb, " (%s)", g->configs.items[0]);
    else if (g->configs.len > 1)
        strbuf_addf(&sb, " (%zu configs)", g->configs.len);
    esc_prop(out, sb.buf);
    strbuf_reset(&sb);
    strbuf_adds(out, "::");
    strbuf_adds(&sb, json_string_value(json_object_get(f, "title")));
    if (g->configs.len > 1) {
        strbuf_adds(&sb, "\n\nconfigs: ");
        for (size_t i = 0; i < g->configs.len; i++)
            strbuf_addf(&sb, "%s%s", i ? ", " : "", g->configs.items[i]);
    }
    esc_data(out, sb.buf);
    strbuf_free(&sb);
    strbuf_addc(out, '\n');
}

/* The annotation that opens a kind with more than GitHub shows. */
static void announce(strbuf *out, const char *cmd, const char *noun, size_t groups,
                     size_t nfindings, size_t shown)
{
    strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%zu %ss", groups, noun);
    if (nfindings > groups)
        strbuf_addf(&sb, " (%zu findings: one under several configs is one annotation)", nfindings);
    strbuf_addf(&sb,
                ". GitHub shows %d annotations of each kind a step, this one and the first %zu; "
                "every one is in this step's log and the job summary.",
                GITHUB_ANNOTATIONS_PER_KIND, shown);
    strbuf_addf(out, "::%s title=pgci::", cmd);
    esc_data(out, sb.buf);
    strbuf_addc(out, '\n');
    strbuf_free(&sb);
}

void report_github(strbuf *out, const run_doc *d)
{
    static const struct {
        const char *sev, *cmd, *noun;
    } kinds[] = {
        {"error", "error", "error"}, {"warning", "warning", "warning"}, {"info", "notice", "note"}};
    finding_groups gs = FINDING_GROUPS_INIT;
    finding_groups_build(&gs, run_doc_findings(d));
    /* a gate that could not run fails the job with no finding to show why: one
     * annotation says so in the PR's checks */
    int gate_error = run_doc_error(d) != NULL;
    if (gate_error) {
        strbuf_adds(out, "::error title=pgci::");
        esc_data(out, run_doc_error(d));
        strbuf_addc(out, '\n');
    }
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t groups = 0, nfindings = 0;
        for (size_t i = 0; i < gs.len; i++) {
            json_t *f = gs.items[i].first;
            if (strcmp(command_of(json_string_value(json_object_get(f, "severity"))), kinds[k].cmd))
                continue;
            groups++;
            nfindings += gs.items[i].count;
        }
        size_t before = k == 0 && gate_error; /* the gate's error is shown first */
        if (before + groups > GITHUB_ANNOTATIONS_PER_KIND)
            announce(out, kinds[k].cmd, kinds[k].noun, groups, nfindings,
                     GITHUB_ANNOTATIONS_PER_KIND - 1 - before);
    }
    for (size_t i = 0; i < gs.len; i++)
        annotate(out, &gs.items[i]);
    finding_groups_free(&gs);
}
