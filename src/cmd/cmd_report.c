/*
 * pgci report: renders a run.json (or several, merged) in the requested formats.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/changes.h"
#include "cmd/cmd.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/log.h"
#include "reports/render.h"
#include "pipeline/run_shard.h"

static int render_md(strbuf *out, const run_doc *d, const char *details_url)
{
    report_markdown(out, d);
    return 0;
}

static int render_json(strbuf *out, const run_doc *d, const char *details_url)
{
    run_doc_dump(d, out);
    return 0;
}

static int render_html(strbuf *out, const run_doc *d, const char *details_url)
{
    return report_html(out, d);
}

static int render_sarif(strbuf *out, const run_doc *d, const char *details_url)
{
    report_sarif(out, d);
    return 0;
}

static int render_github(strbuf *out, const run_doc *d, const char *details_url)
{
    report_github(out, d);
    return 0;
}

static int render_comment(strbuf *out, const run_doc *d, const char *details_url)
{
    report_comment(out, d, details_url, 0);
    return 0;
}

/*
 * The report formats, in the order usage and --help list them.
 *
 * Adding a new format: write its renderer in reports/ (one file, declared in
 * reports/render.h), a render_<name> adapter above, and one row here. The usage
 * line, the --format help and the "known:" list of the error are made from this
 * table; nothing else in this file names a format.
 */
typedef struct report_format {
    const char *name;
    const char *file; /* its file under -o DIR */
    const char *note; /* said after the name in --help, or NULL */
    int (*render)(strbuf *out, const run_doc *d, const char *details_url);
    int step_summary; /* 1: the Markdown also goes to $GITHUB_STEP_SUMMARY */
} report_format;

static const report_format formats[] = {
    {.name = "md", .file = "report.md", .render = render_md},
    {.name = "json", .file = "run.json", .render = render_json},
    {.name = "html", .file = "report.html", .render = render_html},
    {.name = "sarif", .file = "report.sarif", .render = render_sarif},
    {.name = "github",
     .file = "annotations.txt",
     .note = "annotations",
     .render = render_github,
     .step_summary = 1},
    {.name = "comment", .file = "comment.md", .render = render_comment},
};
#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

static const report_format *format_find(const char *f)
{
    if (!strcmp(f, "markdown"))
        f = "md";
    for (size_t i = 0; i < N_FORMATS; i++)
        if (!strcmp(formats[i].name, f))
            return &formats[i];
    return NULL;
}

/* The format names joined by sep, each with its note in parentheses when notes. */
static void format_list(strbuf *out, const char *sep, int notes)
{
    for (size_t i = 0; i < N_FORMATS; i++) {
        strbuf_addf(out, "%s%s", i ? sep : "", formats[i].name);
        if (notes && formats[i].note)
            strbuf_addf(out, " (%s)", formats[i].note);
    }
}

/* The job summary: GitHub renders $GITHUB_STEP_SUMMARY as Markdown under the run,
 * and drops a step's summary over 1 MiB whole, so the report is fitted to what the
 * file leaves of 1,000,000 bytes. */
static int write_step_summary(const run_doc *d, const char *details_url)
{
    const size_t limit = 1000000;
    const char *p = getenv("GITHUB_STEP_SUMMARY");
    if (!p || !*p)
        return 0;
    FILE *f = fopen(p, "a");
    if (!f)
        return pgci_error_set(PGCI_EIO, "cannot append to $GITHUB_STEP_SUMMARY (%s)", p);
    long had = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : 0;
    size_t room = had > 0 ? (size_t)had : 0;
    room = room < limit ? limit - room : 0;
    if (room < 4096) { /* an earlier step's summary already fills it */
        fclose(f);
        log_warn("$GITHUB_STEP_SUMMARY (%s) already holds %ld bytes; no job summary added", p, had);
        return 0;
    }
    strbuf md = STRBUF_INIT;
    report_step_summary(&md, d, details_url, room);
    fwrite(md.buf, 1, md.len, f);
    int bad = fclose(f) != 0;
    strbuf_free(&md);
    return bad ? pgci_error_set(PGCI_EIO, "cannot write $GITHUB_STEP_SUMMARY (%s)", p) : 0;
}

/* Renders d in each format: into outdir's files, else on stdout. */
static int write_reports(const report_format *const *fmt, size_t n, const run_doc *d,
                         const char *outdir, const char *details_url)
{
    int code = EXIT_CLEAN;
    for (size_t i = 0; i < n && code == EXIT_CLEAN; i++) {
        strbuf out = STRBUF_INIT;
        if (fmt[i]->render(&out, d, details_url) < 0) {
            code = cmd_error();
        } else if (outdir) {
            strbuf p = STRBUF_INIT;
            fs_join(&p, outdir, fmt[i]->file);
            if (fs_write_atomic(p.buf, out.buf, out.len) < 0)
                code = cmd_error();
            strbuf_free(&p);
        } else {
            fwrite(out.buf, 1, out.len, stdout);
        }
        if (code == EXIT_CLEAN && fmt[i]->step_summary && write_step_summary(d, details_url) < 0)
            code = cmd_error();
        strbuf_free(&out);
    }
    return code;
}

int cmd_report(int argc, const char **argv)
{
    strvec ins = STRVEC_INIT, fmts = STRVEC_INIT, rest = STRVEC_INIT;
    const char *outdir = NULL, *details_url = NULL;
    int merge = 0;
    strbuf usage = STRBUF_INIT, fmt_help = STRBUF_INIT, known = STRBUF_INIT;
    strbuf_adds(&usage, "pgci report --in RUN.json [--in ...] [--format ");
    format_list(&usage, ",", 0);
    strbuf_adds(&usage, "] [-o DIR]\n   or: pgci report --merge A.json B.json ... [-o DIR]");
    format_list(&fmt_help, ", ", 1);
    strbuf_adds(&fmt_help, " (default: md)");
    format_list(&known, ", ", 0);
    opt table[] = {
        OPT_LIST('i', "in", &ins, "RUN.json", "the run to render (repeat to merge shards)"),
        OPT_LIST('f', "format", &fmts, "LIST", fmt_help.buf),
        OPT_BOOL(0, "merge", &merge, "merge the run.json files given as arguments"),
        OPT_STR('o', "output", &outdir, "DIR", "write report.* files into DIR instead of stdout"),
        OPT_STR(0, "details-url", &details_url, "URL", "where the full report lives (comment)"),
        OPT_END(),
    };
    int code;
    common_opts common = {0}; /* -q, -v as every command takes them */
    if (cmd_parse(argc, argv, table, &common, usage.buf,
                  "Renders a run.json written by check, survey, logits or run.", &rest, &code))
        goto done;
    code = EXIT_ERROR;
    for (size_t i = 0; i < rest.len; i++)
        strvec_push(&ins, rest.items[i]);
    if (!ins.len) {
        fprintf(stderr, "pgci: error: report: no run.json given (see pgci report --help)\n");
        goto done;
    }
    if (merge && !fmts.len)
        strvec_push(&fmts, "json");
    if (!fmts.len)
        strvec_push(&fmts, "md");
    const report_format *fmt[16];
    if (fmts.len > 16) {
        fprintf(stderr, "pgci: error: report: too many formats\n");
        goto done;
    }
    for (size_t i = 0; i < fmts.len; i++) {
        fmt[i] = format_find(fmts.items[i]);
        if (!fmt[i]) {
            fprintf(stderr, "pgci: error: report: unknown format '%s' (known: %s)\n", fmts.items[i],
                    known.buf);
            goto done;
        }
    }
    if (!outdir && fmts.len > 1) {
        fprintf(stderr, "pgci: error: report: several formats need -o DIR\n");
        goto done;
    }
    run_doc *docs = pgci_calloc(ins.len, sizeof(run_doc));
    run_doc merged = {0};
    char *merge_failed = NULL; /* what only the merge sees: the report is written, exit 2 */
    const run_doc *d = NULL;
    size_t loaded = 0;
    for (; loaded < ins.len; loaded++)
        if (run_doc_load(&docs[loaded], ins.items[loaded]) < 0) {
            cmd_error();
            goto free_docs;
        }
    /* one shard alone is not the whole run either */
    if (run_doc_check_shards(docs, (const char *const *)ins.items, ins.len) < 0) {
        cmd_error();
        goto free_docs;
    }
    if (ins.len > 1) {
        int mr = run_doc_merge(&merged, docs, (const char *const *)ins.items, ins.len);
        if (mr < 0) {
            cmd_error();
            goto free_docs;
        }
        if (mr > 0)
            merge_failed = pgci_strdup(pgci_error_last());
        d = &merged;
        /* a survey's upstream changes group the merged findings as a whole */
        if (!strcmp(run_doc_command(d), "survey"))
            json_object_set_new(d->root, "changes", changes_group(run_doc_findings(d)));
    } else {
        d = &docs[0];
    }
    if (outdir && fs_mkdirs(outdir) < 0) {
        cmd_error();
        goto free_docs;
    }
    code = write_reports(fmt, fmts.len, d, outdir, details_url);
    if (merge_failed && code == EXIT_CLEAN) {
        fprintf(stderr, "pgci: error: %s\n", merge_failed);
        code = EXIT_ERROR;
    }
free_docs:
    free(merge_failed);
    for (size_t i = 0; i < loaded; i++)
        run_doc_free(&docs[i]);
    free(docs);
    run_doc_free(&merged);
done:
    strvec_free(&ins);
    strvec_free(&fmts);
    strvec_free(&rest);
    strbuf_free(&usage);
    strbuf_free(&fmt_help);
    strbuf_free(&known);
    return code;
}
