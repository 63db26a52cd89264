/*
 * GitHub workflow commands: one annotation per finding, e.g.
 *   ::error file=demo/x.py,line=12,col=5,title=names::undefined name 'Optional'
 * and first, when the gate could not run, one for its error.
 * The runner parses these lines, so values are escaped exactly as it expects:
 * in the message %, CR and LF; in properties also ':' and ','.
 */
#include <string.h>

#include "pipeline/run_shard.h"
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

void report_github(strbuf *out, const run_doc *d)
{
    /* a gate that could not run fails the job with no finding to show why: one
     * annotation says so in the PR's checks */
    if (run_doc_error(d)) {
        strbuf_adds(out, "::error title=pgci::");
        esc_data(out, run_doc_error(d));
        strbuf_addc(out, '\n');
    }
    size_t i;
    json_t *f;
    json_array_foreach(run_doc_findings(d), i, f)
    {
        const char *sev = json_string_value(json_object_get(f, "severity"));
        const char *cmd = !strcmp(sev, "error")     ? "error"
                          : !strcmp(sev, "warning") ? "warning"
                                                    : "notice";
        const char *path = json_string_value(json_object_get(f, "path"));
        json_int_t line = json_integer_value(json_object_get(f, "line"));
        json_int_t col = json_integer_value(json_object_get(f, "col"));
        const char *check = json_string_value(json_object_get(f, "check"));
        const char *cfg = json_string_value(json_object_get(f, "config"));
        strbuf_addf(out, "::%s ", cmd);
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
        strbuf_addf(&sb, "pgci %s", check);
        if (cfg)
            strbuf_addf(&sb, " (%s)", cfg);
        esc_prop(out, sb.buf);
        strbuf_free(&sb);
        strbuf_adds(out, "::");
        esc_data(out, json_string_value(json_object_get(f, "title")));
        strbuf_addc(out, '\n');
    }
}
