/*
 * The Markdown report fitted to GitHub's limits: the PR comment (65,536
 * characters, after a hidden marker so a workflow finds and updates its one
 * comment instead of adding new ones) and the job summary (GitHub drops a step
 * summary over 1 MiB whole).
 *
 * It keeps as many sections as it can: first the droppable sections lose their
 * <details> (largest first), then droppable sections go whole (largest first, so
 * one huge section does not take every small one after it with it), then the kept
 * sections lose their <details> (a survey's error sections keep their titles,
 * configs and actions). What room is left then gives back sections folded or
 * dropped on the way, smallest first. The rest stay in document order, and one
 * line names what was left out and what was folded. A section is never cut in half: a half section
 * can leave an open code fence or <details> that breaks everything after it. Only
 * when the kept sections alone are too long (a huge error message) is the text
 * cut, closing exactly what the cut leaves open.
 */
#include <stdint.h>
#include <string.h>

#include "reports/render.h"

#define COMMENT_LIMIT 65536
#define STEP_SUMMARY_LIMIT 1000000

/* The comment's limit counts characters, the summary's bytes; counting UTF-8 lead
 * bytes counts characters exactly. */
static size_t measure(const char *s, int bytes)
{
    if (bytes)
        return strlen(s);
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

/* Cuts out[start..] to fit: at a line boundary, or inside a line too long to keep
 * whole (a huge error message keeps its start) at a space; then closes only what
 * the kept text leaves open, and says it was cut. */
static void cut_to_fit(strbuf *out, size_t start, const report_fit *fit)
{
    size_t limit = fit->limit;
    size_t budget = limit > 400 ? limit - 400 : limit / 2, n = 0, end = start;
    for (; end < out->len && n < budget; end++)
        n += fit->bytes || ((unsigned char)out->buf[end] & 0xC0) != 0x80;
    while (end < out->len && ((unsigned char)out->buf[end] & 0xC0) == 0x80)
        end--;
    size_t line = end;
    while (line > start && out->buf[line - 1] != '\n')
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
    strbuf_addf(out, "\n> Truncated to fit %s; see the full report in the run's artifacts.\n",
                fit->what);
}

enum { SECTION_WHOLE, SECTION_FOLDED, SECTION_DROPPED };

/* The line naming what was left out and what was folded, and where the full
 * report is; empty when every section is whole. */
static void fit_note(strbuf *note, const md_doc *m, const int *state, const report_fit *fit)
{
    strbuf_setlen(note, 0);
    for (int want = SECTION_DROPPED; want >= SECTION_FOLDED; want--) {
        size_t n = 0;
        for (size_t i = 0; i < m->len; i++) {
            if (state[i] != want)
                continue;
            if (n++)
                strbuf_adds(note, ", ");
            else if (want == SECTION_DROPPED)
                strbuf_addf(note, "> Left out to fit %s: ", fit->what);
            else if (note->len)
                strbuf_adds(note, "; shown without their details: ");
            else
                strbuf_addf(note, "> Shown without their details to fit %s: ", fit->what);
            md_escape(note, m->items[i].title);
        }
    }
    if (!note->len)
        return;
    strbuf_adds(note, ". The full report is ");
    if (fit->details_url)
        strbuf_addf(note, "at %s", fit->details_url);
    else
        strbuf_adds(note, "in the run's artifacts (report.html, run.json)");
    strbuf_adds(note, ".\n");
}

/* The largest section (size[i]: its text as it stands) that `keep` and `state`
 * allow to go to state `to`; SIZE_MAX when none. Folding is worth it only where
 * the brief is shorter. On a tie the later section goes first. */
static size_t fit_largest(const md_doc *m, const int *state, const size_t *size,
                          const size_t *brief, int keep, int to)
{
    size_t best = SIZE_MAX;
    for (size_t i = m->len; i-- > 0;) {
        if (!m->items[i].keep != !keep || state[i] == SECTION_DROPPED)
            continue;
        if (to == SECTION_FOLDED &&
            (state[i] != SECTION_WHOLE || !m->items[i].brief || brief[i] >= size[i]))
            continue;
        if (best == SIZE_MAX || size[i] > size[best])
            best = i;
    }
    return best;
}

/* One step toward the limit: fold the largest droppable section, else drop the
 * largest droppable one, else fold the largest kept one. 0 when nothing is left. */
static int fit_step(const md_doc *m, int *state, size_t *size, const size_t *brief)
{
    static const struct {
        int keep, to;
    } steps[] = {{0, SECTION_FOLDED}, {0, SECTION_DROPPED}, {1, SECTION_FOLDED}};
    for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
        size_t i = fit_largest(m, state, size, brief, steps[s].keep, steps[s].to);
        if (i == SIZE_MAX)
            continue;
        state[i] = steps[s].to;
        size[i] = steps[s].to == SECTION_FOLDED ? brief[i] : 0;
        return 1;
    }
    return 0;
}

/* What the sections as they stand take, with the note they need. */
static size_t fit_total(const md_doc *m, const int *state, const size_t *size,
                        const report_fit *fit, strbuf *note)
{
    size_t total = 1; /* the last newline */
    for (size_t i = 0; i < m->len; i++)
        total += size[i];
    fit_note(note, m, state, fit);
    return total + measure(note->buf, fit->bytes);
}

/* Gives back what room is left: a section folded or dropped on the way (folding a
 * small one did not make the rest fit) comes back whole, or else folded, smallest
 * first. */
static void fit_restore(const md_doc *m, int *state, size_t *size, const size_t *whole,
                        const size_t *brief, const report_fit *fit, strbuf *note)
{
    int *tried = pgci_calloc(m->len ? m->len : 1, sizeof(int));
    for (;;) {
        size_t i = SIZE_MAX;
        for (size_t j = 0; j < m->len; j++)
            if (state[j] != SECTION_WHOLE && !tried[j] && (i == SIZE_MAX || whole[j] < whole[i]))
                i = j;
        if (i == SIZE_MAX)
            break;
        tried[i] = 1;
        int was = state[i];
        size_t was_size = size[i];
        for (int to = SECTION_WHOLE; to < was; to++) {
            if (to == SECTION_FOLDED && !m->items[i].brief)
                continue;
            state[i] = to;
            size[i] = to == SECTION_WHOLE ? whole[i] : brief[i];
            if (fit_total(m, state, size, fit, note) <= fit->limit)
                break;
            state[i] = was;
            size[i] = was_size;
        }
    }
    free(tried);
}

void report_markdown_fit(strbuf *out, const run_doc *d, const report_fit *fit)
{
    md_doc m = {0};
    report_markdown_sections(&m, d);
    size_t n = m.len ? m.len : 1, start = out->len;
    int *state = pgci_calloc(n, sizeof(int));
    size_t *size = pgci_calloc(n, sizeof(size_t)), *whole = pgci_calloc(n, sizeof(size_t)),
           *brief = pgci_calloc(n, sizeof(size_t));
    for (size_t i = 0; i < m.len; i++) {
        size[i] = whole[i] = measure(m.items[i].text, fit->bytes);
        brief[i] = m.items[i].brief ? measure(m.items[i].brief, fit->bytes) : 0;
    }
    strbuf note = STRBUF_INIT;
    while (fit_total(&m, state, size, fit, &note) > fit->limit && fit_step(&m, state, size, brief))
        ;
    fit_restore(&m, state, size, whole, brief, fit, &note);
    fit_note(&note, &m, state, fit);
    for (size_t i = 0; i < m.len; i++)
        if (state[i] != SECTION_DROPPED)
            strbuf_adds(out, state[i] == SECTION_FOLDED ? m.items[i].brief : m.items[i].text);
    strbuf_add(out, note.buf, note.len);
    strbuf_rtrim(out);
    strbuf_addc(out, '\n');
    /* last resort when even the kept sections are too long */
    if (measure(out->buf + start, fit->bytes) > fit->limit)
        cut_to_fit(out, start, fit);
    strbuf_free(&note);
    free(state);
    free(size);
    free(whole);
    free(brief);
    md_doc_free(&m);
}

void report_comment(strbuf *out, const run_doc *d, const char *details_url, size_t limit)
{
    const char *marker = REPORT_COMMENT_MARKER "\n";
    size_t reserve = measure(marker, 0);
    limit = limit ? limit : COMMENT_LIMIT;
    report_fit fit = {.limit = limit > reserve ? limit - reserve : 1,
                      .what = "GitHub's comment limit",
                      .details_url = details_url};
    strbuf_adds(out, marker);
    report_markdown_fit(out, d, &fit);
}

void report_step_summary(strbuf *out, const run_doc *d, const char *details_url, size_t limit)
{
    report_fit fit = {.limit = limit ? limit : STEP_SUMMARY_LIMIT,
                      .bytes = 1,
                      .what = "GitHub's job summary limit",
                      .details_url = details_url};
    report_markdown_fit(out, d, &fit);
}
