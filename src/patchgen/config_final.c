/*
 * config_final.c - turning a PatchConfig under evaluation into the self-contained
 * pg_config the code generator reads: every string, object and file text copied
 * into the config's own arena (each once: shared pointers stay shared), so the
 * config outlives its evaluator. The text a config carries is bounded
 * (CE_MAX_CONFIG_BYTES, counted per use) so that sharing one big block many times
 * cannot make the generator's output explode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "patchgen/config_internal.h"
#include "py/pystr.h"

/* --- finalizing: a self-contained pg_config ----------------------------------------------------
 */

typedef struct fin {
    pg_config *pc;
    hashmap copies; /* "%p" of an evaluator pointer -> its copy */
    size_t bytes;
} fin;

static void *fin_lookup(fin *f, const void *p)
{
    char key[32];
    snprintf(key, sizeof(key), "%p", p);
    return hashmap_get(&f->copies, key);
}

static void fin_remember(fin *f, const void *p, void *copy)
{
    char key[32];
    snprintf(key, sizeof(key), "%p", p);
    hashmap_put(&f->copies, key, copy);
}

static const char *fin_str(fin *f, const char *s)
{
    if (!s)
        return NULL;
    f->bytes += strlen(s);
    char *c = fin_lookup(f, s);
    if (!c) {
        c = arena_strdup(&f->pc->mem, s);
        fin_remember(f, s, c);
    }
    return c;
}

static const pg_object *fin_obj(fin *f, const pg_object *o)
{
    if (!o)
        return NULL;
    pg_object *c = fin_lookup(f, o);
    if (c)
        return c;
    c = arena_alloc(&f->pc->mem, sizeof(*c));
    *c = *o;
    c->name = fin_str(f, o->name);
    c->module = fin_str(f, o->module);
    c->file = fin_str(f, o->file);
    c->text = fin_lookup(f, o->text);
    if (!c->text) {
        c->text = arena_strndup(&f->pc->mem, o->text, o->text_len);
        fin_remember(f, o->text, (void *)c->text);
    }
    /* the tree of the text: its nodes' bytes are the copy's too */
    c->tree = o->tree ? fin_lookup(f, o->tree) : NULL;
    if (o->tree && !c->tree) {
        TSTree *t = ts_tree_copy(o->tree);
        VEC_PUSH(&f->pc->trees, t);
        fin_remember(f, o->tree, t);
        c->tree = t;
    }
    fin_remember(f, o, c);
    return c;
}

/* The module docstring of the evaluated file, for the protocol checks. */
static void module_docstring(pg_config *pc, const ce_module *m)
{
    strbuf doc = STRBUF_INIT;
    unsigned line = m->tree ? pystr_module_docstring(&doc, m->tree) : 0;
    if (line) {
        pc->docstring = arena_strndup(&pc->mem, doc.buf ? doc.buf : "", doc.len);
        pc->docstring_line = line;
    }
    strbuf_free(&doc);
}

int ce_finalize(const ce_module *m, const char *var, const ce_config *src, pg_config **out)
{
    arena a = ARENA_INIT;
    pg_config *pc = arena_alloc(&a, sizeof(*pc));
    pc->mem = a;
    fin f = {pc, HASHMAP_INIT, 0};
    pc->var_name = fin_str(&f, var);
    pc->file = fin_str(&f, m->abs_path);
    pc->module = fin_str(&f, m->name);
    pc->source_module = fin_str(&f, src->source_module);
    pc->target_file = fin_str(&f, src->target_file);
    pc->description = fin_str(&f, src->description);
    pc->transformers_version = fin_str(&f, src->transformers_version);
    pc->line = src->line;
    pc->col = src->col;
    for (size_t i = 0; i < src->patches.len; i++) {
        const pg_patch *p = src->patches.items[i];
        pg_patch q = *p;
        q.target = fin_str(&f, p->target);
        q.replacement = fin_obj(&f, p->replacement);
        q.replacement_module = fin_str(&f, p->replacement_module);
        q.replacement_name = fin_str(&f, p->replacement_name);
        q.source_module = fin_str(&f, p->source_module);
        q.description = fin_str(&f, p->description);
        q.reg_file = fin_str(&f, p->reg_file);
        if (p->name_map_len) {
            q.name_map = arena_alloc(&pc->mem, p->name_map_len * sizeof(*q.name_map));
            for (size_t j = 0; j < p->name_map_len; j++) {
                q.name_map[j].from = fin_str(&f, p->name_map[j].from);
                q.name_map[j].to = fin_str(&f, p->name_map[j].to);
            }
        }
        VEC_PUSH(&pc->patches, q);
    }
    for (size_t i = 0; i < src->additional_imports.len; i++) {
        const pg_import *p = src->additional_imports.items[i];
        pg_import q = *p;
        q.module = fin_str(&f, p->module);
        q.alias = fin_str(&f, p->alias);
        if (p->names) {
            q.names = arena_alloc(&pc->mem, (p->names_len + 1) * sizeof(char *));
            for (size_t j = 0; j < p->names_len; j++)
                q.names[j] = fin_str(&f, p->names[j]);
        }
        VEC_PUSH(&pc->additional_imports, q);
    }
    for (size_t i = 0; i < src->post_import_blocks.len; i++)
        VEC_PUSH(&pc->post_import_blocks, fin_str(&f, src->post_import_blocks.items[i]));
    for (size_t i = 0; i < src->helpers.len; i++)
        VEC_PUSH(&pc->helpers, fin_obj(&f, src->helpers.items[i]));
    for (size_t i = 0; i < src->positioned_helpers.len; i++) {
        const pg_positioned_helper *p = src->positioned_helpers.items[i];
        pg_positioned_helper q = {fin_str(&f, p->target),
                                  fin_obj(&f, p->helper),
                                  "after",
                                  fin_str(&f, p->reg_file),
                                  p->reg_line,
                                  p->reg_col};
        VEC_PUSH(&pc->positioned_helpers, q);
    }
    for (size_t i = 0; i < src->drop_imported_names.len; i++)
        VEC_PUSH(&pc->drop_imported_names, fin_str(&f, src->drop_imported_names.items[i]));
    for (size_t i = 0; i < src->exclude.len; i++)
        VEC_PUSH(&pc->exclude, fin_str(&f, src->exclude.items[i]));
    hashmap_free(&f.copies);
    module_docstring(pc, m);
    if (f.bytes > CE_MAX_CONFIG_BYTES) {
        int r =
            pgci_error_set(PGCI_ELIMIT, "%s: PatchConfig '%s' carries %zu bytes of text (limit %u)",
                           m->rel_path, var, f.bytes, CE_MAX_CONFIG_BYTES);
        pg_config_free(pc);
        return r;
    }
    *out = pc;
    return 0;
}
