/*
 * names_cmp.h - the proof that the targets check's names-only indexes
 * (index_module_build_names) suggest exactly what full indexes did.
 *
 * Shared by the unit test (tests/unit/test_index_names.c, over every Python file of
 * fixtures/ and hand-written edge cases) and the corpus tool
 * (tests/tools/names_cmp.c, over every modeling_*.py of a transformers release).
 * For one source:
 *   - refusals: when index_module_build refuses it, the targets check's path (a
 *     names-only index, then index_too_deep() before any suggestion) refuses it too;
 *     when it accepts it, the names-only index accepts it;
 *   - structure: the same definitions and members, in the same order, with the same
 *     kinds, names, qualnames, parents, lines, spans, flags and counts, and
 *     index_find() answering the same definition for every qualname;
 *   - suggestions: near_miss_suggest() over many targets made from every
 *     definition's and member's name (one and two edits of each kind, exact names,
 *     class names misspelt, nested classes) answers the same on both.
 */
#ifndef PGCI_TESTS_NAMES_CMP_H
#define PGCI_TESTS_NAMES_CMP_H

#include <string.h>

#include "checks/near_miss.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "index/index.h"

typedef struct names_cmp {
    int dense;          /* every edit at every position, not a sample */
    size_t files;       /* sources compared */
    size_t refused;     /* of which the full index refuses */
    size_t defs;        /* definitions compared */
    size_t targets;     /* targets asked */
    size_t suggestions; /* of which with a suggestion */
    strbuf why;         /* the first difference */
} names_cmp;

static int names_cmp_fail(names_cmp *c, const char *path, const char *what, const char *detail)
{
    if (!c->why.len)
        strbuf_addf(&c->why, "%s: %s: %s", path, what, detail ? detail : "(null)");
    return -1;
}

static int names_cmp_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

static int names_cmp_target(names_cmp *c, const index_module *full, const index_module *names,
                            const char *target, const char *path)
{
    const char *a = near_miss_suggest(full, target), *b = near_miss_suggest(names, target);
    c->targets++;
    c->suggestions += a != NULL;
    if (!names_cmp_str(a, b))
        return names_cmp_fail(c, path, "suggestions differ for", target);
    return 0;
}

/* The targets made from name within scope ("Cls." or ""): the name itself, and
 * deletions, swaps, substitutions, insertions and two-edit changes at every
 * position (dense) or at a few. */
static int names_cmp_edits(names_cmp *c, const index_module *full, const index_module *names,
                           const char *scope, const char *name, const char *path)
{
    size_t n = strlen(name);
    strbuf t = STRBUF_INIT;
    int r = 0;
    for (size_t i = 0; i <= n && r == 0; i++) {
        if (!c->dense && i != 0 && i != n / 2 && i + 1 != n && i != n)
            continue;
        for (int kind = 0; kind < 7 && r == 0; kind++) {
            strbuf_reset(&t);
            strbuf_addf(&t, "%s%.*s", scope, (int)i, name);
            const char *rest = name + i;
            if (kind == 0 && i == 0)
                strbuf_addf(&t, "%s", rest); /* the name itself */
            else if (kind == 1 && i < n)
                strbuf_addf(&t, "%s", rest + 1); /* deletion */
            else if (kind == 2 && i + 1 < n)
                strbuf_addf(&t, "%c%c%s", rest[1], rest[0], rest + 2); /* swap */
            else if (kind == 3 && i < n)
                strbuf_addf(&t, "%c%s", rest[0] == 'q' ? 'x' : 'q', rest + 1); /* substitution */
            else if (kind == 4)
                strbuf_addf(&t, "e%s", rest); /* insertion */
            else if (kind == 5 && i + 2 < n)
                strbuf_addf(&t, "%c%s", rest[1], rest + 3); /* two deletions */
            else if (kind == 6 && i + 1 < n)
                strbuf_addf(&t, "%c_%s", rest[1], rest + 2); /* deletion and substitution */
            else
                continue;
            r = names_cmp_target(c, full, names, t.buf, path);
        }
    }
    strbuf_free(&t);
    return r;
}

/* Compares two definitions, then their members; targets from each member's name
 * within d, and d's own name misspelt before its first member. */
static int names_cmp_def(names_cmp *c, const index_module *full, const index_module *names,
                         const index_def *a, const index_def *b, const char *path)
{
    c->defs++;
    if (a->kind != b->kind || !names_cmp_str(a->name, b->name) ||
        !names_cmp_str(a->qualname, b->qualname) || (a->parent == NULL) != (b->parent == NULL) ||
        (a->parent && strcmp(a->parent->qualname, b->parent->qualname)) || a->line != b->line ||
        a->start_line != b->start_line || a->end_line != b->end_line ||
        a->start_byte != b->start_byte || a->end_byte != b->end_byte ||
        a->is_async != b->is_async || a->conditional != b->conditional ||
        a->n_members != b->n_members)
        return names_cmp_fail(c, path, "definitions differ", a->qualname);
    const index_def *fa = index_find(full, a->qualname), *fb = index_find(names, b->qualname);
    if (!fa || !fb || fa->line != fb->line || fa->start_byte != fb->start_byte)
        return names_cmp_fail(c, path, "index_find differs for", a->qualname);
    strbuf scope = STRBUF_INIT;
    strbuf_addf(&scope, "%s.", a->qualname);
    int r = 0;
    for (size_t i = 0; i < a->n_members && r == 0; i++) {
        r = names_cmp_def(c, full, names, a->members[i], b->members[i], path);
        if (r == 0)
            r = names_cmp_edits(c, full, names, scope.buf, a->members[i]->name, path);
    }
    if (r == 0 && a->n_members) {
        strbuf_reset(&scope);
        strbuf_addf(&scope, "%sx.%s", a->qualname, a->members[0]->name);
        r = names_cmp_target(c, full, names, scope.buf, path);
    }
    strbuf_free(&scope);
    return r;
}

static int names_cmp_modules(names_cmp *c, const index_module *full, const index_module *names,
                             const char *path)
{
    if (full->n_defs != names->n_defs || full->n_functions != names->n_functions ||
        full->n_classes != names->n_classes || full->n_methods != names->n_methods)
        return names_cmp_fail(c, path, "counts differ", NULL);
    for (size_t i = 0; i < full->n_defs; i++) {
        if (names_cmp_def(c, full, names, full->defs[i], names->defs[i], path) < 0 ||
            names_cmp_edits(c, full, names, "", full->defs[i]->name, path) < 0)
            return -1;
    }
    /* names that are no definition's */
    static const char *const others[] = {"", "x", "forward", "NoSuchClass.forward", "a.b.c"};
    for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++)
        if (names_cmp_target(c, full, names, others[i], path) < 0)
            return -1;
    return 0;
}

/* Compares the two paths on one source: 0 when they agree, -1 (c->why says how)
 * when not. */
static int names_cmp_source(names_cmp *c, const char *src, size_t len, const char *path)
{
    py_tree t;
    if (py_parse(&t, src, len, path) < 0)
        return names_cmp_fail(c, path, "cannot parse", pgci_error_last());
    c->files++;
    index_module *full = NULL, *names = NULL;
    int rf = index_module_build(&full, &t, "m");
    int rn = index_module_build_names(&names, &t, "m");
    int deep = index_too_deep(&t);
    pgci_error_clear();
    int r = 0;
    if (rf < 0) {
        c->refused++;
        if (rn == 0 && !deep)
            r = names_cmp_fail(c, path, "the full index refuses, the targets path accepts", NULL);
    } else if (rn < 0 || deep) {
        r = names_cmp_fail(c, path, "the full index accepts, the targets path refuses", NULL);
    } else {
        r = names_cmp_modules(c, full, names, path);
    }
    index_module_free(full);
    index_module_free(names);
    py_tree_free(&t);
    return r;
}

#endif
