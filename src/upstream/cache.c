/*
 * The content-addressed cache of fetched upstream files.
 *
 *     <root>/objects/<sha256 of the contents>     the bytes, once per distinct file
 *     <root>/keys/<sha256 of the key>             "<object hash>\n<key>\n"
 *
 * A key names one (source, tag, path); two tags whose file did not change share one
 * object. Every file is written with fs_write_atomic(), the object before the key,
 * so a reader sees either no key or a key whose object is complete. A read checks
 * the object's hash, so a damaged or truncated object is a miss, never bad input.
 */
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "upstream/source.h"

#include <stdlib.h>

int cache_default_dir(strbuf *out)
{
    const char *x = getenv("XDG_CACHE_HOME");
    if (x && x[0] == '/') {
        fs_join(out, x, "pgci");
        return 0;
    }
    const char *h = getenv("HOME");
    if (!h || h[0] != '/')
        return pgci_error_set(PGCI_EIO,
                              "cannot find the cache directory: neither XDG_CACHE_HOME nor HOME "
                              "is an absolute path");
    fs_join(out, h, ".cache/pgci");
    return 0;
}

static void key_path(strbuf *out, const char *root, const char *key)
{
    char h[SHA256_HEX_LEN + 1];
    sha256_hex(key, strlen(key), h);
    strbuf_addf(out, "%s/keys/%s", root, h);
}

int cache_get(const char *root, const char *key, strbuf *out)
{
    strbuf kp = STRBUF_INIT, ref = STRBUF_INIT, op = STRBUF_INIT, data = STRBUF_INIT;
    int hit = 0;
    key_path(&kp, root, key);
    if (fs_read_file(&ref, kp.buf, 1 << 16) < 0)
        goto out;
    /* "<hash>\n<key>\n": the key is repeated so a hash collision of keys is caught */
    char *nl = strchr(ref.buf, '\n');
    if (!nl)
        goto out;
    *nl = '\0';
    if (!sha256_is_hex(ref.buf) || strncmp(nl + 1, key, strlen(key)) != 0)
        goto out;
    strbuf_addf(&op, "%s/objects/%s", root, ref.buf);
    if (fs_read_file(&data, op.buf, 0) < 0)
        goto out;
    char h[SHA256_HEX_LEN + 1];
    sha256_hex(data.buf, data.len, h);
    if (strcmp(h, ref.buf) != 0)
        goto out;
    strbuf_add(out, data.buf, data.len);
    hit = 1;
out:
    pgci_error_clear();
    strbuf_free(&kp);
    strbuf_free(&ref);
    strbuf_free(&op);
    strbuf_free(&data);
    return hit;
}

int cache_put(const char *root, const char *key, const char *data, size_t len)
{
    char h[SHA256_HEX_LEN + 1];
    sha256_hex(data, len, h);
    strbuf p = STRBUF_INIT, ref = STRBUF_INIT;
    int r = 0;
    /* both directories first, so a cache that cannot take a key gets no object */
    strbuf_addf(&p, "%s/keys", root);
    if ((r = fs_mkdirs(p.buf)) < 0)
        goto out;
    strbuf_reset(&p);
    strbuf_addf(&p, "%s/objects", root);
    if ((r = fs_mkdirs(p.buf)) < 0)
        goto out;
    strbuf_addf(&p, "/%s", h);
    /* an object already there is kept only when it is intact */
    char have[SHA256_HEX_LEN + 1];
    if ((!fs_is_file(p.buf) || sha256_file_hex(p.buf, have) < 0 || strcmp(have, h) != 0) &&
        (r = fs_write_atomic(p.buf, data, len)) < 0)
        goto out;
    strbuf_reset(&p);
    key_path(&p, root, key);
    strbuf_addf(&ref, "%s\n%s\n", h, key);
    r = fs_write_atomic(p.buf, ref.buf, ref.len);
out:
    if (r < 0)
        pgci_error_wrap(r, "cannot write the cache in %s", root);
    strbuf_free(&p);
    strbuf_free(&ref);
    return r;
}
