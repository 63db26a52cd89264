/*
 * names.c - the `names` check: turns the scope model's pyflakes diagnostics into
 * findings. The model itself lives in checks/scope.c.
 */
#include "checks/names.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "py/forest.h"
#include "py/scope.h"

static unsigned code_bit(const char *code)
{
    if (!strcmp(code, "F821"))
        return NAMES_F821;
    if (!strcmp(code, "F811"))
        return NAMES_F811;
    if (!strcmp(code, "F401"))
        return NAMES_F401;
    return 0;
}

/* ---- noqa: `# noqa`, `# noqa: F821,F811`, file-wide `# ruff: noqa[: codes]` -------- */

/* What a line's comments suppress: a blanket noqa or a set of codes. */
typedef struct noqa_map {
    unsigned *mask;   /* per 0-based line: NAMES_* bits suppressed; ~0u for a blanket noqa */
    unsigned *target; /* per line: the line whose noqa comment applies to it */
    size_t lines;
    unsigned file_mask; /* file-wide exemptions */
} noqa_map;

/* Parses the codes after "noqa:" into NAMES_* bits (other codes are ignored); *seen
 * tells whether there was any code at all. */
static unsigned noqa_codes(const char *p, const char *end, int *seen)
{
    unsigned m = 0;
    *seen = 0;
    while (p < end) {
        while (p < end && (*p == ',' || *p == ' ' || *p == '\t'))
            p++;
        const char *q = p;
        while (q < end && isalnum((unsigned char)*q))
            q++;
        if (q == p)
            break;
        char code[8] = {0};
        *seen = 1;
        if ((size_t)(q - p) < sizeof(code)) {
            for (size_t i = 0; i < (size_t)(q - p); i++)
                code[i] = (char)toupper((unsigned char)p[i]);
            m |= code_bit(code);
        }
        p = q;
    }
    return m;
}

/* Reads one comment; returns the suppression it carries (0 for none). */
static unsigned noqa_comment(const char *s, size_t n, int *file_wide)
{
    const char *end = s + n;
    *file_wide = 0;
    for (const char *h = s; h < end; h++) {
        if (*h != '#')
            continue;
        const char *p = h + 1;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        int fw = 0;
        if (end - p >= 5 && (!strncasecmp(p, "ruff:", 5))) {
            fw = 1;
            p += 5;
        } else if (end - p >= 7 && !strncasecmp(p, "flake8:", 7)) {
            fw = 1;
            p += 7;
        }
        while (fw && p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (end - p < 4 || strncasecmp(p, "noqa", 4))
            continue;
        p += 4;
        *file_wide = fw;
        if (p < end && *p == ':') {
            int seen;
            unsigned m = noqa_codes(p + 1, end, &seen);
            return seen ? m : ~0u;
        }
        return ~0u;
    }
    return 0;
}

/* The rows of src[0..len) that hold "noqa" in any case (ruff reads `# NOQA` and
 * `# NoQa:` as `# noqa`), one flag each, and their count in *lines; NULL when
 * no row does. */
static unsigned char *noqa_rows(const char *src, size_t len, size_t *lines)
{
    unsigned char *rows = NULL;
    size_t row = 0, cap = 0;
    for (size_t i = 0; i < len; i++) {
        char c = src[i];
        if (c == '\n') {
            row++;
        } else if ((c | 0x20) == 'n' && len - i >= 4 && !strncasecmp(src + i, "noqa", 4)) {
            if (row >= cap) {
                size_t ncap = cap ? cap * 2 : 64;
                while (ncap <= row)
                    ncap *= 2;
                rows = pgci_realloc(rows, ncap);
                memset(rows + cap, 0, ncap - cap);
                cap = ncap;
            }
            rows[row] = 1;
        }
    }
    if (!rows)
        return NULL;
    *lines = row + 1;
    if (cap < *lines) {
        rows = pgci_realloc(rows, *lines);
        memset(rows + cap, 0, *lines - cap);
    }
    return rows;
}

/* Fills nm from the comments and from the strings and continued lines that span
 * rows. A node on one row holds none of the latter, and its comments matter only
 * when its row holds "noqa" (rows): the walk steps over the others. */
static void noqa_walk(const py_tree *t, TSNode n, long dr, noqa_map *nm, const unsigned char *rows)
{
    TSTreeCursor c = ts_tree_cursor_new(n);
    int down;
    do {
        TSNode k = ts_tree_cursor_current_node(&c);
        down = 1;
        unsigned a = (unsigned)((long)ts_node_start_point(k).row + dr);
        unsigned z = (unsigned)((long)ts_node_end_point(k).row + dr);
        if (z == a && (a >= nm->lines || !rows[a])) {
            down = 0;
            continue;
        }
        const char *type = ts_node_type(k);
        if (!strcmp(type, "comment") && a < nm->lines) {
            size_t len;
            const char *s = py_text(t, k, &len);
            int fw;
            unsigned m = noqa_comment(s, len, &fw);
            /* a file-wide `# ruff: noqa` only counts on a line of its own */
            uint32_t b = ts_node_start_byte(k);
            while (b > 0 && (t->src[b - 1] == ' ' || t->src[b - 1] == '\t'))
                b--;
            int own_line = b == 0 || t->src[b - 1] == '\n';
            if (fw && own_line)
                nm->file_mask |= m;
            else if (!fw)
                nm->mask[a] |= m;
            down = 0;
        } else if ((!strcmp(type, "string") || !strcmp(type, "line_continuation")) && z > a) {
            /* ruff reads the noqa of a multi-line string or continued line at its end */
            for (unsigned l = a; l < z && l < nm->lines; l++)
                nm->target[l] = z;
        }
    } while (py_cursor_next(&c, down));
    ts_tree_cursor_delete(&c);
}

/* A forest's comments: those in its statements' nodes, walked in their trees (n
 * and what is under it, or for a class parsed in part its header's nodes and its
 * body's statements), and those between statements, read from the text: outside
 * every statement there is nothing else, so each '#' there starts a comment that
 * runs to the line's end, on a line of its own when only blanks come before. */
typedef VEC(py_span) span_vec;

static void noqa_stmt(const py_forest_stmt *st, TSNode n, noqa_map *nm, const unsigned char *rows,
                      span_vec *done)
{
    noqa_walk(st->t, n, st->row_delta, nm, rows);
    py_span sp = {(uint32_t)((long)ts_node_start_byte(n) + st->delta),
                  (uint32_t)((long)ts_node_end_byte(n) + st->delta)};
    VEC_PUSH(done, sp);
}

/* The nodes of a class parsed in part but its body: its decorators, keyword,
 * name, bases. */
static void noqa_header(const py_forest_stmt *st, TSNode n, noqa_map *nm, const unsigned char *rows,
                        span_vec *done)
{
    uint32_t k = ts_node_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode ch = ts_node_child(n, i);
        if (ts_node_eq(ch, st->body))
            continue;
        if (py_is(ch, "class_definition") && ts_node_eq(py_field(ch, "body"), st->body))
            noqa_header(st, ch, nm, rows, done);
        else
            noqa_stmt(st, ch, nm, rows, done);
    }
}

static void noqa_between(const py_forest *f, const span_vec *done, noqa_map *nm,
                         const unsigned char *rows)
{
    const char *src = f->file.src;
    size_t len = f->file.len, at = 0;
    unsigned row = 0;
    for (size_t i = 0; i < len; i++) {
        if (src[i] == '\n') {
            row++;
            continue;
        }
        if (src[i] != '#' || row >= nm->lines || !rows[row])
            continue;
        while (at < done->len && done->items[at].end <= i)
            at++;
        if (at < done->len && done->items[at].start <= i)
            continue;
        size_t e = i;
        while (e < len && src[e] != '\n')
            e++;
        int fw;
        unsigned m = noqa_comment(src + i, e - i, &fw);
        size_t b = i;
        while (b > 0 && (src[b - 1] == ' ' || src[b - 1] == '\t'))
            b--;
        if (fw && (b == 0 || src[b - 1] == '\n'))
            nm->file_mask |= m;
        else if (!fw)
            nm->mask[row] |= m;
        i = e - 1;
    }
}

static void noqa_forest(const py_forest *f, noqa_map *nm, const unsigned char *rows)
{
    span_vec done = VEC_INIT;
    for (size_t i = 0; i < f->ntops; i++) {
        const py_forest_stmt *st = &f->tops[i];
        if (st->mem_end == st->mem_begin) {
            noqa_stmt(st, st->node, nm, rows, &done);
            continue;
        }
        noqa_header(st, st->node, nm, rows, &done);
        for (size_t m = st->mem_begin; m < st->mem_end; m++)
            noqa_stmt(&f->members[m], f->members[m].node, nm, rows, &done);
    }
    noqa_between(f, &done, nm, rows);
    VEC_FREE(&done);
}

static int noqa_suppressed(const noqa_map *nm, unsigned line, unsigned bit)
{
    if (nm->file_mask & bit)
        return 1;
    if (!nm->mask || line == 0 || line > nm->lines)
        return 0;
    unsigned l = line - 1;
    for (int hops = 0; hops < 64 && nm->target[l] != l && nm->target[l] < nm->lines; hops++)
        l = nm->target[l];
    return (nm->mask[l] & bit) != 0;
}

/* The names findings of a module read whole (t) or as a forest (f). */
static int check_names(findings *out, const py_tree *t, const py_forest *f, const char *config,
                       const char *path, const names_opts *o)
{
    names_opts defaults = NAMES_OPTS_INIT;
    if (!o)
        o = &defaults;
    scope_opts so = SCOPE_OPTS_INIT;
    so.py_minor = o->py_minor;
    so.is_init = path && (!strcmp(path, "__init__.py") || pgci_ends_with(path, "/__init__.py"));
    scope_diags d = SCOPE_DIAGS_INIT;
    int r = f ? scope_analyze_forest(f, &so, &d) : scope_analyze(t, &so, &d);
    if (r < 0) {
        scope_diags_free(&d);
        return r;
    }
    if (f)
        t = &f->file;
    noqa_map nm = {NULL, NULL, 0, 0};
    unsigned char *rows = !o->ignore_noqa && d.len ? noqa_rows(t->src, t->len, &nm.lines) : NULL;
    if (rows) {
        nm.mask = pgci_calloc(nm.lines, sizeof(unsigned));
        nm.target = pgci_calloc(nm.lines, sizeof(unsigned));
        for (size_t l = 0; l < nm.lines; l++)
            nm.target[l] = (unsigned)l;
        if (f)
            noqa_forest(f, &nm, rows);
        else
            noqa_walk(t, py_root(t), 0, &nm, rows);
        free(rows);
    }
    for (size_t i = 0; i < d.len; i++) {
        const scope_diag *g = &d.items[i];
        unsigned bit = code_bit(g->code);
        if (!(bit & o->select) || noqa_suppressed(&nm, g->line, bit) ||
            (g->parent_line && noqa_suppressed(&nm, g->parent_line, bit)))
            continue;
        json_t *data = json_pack("{s:s, s:s}", "code", g->code, "name", g->name);
        if (!strcmp(g->code, "F821")) {
            findings_add(out, "names", SEV_ERROR, config, path, g->line, g->col, data,
                         "undefined name '%s'", g->name);
        } else if (!strcmp(g->code, "F811")) {
            json_object_set_new(data, "previous_line", json_integer(g->prev_line));
            findings_add(out, "names", SEV_ERROR, config, path, g->line, g->col, data,
                         "redefinition of unused '%s' from line %u", g->name, g->prev_line);
        } else {
            findings_add(out, "names", SEV_INFO, config, path, g->line, g->col, data,
                         "'%s' imported but unused", g->name);
        }
    }
    free(nm.mask);
    free(nm.target);
    scope_diags_free(&d);
    return 0;
}

int check_names_tree(findings *out, const py_tree *t, const char *config, const char *path,
                     const names_opts *o)
{
    return check_names(out, t, NULL, config, path, o);
}

int check_names_forest(findings *out, const py_forest *f, const char *config, const char *path,
                       const names_opts *o)
{
    return check_names(out, NULL, f, config, path, o);
}

int check_names_file(findings *out, const char *path, const char *config, const names_opts *o)
{
    py_tree t;
    int r = py_parse_file(&t, path);
    if (r < 0)
        return r;
    r = check_names_tree(out, &t, config, path, o);
    py_tree_free(&t);
    return r;
}

int names_select_parse(const char *list, unsigned *mask)
{
    *mask = 0;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        char code[8] = {0};
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (!isspace((unsigned char)p[i]) && k < sizeof(code) - 1)
                code[k++] = (char)toupper((unsigned char)p[i]);
        if (!strcmp(code, "ALL"))
            *mask |= NAMES_ALL;
        else if (code_bit(code))
            *mask |= code_bit(code);
        else if (k)
            return pgci_error_set(PGCI_EUSAGE,
                                  "unknown code '%.*s' in --select (known: F821, "
                                  "F811, F401)",
                                  (int)n, p);
        p += n;
        if (*p == ',')
            p++;
    }
    if (!*mask)
        return pgci_error_set(PGCI_EUSAGE, "--select '%s' selects no code", list);
    return 0;
}

int names_python_parse(const char *s, int *minor)
{
    const char *p = s;
    if (!strncmp(p, "py", 2))
        p += 2;
    char *end;
    long v;
    if (!strncmp(p, "3.", 2)) {
        v = strtol(p + 2, &end, 10);
    } else if (p[0] == '3' && isdigit((unsigned char)p[1])) {
        v = strtol(p + 1, &end, 10);
    } else {
        end = (char *)p;
        v = -1;
    }
    if (end == p || *end || v < 0 || v > 99)
        return pgci_error_set(PGCI_EUSAGE, "bad Python version '%s' (expected e.g. 3.11)", s);
    *minor = (int)v;
    return 0;
}
