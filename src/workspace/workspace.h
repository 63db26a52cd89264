/*
 * workspace.h - a workspace laid out like VeOmni: pyproject.toml with
 * [tool.patchgen] and an optional [tool.pgci], the transformers pin, and the
 * discovered *_patch_gen_config.py files.
 *
 * (Contract header: implemented in workspace.c / toml.c / discover.c.)
 */
#ifndef PGCI_WORKSPACE_WORKSPACE_H
#define PGCI_WORKSPACE_WORKSPACE_H

#include "core/vec.h"

typedef struct ws_config {
    char *path;     /* relative to the workspace root: "veomni/models/.../x_patch_gen_config.py" */
    char *abs_path; /* absolute */
    char *module;   /* dotted module name: package_prefix + path relative to search_root */
    char *name;     /* file stem: "qwen3_gpu_patch_gen_config" */
    char *dir;      /* relative directory of the config (generated/ lives under it) */
} ws_config;

typedef struct workspace {
    char *root;           /* absolute path of the workspace */
    char *pyproject;      /* absolute path of pyproject.toml */
    /* [tool.patchgen] */
    char *search_root;    /* relative to root, e.g. "veomni/models/transformers" */
    char *package_prefix; /* e.g. "veomni.models.transformers." (as written) */
    strvec ruff_extra_ignore;
    int ruff_isolated;
    /* the pin: "5.9.0" from transformers==5.9.0 anywhere in dependency arrays */
    char *pin;
    /* [tool.pgci] */
    char *upstream;       /* source spec: "https://...{tag}...{path}", "git:PATH",
                             "dir:PATH" ({tag} allowed); NULL: the default URL */
    char *ruff;           /* ruff command (argv[0]); NULL: "ruff" on PATH */
    char *ruff_version;   /* the version the workspace expects, or NULL */
    VEC(ws_config) configs; /* sorted by path */
} workspace;

/* Opens the workspace at dir: reads pyproject.toml ([tool.patchgen] required) and
 * discovers configs. Errors name the file and line. */
int workspace_open(workspace **out, const char *dir);
void workspace_free(workspace *ws);

/* Finds a config by module name, path or stem; NULL when none. */
const ws_config *workspace_find_config(const workspace *ws, const char *name);

/* The literal `source_module=` strings of every PatchConfig(...) call in the
 * workspace's configs, de-duplicated, sorted. (No evaluation: enough for fetch.) */
int workspace_source_modules(const workspace *ws, strvec *out);

#endif
