/*
 * check --fix (see gate_fix.h).
 */
#include "pipeline/gate_fix.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs_safe.h"

/* The checks whose findings a rewrite from a fresh regeneration fixes. */
static int fixable_check(const char *id)
{
    return !strcmp(id, "drift") || !strcmp(id, "ruff-equivalence") ||
           !strcmp(id, "diff-consistency");
}

static int has_kind(const finding *f, const char *kind)
{
    json_t *k = f->data ? json_object_get(f->data, "kind") : NULL;
    return k && json_is_string(k) && !strcmp(json_string_value(k), kind);
}

/* A misspelled target (targets' near-miss warning): regenerating would add the
 * typo as a method and leave the one meant unpatched. */
static int near_miss(const finding *f)
{
    return has_kind(f, "near-miss");
}

/* A finding a rewrite fixes: one of the fixable checks', or one that says the
 * config's generated file is absent ("not-checked-in": protocol-siblings' GPU
 * file missing while the NPU one is there), which writing it answers. */
static int fixed_by_rewrite(const finding *f)
{
    return fixable_check(f->check) || has_kind(f, "not-checked-in");
}

/* The first error (or near miss) another check found for this config, or NULL. */
static const finding *blocking_error(const findings *fs, const char *module)
{
    for (size_t k = 0; k < fs->len; k++) {
        const finding *f = fs->items[k];
        if ((f->sev == SEV_ERROR || near_miss(f)) && f->config && !strcmp(f->config, module) &&
            !fixed_by_rewrite(f))
            return f;
    }
    return NULL;
}

static int differs(const char *a, size_t alen, const char *b, size_t blen)
{
    return !a || !b || alen != blen || memcmp(a, b, alen) != 0;
}

typedef struct fix_item {
    const char *module, *path, *data;
    size_t len;
} fix_item;

typedef VEC(fix_item) fix_items;

/* What --fix would write: the drifted files of the configs with no other error. */
static void plan(const check_input *in, size_t n, const findings *fs, strvec *refused,
                 fix_items *out)
{
    for (size_t i = 0; i < n; i++) {
        const check_input *c = &in[i];
        if (!c->expected_py)
            continue;
        const int py =
                      differs(c->checked_py, c->checked_py_len, c->expected_py, c->expected_py_len),
                  df = c->diff_path && c->expected_diff &&
                       differs(c->checked_diff, c->checked_diff_len, c->expected_diff,
                               c->expected_diff_len);
        if (!py && !df)
            continue;
        const finding *b = blocking_error(fs, c->module);
        if (b) {
            strvec_push_owned(refused, pgci_asprintf("%s: not rewritten: %s [%s]", c->module,
                                                     b->title, b->check));
            continue;
        }
        if (py)
            VEC_PUSH(out, ((fix_item){c->module, c->py_path, c->expected_py, c->expected_py_len}));
        if (df)
            VEC_PUSH(out,
                     ((fix_item){c->module, c->diff_path, c->expected_diff, c->expected_diff_len}));
    }
}

/* Drops the findings a rewrite fixed (fixed_by_rewrite) on a config whose files are
 * now the fresh regeneration (a stale .diff is consistent again once its .py is
 * rewritten, a missing .py is there). */
static void drop_fixed(findings *fs, const strvec *modules)
{
    size_t w = 0;
    for (size_t k = 0; k < fs->len; k++) {
        finding *f = fs->items[k];
        int gone = 0;
        for (size_t i = 0; !gone && f->config && fixed_by_rewrite(f) && i < modules->len; i++)
            gone = !strcmp(f->config, modules->items[i]);
        if (gone)
            finding_free(f);
        else
            fs->items[w++] = f;
    }
    fs->len = w;
}

int gate_fix_apply(const char *root, const check_input *in, size_t n, findings *fs, strvec *fixed,
                   strvec *refused)
{
    fix_items items = VEC_INIT;
    plan(in, n, fs, refused, &items);
    int r = 0;
    /* every path first: a refusal leaves nothing written */
    for (size_t i = 0; r == 0 && i < items.len; i++)
        r = fs_safe_check(root, items.items[i].path, NULL);
    strvec modules = STRVEC_INIT;
    size_t before = fixed->len;
    for (size_t i = 0; r == 0 && i < items.len; i++) {
        r = fs_safe_write(root, items.items[i].path, items.items[i].data, items.items[i].len);
        if (r == 0)
            strvec_push(fixed, items.items[i].path);
        if (r == 0 &&
            (i + 1 == items.len || strcmp(items.items[i + 1].module, items.items[i].module)))
            strvec_push(&modules, items.items[i].module);
    }
    /* a write that failed although every check passed (a full disk): the error
     * says which files this run did rewrite, so none is taken for untouched */
    if (r < 0 && fixed->len > before) {
        strbuf done = STRBUF_INIT;
        for (size_t i = before; i < fixed->len; i++)
            strbuf_addf(&done, "%s%s", i > before ? ", " : "", fixed->items[i]);
        char *msg = pgci_strdup(pgci_error_last());
        r = pgci_error_set(r, "%s; rewritten before it: %s; the other files are unchanged", msg,
                           done.buf);
        free(msg);
        strbuf_free(&done);
    }
    VEC_FREE(&items);
    drop_fixed(fs, &modules);
    strvec_free(&modules);
    return r;
}
