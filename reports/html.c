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
    "details{margin:.4em 0}summary{cursor:pointer;color:#0969da}";

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
    strbuf_adds(out, body);
    strbuf_adds(out, "</body>\n</html>\n");
    free(body);
    strbuf_free(&md);
    return 0;
}
