/*
 * The Verification section's suites. Counts are written "N/M passed" where M is
 * every case the suite's XML lists, skipped ones included, so a suite that skips
 * half its cases cannot read as fully green.
 */
#include "reports/verification.h"

#include <stdlib.h>
#include <string.h>

#include "reports/render.h"
#include "verify/verify.h"

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static long num(json_t *o, const char *key)
{
    return (long)json_integer_value(json_object_get(o, key));
}

static json_t *suites_of(const run_doc *d)
{
    json_t *v = verify_doc_get(d->root);
    return v ? json_object_get(v, "suites") : NULL;
}

/* "where the suites ran": at the pin on the checked-in files, or at a tag in a
 * scratch copy. */
static void add_where(strbuf *out, json_t *v)
{
    const char *tag = str(v, "tag");
    if (*tag) {
        strbuf_adds(out, " at transformers ");
        md_escape(out, tag);
    }
    if (*tag && !strcmp(str(v, "tree"), "scratch"))
        strbuf_adds(out, " (a scratch copy with the files regenerated there)");
    else if (*tag)
        strbuf_adds(out, " (the checked-in files)");
    else
        strbuf_adds(out, " on the checked-in files");
}

void report_verification_summary(strbuf *out, const run_doc *d)
{
    json_t *v = verify_doc_get(d->root), *suites = suites_of(d);
    if (!v)
        return;
    strbuf_adds(out, "**Verification**");
    add_where(out, v);
    strbuf_adds(out, ": ");
    if (!json_array_size(suites))
        strbuf_adds(out, "no suites were selected");
    size_t i;
    json_t *s;
    json_array_foreach(suites, i, s)
    {
        strbuf_adds(out, i ? "; " : "");
        md_code(out, str(s, "name"));
        strbuf_addc(out, ' ');
        if (!strcmp(str(s, "status"), "not-run"))
            strbuf_adds(out, "**not run**");
        else
            strbuf_addf(out, "%ld/%ld passed", num(s, "passed"), num(s, "tests"));
        if (num(s, "failed") + num(s, "errors"))
            strbuf_addf(out, ", **%ld failed**", num(s, "failed") + num(s, "errors"));
        if (num(s, "skipped"))
            strbuf_addf(out, ", %ld skipped", num(s, "skipped"));
    }
    strbuf_adds(out, ".\n\n");
}

/* "classname::name" as code: inside an HTML block (html) or in Markdown text. */
static void add_case_name(strbuf *out, json_t *c, int html)
{
    strbuf id = STRBUF_INIT;
    if (*str(c, "classname"))
        strbuf_addf(&id, "%s::", str(c, "classname"));
    strbuf_adds(&id, str(c, "name"));
    if (html) {
        strbuf_adds(out, "<code>");
        html_escape(out, id.buf);
        strbuf_adds(out, "</code>");
    } else {
        md_code(out, id.buf);
    }
    strbuf_free(&id);
}

static void add_table(strbuf *out, json_t *suites)
{
    strbuf_adds(out, "<table>\n<tr><th>suite</th><th>result</th><th>passed</th><th>failed</th>"
                     "<th>errors</th><th>skipped</th></tr>\n");
    size_t i;
    json_t *s;
    json_array_foreach(suites, i, s)
    {
        strbuf_adds(out, "<tr><td><code>");
        html_escape(out, str(s, "name"));
        strbuf_adds(out, "</code></td><td>");
        if (!strcmp(str(s, "status"), "not-run"))
            strbuf_adds(out, "<strong>not run</strong>");
        else
            strbuf_addf(out, "%ld/%ld passed", num(s, "passed"), num(s, "tests"));
        if (*str(s, "reason")) {
            strbuf_adds(out, ": ");
            html_escape(out, str(s, "reason"));
        }
        strbuf_addf(out, "</td><td>%ld</td><td>%ld</td><td>%ld</td><td>%ld</td></tr>\n",
                    num(s, "passed"), num(s, "failed"), num(s, "errors"), num(s, "skipped"));
    }
    strbuf_adds(out, "</table>\n\n");
}

static void add_failures(strbuf *out, json_t *suites)
{
    size_t i, k, n = 0;
    json_t *s, *c;
    json_array_foreach(suites, i, s)
    {
        json_array_foreach(json_object_get(s, "cases"), k, c)
        {
            const char *st = str(c, "status");
            if (strcmp(st, "failed") && strcmp(st, "error"))
                continue;
            if (!n++)
                strbuf_adds(out, "### Failures\n\n");
            strbuf_adds(out, "<details><summary><code>");
            html_escape(out, str(s, "name"));
            strbuf_adds(out, "</code> ");
            add_case_name(out, c, 1);
            strbuf_adds(out, !strcmp(st, "error") ? " (error)" : "");
            if (*str(c, "message")) {
                /* one line: a blank line would end the HTML block */
                char *m = pgci_strdup(str(c, "message"));
                for (char *p = m; *p; p++)
                    if (*p == '\n' || *p == '\r')
                        *p = ' ';
                strbuf_adds(out, ": ");
                html_escape(out, m);
                free(m);
            }
            strbuf_adds(out, "</summary>\n\n");
            if (*str(c, "trace"))
                md_fenced(out, str(c, "trace"), "", "");
            strbuf_adds(out, "\n</details>\n\n");
        }
    }
}

static void add_skipped(strbuf *out, json_t *suites)
{
    size_t i, k, n = 0;
    json_t *s, *c;
    json_array_foreach(suites, i, s)
    {
        json_array_foreach(json_object_get(s, "cases"), k, c)
        {
            if (strcmp(str(c, "status"), "skipped"))
                continue;
            if (!n++)
                strbuf_adds(out, "### Skipped\n\n");
            strbuf_adds(out, "- ");
            md_code(out, str(s, "name"));
            strbuf_addc(out, ' ');
            add_case_name(out, c, 0);
            if (*str(c, "message")) {
                strbuf_adds(out, ": ");
                md_escape(out, str(c, "message"));
            }
            strbuf_adds(out, "\n");
        }
    }
    if (n)
        strbuf_adds(out, "\n");
}

void report_verification_suites(strbuf *out, const run_doc *d)
{
    json_t *v = verify_doc_get(d->root), *suites = suites_of(d);
    if (!v)
        return;
    strbuf_adds(out, "The workspace's own suites (`[tool.pgci.verify]`) ran");
    add_where(out, v);
    strbuf_adds(out, ".");
    json_t *regen = json_object_get(v, "regen");
    size_t i, failed = 0;
    json_t *r;
    json_array_foreach(regen, i, r) failed += !strcmp(str(r, "status"), "failed");
    if (failed)
        strbuf_addf(out,
                    " %zu %s failed to regenerate there and kept %s old files (see "
                    "Follow-ups).",
                    failed, failed == 1 ? "config" : "configs", failed == 1 ? "its" : "their");
    strbuf_adds(out, "\n\n");
    if (!json_array_size(suites)) {
        strbuf_adds(out, "No suites were selected.\n\n### Inputs\n\n");
        return;
    }
    add_table(out, suites);
    add_failures(out, suites);
    add_skipped(out, suites);
    strbuf_adds(out, "### Inputs\n\n");
}

void report_verification_followups(strbuf *out, const run_doc *d)
{
    json_t *v = verify_doc_get(d->root);
    size_t i;
    json_t *s;
    json_array_foreach(suites_of(d), i, s)
    {
        if (strcmp(str(s, "status"), "not-run"))
            continue;
        strbuf_adds(out, "- Suite ");
        md_code(out, str(s, "name"));
        strbuf_adds(out, " did not run");
        if (*str(s, "reason")) {
            strbuf_adds(out, ": ");
            md_escape(out, str(s, "reason"));
        }
        strbuf_adds(out, ". It is not counted as passed; run it where it can run.\n");
    }
    json_array_foreach(v ? json_object_get(v, "regen") : NULL, i, s)
    {
        if (strcmp(str(s, "status"), "failed"))
            continue;
        strbuf_adds(out, "- ");
        md_code(out, str(s, "config"));
        strbuf_adds(out, " failed to regenerate at ");
        md_escape(out, str(v, "tag"));
        strbuf_adds(out, " and kept its old files in the verified copy");
        if (*str(s, "message")) {
            strbuf_adds(out, ": ");
            md_escape(out, str(s, "message"));
        }
        strbuf_adds(out, "\n");
    }
}
