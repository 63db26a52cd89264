/*
 * config_shared.c - PatchConfig objects shared between config modules.
 *
 * In Python, `from sibling_patch_gen_config import config` binds the sibling's
 * object: every module that imports it holds the same one, so a change one of them
 * makes shows in all the others that read it afterwards. pgci gives each importing
 * module its own copy (what a fresh `patchgen MODULE` process sees for a config
 * that only reads, or only changes, what it imports), and refuses the one case where
 * the copies would differ from the shared object: among the modules one evaluation
 * loads, one changes its copy and another holds a copy of the same PatchConfig that
 * was not taken from the changed one (a copy of the changed copy, taken after its
 * module ran, holds the changes as Python's shared object does).
 */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "patchgen/config_internal.h"

ce_value *ce_imported_value(ce_ctx *c, ce_value *v, TSNode at)
{
    if (v->kind != CE_CONFIG)
        return v;
    char key[32];
    snprintf(key, sizeof(key), "%p", (void *)v->u.cfg);
    ce_value *mine = hashmap_get(&c->mod->cloned, key);
    if (!mine) {
        mine = ce_value_new(c->ev, CE_CONFIG);
        mine->u.cfg = ce_config_clone(c->ev, v->u.cfg);
        mine->u.cfg->copied_from = v->u.cfg;
        mine->u.cfg->holder = c->mod;
        mine->u.cfg->at_line = py_line(at);
        mine->u.cfg->at_col = py_col(at);
        hashmap_put(&c->mod->cloned, key, mine);
    }
    return mine;
}

static int config_differs(const ce_config *a, const ce_config *b)
{
    return a->source_module != b->source_module || a->target_file != b->target_file ||
           a->description != b->description || a->transformers_version != b->transformers_version ||
           a->patches.len != b->patches.len ||
           a->additional_imports.len != b->additional_imports.len ||
           a->post_import_blocks.len != b->post_import_blocks.len ||
           a->helpers.len != b->helpers.len ||
           a->positioned_helpers.len != b->positioned_helpers.len ||
           a->drop_imported_names.len != b->drop_imported_names.len ||
           a->exclude.len != b->exclude.len;
}

void ce_note_changes(ce_module *m)
{
    for (size_t i = 0; i < m->cloned.len; i++) {
        ce_value *v = m->cloned.entries[i].value;
        if (m->cloned.entries[i].key && v && v->kind == CE_CONFIG && v->u.cfg->copied_from)
            v->u.cfg->changed = config_differs(v->u.cfg, v->u.cfg->copied_from);
    }
}

/* The PatchConfig a chain of copies started from. */
static const ce_config *original(const ce_config *cfg)
{
    while (cfg->copied_from)
        cfg = cfg->copied_from;
    return cfg;
}

typedef VEC(ce_config *) copy_list;

/* 1 when `copy` was copied, directly or through other copies, from `from`: it was
 * taken after `from`'s module had run, so it holds every change `from` saw. */
static int descends(const ce_config *copy, const ce_config *from)
{
    for (const ce_config *c = copy->copied_from; c; c = c->copied_from)
        if (c == from)
            return 1;
    return 0;
}

/* The copies held by the modules top loads (top included), in load order. */
static void collect_copies(ce_module *top, copy_list *out)
{
    VEC(ce_module *) todo = VEC_INIT;
    hashmap seen = {0};
    VEC_PUSH(&todo, top);
    hashmap_put(&seen, top->abs_path, (void *)1);
    for (size_t k = 0; k < todo.len; k++) {
        ce_module *m = todo.items[k];
        for (size_t i = 0; i < m->cloned.len; i++) {
            ce_value *v = m->cloned.entries[i].value;
            if (m->cloned.entries[i].key && v && v->kind == CE_CONFIG)
                VEC_PUSH(out, v->u.cfg);
        }
        for (size_t i = 0; i < m->loads.len; i++)
            if (!hashmap_has(&seen, m->loads.items[i]->abs_path)) {
                hashmap_put(&seen, m->loads.items[i]->abs_path, (void *)1);
                VEC_PUSH(&todo, m->loads.items[i]);
            }
    }
    VEC_FREE(&todo);
    hashmap_free(&seen);
}

int ce_check_shared(config_eval *ev, ce_module *top)
{
    (void)ev;
    copy_list copies = VEC_INIT;
    collect_copies(top, &copies);
    int r = 0;
    for (size_t i = 0; r == 0 && i < copies.len; i++) {
        const ce_config *changer = copies.items[i];
        if (!changer->changed)
            continue;
        for (size_t j = 0; r == 0 && j < copies.len; j++) {
            const ce_config *other = copies.items[j];
            if (other->holder == changer->holder || original(other) != original(changer) ||
                descends(other, changer))
                continue;
            r = pgci_error_set(PGCI_EUNSUPPORTED,
                               "%s:%u:%u: unsupported construct in patch config: the PatchConfig "
                               "imported here is changed by %s (imported at line %u), which "
                               "this evaluation also loads (Python shares one object between "
                               "them, so the change shows here; pgci gives each its own copy)",
                               other->holder->rel_path, other->at_line, other->at_col,
                               changer->holder->rel_path, changer->at_line);
        }
    }
    VEC_FREE(&copies);
    return r;
}
