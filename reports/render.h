/*
 * render.h - the renderers: one file per format over the run document
 * (pipeline/run_doc.h), after cmark's one-file-per-renderer layout.
 *
 * Every renderer is a pure function of the document: same run.json, same bytes.
 */
#ifndef PGCI_REPORTS_RENDER_H
#define PGCI_REPORTS_RENDER_H

#include <stddef.h>

#include "core/strbuf.h"
#include "pipeline/run_doc.h"

/* The Markdown report is built as an ordered list of sections so the PR comment
 * can drop whole sections (never cut one in half) to fit GitHub's limit. */
typedef struct md_section {
    char *id;    /* "summary", "drift", "configs", ... */
    char *title; /* heading text, for "left out" lines */
    char *text;  /* the section's Markdown, ending with a blank line */
    int keep;    /* 1: never dropped from the PR comment */
    char *brief; /* the text without its <details> (the PR comment's last resort before
                    cutting a kept section); NULL when none */
} md_section;

typedef struct md_doc {
    md_section *items;
    size_t len, cap;
} md_doc;

/* Builds the sections of the Markdown report. */
void report_markdown_sections(md_doc *out, const run_doc *d);
void md_doc_free(md_doc *m);

/* markdown.c: the whole Markdown report. */
void report_markdown(strbuf *out, const run_doc *d);

/* html.c: the Markdown through cmark, in one self-contained page (inline CSS, no
 * network). */
int report_html(strbuf *out, const run_doc *d);

/* comment.c: the PR comment body: a hidden marker line, then the Markdown cut to
 * at most `limit` characters (0: 65536) by dropping whole sections, with a line
 * naming what was left out and where the full report is (details_url may be NULL). */
#define REPORT_COMMENT_MARKER "<!-- pgci-report -->"
void report_comment(strbuf *out, const run_doc *d, const char *details_url, size_t limit);

/* github.c: workflow commands, one per finding ("::error file=...,line=...,
 * title=...::message"), escaped as the runner expects. */
void report_github(strbuf *out, const run_doc *d);

/* sarif.c: SARIF 2.1.0 for code scanning. */
void report_sarif(strbuf *out, const run_doc *d);

/* Markdown helpers shared by the renderers. */
/* Escapes text for a Markdown paragraph or an HTML table cell. */
void md_escape(strbuf *out, const char *s);
/* A finding's title as inline Markdown: `code spans` kept, the rest escaped where
 * CommonMark would read markup (an underscore inside a word is left alone). */
void md_inline(strbuf *out, const char *s);
/* Escapes text for HTML. */
void html_escape(strbuf *out, const char *s);

#endif
