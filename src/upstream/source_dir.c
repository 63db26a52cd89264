/*
 * The dir source: an installed site-packages, an unpacked wheel or sdist, or a
 * checkout, possibly one directory per tag ("dir:/srv/transformers-{tag}").
 *
 * A module's file is <dir>/src/<path> when the directory is a repository, else
 * <dir>/<path>. Paths are joined with fs_join_under(), so a symlink inside the tree
 * that points outside it is refused rather than followed.
 */
#include "core/error.h"
#include "core/fs.h"
#include "upstream/source.h"

int dir_src_read(const char *dir_tmpl, const char *tag, const char *path, size_t max_bytes,
                 strbuf *out, strbuf *where)
{
    strbuf dir = STRBUF_INIT, file = STRBUF_INIT, rel = STRBUF_INIT;
    http_url(&dir, dir_tmpl, tag, path);
    int r;
    if (!fs_is_dir(dir.buf)) {
        strbuf_adds(where, dir.buf);
        r = pgci_error_set(PGCI_ENOTFOUND, "no such directory");
        goto out;
    }
    strbuf_addf(&rel, "src/%s", path);
    strbuf_addf(where, "%s/src/%s", dir.buf, path);
    if ((r = fs_join_under(&file, dir.buf, rel.buf, "module path")) < 0)
        goto out;
    if (!fs_is_file(file.buf)) {
        strbuf_reset(&file);
        if ((r = fs_join_under(&file, dir.buf, path, "module path")) < 0)
            goto out;
        if (!fs_is_file(file.buf)) {
            strbuf_reset(where);
            strbuf_adds(where, dir.buf);
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
