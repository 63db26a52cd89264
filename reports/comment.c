/*
 * The PR comment: the Markdown report with a hidden marker (so a workflow finds
 * and updates its one comment instead of adding new ones), cut to GitHub's
 * 65,536-character limit by dropping whole sections from the end, most detailed
 * first, then by folding away the <details> of the sections it keeps (a survey's
 * error sections keep their titles, configs and actions), never cutting one in
 * half: a half section can leave an open code fence or <details> that breaks
 * everything after it. Only when the kept sections alone are too long (a huge
 * error message) is the text cut, closing exactly what the cut leaves open.
 */
#include <string.h>

#include "core/vec.h"
#include "reports/render.h"

#define COMMENT_LIMIT 65536

/* GitHub counts characters, not bytes; counting UTF-8 lead bytes is exact. */
static size_t chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Closes what text leaves open: a code fence (with its indent) and <details>. */
static void close_open(strbuf *out)
{
    size_t fence = 0, indent = 0;
    long depth = 0;
    for (const char *p = out->buf; *p;) {
        size_t n = strcspn(p, "\n"), sp = 0, ticks = 0;
        while (sp < n && p[sp] == ' ')
            sp++;
        while (sp + ticks < n && p[sp + ticks] == '`')
            ticks++;
        if (fence) {
            if (ticks >= fence && sp + ticks == n)
                fence = 0;
        } else if (ticks >= 3 && sp < 4 + indent) {
            fence = ticks;
            indent = sp;
        } else {
            for (const char *q = p; (q = strstr(q, "<details>")) && q < p + n; q++)
                depth++;
            for (const char *q = p; (q = strstr(q, "</details>")) && q < p + n; q++)
                depth--;
        }
        p += n + (p[n] == '\n');
    }
    if (fence) {
        strbuf_addrep(out, " ", indent);
        strbuf_addrep(out, "`", fence);
        strbuf_addc(out, '\n');
    }
    for (; depth > 0; depth--)
        strbuf_adds(out, "\n</details>\n");
}

/* Cuts out to fit limit characters: at a line boundary, or inside a line too long
 * to keep whole (a huge error message keeps its start) at a space; then closes
 * only what the kept text leaves open, and says it was cut. */
static void cut_to_fit(strbuf *out, size_t limit)
{
    size_t budget = limit > 400 ? limit - 400 : limit / 2, n = 0, end = 0;
    for (; end < out->len && n < budget; end++)
        n += ((unsigned char)out->buf[end] & 0xC0) != 0x80;
    while (end < out->len && ((unsigned char)out->buf[end] & 0xC0) == 0x80)
        end--;
    size_t line = end;
    while (line > 0 && out->buf[line - 1] != '\n')
        line--;
    if (end - line > 2000) { /* a giant line: keep its start, to a space */
        size_t sp = end;
        while (sp > line + 1000 && out->buf[sp] != ' ')
            sp--;
        strbuf_setlen(out, out->buf[sp] == ' ' ? sp : end);
        strbuf_adds(out, " …\n");
    } else {
        strbuf_setlen(out, line);
    }
    close_open(out);
    strbuf_adds(out, "\n> Truncated to fit GitHub's comment limit; see the full report in the "
                     "run's artifacts.\n");
}

void report_comment(strbuf *out, const run_doc *d, const char *details_url, size_t limit)
{
    if (!limit)
        limit = COMMENT_LIMIT;
    md_doc m = {0};
    report_markdown_sections(&m, d);
    int *drop = pgci_calloc(m.len ? m.len : 1, sizeof(int));
    /* room for the marker and the "left out" note */
    const size_t reserve = 600 + (details_url ? strlen(details_url) : 0);
    size_t total = strlen(REPORT_COMMENT_MARKER) + 1;
    for (size_t i = 0; i < m.len; i++)
        total += chars(m.items[i].text);
    /* drop droppable sections from the last one backwards until it fits */
    for (size_t i = m.len; i-- > 0 && total + reserve > limit;) {
        if (m.items[i].keep)
            continue;
        drop[i] = 1;
        total -= chars(m.items[i].text);
    }
    /* then cut the detail, not the section: kept sections lose their folded
     * <details> (a survey's every finding), from the last one backwards */
    for (size_t i = m.len; i-- > 0 && total + reserve > limit;) {
        if (drop[i] || !m.items[i].brief)
            continue;
        total -= chars(m.items[i].text);
        total += chars(m.items[i].brief);
        free(m.items[i].text);
        m.items[i].text = m.items[i].brief;
        m.items[i].brief = NULL;
    }
    strbuf_adds(out, REPORT_COMMENT_MARKER "\n");
    strvec left = STRVEC_INIT;
    for (size_t i = 0; i < m.len; i++) {
        if (drop[i]) {
            strvec_push(&left, m.items[i].title);
            continue;
        }
        strbuf_adds(out, m.items[i].text);
    }
    if (left.len) {
        strbuf_adds(out, "> Left out to fit GitHub's comment limit: ");
        for (size_t i = 0; i < left.len; i++) {
            strbuf_adds(out, i ? ", " : "");
            md_escape(out, left.items[i]);
        }
        strbuf_adds(out, ". The full report is ");
        if (details_url)
            strbuf_addf(out, "at %s", details_url);
        else
            strbuf_adds(out, "in the run's artifacts (report.html, run.json)");
        strbuf_adds(out, ".\n");
    }
    strbuf_rtrim(out);
    strbuf_addc(out, '\n');
    /* last resort when even the kept sections are too long */
    if (chars(out->buf) > limit)
        cut_to_fit(out, limit);
    strvec_free(&left);
    free(drop);
    md_doc_free(&m);
}
