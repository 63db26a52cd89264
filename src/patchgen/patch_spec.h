/*
 * patch_spec.h - an evaluated patch config: what patchgen's PatchConfig holds after
 * Python has imported the config module, produced by the static config evaluator
 * (config_eval) and consumed by the code generator (codegen).
 *
 * (Contract header shared by config_eval.c and codegen.c. Owned by the config
 * evaluator; additive changes only.)
 *
 * Memory: everything hangs off pg_config's arena and is freed by pg_config_free().
 * A pg_config is self-contained: the objects and file texts it points to are copied
 * into its arena, so it may outlive the evaluator that produced it.
 */
#ifndef PGCI_PATCHGEN_PATCH_SPEC_H
#define PGCI_PATCHGEN_PATCH_SPEC_H

#include <stddef.h>
#include <string.h>

#include "core/arena.h"
#include "core/vec.h"

typedef enum pg_patch_type {
    PG_CLASS_REPLACEMENT,    /* "class_replacement" */
    PG_METHOD_OVERRIDE,      /* "method_override" */
    PG_FUNCTION_REPLACEMENT, /* "function_replacement" */
    PG_ADDITIONAL_IMPORT,    /* "additional_import" (external replacements) */
    PG_INIT_MODIFICATION,    /* "init_modification" (listed, never applied) */
} pg_patch_type;

/* patchgen's PatchType.value string for a type. */
const char *pg_patch_type_name(pg_patch_type t);

/* The type for a PatchType member name ("METHOD_OVERRIDE"); -1 when none. */
int pg_patch_type_from_member(const char *member);

/* A `def` or `class` defined in a config file: what patchgen reaches through
 * inspect.getsourcelines() on the Python object. */
typedef struct pg_object {
    const char *name;    /* __name__ */
    const char *module;  /* __module__: the dotted module of the file that defined it */
    const char *file;    /* absolute path of that file */
    const char *text;    /* the whole file's text (one copy per file in the config's arena) */
    unsigned start_line; /* 1-based first line as inspect reports it (first decorator) */
    unsigned end_line;   /* 1-based last line of the definition, as inspect.getblock ends
                            it (trailing comments indented like the body included) */
    int is_class;
    size_t text_len; /* strlen(text) */
    /* 1 when the evaluator knows that these lines, with the comment block above
     * them, taken alone, parse as Python and define a function: a def at column 0
     * of a file Python accepts. 0 when it does not know (the code generator parses
     * them to find out). */
    int parses_alone;
    /* the tree of text, the evaluator's, when parses_alone: the checks read the
     * object's lines from it instead of parsing them again (one copy per file, the
     * config's own: pg_config_free deletes it); NULL otherwise */
    const struct TSTree *tree;
} pg_object;

typedef struct pg_name_map_entry {
    const char *from;
    const char *to;
} pg_name_map_entry;

typedef struct pg_patch {
    pg_patch_type type;
    const char *target;             /* "LlamaMLP.forward", "LlamaRMSNorm", "apply_rotary_pos_emb" */
    const pg_object *replacement;   /* NULL for external replacements */
    const char *replacement_module; /* external: module to import from */
    const char *replacement_name;   /* external: name to import */
    const char *source_module;      /* Patch.source_module (where the replacement was defined) */
    const char *description;        /* never NULL once evaluated (patchgen's defaults applied) */
    pg_name_map_entry *name_map;    /* NULL when none or empty; in dict (insertion) order;
                                       keys are never empty, values may be "" */
    size_t name_map_len;
    /* where it was registered, for findings */
    const char *reg_file;
    unsigned reg_line, reg_col;
} pg_patch;

typedef struct pg_import {
    const char *module;
    const char **names; /* NULL when names=None */
    size_t names_len;
    const char *alias; /* NULL when none */
    int is_from_import;
} pg_import;

typedef struct pg_positioned_helper {
    const char *target;
    const pg_object *helper;
    const char *placement; /* "after" */
    /* where add_helper_after named the target, for findings (the workspace-relative
     * file of the call, which another config's list may have made) */
    const char *reg_file;
    unsigned reg_line, reg_col;
} pg_positioned_helper;

typedef struct pg_config {
    arena mem;
    const char *var_name; /* the variable holding it ("config" by default) */
    const char *file;     /* absolute path of the evaluated config file */
    const char *module;   /* config module name */
    const char *source_module;
    const char *target_file;
    const char *description;
    const char *transformers_version; /* NULL unless set in the config */
    VEC(pg_patch) patches;            /* registration order */
    VEC(pg_import) additional_imports;
    VEC(const char *) post_import_blocks;
    VEC(const pg_object *) helpers;
    VEC(pg_positioned_helper) positioned_helpers;
    VEC(const char *) drop_imported_names; /* a set: no duplicates */
    VEC(const char *) exclude;
    unsigned line, col; /* where PatchConfig(...) was called (in the file that made it) */
    /* the config file's module docstring, decoded, and its line (0: none) */
    const char *docstring;
    unsigned docstring_line;
    VEC(struct TSTree *) trees; /* the copies its objects' trees are */
} pg_config;

/* Frees the config's vectors and its arena (which, for an evaluated config, holds the
 * struct itself). Accepts NULL and hand-built configs. */
void pg_config_free(pg_config *c);

/* The workspace-relative form of abs, a file of the workspace whose config file
 * is cfg_file (absolute) and config_path (relative: cfg_file ends in "/" +
 * config_path); NULL when any is NULL or abs is outside the workspace. */
static inline const char *pg_workspace_relative(const char *abs, const char *cfg_file,
                                                const char *config_path)
{
    if (!abs || !cfg_file || !config_path)
        return NULL;
    size_t fl = strlen(cfg_file), cl = strlen(config_path);
    if (fl <= cl || strcmp(cfg_file + fl - cl, config_path) || cfg_file[fl - cl - 1] != '/' ||
        strncmp(abs, cfg_file, fl - cl))
        return NULL;
    return abs + fl - cl;
}

/* Where a finding about patch p belongs: the file and line that registered it (a
 * config that imports another's PatchConfig and extends it, as VeOmni's NPU
 * configs do, holds patches registered in that other file: their lines are
 * there; no file recorded: config_path), else config_path at no line. Returns
 * the file; *line, *col 0 when none. */
static inline const char *pg_patch_site(const pg_patch *p, const char *config_path, unsigned *line,
                                        unsigned *col)
{
    if (p && p->reg_line) {
        *line = p->reg_line;
        *col = p->reg_col;
        return p->reg_file ? p->reg_file : config_path;
    }
    *line = *col = 0;
    return config_path;
}

#endif
