/*
 * workspace.h - a workspace laid out like VeOmni: pyproject.toml with
 * [tool.patchgen] and an optional [tool.pgci], the transformers pin, and the
 * discovered *_patch_gen_config.py files.
 *
 * Implemented in workspace.c (pyproject reading), pin.c (the transformers pin),
 * discover.c (config discovery) and sources.c (source_module literals); the TOML
 * reader is toml.h. docs/workspace.md describes the keys and the rules.
 */
#ifndef PGCI_WORKSPACE_WORKSPACE_H
#define PGCI_WORKSPACE_WORKSPACE_H

#include "core/vec.h"
#include "workspace/toml.h"

typedef struct ws_config {
    char *path;     /* relative to the workspace root: "veomni/models/.../x_patch_gen_config.py" */
    char *abs_path; /* absolute */
    char *module;   /* dotted module name: package_prefix + path relative to search_root */
    char *name;     /* file stem: "qwen3_gpu_patch_gen_config" */
    char *dir;      /* relative directory of the config (generated/ lives under it) */
} ws_config;

typedef struct workspace {
    char *root;      /* absolute path of the workspace */
    char *pyproject; /* absolute path of pyproject.toml */
    /* [tool.patchgen] */
    char *search_root;    /* relative to root, e.g. "veomni/models/transformers" */
    char *package_prefix; /* e.g. "veomni.models.transformers" (as written; patchgen
                             joins it and the path parts with ".") */
    strvec ruff_extra_ignore;
    int ruff_isolated;
    /* the pin: "5.9.0" from transformers==5.9.0 anywhere in dependency arrays */
    char *pin;
    /* [tool.pgci] */
    char *upstream;         /* source spec: "https://...{tag}...{path}", "git:PATH",
                               "dir:PATH" ({tag} allowed); NULL: the default URL */
    char *ruff;             /* ruff command (argv[0]); NULL: "ruff" on PATH */
    char *ruff_version;     /* the version the workspace expects, or NULL */
    VEC(ws_config) configs; /* sorted like Python's sorted(rglob(...)): by path parts */

    /* Additions beyond the first contract. */
    char *pyproject_name;   /* pyproject.toml's path for messages, as the user named it */
    char *upstream_raw;     /* [tool.pgci] upstream exactly as written (NULL when unset);
                               `upstream` has relative dir:/git: paths made absolute
                               against the workspace root */
    char *pin_where;        /* where the pin was found: "project.dependencies (line 7)" */
    char *pin_conflict;     /* two different pins (pin NULL): the message, an error only
                               for a command that needs the pin and was given no --tag */
    toml_value *doc;        /* the whole parsed pyproject.toml (owned) */
    const toml_value *pgci; /* the [tool.pgci] table inside doc, or NULL: checks read
                               their own settings from it (toml_get(ws->pgci, "...")) */
} workspace;

/* Opens the workspace at dir (NULL: the current directory): like patchgen, uses the
 * nearest pyproject.toml at or above dir that has a [tool.patchgen] table, reads it
 * and discovers configs. Errors name the file and line: "pyproject.toml:12: ...". */
int workspace_open(workspace **out, const char *dir);

/* Reads the workspace settings from an already parsed pyproject (no discovery, no
 * filesystem access): search_root, package_prefix, ruff settings, the pin and
 * [tool.pgci]. ws->root and ws->pyproject_name must be set; takes no ownership of
 * doc. Used by workspace_open() and by tests. */
int workspace_read_pyproject(workspace *ws, const toml_value *doc);

/* Finds the transformers==X.Y.Z pin in the dependency arrays of a parsed
 * pyproject: [project] dependencies and optional-dependencies, [dependency-groups],
 * and any other array under a key containing "dependencies" (tool.uv, ...).
 * Extras and spaces are tolerated ("transformers[torch] == 5.9.0"); ranges are not
 * pins. *pin is NULL when there is none; two different pins are an error (which
 * workspace_open keeps in pin_conflict for the commands given no --tag). *where
 * (optional) says where it was found. */
int workspace_find_pin(const toml_value *doc, const char *name, char **pin, char **where);

/* The upstream tag of the workspace's pin (malloc'ed): "v" + the pin, "5.9.0" ->
 * "v5.9.0", and a pin written with its "v" ("==v5.9.0") kept as it is. NULL when
 * the workspace pins no transformers version. */
char *workspace_pin_tag(const workspace *ws);

/* Sets the error of a command that needs the pin's tag and was given none: the
 * conflict when the workspace pins two versions, else fmt's message. Returns the
 * error code (PGCI_EUSAGE, or PGCI_EINVALID for a conflict). */
int workspace_no_tag_error(const workspace *ws, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Discovers *_patch_gen_config.py under ws->root/ws->search_root into ws->configs.
 * Follows patchgen: recursive, names starting with '_' skipped, symlinked
 * directories not entered, sorted by path parts; module = package_prefix + "." +
 * the relative path's parts. A search_root or config that resolves outside the
 * workspace is refused. */
int workspace_discover(workspace *ws);
void workspace_free(workspace *ws);

/* Finds a config by module name, path or stem; NULL when none. */
const ws_config *workspace_find_config(const workspace *ws, const char *name);

/* The literal `source_module=` strings of every PatchConfig(...) call in the
 * workspace's configs, de-duplicated, sorted. (No evaluation: enough for fetch.) */
int workspace_source_modules(const workspace *ws, strvec *out);

#endif
