/*
 * normalize_key.c - what ruff's output depends on, for the result cache.
 *
 * ruff's output for a file is a function of: its own version, the arguments
 * (rules ignored, --isolated), the configuration it discovers, the file's name
 * and bytes (the executable's path, size and mtime are hashed with the version,
 * so a wrapper or a rebuilt ruff is another key). Configuration discovery for a file outside any
 * project (our temporary file) starts at the working directory and walks up: the first
 * pyproject.toml with a [tool.ruff] table, ruff.toml or .ruff.toml wins, else the
 * user's configuration under $XDG_CONFIG_HOME/ruff (~/.config/ruff). Rather than
 * re-implement that choice, every candidate file on the way is hashed, by path
 * and content: a change in any of them is a different key (a few needless misses
 * at worst, never a stale hit). isort's first-party detection also looks at what
 * exists under the project's source roots, so the names at the top of the
 * working directory and of its src/ are hashed too. A configuration that says
 * `extend = "other.toml"` brings that file in as well (relative to the file that
 * names it, `~/` for the home directory; the chain followed a few levels deep),
 * and so do the RUFF_* environment variables, which ruff reads as settings.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

#include "core/error.h"
#include "core/fs.h"
#include "patchgen/normalize.h"
#include "workspace/toml.h"

static const char *const config_names[] = {"pyproject.toml", "ruff.toml", ".ruff.toml", NULL};

/* How deep a chain of `extend =` is followed (ruff refuses cycles itself). */
#define EXTEND_DEPTH 8

static void add_config_file(sha256_ctx *c, const char *path, int depth);

/* The file a configuration's `extend` names, hashed by path and content. */
static void add_extended(sha256_ctx *c, const char *path, const char *data, size_t len, int depth)
{
    toml_value *doc = NULL;
    if (toml_parse(&doc, data, len, path) < 0) {
        pgci_error_clear(); /* ruff will say what is wrong with it; the bytes are hashed */
        return;
    }
    const char *base = strrchr(path, '/');
    int pyproject = !strcmp(base ? base + 1 : path, "pyproject.toml");
    const char *ext = toml_str(toml_get_path(doc, pyproject ? "tool.ruff.extend" : "extend"));
    if (ext && *ext) {
        strbuf target = STRBUF_INIT;
        const char *home = getenv("HOME");
        if (!strncmp(ext, "~/", 2) && home)
            fs_join(&target, home, ext + 2);
        else if (ext[0] == '/')
            strbuf_adds(&target, ext);
        else {
            char *dir = fs_dirname(path);
            fs_join(&target, dir, ext);
            free(dir);
        }
        add_config_file(c, target.buf, depth + 1);
        strbuf_free(&target);
    }
    toml_free(doc);
}

static void add_config_file(sha256_ctx *c, const char *path, int depth)
{
    strbuf data = STRBUF_INIT;
    if (depth <= EXTEND_DEPTH && fs_is_file(path) && fs_read_file(&data, path, 0) == 0) {
        rcache_key_adds(c, path);
        rcache_key_add(c, data.buf, data.len);
        add_extended(c, path, data.buf, data.len, depth);
    }
    pgci_error_clear();
    strbuf_free(&data);
}

static void add_configs_in(sha256_ctx *c, const char *dir)
{
    for (size_t i = 0; config_names[i]; i++) {
        strbuf p = STRBUF_INIT;
        fs_join(&p, dir, config_names[i]);
        add_config_file(c, p.buf, 0);
        strbuf_free(&p);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* RUFF_* variables of the environment (ruff reads settings from some), sorted. */
static void add_ruff_environment(sha256_ctx *c)
{
    VEC(const char *) vars = VEC_INIT;
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, "RUFF_", 5))
            VEC_PUSH(&vars, *e);
    if (vars.len)
        qsort(vars.items, vars.len, sizeof(*vars.items), cmp_str);
    rcache_key_addu(c, vars.len);
    for (size_t i = 0; i < vars.len; i++)
        rcache_key_adds(c, vars.items[i]);
    VEC_FREE(&vars);
}

static void add_listing(sha256_ctx *c, const char *dir)
{
    strvec names = STRVEC_INIT;
    if (fs_list_dir(&names, dir) == 0) {
        rcache_key_adds(c, dir);
        for (size_t i = 0; i < names.len; i++)
            rcache_key_adds(c, names.items[i]);
    }
    pgci_error_clear();
    strvec_free(&names);
}

/* The ruff executable's path, size and modification time: the version names
 * the release, this tells a wrapper script or a rebuilt binary apart. */
static void add_program(sha256_ctx *c, const char *ruff)
{
    const char *cmd = ruff && ruff[0] ? ruff : "ruff";
    strbuf p = STRBUF_INIT;
    struct stat st;
    if (strchr(cmd, '/')) {
        strbuf_adds(&p, cmd);
    } else {
        const char *path = getenv("PATH");
        while (path && *path) {
            size_t n = strcspn(path, ":");
            strbuf_reset(&p);
            strbuf_addf(&p, "%.*s/%s", (int)n, path, cmd);
            if (stat(p.buf, &st) == 0 && S_ISREG(st.st_mode))
                break;
            strbuf_reset(&p);
            path += n + (path[n] == ':');
        }
    }
    rcache_key_adds(c, p.buf);
    if (p.len && stat(p.buf, &st) == 0) {
        rcache_key_addu(c, (unsigned long long)st.st_size);
        rcache_key_addu(c, (unsigned long long)st.st_mtim.tv_sec);
        rcache_key_addu(c, (unsigned long long)st.st_mtim.tv_nsec);
    }
    strbuf_free(&p);
}

static void add_user_config(sha256_ctx *c)
{
    strbuf d = STRBUF_INIT;
    const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
    if (x && x[0] == '/')
        fs_join(&d, x, "ruff");
    else if (h && h[0] == '/')
        fs_join(&d, h, ".config/ruff");
    if (d.len)
        add_configs_in(c, d.buf);
    strbuf_free(&d);
}

int normalize_settings_key(const normalize_opts *o, uint8_t out[SHA256_DIGEST_LEN])
{
    if (!o->ruff_version)
        return pgci_error_set(PGCI_EUSAGE, "no ruff version for the cache key");
    char cwd[4096];
    const char *start = o->cwd;
    if (!start)
        start = getcwd(cwd, sizeof(cwd)) ? cwd : ".";
    sha256_ctx c;
    rcache_key_begin(&c, "ruff-settings");
    rcache_key_adds(&c, o->ruff_version);
    add_program(&c, o->ruff);
    for (int which = 0; which < 2; which++) {
        strvec argv = STRVEC_INIT;
        normalize_opts a = *o;
        a.ruff = "ruff"; /* the version names the program; its path does not matter */
        normalize_argv(&a, which, "", &argv);
        for (size_t i = 0; i < argv.len; i++)
            rcache_key_adds(&c, argv.items[i]);
        strvec_free(&argv);
    }
    rcache_key_adds(&c, start);
    char *dir = pgci_strdup(start);
    for (;;) {
        add_configs_in(&c, dir);
        char *up = fs_dirname(dir);
        int top = !strcmp(up, dir) || !up[0];
        free(dir);
        dir = up;
        if (top)
            break;
    }
    free(dir);
    add_user_config(&c);
    add_ruff_environment(&c);
    add_listing(&c, start);
    strbuf src = STRBUF_INIT;
    fs_join(&src, start, "src");
    add_listing(&c, src.buf);
    strbuf_free(&src);
    sha256_final(&c, out);
    return 0;
}
