/*
 * patch_spec.c - the little behaviour the evaluated-config model has: the names of
 * patch types (patchgen's PatchType values) and freeing a config.
 */
#include "patchgen/patch_spec.h"

#include <stdlib.h>
#include <string.h>

#include <tree_sitter/api.h>

static const struct {
    const char *value;  /* PatchType.X.value */
    const char *member; /* X */
} patch_types[] = {
    [PG_CLASS_REPLACEMENT] = {"class_replacement", "CLASS_REPLACEMENT"},
    [PG_METHOD_OVERRIDE] = {"method_override", "METHOD_OVERRIDE"},
    [PG_FUNCTION_REPLACEMENT] = {"function_replacement", "FUNCTION_REPLACEMENT"},
    [PG_ADDITIONAL_IMPORT] = {"additional_import", "ADDITIONAL_IMPORT"},
    [PG_INIT_MODIFICATION] = {"init_modification", "INIT_MODIFICATION"},
};

const char *pg_patch_type_name(pg_patch_type t)
{
    if ((unsigned)t >= sizeof(patch_types) / sizeof(patch_types[0]))
        return "unknown";
    return patch_types[t].value;
}

int pg_patch_type_from_member(const char *member)
{
    for (size_t i = 0; i < sizeof(patch_types) / sizeof(patch_types[0]); i++)
        if (!strcmp(patch_types[i].member, member))
            return (int)i;
    return -1;
}

/* The evaluator allocates the pg_config struct itself inside its own arena, so
 * freeing the arena frees everything; a pg_config built by hand (on the stack, in a
 * test) is freed the same way without touching the struct's own storage. */
void pg_config_free(pg_config *c)
{
    if (!c)
        return;
    arena mem = c->mem;
    VEC_FREE(&c->patches);
    VEC_FREE(&c->additional_imports);
    VEC_FREE(&c->post_import_blocks);
    VEC_FREE(&c->helpers);
    VEC_FREE(&c->positioned_helpers);
    VEC_FREE(&c->drop_imported_names);
    VEC_FREE(&c->exclude);
    for (size_t i = 0; i < c->trees.len; i++)
        ts_tree_delete(c->trees.items[i]);
    VEC_FREE(&c->trees);
    arena_free(&mem);
}
