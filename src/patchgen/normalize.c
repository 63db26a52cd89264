/*
 * normalize.c - running ruff the way patchgen does.
 *
 * Why a temporary directory and not the output path: patchgen's drift check
 * normalises a NamedTemporaryFile in the system temp directory, with the project's
 * pyproject.toml found from the working directory (ruff falls back to the cwd's
 * configuration for files outside any project). Per-file-ignores for generated/
 * therefore do not apply, which is why E402 and B007 are ignored explicitly.
 * We reproduce exactly that situation. `--no-cache` keeps ruff from writing a
 * .ruff_cache into the workspace and from racing itself across parallel jobs;
 * it does not change what ruff outputs.
 */
#include "patchgen/normalize.h"

#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/proc.h"
#include "patchgen/normalize_internal.h"

void normalize_argv(const normalize_opts *o, int which, const char *file, strvec *argv)
{
    strvec_push(argv, o->ruff && o->ruff[0] ? o->ruff : "ruff");
    if (which != 1) {
        strvec_push(argv, "check");
        strvec_push(argv, which == NORMALIZE_LINT_JSON ? "--no-fix" : "--fix");
    } else {
        strvec_push(argv, "format");
    }
    if (which == NORMALIZE_LINT_JSON || which == NORMALIZE_CHECK_JSON) {
        strvec_push(argv, "--output-format");
        strvec_push(argv, "json");
    }
    strvec_push(argv, "--quiet");
    strvec_push(argv, "--no-cache");
    if (o->isolated)
        strvec_push(argv, "--isolated");
    if (which != 1) {
        strbuf ign = STRBUF_INIT;
        strbuf_adds(&ign, "E402,B007");
        for (size_t i = 0; o->extra_ignore && i < o->extra_ignore->len; i++)
            strbuf_addf(&ign, ",%s", o->extra_ignore->items[i]);
        strvec_push(argv, "--ignore");
        strvec_push_owned(argv, strbuf_detach(&ign, NULL));
    }
    strvec_push(argv, file);
}

/* Replaces every occurrence of `from` in sb with `to`. */
static void replace_all(strbuf *sb, const char *from, const char *to)
{
    if (!from || !from[0] || !strstr(sb->buf, from))
        return;
    strbuf m = STRBUF_INIT;
    const char *p = sb->buf, *q;
    size_t n = strlen(from);
    while ((q = strstr(p, from))) {
        strbuf_add(&m, p, (size_t)(q - p));
        strbuf_adds(&m, to);
        p = q + n;
    }
    strbuf_adds(&m, p);
    strbuf_free(sb);
    *sb = m;
}

/* ruff's diagnostics can run to thousands of lines: the message keeps whole lines
 * up to a fixed budget and says how many it left out. A fixed cut (and not the
 * error slot's own truncation) keeps the message the same wherever the workspace,
 * the temporary directory or ruff live. The first line of each diagnostic past the
 * cut that the kept lines do not show follows, up to a budget of its own: what
 * failed is then all in the message (a failure's causes, checks/regen_causes.h,
 * are compared between two releases; the survey titles a failure by them). */
#define RUFF_OUTPUT_BUDGET 1500
#define RUFF_HEADS_BUDGET 800

static int is_upper(char c)
{
    return c >= 'A' && c <= 'Z';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The length of a ruff rule code and the space after it at s ("F811 "), 0 when
 * s does not start with one. */
static size_t rule_code(const char *s, const char *end)
{
    const char *p = s;
    while (p < end && is_upper(*p))
        p++;
    size_t letters = (size_t)(p - s);
    if (!letters || letters > 4 || p >= end || !is_digit(*p))
        return 0;
    const char *d = p;
    while (p < end && is_digit(*p))
        p++;
    return p - d <= 4 && p < end && *p == ' ' ? (size_t)(p - s) + 1 : 0;
}

const char *normalize_ruff_diagnostic(const char *line, const char *end)
{
    if (rule_code(line, end))
        return line;
    for (const char *p = line; p + 2 < end; p++)
        if (p[0] == ':' && p[1] == ' ' && p > line && is_digit(p[-1]) && rule_code(p + 2, end))
            return p + 2;
    return NULL;
}

/* Whether the diagnostic d[0..n) is one of the first lines in heads (each line
 * with its '\n'), or one in kept[0..klen) starts. */
static int head_seen(const char *d, size_t n, const strbuf *heads, const char *kept, size_t klen)
{
    for (int pass = 0; pass < 2; pass++) {
        const char *p = pass ? kept : heads->buf, *end = p + (pass ? klen : heads->len);
        while (p && p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            const char *e = nl ? nl : end;
            const char *h = normalize_ruff_diagnostic(p, e);
            if (h && (size_t)(e - h) == n && !memcmp(h, d, n))
                return 1;
            p = nl ? nl + 1 : NULL;
        }
    }
    return 0;
}

/* The first line of each diagnostic in why[from..) that why[0..from) does not
 * show, into heads (one a line), within RUFF_HEADS_BUDGET; 1 when some did not fit. */
static int heads_past(const strbuf *why, size_t from, strbuf *heads)
{
    int left_out = 0;
    for (const char *p = why->buf + from, *end = why->buf + why->len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        const char *d = normalize_ruff_diagnostic(p, e);
        size_t n = d ? (size_t)(e - d) : 0;
        while (n && (d[n - 1] == ' ' || d[n - 1] == '\r'))
            n--;
        if (n && !head_seen(d, n, heads, why->buf, from)) {
            if (heads->len + n + 1 > RUFF_HEADS_BUDGET)
                left_out = 1;
            else
                strbuf_addf(heads, "%.*s\n", (int)n, d);
        }
        p = nl ? nl + 1 : end;
    }
    return left_out;
}

static void cap_output(strbuf *why)
{
    if (why->len <= RUFF_OUTPUT_BUDGET)
        return;
    size_t cut = RUFF_OUTPUT_BUDGET;
    while (cut > 0 && why->buf[cut - 1] != '\n')
        cut--;
    if (cut == 0)
        cut = RUFF_OUTPUT_BUDGET;
    size_t more = 0;
    for (size_t i = cut; i < why->len; i++)
        more += why->buf[i] == '\n';
    more++; /* the last line has no newline (rtrimmed) */
    strbuf heads = STRBUF_INIT;
    int left_out = heads_past(why, cut, &heads);
    strbuf_setlen(why, cut);
    strbuf_rtrim(why);
    strbuf_addf(why, "\n... (%zu more line%s of ruff output%s)", more, more == 1 ? "" : "s",
                heads.len  ? NORMALIZE_CUT_LISTED
                : left_out ? ""
                           : NORMALIZE_CUT_NONE);
    if (heads.len) {
        strbuf_addc(why, '\n');
        strbuf_add(why, heads.buf, heads.len);
        strbuf_rtrim(why);
    }
    if (left_out)
        strbuf_adds(why, "\n" NORMALIZE_CUT_UNLISTED);
    strbuf_free(&heads);
}

int normalize_ruff_failed(const char *const *argv, const char *tmpdir, int status, const char *err,
                          size_t err_len, const char *out, size_t out_len)
{
    strbuf cmd = STRBUF_INIT, why = STRBUF_INIT;
    proc_argv_string(&cmd, argv);
    strbuf_add(&why, err, err_len);
    if (out_len) {
        if (why.len)
            strbuf_addc(&why, '\n');
        strbuf_add(&why, out, out_len);
    }
    strbuf_rtrim(&why);
    /* the temporary directory's random name would make two runs' reports
     * differ: it reads "<tmp>" */
    replace_all(&why, tmpdir, "<tmp>");
    replace_all(&cmd, tmpdir, "<tmp>");
    cap_output(&why);
    int r = pgci_error_set(PGCI_EIO, "ruff normalisation failed: '%s' exited with status %d%s%s",
                           cmd.buf, status, why.len ? ": " : "", why.buf);
    strbuf_free(&why);
    strbuf_free(&cmd);
    return r;
}

static int run_ruff(const normalize_opts *o, int which, const char *file, const char *tmpdir,
                    int *refused)
{
    strvec argv = STRVEC_INIT;
    normalize_argv(o, which, file, &argv);
    strvec_push_owned(&argv, NULL); /* NULL terminator (not counted by users below) */
    argv.len--;
    proc_opts po = {0};
    po.argv = (const char *const *)argv.items;
    po.cwd = o->cwd;
    po.timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 120000;
    proc_result res = {0};
    int r = proc_run(&po, &res);
    if (r < 0) {
        r = pgci_error_wrap(r, "ruff normalisation failed (use --ruff CMD to point at ruff, or "
                               "--no-ruff for raw output)");
    } else if (res.status != 0) {
        if (which == 0 && res.status == 1 && refused)
            *refused = 1;
        r = normalize_ruff_failed(po.argv, tmpdir, res.status, res.err.buf, res.err.len,
                                  res.out.buf, res.out.len);
    }
    proc_result_free(&res);
    strvec_free(&argv);
    return r;
}

int normalize_run_many(const normalize_opts *o, int which, const strvec *files, strbuf *out,
                       strbuf *err)
{
    if (!files->len)
        return 0;
    strvec argv = STRVEC_INIT;
    normalize_argv(o, which, files->items[0], &argv);
    for (size_t i = 1; i < files->len; i++)
        strvec_push(&argv, files->items[i]);
    strvec_push_owned(&argv, NULL);
    argv.len--;
    proc_opts po = {0};
    po.argv = (const char *const *)argv.items;
    po.cwd = o->cwd;
    po.timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 120000;
    proc_result res = {0};
    int r = proc_run(&po, &res);
    if (r == 0 && res.status == 1 && which != 1 && out) {
        strbuf_add(out, res.out.buf, res.out.len);
        if (err)
            strbuf_add(err, res.err.buf, res.err.len);
        r = 1;
    } else if (r == 0 && res.status != 0) {
        r = pgci_error_set(PGCI_EIO, "ruff exited with status %d", res.status);
    } else if (r == 0 && out) {
        strbuf_add(out, res.out.buf, res.out.len);
    }
    proc_result_free(&res);
    strvec_free(&argv);
    return r;
}

/* The temporary directory's random name in ruff's messages would make two runs'
 * reports differ: it reads "<tmp>" instead. */
static int unmask_tmp(int code, const char *dir)
{
    strbuf m = STRBUF_INIT;
    const char *p = pgci_error_last(), *q;
    size_t n = strlen(dir);
    while ((q = strstr(p, dir))) {
        strbuf_add(&m, p, (size_t)(q - p));
        strbuf_adds(&m, "<tmp>");
        p = q + n;
    }
    strbuf_adds(&m, p);
    pgci_error_set(code, "%s", m.buf);
    strbuf_free(&m);
    return code;
}

int normalize_ruff_uncached(const normalize_opts *o, const char *src, size_t len, strbuf *out,
                            int *refused)
{
    if (refused)
        *refused = 0;
    strbuf dir = STRBUF_INIT, file = STRBUF_INIT;
    int r = fs_mkdtemp(&dir, "pgci-ruff");
    if (r < 0)
        return r;
    fs_join(&file, dir.buf, o->file_name && o->file_name[0] ? o->file_name : "x.py");
    r = fs_write_scratch(file.buf, src, len);
    if (r == 0)
        r = run_ruff(o, 0, file.buf, dir.buf, refused);
    if (r == 0)
        r = run_ruff(o, 1, file.buf, dir.buf, NULL);
    if (r == 0)
        r = fs_read_file(out, file.buf, 0);
    if (r < 0)
        r = unmask_tmp(r, dir.buf);
    fs_remove_tree(dir.buf);
    strbuf_free(&dir);
    strbuf_free(&file);
    return r;
}

int normalize_ruff_version(const char *ruff, strbuf *out)
{
    const char *argv[] = {ruff && ruff[0] ? ruff : "ruff", "--version", NULL};
    proc_opts po = {0};
    po.argv = argv;
    po.timeout_ms = 30000;
    proc_result res = {0};
    int r = proc_run(&po, &res);
    if (r == 0 && res.status != 0)
        r = pgci_error_set(PGCI_EIO, "'%s --version' exited with status %d", argv[0], res.status);
    if (r == 0) {
        size_t n = 0;
        while (n < res.out.len && res.out.buf[n] != '\n')
            n++;
        strbuf_add(out, res.out.buf, n);
    }
    proc_result_free(&res);
    return r;
}
