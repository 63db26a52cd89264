/*
 * Generated line -> config line (see names_origin.h).
 */
#include "checks/names_origin.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/vec.h"
#include "patchgen/codegen_source.h"

/* Line `line` (1-based) of src without its indentation (*indent columns) and
 * trailing space. */
static int line_text(const char *src, size_t len, unsigned line, const char **s, size_t *n,
                     unsigned *indent)
{
    const char *p = src, *end = src + len;
    for (unsigned l = 1; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return 0;
        p = nl + 1;
    }
    if (p >= end)
        return 0;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *e = nl ? nl : end;
    const char *start = p;
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    *indent = (unsigned)(p - start);
    while (e > p && isspace((unsigned char)e[-1]))
        e--;
    *s = p;
    *n = (size_t)(e - p);
    return *n > 0;
}

/* The generated file around the line a finding points at. */
typedef struct gen_site {
    const char *src;
    size_t len;
    unsigned line;
} gen_site;

static int same_line(const char *a, size_t alen, unsigned al, const char *b, size_t blen,
                     unsigned bl)
{
    const char *s, *t;
    size_t n, m;
    unsigned i1, i2;
    return line_text(a, alen, al, &s, &n, &i1) && line_text(b, blen, bl, &t, &m, &i2) && n == m &&
           !memcmp(s, t, n);
}

/* How well line l of o matches the site: 0 when the line itself differs, else
 * 1 + the neighbouring lines (up to 3 each way, inside o) that match too. */
static int score(const pg_object *o, unsigned l, const gen_site *g)
{
    if (!same_line(o->text, o->text_len, l, g->src, g->len, g->line))
        return 0;
    int sc = 1;
    for (int d = 1; d <= 3; d++) {
        if (l > o->start_line + (unsigned)d - 1 && g->line > (unsigned)d &&
            same_line(o->text, o->text_len, l - (unsigned)d, g->src, g->len, g->line - (unsigned)d))
            sc++;
        if (l + (unsigned)d <= o->end_line &&
            same_line(o->text, o->text_len, l + (unsigned)d, g->src, g->len, g->line + (unsigned)d))
            sc++;
    }
    return sc;
}

/* Keeps the best (object, line) for the site among o's lines. Only the lines
 * that hold the site's text are scored (score() compares them whole): they are
 * found by a search of the text, not by reading each line of o from the file's
 * start (which cost a regeneration's failure 600 M instructions on 2,000-line
 * configs). */
static void consider(const pg_object *o, const pg_object *report, const gen_site *g,
                     const pg_object **best, unsigned *line, int *best_score)
{
    const char *s;
    size_t n;
    unsigned indent;
    if (!o || !o->text || !o->start_line || !line_text(g->src, g->len, g->line, &s, &n, &indent))
        return;
    const char *text = o->text, *end = o->text + o->text_len, *from = text;
    unsigned l = 1; /* the line `from` is on */
    for (const char *hit; (hit = memmem(from, (size_t)(end - from), s, n)); from = hit + 1) {
        for (const char *q = from; (q = memchr(q, '\n', (size_t)(hit - q))); q++)
            l++;
        from = hit; /* l is hit's line */
        if (l > o->end_line)
            return;
        if (l < o->start_line)
            continue;
        int sc = score(o, l, g);
        if (sc > *best_score) {
            *best_score = sc;
            *best = report;
            *line = l;
        }
    }
}

/* A config object as its lines read in the generated file: a patch's body with
 * its name_map applied (codegen replaces each name in the text, longest first;
 * applied to the whole file, which keeps its lines, since no name holds a line
 * break), another object as it is. */
typedef struct origin {
    pg_object search;        /* the lines searched */
    const pg_object *report; /* the config's object */
    char *mapped;            /* search.text, when mapped */
} origin;
typedef VEC(origin) origin_vec;

static int maps_lines(const pg_patch *p)
{
    for (size_t i = 0; i < p->name_map_len; i++)
        if (strchr(p->name_map[i].from, '\n') || strchr(p->name_map[i].to, '\n'))
            return 0;
    return p->name_map_len > 0;
}

static void origin_add(origin_vec *v, const pg_object *o, const pg_patch *p)
{
    if (!o || !o->text)
        return;
    origin r = {*o, o, NULL};
    if (p && maps_lines(p)) {
        strbuf sb = STRBUF_INIT;
        strbuf_add(&sb, o->text, o->text_len);
        cgsrc_apply_name_map(&sb, p->name_map, p->name_map_len);
        r.search.text_len = sb.len;
        r.search.text = r.mapped = strbuf_detach(&sb, NULL);
    }
    VEC_PUSH(v, r);
}

/* The objects a generated line may come from: patch replacements, helpers,
 * positioned helpers. */
static void origins_build(const pg_config *c, origin_vec *v)
{
    for (size_t i = 0; i < c->patches.len; i++)
        origin_add(v, c->patches.items[i].replacement, &c->patches.items[i]);
    for (size_t i = 0; i < c->helpers.len; i++)
        origin_add(v, c->helpers.items[i], NULL);
    for (size_t i = 0; i < c->positioned_helpers.len; i++)
        origin_add(v, c->positioned_helpers.items[i].helper, NULL);
}

static void origins_free(origin_vec *v)
{
    for (size_t i = 0; i < v->len; i++)
        free(v->items[i].mapped);
    VEC_FREE(v);
}

/* The object (patch replacement or helper) the generated line most likely came
 * from, and its line there; NULL when no object holds that text. */
static const pg_object *find_origin(const origin_vec *v, const gen_site *g, unsigned *line,
                                    int *score_out)
{
    const pg_object *best = NULL;
    int best_score = 0;
    for (size_t i = 0; i < v->len; i++)
        consider(&v->items[i].search, v->items[i].report, g, &best, line, &best_score);
    *score_out = best_score;
    return best;
}

/* The config's column of a generated line's column col (1-based; 0: none): the
 * same text, indented as the config writes it. Where the config's line reads
 * otherwise (a name_map renamed names on it), a column in the text both lines
 * begin with, or end with, is the same character there; one between them is the
 * start of what was renamed ("Qwen3_5MoeOutput(" from "Qwen3_5Output(": the
 * name's first character, which both share). */
static unsigned config_col(const char *s, size_t n, unsigned gen_indent, const char *cs, size_t cn,
                           unsigned cfg_indent, unsigned col)
{
    if (!col || col <= gen_indent)
        return 0;
    size_t at = col - 1 - gen_indent; /* in s */
    if (at >= n)
        return 0;
    size_t pre = 0, suf = 0, least = n < cn ? n : cn;
    while (pre < least && s[pre] == cs[pre])
        pre++;
    while (suf < least - pre && s[n - 1 - suf] == cs[cn - 1 - suf])
        suf++;
    size_t cat = at < pre ? at : at >= n - suf ? cn - (n - at) : pre;
    return cfg_indent + (unsigned)cat + 1;
}

/* o (found with score sc, at *cfg_line) when the score reaches min_score, with
 * the config's column of the generated line's column col; NULL else. */
static const pg_object *settle(const pg_object *o, int sc, int min_score, const char *src,
                               size_t len, unsigned line, unsigned col, unsigned *cfg_line,
                               unsigned *cfg_col)
{
    const char *s, *cs;
    size_t n, cn;
    unsigned gen_indent = 0, cfg_indent = 0;
    if (!o || sc < min_score || !line_text(src, len, line, &s, &n, &gen_indent) ||
        !line_text(o->text, o->text_len, *cfg_line, &cs, &cn, &cfg_indent)) {
        *cfg_line = 0;
        return NULL;
    }
    *cfg_col = config_col(s, n, gen_indent, cs, cn, cfg_indent, col);
    return o;
}

const pg_object *names_origin_find(const pg_config *c, const char *src, size_t len, unsigned line,
                                   unsigned col, int min_score, unsigned *cfg_line,
                                   unsigned *cfg_col)
{
    gen_site g = {src, len, line};
    int sc = 0;
    const char *s;
    size_t n;
    unsigned indent;
    *cfg_line = *cfg_col = 0;
    if (!c || !line_text(src, len, line, &s, &n, &indent))
        return NULL;
    origin_vec v = VEC_INIT;
    origins_build(c, &v);
    const pg_object *o = find_origin(&v, &g, cfg_line, &sc);
    origins_free(&v);
    return settle(o, sc, min_score, src, len, line, col, cfg_line, cfg_col);
}

/* The rank of the file of o among those a line of the config may be in: 0 the
 * config's own file, 1 another file of its directory (its GPU sibling), 2 any
 * other (a file it takes patches from); text found alike in several is the first
 * rank's. */
static int file_rank(const pg_config *c, const pg_object *o)
{
    if (!c->file || !o->file)
        return 2;
    if (!strcmp(o->file, c->file))
        return 0;
    const char *a = strrchr(c->file, '/'), *b = strrchr(o->file, '/');
    return a && b && a - c->file == b - o->file && !strncmp(c->file, o->file, (size_t)(a - c->file))
               ? 1
               : 2;
}

/* Keeps in *in the file of o, when it has the rank and a text not seen yet
 * (seen[0..*nseen)), if a line of it beats the best so far. */
static void consider_file(const pg_config *c, const pg_object *o, int rank, const gen_site *g,
                          const char ***seen, size_t *nseen, pg_object *in, unsigned *line,
                          int *best_score)
{
    if (!o || !o->text || file_rank(c, o) != rank)
        return;
    for (size_t i = 0; i < *nseen; i++)
        if ((*seen)[i] == o->text)
            return;
    *seen = pgci_realloc(*seen, (*nseen + 1) * sizeof(**seen));
    (*seen)[(*nseen)++] = o->text;
    pg_object whole = {.file = o->file,
                       .module = o->module,
                       .text = o->text,
                       .text_len = o->text_len,
                       .start_line = 1,
                       .end_line = UINT_MAX - 8};
    const pg_object *best = NULL;
    consider(&whole, &whole, g, &best, line, best_score);
    if (best)
        *in = whole;
}

const pg_object *names_origin_find_in_files(const pg_config *c, const char *src, size_t len,
                                            unsigned line, unsigned col, int min_score,
                                            pg_object *in, unsigned *cfg_line, unsigned *cfg_col)
{
    gen_site g = {src, len, line};
    int sc = 0;
    *cfg_line = *cfg_col = 0;
    memset(in, 0, sizeof(*in));
    if (!c)
        return NULL;
    const char **seen = NULL;
    size_t nseen = 0;
    for (int rank = 0; rank < 3; rank++) {
        for (size_t i = 0; i < c->patches.len; i++)
            consider_file(c, c->patches.items[i].replacement, rank, &g, &seen, &nseen, in, cfg_line,
                          &sc);
        for (size_t i = 0; i < c->helpers.len; i++)
            consider_file(c, c->helpers.items[i], rank, &g, &seen, &nseen, in, cfg_line, &sc);
        for (size_t i = 0; i < c->positioned_helpers.len; i++)
            consider_file(c, c->positioned_helpers.items[i].helper, rank, &g, &seen, &nseen, in,
                          cfg_line, &sc);
    }
    free(seen);
    return settle(in->text ? in : NULL, sc, min_score, src, len, line, col, cfg_line, cfg_col);
}

static const char *relative(const char *path, const char *root)
{
    size_t n = root ? strlen(root) : 0;
    if (n && !strncmp(path, root, n) && path[n] == '/')
        return path + n + 1;
    return path;
}

void names_to_config(findings *out, size_t from, const check_input *in, const char *src, size_t len,
                     const char *root)
{
    if (!in->cfg || !in->py_path)
        return;
    origin_vec v = VEC_INIT;
    for (size_t k = from; k < out->len; k++) {
        finding *f = out->items[k];
        const char *s;
        size_t n;
        unsigned gen_indent = 0, cfg_indent = 0, line = 0;
        if (!f->path || strcmp(f->path, in->py_path) || !f->line ||
            !line_text(src, len, f->line, &s, &n, &gen_indent))
            continue;
        gen_site g = {src, len, f->line};
        int sc;
        if (!v.len)
            origins_build(in->cfg, &v);
        const pg_object *o = find_origin(&v, &g, &line, &sc);
        const char *cs;
        size_t cn;
        if (!o || !line_text(o->text, o->text_len, line, &cs, &cn, &cfg_indent))
            continue;
        strbuf d = STRBUF_INIT;
        strbuf_addf(&d, "generated: %s:%u: %.*s", f->path, f->line, (int)n, s);
        if (f->detail)
            strbuf_addf(&d, "\n%s", f->detail);
        free(f->detail);
        f->detail = strbuf_detach(&d, NULL);
        free(f->path);
        f->path = pgci_strdup(relative(o->file, root));
        f->col = config_col(s, n, gen_indent, cs, cn, cfg_indent, f->col);
        f->line = line;
    }
    origins_free(&v);
}
