/*
 * The HTML report: the Markdown report through cmark, wrapped in one
 * self-contained page. Inline CSS only and no script, font or image from the
 * network, so the page reads the same from a CI artifact opened offline.
 */
#include <cmark.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "reports/render.h"

static const char page_css[] =
    "body{font:15px/1.5 -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1f2328;"
    "max-width:980px;margin:2em auto;padding:0 1em}"
    "h1{border-bottom:1px solid #d0d7de;padding-bottom:.3em}"
    "h2{border-bottom:1px solid #d8dee4;padding-bottom:.2em;margin-top:1.6em}"
    "code,pre{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}"
    "code{background:#eff1f3;padding:.1em .3em;border-radius:4px}"
    "pre{background:#f6f8fa;padding:1em;overflow:auto;border-radius:6px}"
    "pre code{background:none;padding:0}"
    "table{border-collapse:collapse;margin:1em 0}"
    "th,td{border:1px solid #d0d7de;padding:.3em .7em;text-align:left;vertical-align:top}"
    "th{background:#f6f8fa}"
    "details{margin:.4em 0}summary{cursor:pointer;color:#0969da}"
    /* long paths and module names wrap instead of widening the page; wide tables
     * and code blocks scroll inside themselves */
    "body{overflow-wrap:anywhere}table{display:block;max-width:100%;overflow-x:auto}"
    "pre{max-width:100%}"
    ".sev-error{color:#cf222e}.sev-warning{color:#9a6700}.sev-info{color:#57606a}";

/* "<strong>error</strong>" (a finding's severity in the Markdown) gets its colour. */
static void colour_severities(strbuf *out, const char *body)
{
    static const char *const sevs[] = {"error", "warning", "info"};
    const char *p = body;
    while (*p) {
        const char *hit = strstr(p, "<strong>");
        if (!hit) {
            strbuf_adds(out, p);
            return;
        }
        strbuf_add(out, p, (size_t)(hit - p));
        p = hit + 8;
        const char *sev = NULL;
        for (size_t i = 0; i < 3 && !sev; i++) {
            size_t n = strlen(sevs[i]);
            if (!strncmp(p, sevs[i], n) && !strncmp(p + n, "</strong>", 9))
                sev = sevs[i];
        }
        if (sev)
            strbuf_addf(out, "<strong class=\"sev-%s\">", sev);
        else
            strbuf_adds(out, "<strong>");
    }
}

int report_html(strbuf *out, const run_doc *d)
{
    strbuf md = STRBUF_INIT;
    report_markdown(&md, d);
    /* UNSAFE keeps the raw HTML blocks (tables, <details>) the Markdown uses; the
     * text inside them was escaped when the Markdown was written. */
    char *body = cmark_markdown_to_html(md.buf, md.len, CMARK_OPT_UNSAFE);
    if (!body) {
        strbuf_free(&md);
        return pgci_error_set(PGCI_ERROR, "cmark could not render the report");
    }
    const char *cmd = run_doc_command(d);
    strbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<title>pgci ");
    html_escape(out, cmd);
    strbuf_adds(out, " report</title>\n<style>");
    strbuf_adds(out, page_css);
    strbuf_adds(out, "</style>\n</head>\n<body>\n");
    colour_severities(out, body);
    strbuf_adds(out, "</body>\n</html>\n");
    free(body);
    strbuf_free(&md);
    return 0;
}
