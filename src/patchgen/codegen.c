/*
 * codegen.c - patchgen's ModelingCodeGenerator.generate(), in C.
 *
 * The generated module is a list of text "parts" joined with "\n", then runs of
 * more than two blank lines are collapsed. The parts are: the header banner, the
 * re-rendered imports, the helpers, then every top-level class, function, plain
 * assignment and docstring of the upstream module in order, each as its source
 * segment (extended upwards over comment, decorator and blank lines), patched
 * where a patch targets it. Everything else at top level is dropped, as patchgen
 * drops it; we note it instead of failing.
 *
 * Line numbers come from tree-sitter rows (which, like Python's tokenizer, count
 * "\n" only) while the lines themselves come from str.splitlines() semantics:
 * patchgen mixes the two the same way, so a form feed in a comment shifts both
 * outputs identically.
 */
#include "patchgen/codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "patchgen/codegen_imports.h"
#include "patchgen/codegen_source.h"
#include "patchgen/codegen_syntax.h"
#include "patchgen/codegen_text.h"
#include "py/py.h"
#include "py/pynode.h"

/* "# " + "=" * 70 and "# " + "=" * 78 */
#define EQ10 "=========="
#define BAR70 "# " EQ10 EQ10 EQ10 EQ10 EQ10 EQ10 EQ10
#define BAR78 "# " EQ10 EQ10 EQ10 EQ10 EQ10 EQ10 EQ10 "========"

/* One entry of patchgen's {target: patch} dicts: first-insertion order, last value. */
typedef struct target_entry {
    const char *target;
    size_t patch;
} target_entry;
typedef VEC(target_entry) target_map;

typedef struct gen {
    const pg_config *cfg;
    py_tree tree;
    const char *src;
    size_t src_len;
    cg_lines lines;     /* self.source_lines */
    int rows_are_lines; /* lines broke at "\n" only: line k is tree row k (class_view) */
    target_map classes, methods, functions;
    unsigned char *applied; /* per patch */
    strvec emitted_names;   /* top-level names emitted (for missing-target notes) */
    strvec positioned_done;
    strbuf out;
    size_t nparts;
    cg_result *res;
    cg_shared *sh; /* shared parses and rewrites; NULL: none */
} gen;

const char *cg_note_kind_name(cg_note_kind k)
{
    switch (k) {
    case CG_NOTE_MISSING_TARGET:
        return "missing-target";
    case CG_NOTE_SHADOWED:
        return "shadowed";
    case CG_NOTE_SUPERSEDED:
        return "superseded";
    case CG_NOTE_UNAPPLIED_INIT:
        return "unapplied-modify-init";
    case CG_NOTE_UNAPPLIED:
        return "unapplied";
    case CG_NOTE_METHOD_ADDED:
        return "method-added";
    case CG_NOTE_DROPPED_STATEMENT:
        return "dropped-statement";
    case CG_NOTE_EXCLUDED_MISSING:
        return "excluded-missing";
    }
    return "?";
}

/* PatchType.value (kept here so the generator does not depend on the evaluator's
 * object file). */
static const char *type_value(pg_patch_type t)
{
    switch (t) {
    case PG_CLASS_REPLACEMENT:
        return "class_replacement";
    case PG_METHOD_OVERRIDE:
        return "method_override";
    case PG_FUNCTION_REPLACEMENT:
        return "function_replacement";
    case PG_ADDITIONAL_IMPORT:
        return "additional_import";
    case PG_INIT_MODIFICATION:
        return "init_modification";
    }
    return "unknown";
}

static void note(gen *g, cg_note_kind kind, long patch, const char *target, unsigned line,
                 const char *detail)
{
    cg_note n = {.kind = kind,
                 .patch = patch,
                 .target = target ? arena_strdup(&g->res->mem, target) : NULL,
                 .line = line,
                 .detail = detail ? arena_strdup(&g->res->mem, detail) : NULL};
    VEC_PUSH(&g->res->notes, n);
}

static void part(gen *g, const char *s, size_t n)
{
    if (g->nparts++)
        strbuf_addc(&g->out, '\n');
    strbuf_add(&g->out, s, n);
}

static void part_s(gen *g, const char *s)
{
    part(g, s, strlen(s));
}

/* ---- tree helpers ----------------------------------------------------------- */

/* Python's end_lineno: the row of the last token that is not a comment. */
static unsigned end_line(TSNode n)
{
    for (;;) {
        uint32_t c = ts_node_child_count(n);
        TSNode last = {{0}, NULL, NULL};
        int found = 0;
        for (uint32_t i = c; i-- > 0;) {
            TSNode k = ts_node_child(n, i);
            if (py_is(k, "comment") || ts_node_end_byte(k) == ts_node_start_byte(k))
                continue;
            last = k;
            found = 1;
            break;
        }
        if (!found)
            break;
        n = last;
    }
    TSPoint e = ts_node_end_point(n), s = ts_node_start_point(n);
    return (e.column == 0 && e.row > s.row) ? e.row : e.row + 1;
}

static unsigned start_line(TSNode n)
{
    return ts_node_start_point(n).row + 1;
}

/* The definition inside a decorated_definition (or the node itself). */
static TSNode definition_of(TSNode n)
{
    if (py_is(n, "decorated_definition"))
        return py_field(n, "definition");
    return n;
}

static char *def_name(const py_tree *t, TSNode def)
{
    TSNode nm = py_field(def, "name");
    return ts_node_is_null(nm) ? pgci_strdup("") : py_text_dup(t, nm);
}

static TSNode unparen(TSNode n)
{
    while (py_is(n, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
        n = ts_node_named_child(n, 0);
    return n;
}

/* Prefix letters of a `string` node, lower-cased into buf. */
static void string_prefix(const py_tree *t, TSNode s, char *buf, size_t cap)
{
    size_t len, k = 0;
    const char *p = py_text(t, s, &len);
    for (size_t i = 0; i < len && p[i] != '"' && p[i] != '\'' && k + 1 < cap; i++)
        buf[k++] = (char)(p[i] | 0x20);
    buf[k] = 0;
}

/* 1 when the expression is a str Constant in Python's AST (not bytes, not an
 * f-string, which is a JoinedStr even without fields). */
static int is_str_constant(const py_tree *t, TSNode e)
{
    e = unparen(e);
    char pre[8];
    if (py_is(e, "string")) {
        string_prefix(t, e, pre, sizeof(pre));
        return !strchr(pre, 'f') && !strchr(pre, 'b');
    }
    if (py_is(e, "concatenated_string")) {
        uint32_t c = ts_node_named_child_count(e);
        for (uint32_t i = 0; i < c; i++) {
            TSNode k = ts_node_named_child(e, i);
            if (!py_is(k, "string"))
                continue;
            string_prefix(t, k, pre, sizeof(pre));
            if (strchr(pre, 'f') || strchr(pre, 'b'))
                return 0;
        }
        return 1;
    }
    return 0;
}

/* The value of a str constant (enough for __all__ entries: plain and raw
 * literals, the common escapes). */
static void string_value(strbuf *out, const py_tree *t, TSNode e)
{
    e = unparen(e);
    uint32_t c = py_is(e, "concatenated_string") ? ts_node_named_child_count(e) : 1;
    for (uint32_t i = 0; i < c; i++) {
        TSNode s = py_is(e, "concatenated_string") ? ts_node_named_child(e, i) : e;
        if (!py_is(s, "string"))
            continue;
        char pre[8];
        string_prefix(t, s, pre, sizeof(pre));
        int raw = strchr(pre, 'r') != NULL;
        size_t len;
        const char *p = py_text(t, s, &len);
        size_t a = strlen(pre);
        size_t q = (len - a >= 6 && (p[a] == p[a + 1]) && p[a + 1] == p[a + 2]) ? 3 : 1;
        if (len < a + 2 * q)
            continue;
        const char *b = p + a + q, *end = p + len - q;
        while (b < end) {
            if (*b == '\\' && !raw && b + 1 < end) {
                char x = b[1];
                const char *rep = NULL;
                switch (x) {
                case '\\':
                    rep = "\\";
                    break;
                case '\'':
                    rep = "'";
                    break;
                case '"':
                    rep = "\"";
                    break;
                case 'n':
                    rep = "\n";
                    break;
                case 't':
                    rep = "\t";
                    break;
                case 'r':
                    rep = "\r";
                    break;
                case '\n':
                    rep = "";
                    break;
                default:
                    break;
                }
                if (rep) {
                    strbuf_adds(out, rep);
                    b += 2;
                    continue;
                }
            }
            strbuf_addc(out, *b++);
        }
    }
}

/* ---- source segments ------------------------------------------------------- */

/* The first line (0-based) of segment(start, ..): the statement's, or above it
 * the run of blank, comment and decorator-looking lines. *plain is set to 1 when
 * that run holds no decorator-looking line. */
static size_t segment_first(const gen *g, unsigned start, int *plain)
{
    size_t a = start ? start - 1 : 0;
    *plain = 1;
    while (a > 0 && a - 1 < g->lines.len) {
        cg_span l = g->lines.items[a - 1];
        cg_span st = cgtext_strip(l.p, l.n);
        if (st.n == 0 || st.p[0] == '#' || st.p[0] == '@') {
            *plain &= st.n == 0 || st.p[0] == '#';
            a--;
        } else {
            break;
        }
    }
    return a;
}

/* extract_source_segment(): lines[start-1 .. end) extended upwards over lines
 * that are blank or start (after stripping) with '#' or '@'; joined with "\n". */
static void segment(gen *g, strbuf *out, unsigned start, unsigned end)
{
    int plain;
    size_t a = segment_first(g, start, &plain);
    size_t b = end < g->lines.len ? end : g->lines.len;
    for (size_t i = a; i < b; i++) {
        if (i > a)
            strbuf_addc(out, '\n');
        strbuf_add(out, g->lines.items[i].p, g->lines.items[i].n);
    }
}

/* ---- header, imports, helpers --------------------------------------------- */

static void header(gen *g, const char *version)
{
    const pg_config *c = g->cfg;
    strbuf h = STRBUF_INIT;
    strbuf_addf(&h,
                BAR78 "\n#  AUTO-GENERATED FILE - DO NOT EDIT DIRECTLY\n" BAR78 "\n#\n"
                      "#  Source: %s\n#  Based on: transformers==%s\n#\n"
                      "#  This file was generated by the modeling code generator.\n"
                      "#  It contains a patched version of the original HuggingFace modeling "
                      "code.\n#\n#  Patches applied:\n",
                c->source_module,
                c->transformers_version && c->transformers_version[0] ? c->transformers_version
                                                                      : version);
    for (size_t i = 0; i < c->patches.len; i++) {
        const pg_patch *p = &c->patches.items[i];
        strbuf_addf(&h, "#    - %s: %s\n", type_value(p->type), p->target);
        if (p->description && p->description[0])
            strbuf_addf(&h, "#      %s\n", p->description);
    }
    strbuf_adds(&h, "#\n" BAR78 "\n");
    part(g, h.buf, h.len);
    strbuf_free(&h);
}

static void imports(gen *g)
{
    const pg_config *c = g->cfg;
    strvec lines = STRVEC_INIT;
    cgimp_render(&lines, &g->tree, c);
    if (c->additional_imports.len) {
        strvec_push(&lines, "");
        strvec_push(&lines, "# Additional imports for patches");
        for (size_t i = 0; i < c->additional_imports.len; i++) {
            const pg_import *im = &c->additional_imports.items[i];
            strbuf l = STRBUF_INIT;
            if (im->is_from_import) {
                strbuf_addf(&l, "from %s import ", im->module);
                if (im->names && im->names_len) {
                    for (size_t k = 0; k < im->names_len; k++)
                        strbuf_addf(&l, "%s%s", k ? ", " : "", im->names[k]);
                } else {
                    strbuf_addc(&l, '*');
                }
            } else if (im->alias && im->alias[0]) {
                strbuf_addf(&l, "import %s as %s", im->module, im->alias);
            } else {
                strbuf_addf(&l, "import %s", im->module);
            }
            strvec_push_owned(&lines, strbuf_detach(&l, NULL));
        }
    }
    if (c->post_import_blocks.len) {
        strvec_push(&lines, "");
        strvec_push(&lines, "# Additional import blocks for patches");
        for (size_t i = 0; i < c->post_import_blocks.len; i++) {
            const char *b = c->post_import_blocks.items[i];
            strbuf d = STRBUF_INIT;
            cgtext_dedent(&d, b, strlen(b));
            cg_span st = cgtext_strip(d.buf, d.len);
            if (st.n) {
                strvec_pushn(&lines, st.p, st.n);
                strvec_push(&lines, "");
            }
            strbuf_free(&d);
        }
        if (lines.len && lines.items[lines.len - 1][0] == '\0') {
            free(lines.items[--lines.len]);
        }
    }
    strbuf all = STRBUF_INIT;
    for (size_t i = 0; i < lines.len; i++) {
        if (i)
            strbuf_addc(&all, '\n');
        strbuf_adds(&all, lines.items[i]);
    }
    part(g, all.buf, all.len);
    strbuf_free(&all);
    strvec_free(&lines);
}

static void helpers_block(gen *g, strbuf *out, const char *title, const pg_object *const *objs,
                          size_t n)
{
    strbuf_adds(out, "\n" BAR70 "\n");
    strbuf_adds(out, title);
    strbuf_adds(out, "\n" BAR70);
    for (size_t i = 0; i < n; i++) {
        strbuf src = STRBUF_INIT;
        cgsrc_helper_source(&src, objs[i]);
        if (src.len) {
            strbuf_adds(out, "\n\n");
            strbuf_add(out, src.buf, src.len);
        }
        strbuf_free(&src);
    }
    (void)g;
}

static void helpers(gen *g)
{
    const pg_config *c = g->cfg;
    if (!c->helpers.len)
        return;
    strbuf b = STRBUF_INIT;
    helpers_block(g, &b, "# [HELPERS] Module-level helpers injected via config.add_helper",
                  c->helpers.items, c->helpers.len);
    part(g, b.buf, b.len);
    part_s(g, "");
    strbuf_free(&b);
}

static void positioned_after(gen *g, const char *name)
{
    const pg_config *c = g->cfg;
    VEC(const pg_object *) objs = VEC_INIT;
    for (size_t i = 0; i < c->positioned_helpers.len; i++) {
        const pg_positioned_helper *h = &c->positioned_helpers.items[i];
        if (!strcmp(h->target, name) && (!h->placement || !strcmp(h->placement, "after")))
            VEC_PUSH(&objs, h->helper);
    }
    if (objs.len) {
        strbuf b = STRBUF_INIT, title = STRBUF_INIT;
        strbuf_addf(&title, "# [HELPERS AFTER] %s", name);
        helpers_block(g, &b, title.buf, objs.items, objs.len);
        part(g, b.buf, b.len);
        part_s(g, "");
        if (strvec_find(&g->positioned_done, name) < 0)
            strvec_push(&g->positioned_done, name);
        strbuf_free(&b);
        strbuf_free(&title);
    }
    VEC_FREE(&objs);
}

/* ---- patches ------------------------------------------------------------- */

static void map_put(target_map *m, const char *target, size_t patch)
{
    for (size_t i = 0; i < m->len; i++)
        if (!strcmp(m->items[i].target, target)) {
            m->items[i].patch = patch;
            return;
        }
    target_entry e = {target, patch};
    VEC_PUSH(m, e);
}

static long map_get(const target_map *m, const char *target)
{
    for (size_t i = 0; i < m->len; i++)
        if (!strcmp(m->items[i].target, target))
            return (long)m->items[i].patch;
    return -1;
}

static int excluded(const gen *g, const char *name)
{
    for (size_t i = 0; i < g->cfg->exclude.len; i++)
        if (!strcmp(g->cfg->exclude.items[i], name))
            return 1;
    return 0;
}

/* The cleaned replacement source (dedent, name_map, decorators stripped). With
 * `raw` also the text before decorator stripping (what patchgen parses), and with
 * `verbatim` whether raw is the object's source lines unchanged. */
static void replacement_source(const pg_patch *p, strbuf *clean, strbuf *raw, int *verbatim)
{
    strbuf src = STRBUF_INIT, ded = STRBUF_INIT;
    cgsrc_object_source(&src, p->replacement);
    if (verbatim)
        *verbatim = 0;
    if (src.len) {
        cgtext_dedent(&ded, src.buf, src.len);
        cgsrc_apply_name_map(&ded, p->name_map, p->name_map_len);
        cgsrc_strip_patch_decorators(clean, ded.buf, ded.len);
        if (raw)
            strbuf_add(raw, ded.buf, ded.len);
        if (verbatim)
            *verbatim = ded.len == src.len && !memcmp(ded.buf, src.buf, src.len);
    }
    strbuf_free(&src);
    strbuf_free(&ded);
}

static void banner_reason_source(strbuf *b, const pg_patch *p)
{
    if (p->description && p->description[0])
        strbuf_addf(b, "\n# Reason: %s", p->description);
    if (p->source_module && p->source_module[0])
        strbuf_addf(b, "\n# Source: %s", p->source_module);
    strbuf_adds(b, "\n" BAR70);
}

static void class_replacement(gen *g, strbuf *b, const char *name, unsigned s, unsigned e,
                              const pg_patch *p)
{
    strbuf_addf(b, "\n" BAR70 "\n# [PATCHED CLASS] %s\n# Original class replaced with: %s", name,
                p->replacement ? p->replacement->name : "external");
    banner_reason_source(b, p);
    if (p->replacement) {
        strbuf clean = STRBUF_INIT, raw = STRBUF_INIT;
        replacement_source(p, &clean, &raw, NULL);
        if (raw.len) {
            strbuf old = STRBUF_INIT, neu = STRBUF_INIT;
            strbuf_addf(&old, "class %s", p->replacement->name);
            strbuf_addf(&neu, "class %s", name);
            if (strcmp(p->replacement->name, name))
                cgtext_replace_in(&clean, old.buf, neu.buf, 1);
            strbuf_addc(b, '\n');
            strbuf_add(b, clean.buf, clean.len);
            strbuf_free(&old);
            strbuf_free(&neu);
        } else {
            strbuf_addf(b, "\n# Could not get source for %s\n# Using original class as fallback\n",
                        p->replacement->name);
            segment(g, b, s, e);
        }
        strbuf_free(&clean);
        strbuf_free(&raw);
    } else if (p->replacement_module) {
        /* patch.replacement_source = f"{module}.{name}", split at its last dot */
        strbuf full = STRBUF_INIT;
        strbuf_addf(&full, "%s.%s", p->replacement_module, p->replacement_name);
        char *dot = strrchr(full.buf, '.');
        strbuf_addf(b, "\n# Import from: %s\nfrom %.*s import %s as %s", full.buf,
                    (int)(dot - full.buf), full.buf, dot + 1, name);
        strbuf_free(&full);
    } else {
        strbuf_addc(b, '\n');
        segment(g, b, s, e);
    }
}

static void function_replacement(gen *g, strbuf *b, const char *name, unsigned s, unsigned e,
                                 const pg_patch *p)
{
    strbuf_addf(b, "\n" BAR70 "\n# [PATCHED FUNCTION] %s", name);
    banner_reason_source(b, p);
    if (p->replacement) {
        strbuf clean = STRBUF_INIT, raw = STRBUF_INIT;
        replacement_source(p, &clean, &raw, NULL);
        if (raw.len) {
            strbuf old = STRBUF_INIT, neu = STRBUF_INIT;
            strbuf_addf(&old, "def %s", p->replacement->name);
            strbuf_addf(&neu, "def %s", name);
            if (strcmp(p->replacement->name, name))
                cgtext_replace_in(&clean, old.buf, neu.buf, 1);
            strbuf_addc(b, '\n');
            strbuf_add(b, clean.buf, clean.len);
            strbuf_free(&old);
            strbuf_free(&neu);
        } else {
            strbuf_adds(b, "\n# Could not get source for replacement\n");
            segment(g, b, s, e);
        }
        strbuf_free(&clean);
        strbuf_free(&raw);
    } else {
        strbuf_addc(b, '\n');
        segment(g, b, s, e);
    }
}

#include "patchgen/codegen_method.h"
#include "patchgen/codegen_shared.h"

/* Whether an override's raw source parses as Python and defines a function
 * (patchgen applies it only then): known without a parse when raw is the source
 * lines of a def the evaluator saw Python accept (pg_object.parses_alone).
 * PGCI_VERIFY_REPARSE checks that answer against a parse. */
static int override_parses(gen *g, const pg_patch *p, const strbuf *raw, int verbatim)
{
    if (!verbatim || !p->replacement->parses_alone)
        return cg_shared_parses_with_function(g->sh, raw->buf, raw->len);
    if (getenv("PGCI_VERIFY_REPARSE") && !cgm_parses_with_function(raw->buf, raw->len)) {
        fprintf(stderr, "pgci: %s: the evaluator's answer differs from a parse of its source\n",
                p->replacement->name);
        abort();
    }
    return 1;
}

/* 1 when str.splitlines() broke src where "\n" does, and nowhere else: no form
 * feed, vertical tab, \x1c-\x1e, NEL or Unicode line separator. Otherwise a line
 * number (a tree row) picks a line of another row, as in patchgen, and the text a
 * class's segment gets is not the text of its node: the class cannot be read
 * through the module's tree (fuzz_codegen: a form feed in a comment above a
 * second class). */
static int rows_are_lines(const char *src, size_t len, const cg_lines *lines)
{
    if (!len) /* an empty module (its source may be NULL, which memchr must not get) */
        return lines->len == 0;
    size_t rows = 1;
    for (const char *p = src, *end = src + len; p < end && (p = memchr(p, '\n', (size_t)(end - p)));
         p++)
        rows++;
    if (src[len - 1] == '\n')
        rows--; /* splitlines has no empty last line */
    return rows == lines->len;
}

/* The first rewrite of a class can use the module's tree (cgm_state_view) when
 * the class text is the module's own bytes from the top of its segment, and
 * nothing but blank and comment lines stand above its first decorator. */
static void class_view(gen *g, cgm_state *st, TSNode node, TSNode def, unsigned s,
                       const strbuf *cls)
{
    if (!g->rows_are_lines)
        return;
    int plain;
    size_t a = segment_first(g, s, &plain);
    if (!plain || a >= g->lines.len || ts_node_start_point(node).column != 0)
        return;
    size_t off = (size_t)(g->lines.items[a].p - g->src), at = ts_node_start_byte(node);
    if (off > at || cls->len > g->src_len - off || memcmp(g->src + off, cls->buf, cls->len))
        return;
    size_t row0 = ts_node_start_point(node).row;
    for (size_t i = off; i < at; i++)
        row0 -= g->src[i] == '\n';
    cgm_state_view(st, &g->tree, def, row0);
}

static void class_source(gen *g, TSNode node, TSNode def, const char *name)
{
    unsigned s = start_line(node), e = end_line(def);
    strbuf b = STRBUF_INIT;
    long cr = map_get(&g->classes, name);
    if (cr >= 0) {
        g->applied[cr] = 1;
        class_replacement(g, &b, name, s, e, &g->cfg->patches.items[cr]);
        part(g, b.buf, b.len);
        strbuf_free(&b);
        return;
    }
    /* method overrides, in first-registration order of their targets */
    strvec patched = STRVEC_INIT;
    VEC(cgm_method) sources = VEC_INIT;
    size_t nlen = strlen(name);
    for (size_t i = 0; i < g->methods.len; i++) {
        const char *target = g->methods.items[i].target;
        if (strncmp(target, name, nlen) || target[nlen] != '.')
            continue;
        size_t pi = g->methods.items[i].patch;
        const pg_patch *p = &g->cfg->patches.items[pi];
        const char *method = target + nlen + 1;
        strbuf clean = STRBUF_INIT, raw = STRBUF_INIT;
        int applied = 0;
        if (p->replacement) {
            int verbatim;
            replacement_source(p, &clean, &raw, &verbatim);
            applied = raw.len && override_parses(g, p, &raw, verbatim);
        }
        if (!applied) {
            note(g, CG_NOTE_UNAPPLIED, (long)pi, target, 0,
                 p->replacement ? "the replacement's source does not parse as a function"
                                : "an external replacement cannot override a method");
            strbuf_free(&clean);
            strbuf_free(&raw);
            continue;
        }
        g->applied[pi] = 1;
        if (strcmp(p->replacement->name, method)) {
            strbuf old = STRBUF_INIT, neu = STRBUF_INIT;
            strbuf_addf(&old, "def %s(", p->replacement->name);
            strbuf_addf(&neu, "def %s(", method);
            cgtext_replace_in(&clean, old.buf, neu.buf, 1);
            strbuf_free(&old);
            strbuf_free(&neu);
        }
        strvec_push(&patched, method);
        if (clean.len) {
            cgm_method m = {pgci_strdup(method), strbuf_detach(&clean, NULL), pi};
            VEC_PUSH(&sources, m);
        }
        strbuf_free(&clean);
        strbuf_free(&raw);
    }

    if (patched.len) {
        strbuf_adds(&b, "\n" BAR70);
        strbuf_addf(&b, "\n# [MODIFIED CLASS] %s\n# Methods patched: ", name);
        for (size_t i = 0; i < patched.len; i++)
            strbuf_addf(&b, "%s%s", i ? ", " : "", patched.items[i]);
        strbuf_adds(&b, "\n" BAR70 "\n");
        strbuf cls = STRBUF_INIT;
        segment(g, &cls, s, e);
        cgm_state st = {0}; /* what each rewrite leaves the next one of the class */
        class_view(g, &st, node, def, s, &cls);
        for (size_t i = 0; i < sources.len; i++) {
            int added = 0;
            cg_shared_replace_method(g->sh, &st, &cls, sources.items[i].name,
                                     sources.items[i].source, &added);
            if (added)
                note(g, CG_NOTE_METHOD_ADDED, (long)sources.items[i].patch,
                     g->cfg->patches.items[sources.items[i].patch].target, s,
                     "the class does not define this method; patchgen adds it");
        }
        cgm_state_free(&st);
        strbuf_add(&b, cls.buf, cls.len);
        strbuf_free(&cls);
    } else {
        segment(g, &b, s, e);
    }
    part(g, b.buf, b.len);
    for (size_t i = 0; i < sources.len; i++) {
        free(sources.items[i].name);
        free(sources.items[i].source);
    }
    VEC_FREE(&sources);
    strvec_free(&patched);
    strbuf_free(&b);
}

static void function_source(gen *g, TSNode node, TSNode def, const char *name)
{
    unsigned s = start_line(node), e = end_line(def);
    strbuf b = STRBUF_INIT;
    long fr = map_get(&g->functions, name);
    if (fr >= 0) {
        const pg_patch *p = &g->cfg->patches.items[fr];
        g->applied[fr] = p->replacement != NULL;
        if (!p->replacement)
            note(g, CG_NOTE_UNAPPLIED, fr, p->target, s,
                 "an external function replacement keeps the upstream function under the banner");
        function_replacement(g, &b, name, s, e, p);
    } else {
        segment(g, &b, s, e);
    }
    part(g, b.buf, b.len);
    strbuf_free(&b);
}

/* `__all__ = [...]` of str constants, when something is excluded: re-rendered
 * without the excluded names. Returns 1 when it rendered. */
static int dunder_all(gen *g, TSNode assign)
{
    if (!g->cfg->exclude.len)
        return 0;
    TSNode left = py_field(assign, "left"), right = py_field(assign, "right");
    if (ts_node_is_null(left) || ts_node_is_null(right) || !py_is(left, "identifier") ||
        !py_text_eq(&g->tree, left, "__all__"))
        return 0;
    right = unparen(right);
    if (!py_is(right, "list") && !py_is(right, "tuple"))
        return 0;
    uint32_t c = ts_node_named_child_count(right);
    for (uint32_t i = 0; i < c; i++) {
        TSNode k = ts_node_named_child(right, i);
        if (py_is(k, "comment"))
            continue;
        if (!is_str_constant(&g->tree, k))
            return 0;
    }
    strbuf b = STRBUF_INIT;
    strbuf_adds(&b, "__all__ = [\n");
    for (uint32_t i = 0; i < c; i++) {
        TSNode k = ts_node_named_child(right, i);
        if (py_is(k, "comment"))
            continue;
        strbuf v = STRBUF_INIT;
        string_value(&v, &g->tree, k);
        if (!excluded(g, v.buf))
            strbuf_addf(&b, "    \"%s\",\n", v.buf);
        strbuf_free(&v);
    }
    strbuf_addc(&b, ']');
    part(g, b.buf, b.len);
    strbuf_free(&b);
    return 1;
}

static void dropped(gen *g, TSNode n)
{
    size_t len;
    const char *s = py_text(&g->tree, n, &len);
    size_t k = 0;
    while (k < len && s[k] != '\n' && k < 80)
        k++;
    char *first = pgci_strndup(s, k);
    note(g, CG_NOTE_DROPPED_STATEMENT, -1, ts_node_type(n), start_line(n), first);
    free(first);
}

/* The module's statements (pynode_children: a cursor, where a loop over
 * ts_node_named_child is quadratic in their number; comments left out). */
static void body(gen *g)
{
    TSNode *kids;
    size_t c = pynode_children(py_root(&g->tree), 1, &kids);
    for (size_t i = 0; i < c; i++) {
        TSNode n = kids[i];
        const char *type = ts_node_type(n);
        if (!strcmp(type, "comment") || !strcmp(type, "import_statement") ||
            !strcmp(type, "import_from_statement") || !strcmp(type, "future_import_statement"))
            continue;
        TSNode def = definition_of(n);
        if (py_is(def, "class_definition") || py_is(def, "function_definition")) {
            char *name = def_name(&g->tree, def);
            strvec_push(&g->emitted_names, name);
            if (!excluded(g, name)) {
                if (py_is(def, "class_definition"))
                    class_source(g, n, def, name);
                else
                    function_source(g, n, def, name);
                part_s(g, "");
                positioned_after(g, name);
            }
            free(name);
            continue;
        }
        if (!strcmp(type, "expression_statement") && ts_node_named_child_count(n) == 1) {
            TSNode e = ts_node_named_child(n, 0);
            if (py_is(e, "assignment") && ts_node_is_null(py_field(e, "type"))) {
                if (!dunder_all(g, e)) {
                    strbuf b = STRBUF_INIT;
                    segment(g, &b, start_line(n), end_line(n));
                    part(g, b.buf, b.len);
                    strbuf_free(&b);
                }
                part_s(g, "");
                continue;
            }
            if (is_str_constant(&g->tree, e)) {
                strbuf b = STRBUF_INIT;
                segment(g, &b, start_line(n), end_line(n));
                part(g, b.buf, b.len);
                part_s(g, "");
                strbuf_free(&b);
                continue;
            }
        }
        dropped(g, n);
    }
    free(kids);
}

/* _collapse_blank_lines(max_consecutive=2) over the joined parts. */
static void collapse(strbuf *out, const char *s, size_t n)
{
    cg_lines lines = VEC_INIT;
    cgtext_splitlines(&lines, s, n);
    int blank_run = 0, first = 1;
    for (size_t i = 0; i < lines.len; i++) {
        cg_span l = lines.items[i];
        if (cgtext_is_blank(l.p, l.n)) {
            if (++blank_run > 2)
                continue;
        } else {
            blank_run = 0;
        }
        if (!first)
            strbuf_addc(out, '\n');
        strbuf_add(out, l.p, l.n);
        first = 0;
    }
    VEC_FREE(&lines);
}

/* Patches whose target's top-level name is a class or function upstream. */
static size_t targets_defined(const gen *g)
{
    size_t n = 0;
    for (size_t i = 0; i < g->cfg->patches.len; i++) {
        const char *t = g->cfg->patches.items[i].target;
        if (!t || !*t)
            continue;
        size_t k = strcspn(t, ".");
        for (size_t j = 0; j < g->emitted_names.len; j++)
            if (strlen(g->emitted_names.items[j]) == k &&
                !strncmp(g->emitted_names.items[j], t, k)) {
                n++;
                break;
            }
    }
    return n;
}

/* Notes on patches that did not take effect, in registration order. */
static void patch_notes(gen *g)
{
    const pg_config *c = g->cfg;
    for (size_t i = 0; i < c->patches.len; i++) {
        const pg_patch *p = &c->patches.items[i];
        if (p->type == PG_INIT_MODIFICATION) {
            note(g, CG_NOTE_UNAPPLIED_INIT, (long)i, p->target, 0,
                 "modify_init patches are listed in the header but never applied");
            continue;
        }
        if (p->type == PG_ADDITIONAL_IMPORT) {
            note(g, CG_NOTE_UNAPPLIED, (long)i, p->target, 0,
                 "patches of type additional_import are listed but never applied");
            continue;
        }
        const target_map *m = p->type == PG_CLASS_REPLACEMENT ? &g->classes
                              : p->type == PG_METHOD_OVERRIDE ? &g->methods
                                                              : &g->functions;
        if (map_get(m, p->target) != (long)i) {
            note(g, CG_NOTE_SUPERSEDED, (long)i, p->target, 0,
                 "a later registration for the same target replaces this patch");
            continue;
        }
        if (g->applied[i])
            continue;
        if (p->type == PG_METHOD_OVERRIDE) {
            const char *dot = strchr(p->target, '.');
            char *cls =
                pgci_strndup(p->target, dot ? (size_t)(dot - p->target) : strlen(p->target));
            if (map_get(&g->classes, cls) >= 0 && strvec_find(&g->emitted_names, cls) >= 0 &&
                !excluded(g, cls))
                note(g, CG_NOTE_SHADOWED, (long)i, p->target, 0,
                     "the class is replaced by a class replacement, so this override is ignored");
            else if (strvec_find(&g->emitted_names, cls) < 0 || excluded(g, cls))
                note(g, CG_NOTE_MISSING_TARGET, (long)i, p->target, 0,
                     excluded(g, cls) ? "the target class is excluded from the output"
                                      : "the target class is not defined in the upstream module");
            free(cls);
            continue;
        }
        int present = strvec_find(&g->emitted_names, p->target) >= 0;
        if (p->type == PG_FUNCTION_REPLACEMENT && present && !excluded(g, p->target))
            continue; /* external function replacement: noted where applied */
        note(g, CG_NOTE_MISSING_TARGET, (long)i, p->target, 0,
             present ? "the target is excluded from the output"
                     : "the target is not defined at the top level of the upstream module");
    }
    for (size_t i = 0; i < c->exclude.len; i++)
        if (strvec_find(&g->emitted_names, c->exclude.items[i]) < 0)
            note(g, CG_NOTE_EXCLUDED_MISSING, -1, c->exclude.items[i], 0,
                 "excluded name is not defined at the top level of the upstream module");
}

void codegen_read_upstream(strbuf *out, const char *raw, size_t len)
{
    cgtext_universal_newlines(out, raw, len);
}

int codegen_generate(const pg_config *cfg, const char *source, size_t len,
                     const char *transformers_version, cg_result *out)
{
    return codegen_generate_shared(cfg, source, len, transformers_version, NULL, out);
}

int codegen_generate_shared(const pg_config *cfg, const char *source, size_t len,
                            const char *transformers_version, cg_shared *sh, cg_result *out)
{
    memset(out, 0, sizeof(*out));
    strbuf_init(&out->output, 0);
    gen g;
    memset(&g, 0, sizeof(g));
    g.cfg = cfg;
    g.res = out;
    g.src = source;
    g.src_len = len;
    strbuf_init(&g.out, len + 4096);
    g.sh = sh;
    int r = sh ? cg_shared_parse(sh, source, len, cfg->source_module, &g.tree)
               : py_parse(&g.tree, source, len, cfg->source_module);
    if (r < 0)
        return r;
    r = py_check_syntax(&g.tree);
    if (r < 0) {
        pgci_error_wrap(r, "upstream module %s does not parse", cfg->source_module);
        goto done;
    }
    const char *why = NULL;
    unsigned bad = cg_shared_indent_error_line(sh, source, len, &g.tree, &why);
    if (bad) {
        r = pgci_error_set(PGCI_EINVALID, "upstream module %s does not parse: line %u: %s",
                           cfg->source_module, bad, why);
        goto done;
    }
    cgtext_splitlines(&g.lines, source, len);
    g.rows_are_lines = rows_are_lines(source, len, &g.lines);
    g.applied = pgci_calloc(cfg->patches.len + 1, 1);
    for (size_t i = 0; i < cfg->patches.len; i++) {
        const pg_patch *p = &cfg->patches.items[i];
        if (p->type == PG_CLASS_REPLACEMENT)
            map_put(&g.classes, p->target, i);
        else if (p->type == PG_METHOD_OVERRIDE)
            map_put(&g.methods, p->target, i);
        else if (p->type == PG_FUNCTION_REPLACEMENT)
            map_put(&g.functions, p->target, i);
    }

    header(&g, transformers_version ? transformers_version : "unknown");
    imports(&g);
    part_s(&g, "");
    helpers(&g);
    body(&g);

    /* positioned helpers whose target never appeared: patchgen's CodegenError */
    strvec missing = STRVEC_INIT;
    for (size_t i = 0; i < cfg->positioned_helpers.len; i++) {
        const pg_positioned_helper *h = &cfg->positioned_helpers.items[i];
        if (h->placement && strcmp(h->placement, "after"))
            continue;
        if (strvec_find(&g.positioned_done, h->target) < 0 && strvec_find(&missing, h->target) < 0)
            strvec_push(&missing, h->target);
    }
    if (missing.len) {
        strvec_sort(&missing);
        strbuf m = STRBUF_INIT;
        for (size_t i = 0; i < missing.len; i++)
            strbuf_addf(&m, "%s%s", i ? ", " : "", missing.items[i]);
        /* the caller names the config, by its path in the workspace: this file's
         * absolute path in the message too would put the machine's in reports */
        r = pgci_error_set(PGCI_ENOTFOUND,
                           "positioned helper target(s) not found in generated output: %s "
                           "(add_helper_after needs a top-level class or function of %s)",
                           m.buf, cfg->source_module);
        strbuf_free(&m);
        strvec_free(&missing);
        goto done;
    }
    strvec_free(&missing);
    patch_notes(&g);
    out->targets_defined = targets_defined(&g);
    collapse(&out->output, g.out.buf, g.out.len);
done:
    free(g.applied);
    VEC_FREE(&g.lines);
    VEC_FREE(&g.classes);
    VEC_FREE(&g.methods);
    VEC_FREE(&g.functions);
    strvec_free(&g.emitted_names);
    strvec_free(&g.positioned_done);
    strbuf_free(&g.out);
    if (sh)
        cg_shared_release(&g.tree);
    else
        py_tree_free(&g.tree);
    return r;
}

void cg_result_free(cg_result *r)
{
    strbuf_free(&r->output);
    VEC_FREE(&r->notes);
    arena_free(&r->mem);
}
