/*
 * Opening a workspace: finding its pyproject.toml, reading [tool.patchgen] and
 * [tool.pgci], then discovering the configs (discover.c) and the pin (pin.c).
 *
 * patchgen itself walks up from the current directory to the first pyproject.toml
 * that has a [tool.patchgen] table, and so does pgci from -C DIR: running pgci in a
 * subdirectory of a workspace finds the same settings patchgen would.
 */
#include "workspace/workspace.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "upstream/upstream.h"

/* "pyproject.toml:LINE: " errors about the document. */
#define PERR(ws, line, ...) ws_err((ws), (line), __VA_ARGS__)

__attribute__((format(printf, 3, 4))) static int ws_err(const workspace *ws, unsigned line,
                                                        const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* values quoted from the file may hold control characters; one line stays one */
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return pgci_error_set(PGCI_EINVALID, "%s:%u: %s", ws->pyproject_name, line, msg);
}

/* An optional string key of `table`; *out stays NULL when absent. */
static int get_string(const workspace *ws, const toml_value *table, const char *tname,
                      const char *key, char **out)
{
    const toml_value *v = toml_get(table, key);
    if (!v)
        return 0;
    if (v->type != TOML_STRING)
        return PERR(ws, v->line, "[%s] %s must be a string, not %s %s", tname, key,
                    v->type == TOML_INTEGER || v->type == TOML_ARRAY ? "an" : "a",
                    toml_type_name(v->type));
    *out = pgci_strdup(v->str);
    return 0;
}

/* package_prefix is joined with the path parts by "." (patchgen:
 * ".".join((package_prefix, *rel_path.parts))), so it must be a dotted name
 * without a trailing dot: "a.b." would give the unimportable "a.b..x". */
static int check_prefix(const workspace *ws, const char *prefix, unsigned line)
{
    if (!prefix[0])
        return PERR(ws, line,
                    "[tool.patchgen] package_prefix is empty; it must be the dotted "
                    "package of search_root, e.g. \"veomni.models.transformers\"");
    const char *part = prefix;
    for (const char *c = prefix;; c++) {
        if (*c == '.' || *c == '\0') {
            if (c == part) {
                if (*c == '\0')
                    return PERR(ws, line,
                                "[tool.patchgen] package_prefix '%s' ends with '.'; patchgen "
                                "joins it and the path with '.', so write '%.*s'",
                                prefix, (int)(c - prefix - 1), prefix);
                return PERR(ws, line, "[tool.patchgen] package_prefix '%s' has an empty part",
                            prefix);
            }
            if (*c == '\0')
                return 0;
            part = c + 1;
            continue;
        }
        unsigned char u = (unsigned char)*c;
        int ok = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80 ||
                 (c != part && u >= '0' && u <= '9');
        if (!ok)
            return PERR(ws, line,
                        "[tool.patchgen] package_prefix '%s' is not a dotted Python name "
                        "(character '%c')",
                        prefix, *c);
    }
}

/* Makes a relative dir:/git: source absolute against the workspace root, so that
 * the upstream layer never needs to know where the workspace is. */
static char *resolve_upstream(const char *root, const char *spec)
{
    const char *path;
    int kind = upstream_spec_kind(spec, &path);
    if ((kind == UPSTREAM_DIR || kind == UPSTREAM_GIT) && path[0] != '/') {
        size_t n = (size_t)(path - spec);
        strbuf out = STRBUF_INIT;
        strbuf_add(&out, spec, n);
        strbuf joined = STRBUF_INIT;
        fs_join(&joined, root, spec + n);
        strbuf_add(&out, joined.buf, joined.len);
        strbuf_free(&joined);
        return strbuf_detach(&out, NULL);
    }
    return pgci_strdup(spec);
}

int workspace_read_pyproject(workspace *ws, const toml_value *doc)
{
    const toml_value *tool = toml_get(doc, "tool");
    const toml_value *pg = toml_get(tool, "patchgen");
    if (!pg)
        return pgci_error_set(PGCI_EINVALID,
                              "%s: no [tool.patchgen] table; add one with search_root and "
                              "package_prefix (see docs/workspace.md)",
                              ws->pyproject_name);
    if (pg->type != TOML_TABLE)
        return PERR(ws, pg->line, "tool.patchgen must be a table, not %s",
                    toml_type_name(pg->type));
    static const char *const required[] = {"search_root", "package_prefix"};
    for (size_t i = 0; i < 2; i++)
        if (!toml_get(pg, required[i]))
            return PERR(ws, pg->line,
                        "[tool.patchgen] is missing required key '%s'; both search_root and "
                        "package_prefix are required",
                        required[i]);
    int r;
    if ((r = get_string(ws, pg, "tool.patchgen", "search_root", &ws->search_root)) < 0 ||
        (r = get_string(ws, pg, "tool.patchgen", "package_prefix", &ws->package_prefix)) < 0)
        return r;
    const toml_value *sr = toml_get(pg, "search_root");
    /* search_root comes from the repository under review: it must stay inside. */
    for (const unsigned char *c = (const unsigned char *)ws->search_root; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return PERR(ws, sr->line,
                        "[tool.patchgen] search_root contains a control character (0x%02x)", *c);
    if (strcmp(ws->search_root, ".") != 0 &&
        fs_path_check(ws->search_root, "[tool.patchgen] search_root") < 0)
        return pgci_error_wrap(PGCI_EINVALID, "%s:%u", ws->pyproject_name, sr->line);
    if ((r = check_prefix(ws, ws->package_prefix, toml_get(pg, "package_prefix")->line)) < 0)
        return r;

    const toml_value *ign = toml_get(pg, "ruff_extra_ignore");
    if (ign) {
        if (ign->type != TOML_ARRAY)
            return PERR(ws, ign->line,
                        "[tool.patchgen] ruff_extra_ignore must be an array of "
                        "strings");
        for (size_t i = 0; i < ign->items.len; i++) {
            const toml_value *it = ign->items.items[i];
            if (it->type != TOML_STRING)
                return PERR(ws, it->line,
                            "[tool.patchgen] ruff_extra_ignore[%zu] must be a string, not %s", i,
                            toml_type_name(it->type));
            strvec_push(&ws->ruff_extra_ignore, it->str);
        }
    }
    const toml_value *iso = toml_get(pg, "ruff_isolated");
    if (iso) {
        if (iso->type != TOML_BOOL)
            return PERR(ws, iso->line, "[tool.patchgen] ruff_isolated must be true or false");
        ws->ruff_isolated = iso->boolean;
    }

    const toml_value *pgci = toml_get(tool, "pgci");
    if (pgci) {
        if (pgci->type != TOML_TABLE)
            return PERR(ws, pgci->line, "tool.pgci must be a table, not %s",
                        toml_type_name(pgci->type));
        ws->pgci = pgci;
        if ((r = get_string(ws, pgci, "tool.pgci", "upstream", &ws->upstream_raw)) < 0 ||
            (r = get_string(ws, pgci, "tool.pgci", "ruff", &ws->ruff)) < 0 ||
            (r = get_string(ws, pgci, "tool.pgci", "ruff_version", &ws->ruff_version)) < 0)
            return r;
        if (ws->upstream_raw) {
            if (!ws->upstream_raw[0])
                return PERR(ws, toml_get(pgci, "upstream")->line, "[tool.pgci] upstream is empty");
            ws->upstream = resolve_upstream(ws->root, ws->upstream_raw);
        }
    }
    /* Two pins (VeOmni once pinned 4.57.3 in its default group and 5.2.0 in the extra
     * its patchgen CI ran with) are the user's to choose between with --tag: the
     * workspace opens, and only a command that needs the pin and has no tag fails. */
    r = workspace_find_pin(doc, ws->pyproject_name, &ws->pin, &ws->pin_where);
    if (r == PGCI_EINVALID) {
        ws->pin_conflict = pgci_strdup(pgci_error_last());
        pgci_error_clear();
        return 0;
    }
    return r;
}

/* The directory to start from, made absolute. */
static int absolute_dir(const char *dir, char **out)
{
    char real[PATH_MAX];
    if (!realpath(dir, real))
        return pgci_error_set(PGCI_ENOTFOUND, "workspace %s: %s", dir, strerror(errno));
    if (!fs_is_dir(real))
        return pgci_error_set(PGCI_EINVALID, "workspace %s: not a directory", dir);
    *out = pgci_strdup(real);
    return 0;
}

/* The name of `root`'s pyproject.toml for messages: relative to what the user
 * typed when it is dir itself ("pyproject.toml", "ws/pyproject.toml"), else
 * absolute. */
static char *display_name(const char *dir, const char *start, const char *root)
{
    if (!strcmp(start, root)) {
        if (!strcmp(dir, "."))
            return pgci_strdup("pyproject.toml");
        strbuf sb = STRBUF_INIT;
        fs_join(&sb, dir, "pyproject.toml");
        return strbuf_detach(&sb, NULL);
    }
    strbuf sb = STRBUF_INIT;
    fs_join(&sb, root, "pyproject.toml");
    return strbuf_detach(&sb, NULL);
}

int workspace_open(workspace **out, const char *dir)
{
    *out = NULL;
    if (!dir || !dir[0])
        dir = ".";
    char *start = NULL;
    int r = absolute_dir(dir, &start);
    if (r < 0)
        return r;
    workspace *ws = pgci_calloc(1, sizeof(*ws));
    char *first_without = NULL; /* the nearest pyproject.toml that lacks the table */
    char *cur = pgci_strdup(start);
    for (;;) {
        strbuf pp = STRBUF_INIT;
        fs_join(&pp, cur, "pyproject.toml");
        if (fs_is_file(pp.buf)) {
            char *name = display_name(dir, start, cur);
            toml_value *doc = NULL;
            r = toml_parse_file(&doc, pp.buf, name);
            if (r < 0) {
                free(name);
                strbuf_free(&pp);
                goto fail;
            }
            if (toml_get(toml_get(doc, "tool"), "patchgen")) {
                ws->root = cur;
                ws->pyproject = strbuf_detach(&pp, NULL);
                ws->pyproject_name = name;
                ws->doc = doc;
                cur = NULL;
                break;
            }
            if (!first_without)
                first_without = name;
            else
                free(name);
            toml_free(doc);
        }
        strbuf_free(&pp);
        if (!strcmp(cur, "/")) {
            if (first_without)
                r = pgci_error_set(PGCI_EINVALID,
                                   "%s: no [tool.patchgen] table (nor in any pyproject.toml "
                                   "above it); add one with search_root and package_prefix",
                                   first_without);
            else
                r = pgci_error_set(PGCI_ENOTFOUND,
                                   "no pyproject.toml in %s or above it; a workspace needs one "
                                   "with a [tool.patchgen] table",
                                   dir);
            goto fail;
        }
        char *up = fs_dirname(cur);
        free(cur);
        cur = up;
    }
    if ((r = workspace_read_pyproject(ws, ws->doc)) < 0 || (r = workspace_discover(ws)) < 0)
        goto fail;
    free(start);
    free(first_without);
    *out = ws;
    return 0;
fail:
    free(cur);
    free(start);
    free(first_without);
    workspace_free(ws);
    return r;
}

void workspace_free(workspace *ws)
{
    if (!ws)
        return;
    free(ws->root);
    free(ws->pyproject);
    free(ws->search_root);
    free(ws->package_prefix);
    strvec_free(&ws->ruff_extra_ignore);
    free(ws->pin);
    free(ws->upstream);
    free(ws->ruff);
    free(ws->ruff_version);
    for (size_t i = 0; i < ws->configs.len; i++) {
        ws_config *c = &ws->configs.items[i];
        free(c->path);
        free(c->abs_path);
        free(c->module);
        free(c->name);
        free(c->dir);
    }
    VEC_FREE(&ws->configs);
    free(ws->pyproject_name);
    free(ws->upstream_raw);
    free(ws->pin_where);
    free(ws->pin_conflict);
    toml_free(ws->doc);
    free(ws);
}

const ws_config *workspace_find_config(const workspace *ws, const char *name)
{
    if (!ws || !name)
        return NULL;
    for (size_t i = 0; i < ws->configs.len; i++) {
        const ws_config *c = &ws->configs.items[i];
        if (!strcmp(c->module, name) || !strcmp(c->path, name) || !strcmp(c->name, name) ||
            !strcmp(c->abs_path, name))
            return c;
    }
    /* "qwen3_gpu_patch_gen_config.py" or a path with a leading "./" */
    const char *n = name;
    while (!strncmp(n, "./", 2))
        n += 2;
    for (size_t i = 0; i < ws->configs.len; i++) {
        const ws_config *c = &ws->configs.items[i];
        const char *base = strrchr(c->path, '/');
        base = base ? base + 1 : c->path;
        if (!strcmp(c->path, n) || !strcmp(base, n))
            return c;
    }
    return NULL;
}
