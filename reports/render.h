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
 * and the job summary can fold or drop whole sections (never cut one in half) to
 * fit GitHub's limits. */
typedef struct md_section {
    char *id;    /* "summary", "drift", "configs", ... */
    char *title; /* heading text, for "left out" lines */
    char *text;  /* the section's Markdown, ending with a blank line */
    int keep;    /* 1: never dropped from the PR comment */
    char *brief; /* the text without its <details> (what a fitted report shows of it
                    before dropping it); NULL when none */
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
/* The report's Markdown as HTML (malloc'd; NULL when cmark fails): raw HTML other
 * than the report's own bare tags (details, summary, table, tr, th, td, code,
 * strong, br) is written as text, and links to scripts lose their target. */
char *report_html_body(const char *md, size_t len);

/* comment.c: the Markdown report fitted to a limit GitHub sets. Sections are
 * folded to their brief, then dropped, largest first, never cut in half; a line
 * names what was left out or folded and where the full report is. Only when the
 * kept sections alone are too long is the text cut (what the cut leaves open is
 * closed). */
typedef struct report_fit {
    size_t limit;            /* at most this many characters, or bytes */
    int bytes;               /* 1: the limit counts bytes (UTF-8), 0: characters */
    const char *what;        /* the limit, for the notes: "GitHub's comment limit" */
    const char *details_url; /* where the full report lives; NULL: the run's artifacts */
} report_fit;
/* Appends the fitted report to out; the limit counts only what is appended. */
void report_markdown_fit(strbuf *out, const run_doc *d, const report_fit *fit);
/* The PR comment body: a hidden marker line, then the report fitted to at most
 * `limit` characters in all (0: GitHub's 65536). */
#define REPORT_COMMENT_MARKER "<!-- pgci-report -->"
void report_comment(strbuf *out, const run_doc *d, const char *details_url, size_t limit);
/* The job summary ($GITHUB_STEP_SUMMARY): the report fitted to at most `limit`
 * bytes (0: 1,000,000, under GitHub's 1 MiB, over which it drops the summary). */
void report_step_summary(strbuf *out, const run_doc *d, const char *details_url, size_t limit);

/* github.c: workflow commands, one per distinct finding ("::error file=...,line=...,
 * title=...::message"; one finding under several configs is one annotation naming
 * them), first one for the error of a gate that could not run, then, for each kind
 * with more than GitHub shows, one saying how many there are; escaped as the
 * runner expects. */
#define GITHUB_ANNOTATIONS_PER_KIND 10 /* error, warning, notice: GitHub's limit a step */
void report_github(strbuf *out, const run_doc *d);

/* sarif.c: SARIF 2.1.0 for code scanning. */
void report_sarif(strbuf *out, const run_doc *d);

/* Markdown helpers shared by the renderers. */
/* Escapes text for a Markdown paragraph or an HTML table cell. */
void md_escape(strbuf *out, const char *s);
/* A finding's title as inline Markdown: `code spans` kept, the rest escaped where
 * CommonMark would read markup (an underscore inside a word is left alone). */
void md_inline(strbuf *out, const char *s);
/* Any text as one code span: a fence longer than any backtick run inside, padded
 * when the text starts or ends with a backtick, newlines as spaces. Nothing in the
 * text can end the span early, so a config name or path with a backtick stays
 * code and never becomes Markdown or HTML. md_code_n takes s[0..n). */
void md_code(strbuf *out, const char *s);
void md_code_n(strbuf *out, const char *s, size_t n);
/* Text as a fenced code block with info string `info` (may be ""), each line
 * prefixed with `indent` (may be "", "  " inside a list item): a fence of at
 * least three backticks, longer than any backtick run in the text. */
void md_fenced(strbuf *out, const char *text, const char *info, const char *indent);
/* Escapes text for HTML; newlines become spaces (a blank line would end the
 * Markdown's HTML block). */
void html_escape(strbuf *out, const char *s);

#endif
