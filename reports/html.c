/*
 * The HTML report: the Markdown report through cmark, wrapped in one
 * self-contained page. Inline CSS only and no script, font or image from the
 * network, so the page reads the same from a CI artifact opened offline.
 */
#include <cmark.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* The tags the report writes itself, bare (no attributes). */
static const char *const allowed_tags[] = {"details", "summary", "table",  "tr", "th",
                                           "td",      "code",    "strong", "br"};

/* Whether every '<' in raw HTML opens one of allowed_tags (open or close, no
 * attribute): what the Markdown writer emits. Text in it was escaped (&lt;). */
static int html_allowed(const char *s)
{
    for (const char *p = strchr(s ? s : "", '<'); p; p = strchr(p, '<')) {
        p++;
        if (*p == '/')
            p++;
        size_t n = 0;
        while (p[n] >= 'a' && p[n] <= 'z')
            n++;
        int ok = 0;
        for (size_t i = 0; i < sizeof(allowed_tags) / sizeof(allowed_tags[0]) && !ok; i++)
            ok = n == strlen(allowed_tags[i]) && !strncmp(p, allowed_tags[i], n);
        if (!ok || (p[n] != '>' && strncmp(p + n, " />", 3) && strncmp(p + n, "/>", 2)))
            return 0;
        p += n;
    }
    return 1;
}

/* A link or image to a script or a local file. */
static int url_dangerous(const char *url)
{
    static const char *const schemes[] = {"javascript:", "vbscript:", "file:", "data:"};
    while (url && (*url == ' ' || *url == '\t'))
        url++;
    for (size_t i = 0; url && i < sizeof(schemes) / sizeof(schemes[0]); i++)
        if (!strncasecmp(url, schemes[i], strlen(schemes[i])))
            return 1;
    return 0;
}

/* Defense in depth: the Markdown writer escapes every string of the run, but the
 * page is rendered with raw HTML on (for its tables and <details>), so one
 * escaping slip would be live HTML. Raw HTML other than the report's own tags
 * becomes literal text (a code block for a block), and links to scripts lose
 * their target. */
static void defuse(cmark_node *doc)
{
    cmark_iter *it = cmark_iter_new(doc);
    cmark_node **bad = NULL;
    size_t n = 0, cap = 0;
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *node = cmark_iter_get_node(it);
        cmark_node_type t = cmark_node_get_type(node);
        if (ev != CMARK_EVENT_ENTER)
            continue;
        if ((t == CMARK_NODE_HTML_BLOCK || t == CMARK_NODE_HTML_INLINE) &&
            !html_allowed(cmark_node_get_literal(node))) {
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                bad = pgci_realloc(bad, cap * sizeof(*bad));
            }
            bad[n++] = node;
        } else if ((t == CMARK_NODE_LINK || t == CMARK_NODE_IMAGE) &&
                   url_dangerous(cmark_node_get_url(node))) {
            cmark_node_set_url(node, "");
        }
    }
    cmark_iter_free(it);
    for (size_t i = 0; i < n; i++) {
        int block = cmark_node_get_type(bad[i]) == CMARK_NODE_HTML_BLOCK;
        cmark_node *lit = cmark_node_new(block ? CMARK_NODE_CODE_BLOCK : CMARK_NODE_TEXT);
        cmark_node_set_literal(lit, cmark_node_get_literal(bad[i]));
        cmark_node_replace(bad[i], lit);
        cmark_node_free(bad[i]);
    }
    free(bad);
}

char *report_html_body(const char *md, size_t len)
{
    /* UNSAFE keeps the raw HTML blocks (tables, <details>) the Markdown uses; the
     * text inside them was escaped when the Markdown was written, and defuse()
     * turns any other HTML into text. */
    cmark_node *doc = cmark_parse_document(md, len, CMARK_OPT_UNSAFE);
    char *body = NULL;
    if (doc) {
        defuse(doc);
        body = cmark_render_html(doc, CMARK_OPT_UNSAFE);
        cmark_node_free(doc);
    }
    return body;
}

int report_html(strbuf *out, const run_doc *d)
{
    strbuf md = STRBUF_INIT;
    report_markdown(&md, d);
    char *body = report_html_body(md.buf, md.len);
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
