/*
 * regen.c - one config through generate -> normalise -> diff, patchgen's way:
 * the .diff is difflib.unified_diff(upstream, normalised output) with
 * "a/<source_module as path>.py" and "b/<target_file>", every line right-stripped
 * (patchgen-pkg's strip_diff_trailing_ws; see docs/regen.md for how veomni
 * 0.1.11's run_codegen differed).
 */
#include "patchgen/regen.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/error.h"
#include "core/fs.h"
#include "patchgen/difflib.h"
#include "patchgen/regen_cache.h"

/* Path(target_file).with_suffix(".diff").name */
static char *diff_name(const char *target_file)
{
    const char *base = strrchr(target_file, '/');
    base = base ? base + 1 : target_file;
    const char *dot = strrchr(base, '.');
    size_t stem = (dot && dot != base && dot[1]) ? (size_t)(dot - base) : strlen(base);
    return pgci_asprintf("%.*s.diff", (int)stem, base);
}

int regen_output_paths(const char *config_dir, const char *out_dir, const char *target_file,
                       char **py_path, char **diff_path)
{
    int r = fs_path_check(target_file, "target_file");
    if (r < 0)
        return r;
    strbuf dir = STRBUF_INIT, py = STRBUF_INIT, df = STRBUF_INIT;
    if (out_dir) {
        strbuf_adds(&dir, out_dir);
    } else {
        /* <config dir>/generated, or next to a legacy patches/ directory */
        const char *d = config_dir && config_dir[0] ? config_dir : ".";
        const char *last = strrchr(d, '/');
        const char *leaf = last ? last + 1 : d;
        if (!strcmp(leaf, "patches")) {
            if (last)
                strbuf_add(&dir, d, (size_t)(last - d));
            else
                strbuf_adds(&dir, ".");
        } else {
            strbuf_adds(&dir, d);
        }
        if (!strcmp(dir.buf, "."))
            strbuf_reset(&dir), strbuf_adds(&dir, "generated");
        else
            strbuf_adds(&dir, "/generated");
    }
    fs_join(&py, dir.buf, target_file);
    char *dn = diff_name(target_file);
    fs_join(&df, dir.buf, dn);
    free(dn);
    *py_path = strbuf_detach(&py, NULL);
    *diff_path = strbuf_detach(&df, NULL);
    strbuf_free(&dir);
    return 0;
}

static int fail(regen_output *out, int code)
{
    out->status = code;
    free(out->error);
    out->error = pgci_strdup(pgci_error_last());
    return code;
}

/* codegen_generate(), or its result from the cache. */
static int codegen_cached(const pg_config *cfg, const regen_opts *o, const char *version,
                          regen_output *out)
{
    uint8_t key[SHA256_DIGEST_LEN];
    if (o->cache) {
        strbuf hit = STRBUF_INIT;
        regen_cache_key(cfg, out->upstream.buf, out->upstream.len, version, key);
        int ok = rcache_get(o->cache, "codegen", key, &hit) &&
                 regen_cache_decode(hit.buf, hit.len, &out->cg) == 0;
        strbuf_free(&hit);
        if (ok)
            return 0;
        cg_result_free(&out->cg);
        memset(&out->cg, 0, sizeof(out->cg));
    }
    int r = codegen_generate_shared(cfg, out->upstream.buf, out->upstream.len, version, o->shared,
                                    &out->cg);
    if (r == 0 && o->cache) {
        strbuf enc = STRBUF_INIT;
        regen_cache_encode(&out->cg, &enc);
        rcache_put(o->cache, "codegen", key, enc.buf, enc.len);
        strbuf_free(&enc);
    }
    return r;
}

int regen_codegen(const pg_config *cfg, const char *upstream_raw, size_t len, const regen_opts *o,
                  regen_output *out)
{
    if (!out->source_module)
        out->source_module = pgci_strdup(cfg->source_module);
    if (!out->target_file)
        out->target_file = pgci_strdup(cfg->target_file);
    strbuf_reset(&out->upstream);
    codegen_read_upstream(&out->upstream, upstream_raw, len);

    char *version = NULL;
    if (o->version)
        version = pgci_strdup(o->version);
    else if (o->tag)
        version = pgci_strdup(o->tag[0] == 'v' ? o->tag + 1 : o->tag);
    double t0 = now_ms();
    int r = codegen_cached(cfg, o, version, out);
    free(version);
    out->ms_codegen = now_ms() - t0;
    if (r < 0) {
        pgci_error_wrap(r, "%s", out->config_path ? out->config_path : cfg->module);
        return fail(out, r);
    }
    /* the raw output is codegen's, moved (nothing reads cg.output after this) */
    strbuf_free(&out->raw);
    out->raw = out->cg.output;
    out->cg.output = (strbuf)STRBUF_INIT;
    strbuf_reset(&out->py);
    if (o->no_ruff)
        strbuf_add(&out->py, out->raw.buf, out->raw.len);
    out->status = 0;
    return 0;
}

const char *regen_file_name(const pg_config *cfg)
{
    const char *base = strrchr(cfg->target_file, '/');
    return base ? base + 1 : cfg->target_file;
}

int regen_normalized(const pg_config *cfg, regen_output *out, int status, const char *error)
{
    if (status < 0) {
        pgci_error_set(status, "%s", error ? error : "ruff failed");
        pgci_error_wrap(status, "%s", out->config_path ? out->config_path : cfg->module);
        return fail(out, status);
    }
    out->normalized = 1;
    return 0;
}

int regen_finish(const pg_config *cfg, regen_output *out)
{
    double t0 = now_ms();
    strbuf from = STRBUF_INIT, to = STRBUF_INIT;
    upstream_module_path(&from, cfg->source_module);
    strbuf a = STRBUF_INIT;
    strbuf_addf(&a, "a/%s", from.buf);
    strbuf_addf(&to, "b/%s", cfg->target_file);
    strbuf_reset(&out->diff);
    difflib_patchgen_diff(&out->diff, out->upstream.buf, out->upstream.len, out->py.buf,
                          out->py.len, a.buf, to.buf);
    out->ms_diff = now_ms() - t0;
    strbuf_free(&a);
    strbuf_free(&from);
    strbuf_free(&to);
    out->status = 0;
    return 0;
}

int regen_generate(const pg_config *cfg, const char *upstream_raw, size_t len, const regen_opts *o,
                   regen_output *out)
{
    int r = regen_codegen(cfg, upstream_raw, len, o, out);
    if (r < 0)
        return r;
    if (!o->no_ruff) {
        normalize_opts no = o->ruff;
        no.file_name = regen_file_name(cfg);
        double t0 = now_ms();
        r = normalize_ruff(&no, out->raw.buf, out->raw.len, &out->py);
        out->ms_ruff = now_ms() - t0;
        if (r < 0) {
            pgci_error_wrap(r, "%s", out->config_path ? out->config_path : cfg->module);
            return fail(out, r);
        }
        out->normalized = 1;
    }
    return regen_finish(cfg, out);
}

void regen_output_free(regen_output *r)
{
    free(r->config_path);
    free(r->config_module);
    free(r->source_module);
    free(r->target_file);
    free(r->py_path);
    free(r->diff_path);
    strbuf_free(&r->upstream);
    strbuf_free(&r->raw);
    strbuf_free(&r->py);
    strbuf_free(&r->diff);
    cg_result_free(&r->cg);
    free(r->error);
    memset(r, 0, sizeof(*r));
}
