#include "checks/regen_finding.h"

#include <stdlib.h>
#include <string.h>

#include "checks/names_origin.h"
#include "checks/regen_causes.h"
#include "core/strbuf.h"

/* "path:LINE:COL: rest" -> line, col and rest, when the message starts with the
 * config's own path (the evaluator's errors do): the finding then points there. */
static const char *located(const char *message, const char *path, unsigned *line, unsigned *col)
{
    size_t n = path ? strlen(path) : 0;
    if (!n || strncmp(message, path, n) || message[n] != ':')
        return message;
    char *end;
    unsigned long l = strtoul(message + n + 1, &end, 10);
    if (end == message + n + 1 || *end != ':')
        return message;
    unsigned long c = strtoul(end + 1, &end, 10);
    if (*end != ':' || end[1] != ' ')
        return message;
    *line = (unsigned)l;
    *col = (unsigned)c;
    return end + 2;
}

/* The causes past the first line's, listed at most OTHERS_LISTED of them: a ruff
 * failure's title names each distinct diagnostic (the Qwen3.5 configs at 5.16.1
 * fail on two redefinitions and three undefined names, and the first line names
 * one). */
#define OTHERS_LISTED 8

static void others(strbuf *more, const char *message, size_t first)
{
    regen_causes c;
    regen_causes_read(&c, message);
    strvec o = STRVEC_INIT;
    regen_causes_others(&c, message, first, &o);
    if (o.len) {
        strbuf_addf(more, " (and %zu more: ", o.len);
        for (size_t i = 0; i < o.len && i < OTHERS_LISTED; i++)
            strbuf_addf(more, "%s%s", i ? ", " : "", o.items[i]);
        if (o.len > OTHERS_LISTED)
            strbuf_addf(more, " and %zu others", o.len - OTHERS_LISTED);
        strbuf_adds(more, c.cut ? "; ruff's output cut short before the rest)" : ")");
    } else if (c.cut) {
        strbuf_adds(more, " (ruff's output cut short before the rest)");
    }
    strvec_free(&o);
    regen_causes_free(&c);
}

/* codegen's error for add_helper_after targets missing from the output (codegen.c) */
#define HELPER_MISSING "positioned helper target(s) not found in generated output: "

/* The add_helper_after that names the first target the message says the output
 * lacks, in the file that holds it (*path). */
static void helper_located(const char *message, const char **path, const pg_config *cfg,
                           unsigned *line, unsigned *col)
{
    const char *m = cfg ? strstr(message, HELPER_MISSING) : NULL;
    if (!m)
        return;
    m += strlen(HELPER_MISSING);
    size_t n = strcspn(m, ", \n");
    for (size_t i = 0; i < cfg->positioned_helpers.len; i++) {
        const pg_positioned_helper *h = &cfg->positioned_helpers.items[i];
        if (h->target && strlen(h->target) == n && !strncmp(h->target, m, n) && h->reg_line &&
            h->reg_file) {
            *path = h->reg_file;
            *line = h->reg_line;
            *col = h->reg_col;
            return;
        }
    }
}

/* A decimal number at *p, advancing *p past it; 0 when none. */
static unsigned number(const char **p)
{
    unsigned n = 0;
    while (**p >= '0' && **p <= '9' && n < 100000000)
        n = n * 10 + (unsigned)(*(*p)++ - '0');
    return n;
}

/* The frame of ruff's output whose header line ("--> FILE:LINE:COL", or "::: " for
 * a further place of the same diagnostic) starts at p: the source lines it shows,
 * numbered ("1816 |         text") between marker lines ("     |    ^^^"). The
 * consecutive numbered lines become a small source (src), *at the diagnostic's
 * line among them (1-based; 0: not shown), *col its column. */
static void ruff_frame(const char *p, strbuf *src, unsigned *at, unsigned *col)
{
    *at = *col = 0;
    const char *e = strchr(p, '\n');
    if (!e)
        return;
    /* "path:LINE:COL" ends the line */
    const char *c2 = e;
    while (c2 > p && c2[-1] != ':')
        c2--;
    const char *c1 = c2 > p + 1 ? c2 - 1 : p;
    while (c1 > p && c1[-1] != ':')
        c1--;
    const char *q = c1;
    unsigned want = number(&q);
    q = c2;
    unsigned dcol = number(&q);
    if (!want || c1 == p)
        return;
    unsigned next = 0, n = 0;
    for (const char *end = e; *end == '\n';) { /* end: where the last line read ends */
        p = end + 1;
        e = strchr(p, '\n');
        if (!e)
            e = p + strlen(p);
        end = e;
        const char *s = p;
        while (*s == ' ')
            s++;
        if (*s == '|' && s > p) /* a marker line */
            continue;
        unsigned num = number(&s);
        if (!num || s[0] != ' ' || s[1] != '|' || (next && num != next))
            break;
        s += 2;
        if (*s == ' ')
            s++;
        strbuf_add(src, s, (size_t)(e - s > 0 ? e - s : 0));
        strbuf_addc(src, '\n');
        n++;
        if (num == want) {
            *at = n;
            *col = dcol;
        }
        next = num + 1;
    }
}

/* The header lines of the first diagnostic's frames in ruff's output, at most
 * max: its place ("--> "), then its further places ("::: ", an F811's previous
 * definition), up to the blank line that ends the diagnostic. */
static size_t ruff_frames(const char *msg, const char **out, size_t max)
{
    const char *p = strstr(msg, "--> ");
    if (!p)
        return 0;
    const char *stop = strstr(p, "\n\n");
    size_t n = 0;
    out[n++] = p;
    for (const char *q = p; n < max && (q = strstr(q + 4, "::: ")) && (!stop || q < stop);)
        out[n++] = q;
    return n;
}

/* The config line that wrote a line of the generated file ruff's first diagnostic
 * shows, in the file that holds it (*path): the first of its frames whose line a
 * patch body or helper holds (found by its text and neighbours as names_origin.h
 * finds it), else the first whose line and two neighbours are lines of a file
 * that defines the config's objects, outside them (a post-import block: at 5.16.1
 * the Qwen3.5 configs' block sets `causal_conv1d_update = None`, which upstream's
 * new function of that name redefines, and ruff refuses the F811 at upstream's
 * def, the block's line being the diagnostic's previous definition). */
static void ruff_located(const char *message, const char **path, const pg_config *cfg,
                         unsigned *line, unsigned *col)
{
    if (!cfg || !cfg->file || !*path)
        return;
    const char *frames[8];
    size_t nf = ruff_frames(message, frames, sizeof frames / sizeof frames[0]);
    for (int whole_files = 0; whole_files < 2; whole_files++) {
        for (size_t i = 0; i < nf; i++) {
            strbuf src = STRBUF_INIT;
            unsigned at, dcol, l, c;
            pg_object file;
            ruff_frame(frames[i], &src, &at, &dcol);
            const pg_object *o =
                !at ? NULL
                : whole_files
                    ? names_origin_find_in_files(cfg, src.buf, src.len, at, dcol, 3, &file, &l, &c)
                    : names_origin_find(cfg, src.buf, src.len, at, dcol, 2, &l, &c);
            const char *rel = o ? pg_workspace_relative(o->file, cfg->file, *path) : NULL;
            strbuf_free(&src);
            if (rel) {
                *path = rel;
                *line = l;
                *col = c;
                return;
            }
        }
    }
}

void regen_finding(findings *out, const char *config, const char *path, const pg_config *cfg,
                   const char *what, const char *message)
{
    unsigned line = 0, col = 0;
    message = located(message, path, &line, &col);
    if (!line)
        helper_located(message, &path, cfg, &line, &col);
    if (!line)
        ruff_located(message, &path, cfg, &line, &col);
    const char *nl = strchr(message, '\n');
    int first = nl ? (int)(nl - message) : (int)strlen(message);
    strbuf more = STRBUF_INIT;
    others(&more, message, (size_t)first);
    finding *f = findings_add(out, "regen", SEV_ERROR, config, path, line, col, NULL, "%s: %.*s%s",
                              what, first, message, more.buf);
    strbuf_free(&more);
    if (nl && nl[1])
        finding_set_detail(f, nl + 1);
}
