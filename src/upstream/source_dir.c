/*
 * The dir source: an installed site-packages, an unpacked wheel or sdist, or a
 * checkout, possibly one directory per tag ("dir:/srv/transformers-{tag}").
 *
 * A module's file is <dir>/src/<path> when the directory is a repository, else
 * <dir>/<path>. Paths are joined with fs_join_under(), so a symlink inside the tree
 * that points outside it is refused rather than followed. A template with {tag}
 * lists its tags: the directories that exist for one.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/version.h"
#include "upstream/source.h"

/* Why the tag's directory cannot be read, or 0: missing, not a directory, or
 * there but closed to this process (which is not "no such directory"). */
static int dir_readable(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) < 0)
        return errno == ENOENT || errno == ENOTDIR
                   ? pgci_error_set(PGCI_ENOTFOUND, "no such directory")
                   : pgci_error_set(PGCI_EIO, "cannot read the directory: %s", strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return pgci_error_set(PGCI_ENOTFOUND, "not a directory");
    if (access(dir, X_OK) < 0)
        return pgci_error_set(PGCI_EIO, "cannot read the directory: %s", strerror(errno));
    return 0;
}

/* 1 when file is a regular file, 0 when it is absent; an error (negative) when it
 * cannot be looked at (a directory on its way closed to this process) or is there
 * but not a file. rel names it in the message. */
static int module_present(const char *file, const char *rel)
{
    struct stat st;
    if (stat(file, &st) < 0)
        return errno == ENOENT || errno == ENOTDIR
                   ? 0
                   : pgci_error_set(PGCI_EIO, "cannot read %s: %s", rel, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return pgci_error_set(PGCI_EIO, "%s is not a regular file", rel);
    return 1;
}

int dir_src_read(const char *dir_tmpl, const char *tag, const char *path, size_t max_bytes,
                 strbuf *out, strbuf *where)
{
    strbuf dir = STRBUF_INIT, file = STRBUF_INIT, rel = STRBUF_INIT;
    http_url(&dir, dir_tmpl, tag, path);
    int r;
    if ((r = dir_readable(dir.buf)) < 0) {
        strbuf_adds(where, dir.buf);
        goto out;
    }
    strbuf_addf(&rel, "src/%s", path);
    strbuf_addf(where, "%s/src/%s", dir.buf, path);
    if ((r = fs_join_under(&file, dir.buf, rel.buf, "module path")) < 0 ||
        (r = module_present(file.buf, rel.buf)) < 0)
        goto out;
    if (r == 0) {
        strbuf_reset(&file);
        strbuf_reset(where);
        strbuf_adds(where, dir.buf);
        if ((r = fs_join_under(&file, dir.buf, path, "module path")) < 0 ||
            (r = module_present(file.buf, path)) < 0)
            goto out;
        if (r == 0) {
            r = pgci_error_set(PGCI_ENOTFOUND, "neither src/%s nor %s exists there", path, path);
            goto out;
        }
        strbuf_reset(where);
        strbuf_adds(where, file.buf);
    }
    strbuf tmp = STRBUF_INIT;
    r = fs_read_file(&tmp, file.buf, max_bytes);
    if (r == PGCI_ELIMIT)
        r = pgci_error_set(PGCI_ELIMIT, "the file is over the %zu-byte size cap", max_bytes);
    else if (r == 0)
        strbuf_add(out, tmp.buf, tmp.len);
    strbuf_free(&tmp);
out:
    strbuf_free(&dir);
    strbuf_free(&file);
    strbuf_free(&rel);
    return r;
}

/* The tag that `name` fills in the component prefix{tag}suffix; NULL if none. */
static char *fill_tag(const char *name, const char *prefix, size_t np, const char *suffix,
                      size_t ns)
{
    size_t n = strlen(name);
    if (name[0] == '.' || n <= np + ns || strncmp(name, prefix, np) ||
        strncmp(name + n - ns, suffix, ns))
        return NULL;
    return pgci_asprintf("%.*s", (int)(n - np - ns), name + np);
}

int dir_src_tags(const char *dir_tmpl, strvec *out)
{
    const char *t = strstr(dir_tmpl, "{tag}");
    if (!t)
        return pgci_error_set(PGCI_EUNSUPPORTED, "cannot list tags of directory %s: no {tag} in it",
                              dir_tmpl);
    const char *start = t, *end = t + strcspn(t, "/");
    while (start > dir_tmpl && start[-1] != '/')
        start--;
    strbuf parent = STRBUF_INIT, dir = STRBUF_INIT;
    strbuf_add(&parent, dir_tmpl, start - dir_tmpl);
    if (!parent.len)
        strbuf_adds(&parent, ".");
    strvec names = STRVEC_INIT;
    int r = fs_list_dir(&names, parent.buf);
    if (r < 0)
        r = pgci_error_wrap(r, "cannot list tags of directory %s", dir_tmpl);
    size_t first = out->len;
    for (size_t i = 0; r == 0 && i < names.len; i++) {
        char *tag =
            fill_tag(names.items[i], start, (size_t)(t - start), t + 5, (size_t)(end - t - 5));
        if (!tag)
            continue;
        strbuf_reset(&dir);
        http_url(&dir, dir_tmpl, tag, "");
        if (fs_is_dir(dir.buf))
            strvec_push_owned(out, tag);
        else
            free(tag);
    }
    version_sort(out->items + first, out->len - first);
    strvec_free(&names);
    strbuf_free(&parent);
    strbuf_free(&dir);
    return r;
}
