/*
 * The Markdown report, in the style of a maintainer's pin-upgrade note: a title, a
 * summary sentence with the counts that matter, "Finding the drift" (which checks
 * ran and what each found), one section per class of finding naming the configs
 * it hits, a per-config table, verification, and follow-ups.
 *
 * Tables are written as HTML blocks: GitHub renders them inside Markdown, and so
 * does cmark (which has no pipe-table extension), so one text serves the PR
 * comment, the job summary and the HTML page alike.
 */
#include <stdlib.h>
#include <string.h>

#include "checks/changes.h"
#include "checks/check.h"
#include "core/vec.h"
#include "pipeline/run_shard.h"
#include "reports/render.h"
#include "reports/survey_note.h"
#include "reports/verification.h"

/* Section titles and order from the check table; unknown ids go last. */
static const char *title_for(const char *id)
{
    const check_entry *e = check_find(id);
    return e ? e->title : NULL;
}

static int order_of(const char *id)
{
    const check_entry *e = check_find(id);
    return e ? e->report_order : 1000;
}

void md_escape(strbuf *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<':
            strbuf_adds(out, "&lt;");
            break;
        case '>':
            strbuf_adds(out, "&gt;");
            break;
        case '&':
            strbuf_adds(out, "&amp;");
            break;
        case '|':
        case '*':
        case '_':
        case '`':
        case '[':
        case ']':
        case '\\':
            strbuf_addc(out, '\\');
            strbuf_addc(out, *s);
            break;
        case '\n':
            strbuf_addc(out, ' ');
            break;
        default:
            strbuf_addc(out, *s);
        }
    }
}

void html_escape(strbuf *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<':
            strbuf_adds(out, "&lt;");
            break;
        case '>':
            strbuf_adds(out, "&gt;");
            break;
        case '&':
            strbuf_adds(out, "&amp;");
            break;
        case '"':
            strbuf_adds(out, "&quot;");
            break;
        case '\n':
        case '\r':
            /* a blank line would end the HTML block and the rest would be Markdown */
            strbuf_addc(out, ' ');
            break;
        default:
            strbuf_addc(out, *s);
        }
    }
}

static void md_doc_add(md_doc *m, const char *id, const char *title, strbuf *text, int keep)
{
    if (m->len == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 16;
        m->items = pgci_realloc(m->items, m->cap * sizeof(*m->items));
    }
    md_section *s = &m->items[m->len++];
    s->id = pgci_strdup(id);
    s->title = pgci_strdup(title);
    s->text = strbuf_detach(text, NULL);
    s->keep = keep;
    s->brief = NULL;
}

void md_doc_free(md_doc *m)
{
    for (size_t i = 0; i < m->len; i++) {
        free(m->items[i].id);
        free(m->items[i].title);
        free(m->items[i].text);
        free(m->items[i].brief);
    }
    free(m->items);
    m->items = NULL;
    m->len = m->cap = 0;
}

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static long count_by(json_t *fs, const char *check, const char *sev)
{
    long n = 0;
    size_t i;
    json_t *f;
    json_array_foreach(fs, i, f)
    {
        if ((!check || !strcmp(str(f, "check"), check)) &&
            (!sev || !strcmp(str(f, "severity"), sev)))
            n++;
    }
    return n;
}

static long configs_with_status(json_t *configs, const char *status)
{
    long n = 0;
    size_t i;
    json_t *c;
    json_array_foreach(configs, i, c) n += !strcmp(str(c, "status"), status);
    return n;
}

static const char *plural(long n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

static void add_title(strbuf *sb, const run_doc *d)
{
    const char *cmd = run_doc_command(d);
    if (!strcmp(cmd, "survey")) {
        strbuf_adds(sb, "# Upgrading the transformers pin: ");
        md_inline(sb, run_doc_input(d, "from") ? run_doc_input(d, "from") : "?");
        strbuf_adds(sb, " → ");
        md_inline(sb, run_doc_input(d, "to") ? run_doc_input(d, "to") : "?");
        strbuf_adds(sb, "\n\n");
    } else if (!strcmp(cmd, "logits"))
        strbuf_adds(sb, "# Logits equality report\n\n");
    else if (!strcmp(cmd, "verify"))
        strbuf_adds(sb, "# Verification report\n\n");
    else
        strbuf_adds(sb, "# Patchgen drift report\n\n");
}

static void add_summary(strbuf *sb, const run_doc *d)
{
    json_t *fs = run_doc_findings(d), *cs = run_doc_configs(d);
    long ncfg = (long)json_array_size(cs);
    long failed = configs_with_status(cs, "failed");
    long drifted = configs_with_status(cs, "drift");
    long errors = count_by(fs, NULL, "error"), warnings = count_by(fs, NULL, "warning"),
         infos = count_by(fs, NULL, "info");
    const char *tag = run_doc_input(d, "to") ? run_doc_input(d, "to") : run_doc_input(d, "tag");
    if (run_doc_error(d)) {
        /* exit 2: the environment failed, not the PR; say so before anything else */
        strbuf_adds(sb, "**The gate could not run**: ");
        md_inline(sb, run_doc_error(d));
        strbuf_adds(sb,
                    ". This is not a finding about the change; what ran before it is below.\n\n");
    }
    if (!strcmp(run_doc_command(d), "verify")) {
        report_verification_summary(sb, d);
        return;
    }
    if (!strcmp(run_doc_command(d), "logits")) {
        long passed = 0, total = 0;
        size_t i;
        json_t *f;
        json_array_foreach(fs, i, f)
        {
            if (strcmp(str(f, "check"), "logits"))
                continue;
            json_t *p = json_object_get(json_object_get(f, "data"), "passed");
            if (json_is_boolean(p)) {
                total++;
                passed += json_is_true(p);
            }
        }
        strbuf_addf(sb, "%ld of %ld logits %s passed. ", passed, total,
                    plural(total, "case", "cases"));
    } else if (!strcmp(run_doc_command(d), "survey")) {
        /* targets, not findings: one upstream change under two configs is one, as
         * `pgci survey` counts them on the terminal */
        strvec gone = STRVEC_INIT, changed = STRVEC_INIT;
        size_t i;
        json_t *f;
        json_array_foreach(fs, i, f)
        {
            const char *target = str(json_object_get(f, "data"), "target");
            int counted = changes_target_count_kind(
                str(f, "check"),
                json_string_value(json_object_get(json_object_get(f, "data"), "kind")));
            strvec *into = counted == 1 ? &gone : counted == 2 ? &changed : NULL;
            if (into && *target && strvec_find(into, target) < 0)
                strvec_push(into, target);
        }
        long vanished = (long)gone.len, sigs = (long)changed.len;
        strvec_free(&gone);
        strvec_free(&changed);
        long nch = (long)json_array_size(json_object_get(d->root, "changes"));
        long standing = 0;
        json_t *c;
        json_array_foreach(cs, i, c) standing += json_is_true(json_object_get(c, "standing"));
        strbuf_addf(sb, "pgci surveyed %ld %s from ", ncfg, plural(ncfg, "config", "configs"));
        md_inline(sb, run_doc_input(d, "from"));
        strbuf_adds(sb, " to ");
        md_inline(sb, run_doc_input(d, "to"));
        strbuf_addf(sb, ": %ld fail to regenerate against ", failed);
        md_inline(sb, run_doc_input(d, "to"));
        if (standing) { /* no finding says so: the count must */
            strbuf_addf(sb, " (%ld of them against ", standing);
            md_inline(sb, run_doc_input(d, "from"));
            strbuf_adds(sb, " too: not the bump's, see `pgci check`)");
        }
        strbuf_addf(sb, ", %ld patch %s vanished, %ld signature %s under the patches", vanished,
                    plural(vanished, "target", "targets"), sigs, plural(sigs, "change", "changes"));
        if (nch)
            strbuf_addf(sb, ", from %ld upstream %s", nch, plural(nch, "change", "changes"));
        strbuf_adds(sb, ". ");
    } else {
        strbuf_addf(sb, "pgci checked %ld %s", ncfg, plural(ncfg, "config", "configs"));
        if (tag) {
            strbuf_adds(sb, " against transformers ");
            md_inline(sb, tag);
        }
        strbuf_addf(sb, ": %ld failed to regenerate, %ld drifted from %s checked-in files", failed,
                    drifted, plural(drifted, "its", "their"));
        long vanished = 0, sigs = 0;
        size_t i;
        json_t *f;
        json_array_foreach(fs, i, f)
        {
            const char *kind = str(json_object_get(f, "data"), "kind");
            if (!strcmp(kind, "vanished") || !strcmp(kind, "missing-target"))
                vanished++;
            else if (!strcmp(str(f, "check"), "signatures"))
                sigs++;
        }
        if (vanished)
            strbuf_addf(sb, ", %ld patch %s vanished upstream", vanished,
                        plural(vanished, "target", "targets"));
        if (sigs || !strcmp(run_doc_command(d), "survey"))
            strbuf_addf(sb, ", %ld signature %s", sigs, plural(sigs, "change", "changes"));
        strbuf_adds(sb, ". ");
    }
    strbuf_addf(sb, "%ld %s, %ld %s, %ld %s.\n\n", errors, plural(errors, "error", "errors"),
                warnings, plural(warnings, "warning", "warnings"), infos,
                plural(infos, "note", "notes"));
    report_verification_summary(sb, d);
    json_t *c;
    size_t i;
    long notrun = 0;
    json_array_foreach(run_doc_checks(d), i, c) notrun +=
        strcmp(str(c, "status"), "ran") != 0 && strcmp(str(c, "status"), "not-configured");
    if (notrun)
        strbuf_addf(sb, "**%ld %s did not run** and %s not counted as passed; see Follow-ups.\n\n",
                    notrun, plural(notrun, "check", "checks"), plural(notrun, "is", "are"));
}

static void add_signals(strbuf *sb, const run_doc *d)
{
    json_t *fs = run_doc_findings(d);
    strbuf_adds(sb, "## Finding the drift\n\n");
    if (!json_array_size(run_doc_checks(d))) {
        strbuf_adds(sb, "No checks were run.\n\n");
        return;
    }
    strbuf_adds(sb, "<table>\n<tr><th>check</th><th>status</th><th>errors</th><th>warnings</th>"
                    "<th>notes</th></tr>\n");
    size_t i;
    json_t *c;
    json_array_foreach(run_doc_checks(d), i, c)
    {
        const char *id = str(c, "id");
        strbuf_adds(sb, "<tr><td><code>");
        html_escape(sb, id);
        strbuf_adds(sb, "</code></td><td>");
        html_escape(sb, str(c, "status"));
        if (json_is_string(json_object_get(c, "reason"))) {
            strbuf_adds(sb, ": ");
            html_escape(sb, str(c, "reason"));
        }
        strbuf_addf(sb, "</td><td>%ld</td><td>%ld</td><td>%ld</td></tr>\n",
                    count_by(fs, id, "error"), count_by(fs, id, "warning"),
                    count_by(fs, id, "info"));
    }
    strbuf_adds(sb, "</table>\n\n");
}

/* One section per check with findings. Findings with the same title are one
 * group: an upstream change hitting many configs is listed once, with its configs. */
static void add_check_section(md_doc *m, const run_doc *d, const char *id)
{
    json_t *fs = run_doc_findings(d);
    strbuf sb = STRBUF_INIT;
    const char *t = title_for(id);
    strbuf heading = STRBUF_INIT;
    if (t)
        strbuf_adds(&heading, t);
    else {
        strbuf_adds(&heading, "Check ");
        md_code(&heading, id);
    }
    strbuf_addf(&sb, "## %s\n\n", heading.buf);

    strvec configs = STRVEC_INIT, titles = STRVEC_INIT;
    strbuf brief = STRBUF_INIT; /* sb without the details, up to sb[briefed] */
    size_t briefed = 0, i;
    json_t *f;
    json_array_foreach(fs, i, f)
    {
        if (strcmp(str(f, "check"), id))
            continue;
        const char *cfg = str(f, "config");
        if (*cfg && strvec_find(&configs, cfg) < 0)
            strvec_push(&configs, cfg);
        if (strvec_find(&titles, str(f, "title")) < 0)
            strvec_push(&titles, str(f, "title"));
    }
    if (configs.len) {
        strbuf_addf(&sb, "Hits %zu %s: ", configs.len, configs.len == 1 ? "config" : "configs");
        for (size_t k = 0; k < configs.len; k++) {
            strbuf_adds(&sb, k ? ", " : "");
            md_code(&sb, configs.items[k]);
        }
        strbuf_adds(&sb, ".\n\n");
    }
    for (size_t k = 0; k < titles.len; k++) {
        const char *sev = NULL;
        strvec where = STRVEC_INIT, cfgs = STRVEC_INIT;
        const char *detail = NULL;
        json_array_foreach(fs, i, f)
        {
            if (strcmp(str(f, "check"), id) || strcmp(str(f, "title"), titles.items[k]))
                continue;
            sev = str(f, "severity");
            if (*str(f, "config") && strvec_find(&cfgs, str(f, "config")) < 0)
                strvec_push(&cfgs, str(f, "config"));
            if (*str(f, "path")) {
                long line = (long)json_integer_value(json_object_get(f, "line"));
                char *w = line ? pgci_asprintf("%s:%ld", str(f, "path"), line)
                               : pgci_strdup(str(f, "path"));
                strvec_push_owned(&where, w);
            }
            if (!detail && json_is_string(json_object_get(f, "detail")))
                detail = str(f, "detail");
        }
        strbuf_addf(&sb, "- **%s** ", sev);
        md_inline(&sb, titles.items[k]);
        if (cfgs.len) {
            strbuf_adds(&sb, " — ");
            for (size_t c = 0; c < cfgs.len; c++) {
                strbuf_adds(&sb, c ? ", " : "");
                md_code(&sb, cfgs.items[c]);
            }
        }
        if (where.len) {
            strbuf_adds(&sb, " (");
            for (size_t w = 0; w < where.len && w < 5; w++) {
                strbuf_adds(&sb, w ? ", " : "");
                md_code(&sb, where.items[w]);
            }
            if (where.len > 5)
                strbuf_addf(&sb, ", and %zu more", where.len - 5);
            strbuf_adds(&sb, ")");
        }
        strbuf_adds(&sb, "\n");
        if (detail && *detail) {
            int is_diff = !strncmp(detail, "--- ", 4) || strstr(detail, "\n@@ ") != NULL;
            strbuf_add(&brief, sb.buf + briefed, sb.len - briefed);
            strbuf_adds(&sb, "\n  <details><summary>details</summary>\n\n");
            /* indented so the fence stays inside the list item */
            md_fenced(&sb, detail, is_diff ? "diff" : "", "  ");
            strbuf_adds(&sb, "\n  </details>\n\n");
            briefed = sb.len;
        }
        strvec_free(&where);
        strvec_free(&cfgs);
    }
    strbuf_adds(&sb, "\n");
    int folds = briefed > 0;
    strbuf_add(&brief, sb.buf + briefed, sb.len - briefed);
    md_doc_add(m, id, heading.buf, &sb, 0);
    /* without the details (diffs), a fitted report can keep the findings' list */
    if (folds)
        m->items[m->len - 1].brief = strbuf_detach(&brief, NULL);
    strbuf_free(&brief);
    strbuf_free(&heading);
    strvec_free(&configs);
    strvec_free(&titles);
}

static int cmp_check_order(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    int ox = order_of(x), oy = order_of(y);
    return ox != oy ? (ox < oy ? -1 : 1) : strcmp(x, y);
}

/* A survey's Configs section without its folded table (what a fitted report shows
 * of it): how the configs fare at the new tag, in one line. */
static void configs_brief(strbuf *sb, const run_doc *d)
{
    json_t *cs = run_doc_configs(d);
    static const char *const known[] = {"ok", "drift", "failed"};
    static const char *const one[] = {"regenerates with no error", "regenerates with errors",
                                      "fails to regenerate"};
    static const char *const many[] = {"regenerate with no error", "regenerate with errors",
                                       "fail to regenerate"};
    long n = (long)json_array_size(cs), standing = 0, other = 0;
    size_t i;
    json_t *c;
    json_array_foreach(cs, i, c) standing += json_is_true(json_object_get(c, "standing"));
    const char *to = run_doc_input(d, "to") ? run_doc_input(d, "to") : "the new tag";
    strbuf_addf(sb, "## Configs\n\n%ld %s at ", n, plural(n, "config", "configs"));
    md_inline(sb, to);
    const char *sep = ": ";
    for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
        long m = configs_with_status(cs, known[k]);
        if (!m)
            continue;
        strbuf_addf(sb, "%s%ld %s", sep, m, plural(m, one[k], many[k]));
        sep = ", ";
        if (!strcmp(known[k], "failed") && standing) {
            strbuf_addf(sb, " (%ld of them at ", standing);
            md_inline(sb, run_doc_input(d, "from") ? run_doc_input(d, "from") : "the old tag");
            strbuf_adds(sb, " too)");
        }
    }
    json_array_foreach(cs, i, c)
    {
        const char *st = str(c, "status");
        other += strcmp(st, "ok") && strcmp(st, "drift") && strcmp(st, "failed");
    }
    if (other)
        strbuf_addf(sb, "%s%ld with another status", sep, other);
    strbuf_adds(sb, ".\n\n");
}

/* The configs' table. A survey folds it: its sections already name the configs
 * each change hits, and its first sentence how many fail to regenerate; the table
 * is for looking one up (29 rows were a tenth of a long jump's note). Folded, its
 * brief counts how the configs fare at the new tag. */
static void add_configs(strbuf *sb, strbuf *brief, const run_doc *d, int fold)
{
    json_t *cs = run_doc_configs(d), *fs = run_doc_findings(d);
    strbuf_adds(sb, "## Configs\n\n");
    if (!json_array_size(cs)) {
        strbuf_adds(sb, "No configs in this run.\n\n");
        return;
    }
    if (fold) {
        strbuf_addf(sb,
                    "<details><summary>Each of the %zu configs: regeneration against the new "
                    "tag, findings</summary>\n\n",
                    json_array_size(cs));
        configs_brief(brief, d);
    }
    strbuf_adds(sb, "<table>\n<tr><th>config</th><th>status</th><th>errors</th><th>warnings</th>"
                    "<th>notes</th></tr>\n");
    size_t i;
    json_t *c;
    json_array_foreach(cs, i, c)
    {
        long n[3] = {0, 0, 0};
        size_t k;
        json_t *f;
        json_array_foreach(fs, k, f)
        {
            if (strcmp(str(f, "config"), str(c, "module")))
                continue;
            int s = severity_parse(str(f, "severity"));
            if (s >= 0)
                n[s]++;
        }
        strbuf_adds(sb, "<tr><td><code>");
        html_escape(sb, str(c, "module"));
        strbuf_adds(sb, "</code></td><td>");
        html_escape(sb, str(c, "status"));
        if (json_is_true(json_object_get(c, "standing"))) {
            strbuf_adds(sb, " at ");
            html_escape(sb, run_doc_input(d, "from") ? run_doc_input(d, "from") : "the old tag");
            strbuf_adds(sb, " too (not the bump's)");
        }
        if (json_is_string(json_object_get(c, "message"))) {
            /* the table fits the page: the message's end (ruff's verdict), the whole
             * message is in the findings (a standing failure's only here) */
            const char *msg = str(c, "message");
            size_t len = strcspn(msg, "\n");
            const char *tail = len > 90 ? msg + len - 90 : msg;
            char *cut = pgci_strndup(tail, len - (size_t)(tail - msg));
            strbuf_adds(sb, tail != msg ? ": …" : ": ");
            html_escape(sb, cut);
            free(cut);
        }
        strbuf_addf(sb, "</td><td>%ld</td><td>%ld</td><td>%ld</td></tr>\n", n[SEV_ERROR],
                    n[SEV_WARNING], n[SEV_INFO]);
    }
    strbuf_adds(sb, "</table>\n\n");
    if (fold)
        strbuf_adds(sb, "</details>\n\n");
}

static void add_verification(strbuf *sb, const run_doc *d)
{
    strbuf_adds(sb, "## Verification\n\n");
    report_verification_suites(sb, d);
    json_t *in = json_object_get(d->root, "inputs");
    const char *k;
    json_t *v;
    json_object_foreach(in, k, v)
    {
        if (json_is_string(v)) {
            strbuf_adds(sb, "- ");
            md_inline(sb, k);
            strbuf_adds(sb, ": ");
            md_code(sb, json_string_value(v));
            strbuf_adds(sb, "\n");
        }
    }
    size_t nfiles = json_array_size(json_object_get(in, "files"));
    if (nfiles)
        strbuf_addf(sb, "- %zu input %s hashed (SHA-256 in run.json)\n", nfiles,
                    nfiles == 1 ? "file" : "files");
    strbuf_adds(sb, "- pgci ");
    md_inline(sb, json_string_value(json_object_get(json_object_get(d->root, "tool"), "version")));
    strbuf_adds(sb, "\n\n");
}

static void add_followups(strbuf *sb, const run_doc *d)
{
    json_t *fs = run_doc_findings(d);
    strbuf body = STRBUF_INIT;
    size_t i;
    json_t *f, *c;
    json_array_foreach(run_doc_checks(d), i, c)
    {
        if (!strcmp(str(c, "status"), "ran"))
            continue;
        if (!strcmp(str(c, "status"), "not-configured")) {
            strbuf_adds(&body, "- Check ");
            md_code(&body, str(c, "id"));
            strbuf_adds(&body, " is not configured");
            if (json_is_string(json_object_get(c, "reason"))) {
                strbuf_adds(&body, ": ");
                md_escape(&body, str(c, "reason"));
            }
            strbuf_adds(&body, ".\n");
            continue;
        }
        strbuf_adds(&body, "- Check ");
        md_code(&body, str(c, "id"));
        strbuf_adds(&body, " did not run");
        if (json_is_string(json_object_get(c, "reason"))) {
            strbuf_adds(&body, ": ");
            md_escape(&body, str(c, "reason"));
        }
        strbuf_adds(&body, ". Run it where it can run before trusting this report.\n");
    }
    report_verification_followups(&body, d);
    /* the survey's note has its deprecations section */
    json_array_foreach(fs, i, f)
    {
        if (strcmp(str(f, "check"), "deprecations") || !strcmp(run_doc_command(d), "survey"))
            continue;
        strbuf_adds(&body, "- ");
        md_inline(&body, str(f, "title"));
        const char *rv = str(json_object_get(f, "data"), "removal_version");
        if (*rv) {
            strbuf_adds(&body, " (removal in ");
            md_inline(&body, rv);
            strbuf_adds(&body, ")");
        }
        strbuf_adds(&body, "\n");
    }
    strbuf_adds(sb, "## Follow-ups\n\n");
    if (body.len)
        strbuf_add(sb, body.buf, body.len);
    else
        strbuf_adds(sb, "None.\n");
    strbuf_adds(sb, "\n");
    strbuf_free(&body);
}

void report_markdown_sections(md_doc *m, const run_doc *d)
{
    strbuf sb = STRBUF_INIT;
    add_title(&sb, d);
    add_summary(&sb, d);
    md_doc_add(m, "summary", "Summary", &sb, 1);
    add_signals(&sb, d);
    md_doc_add(m, "signals", "Finding the drift", &sb, 1);

    strvec ids = STRVEC_INIT;
    size_t i;
    json_t *f;
    json_array_foreach(run_doc_findings(d), i, f)
    {
        const char *id = str(f, "check");
        if (strvec_find(&ids, id) < 0)
            strvec_push(&ids, id);
    }
    if (ids.len > 1)
        qsort(ids.items, ids.len, sizeof(char *), cmp_check_order);
    if (!strcmp(run_doc_command(d), "survey"))
        survey_note_sections(m, d); /* one section per upstream change */
    else
        for (size_t k = 0; k < ids.len; k++)
            add_check_section(m, d, ids.items[k]);
    strvec_free(&ids);

    strbuf brief = STRBUF_INIT;
    add_configs(&sb, &brief, d, !strcmp(run_doc_command(d), "survey"));
    md_doc_add(m, "configs", "Configs", &sb, 0);
    if (brief.len)
        m->items[m->len - 1].brief = strbuf_detach(&brief, NULL);
    strbuf_free(&brief);
    add_verification(&sb, d);
    md_doc_add(m, "verification", "Verification", &sb, 0);
    add_followups(&sb, d);
    md_doc_add(m, "followups", "Follow-ups", &sb, 1);
    strbuf_free(&sb);
}

void report_markdown(strbuf *out, const run_doc *d)
{
    md_doc m = {0};
    report_markdown_sections(&m, d);
    for (size_t i = 0; i < m.len; i++)
        strbuf_adds(out, m.items[i].text);
    md_doc_free(&m);
    /* exactly one trailing newline */
    strbuf_rtrim(out);
    strbuf_addc(out, '\n');
}
