/*
 * Config discovery, the way patchgen does it (run_codegen.list_patch_configs):
 *
 *     for py_file in sorted(search_root.rglob("*_patch_gen_config.py")):
 *         if py_file.name.startswith("_"): continue
 *         rel = py_file.relative_to(search_root).with_suffix("")
 *         module = ".".join((package_prefix, *rel.parts))
 *
 * Three details matter for agreeing with it. pathlib sorts paths by their parts, not
 * by their string ("a/x" sorts before "a-b/x" because "a" < "a-b", although '/' >
 * '-'). rglob does not enter symlinked directories, but yields symlinked files. And
 * hidden directories are searched like any other.
 *
 * patchgen then imports each module and keeps those with a PatchConfig named
 * `config`; pgci cannot import, so it lists every file found (docs/workspace.md).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "workspace/workspace.h"

#define CONFIG_SUFFIX "_patch_gen_config.py"
/* Deeper trees than this are not model packages; stop rather than recurse forever. */
#define DISCOVER_MAX_DEPTH 64

static int cmp_strp(const void *x, const void *y)
{
    return fs_path_cmp(*(char *const *)x, *(char *const *)y);
}

static int is_config_name(const char *name)
{
    size_t n = strlen(name), s = strlen(CONFIG_SUFFIX);
    return n >= s && !strcmp(name + n - s, CONFIG_SUFFIX) && name[0] != '_';
}

/* Collects matching files under dir (abs) into out as paths relative to the search
 * root (rel, "" at the top). */
static int walk(const char *dir, const char *rel, int depth, strvec *out)
{
    if (depth > DISCOVER_MAX_DEPTH)
        return pgci_error_set(PGCI_ELIMIT, "%s: directories nested deeper than %d levels", dir,
                              DISCOVER_MAX_DEPTH);
    strvec names = STRVEC_INIT;
    int r = fs_list_dir(&names, dir);
    for (size_t i = 0; r == 0 && i < names.len; i++) {
        const char *name = names.items[i];
        strbuf abs = STRBUF_INIT, sub = STRBUF_INIT;
        fs_join(&abs, dir, name);
        if (rel[0])
            fs_join(&sub, rel, name);
        else
            strbuf_adds(&sub, name);
        struct stat lst, st;
        if (lstat(abs.buf, &lst) == 0) {
            if (S_ISDIR(lst.st_mode)) {
                r = walk(abs.buf, sub.buf, depth + 1, out);
            } else if (is_config_name(name) && stat(abs.buf, &st) == 0 && S_ISREG(st.st_mode)) {
                /* a regular file, or a symlink to one (checked against the root later) */
                strvec_push(out, sub.buf);
            }
        }
        strbuf_free(&abs);
        strbuf_free(&sub);
    }
    strvec_free(&names);
    return r;
}

/* "a/b/x_patch_gen_config.py" -> "prefix.a.b.x_patch_gen_config" */
static char *module_name(const char *prefix, const char *rel)
{
    strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, prefix);
    strbuf_addc(&sb, '.');
    size_t n = strlen(rel) - 3; /* ".py" */
    for (size_t i = 0; i < n; i++)
        strbuf_addc(&sb, rel[i] == '/' ? '.' : rel[i]);
    return strbuf_detach(&sb, NULL);
}

int workspace_discover(workspace *ws)
{
    /* search_root with "." or "./" parts and trailing slashes, as the user may write
     * it; the path checks below see the canonical relative form. */
    strbuf sr = STRBUF_INIT;
    const char *s = ws->search_root;
    while (*s) {
        size_t n = strcspn(s, "/");
        if (n && !(n == 1 && s[0] == '.')) {
            if (sr.len)
                strbuf_addc(&sr, '/');
            strbuf_add(&sr, s, n);
        }
        s += n;
        while (*s == '/')
            s++;
    }
    strbuf root_dir = STRBUF_INIT;
    int r = 0;
    if (sr.len)
        r = fs_join_under(&root_dir, ws->root, sr.buf, "[tool.patchgen] search_root");
    else
        strbuf_adds(&root_dir, ws->root);
    if (r < 0) {
        pgci_error_wrap(r, "%s", ws->pyproject_name);
        goto done;
    }
    if (!fs_is_dir(root_dir.buf)) {
        r = pgci_error_set(PGCI_ENOTFOUND,
                           "%s: [tool.patchgen] search_root '%s' is not a directory under %s",
                           ws->pyproject_name, ws->search_root, ws->root);
        goto done;
    }
    strvec found = STRVEC_INIT;
    r = walk(root_dir.buf, "", 0, &found);
    if (r == 0 && found.len)
        qsort(found.items, found.len, sizeof(found.items[0]), cmp_strp);
    for (size_t i = 0; r == 0 && i < found.len; i++) {
        const char *rel = found.items[i];
        strbuf path = STRBUF_INIT, abs = STRBUF_INIT;
        if (sr.len)
            fs_join(&path, sr.buf, rel);
        else
            strbuf_adds(&path, rel);
        /* a symlinked config pointing outside the workspace is refused */
        r = fs_join_under(&abs, ws->root, path.buf, "patch config");
        if (r == 0) {
            ws_config c;
            c.path = strbuf_detach(&path, NULL);
            c.abs_path = strbuf_detach(&abs, NULL);
            c.module = module_name(ws->package_prefix, rel);
            const char *base = strrchr(c.path, '/');
            base = base ? base + 1 : c.path;
            c.name = pgci_strndup(base, strlen(base) - 3);
            c.dir = base == c.path ? pgci_strdup(".")
                                   : pgci_strndup(c.path, (size_t)(base - 1 - c.path));
            VEC_PUSH(&ws->configs, c);
        }
        strbuf_free(&path);
        strbuf_free(&abs);
    }
    strvec_free(&found);
done:
    strbuf_free(&sr);
    strbuf_free(&root_dir);
    return r;
}
