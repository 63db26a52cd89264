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
#include "reports/render.h"

static const char usage[] =
    "pgci report --in RUN.json [--in ...] [--format md,json,html,sarif,github,comment] "
    "[-o DIR]\n   or: pgci report --merge A.json B.json ... [-o DIR]";

static const char *const formats[] = {"md", "json", "html", "sarif", "github", "comment"};
static const char *const file_names[] = {"report.md",    "run.json",        "report.html",
                                         "report.sarif", "annotations.txt", "comment.md"};

static int format_index(const char *f)
{
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        if (!strcmp(formats[i], f))
            return (int)i;
    if (!strcmp(f, "markdown"))
        return 0;
    return -1;
}

static int render(strbuf *out, int fmt, const run_doc *d, const char *details_url)
{
    switch (fmt) {
    case 0:
        report_markdown(out, d);
        return 0;
    case 1:
        run_doc_dump(d, out);
        return 0;
    case 2:
        return report_html(out, d);
    case 3:
        report_sarif(out, d);
        return 0;
    case 4:
        report_github(out, d);
        return 0;
    default:
        report_comment(out, d, details_url, 0);
        return 0;
    }
}

/* The job summary: GitHub renders $GITHUB_STEP_SUMMARY as Markdown under the run. */
static int write_step_summary(const run_doc *d)
{
    const char *p = getenv("GITHUB_STEP_SUMMARY");
    if (!p || !*p)
        return 0;
    strbuf md = STRBUF_INIT;
    report_markdown(&md, d);
    FILE *f = fopen(p, "a");
    if (!f) {
        strbuf_free(&md);
        return pgci_error_set(PGCI_EIO, "cannot append to $GITHUB_STEP_SUMMARY (%s)", p);
    }
    fwrite(md.buf, 1, md.len, f);
    int bad = fclose(f) != 0;
    strbuf_free(&md);
    return bad ? pgci_error_set(PGCI_EIO, "cannot write $GITHUB_STEP_SUMMARY (%s)", p) : 0;
}

int cmd_report(int argc, const char **argv)
{
    strvec ins = STRVEC_INIT, fmts = STRVEC_INIT, rest = STRVEC_INIT;
    const char *outdir = NULL, *details_url = NULL;
    int merge = 0;
    opt table[] = {
        OPT_LIST('i', "in", &ins, "RUN.json", "the run to render (repeat to merge shards)"),
        OPT_LIST('f', "format", &fmts, "LIST",
                 "md, json, html, sarif, github (annotations), comment (default: md)"),
        OPT_BOOL(0, "merge", &merge, "merge the run.json files given as arguments"),
        OPT_STR('o', "output", &outdir, "DIR", "write report.* files into DIR instead of stdout"),
        OPT_STR(0, "details-url", &details_url, "URL", "where the full report lives (comment)"),
        OPT_END(),
    };
    int code;
    if (cmd_parse(argc, argv, table, NULL, usage,
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
    int idx[16];
    if (fmts.len > 16) {
        fprintf(stderr, "pgci: error: report: too many formats\n");
        goto done;
    }
    for (size_t i = 0; i < fmts.len; i++) {
        idx[i] = format_index(fmts.items[i]);
        if (idx[i] < 0) {
            fprintf(stderr,
                    "pgci: error: report: unknown format '%s' (known: md, json, html, sarif, "
                    "github, comment)\n",
                    fmts.items[i]);
            goto done;
        }
    }
    if (!outdir && fmts.len > 1) {
        fprintf(stderr, "pgci: error: report: several formats need -o DIR\n");
        goto done;
    }
    run_doc *docs = pgci_calloc(ins.len, sizeof(run_doc));
    run_doc merged = {0};
    const run_doc *d = NULL;
    size_t loaded = 0;
    for (; loaded < ins.len; loaded++)
        if (run_doc_load(&docs[loaded], ins.items[loaded]) < 0) {
            cmd_error();
            goto free_docs;
        }
    if (ins.len > 1) {
        if (run_doc_merge(&merged, docs, ins.len) < 0) {
            cmd_error();
            goto free_docs;
        }
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
    code = EXIT_CLEAN;
    for (size_t i = 0; i < fmts.len && code == EXIT_CLEAN; i++) {
        strbuf out = STRBUF_INIT;
        if (render(&out, idx[i], d, details_url) < 0) {
            code = cmd_error();
        } else if (outdir) {
            strbuf p = STRBUF_INIT;
            fs_join(&p, outdir, file_names[idx[i]]);
            if (fs_write_atomic(p.buf, out.buf, out.len) < 0)
                code = cmd_error();
            strbuf_free(&p);
        } else {
            fwrite(out.buf, 1, out.len, stdout);
        }
        if (code == EXIT_CLEAN && idx[i] == 4 && write_step_summary(d) < 0)
            code = cmd_error();
        strbuf_free(&out);
    }
free_docs:
    for (size_t i = 0; i < loaded; i++)
        run_doc_free(&docs[i]);
    free(docs);
    run_doc_free(&merged);
done:
    strvec_free(&ins);
    strvec_free(&fmts);
    strvec_free(&rest);
    return code;
}
