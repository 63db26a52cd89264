/* Unit tests for src/upstream without a network: URL templating, module names and
 * paths, tag checks, the validation of fetched bodies (binary, UTF-8, HTML,
 * syntax), the content-addressed cache (hit, miss, damage, atomicity) and the dir
 * source on a temporary tree. The http source is driven end to end against a local
 * server in tests/e2e/fetch_http.sh; the git source in test_upstream_git.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/strbuf.h"
#include "upstream/source.h"
#include "upstream/upstream.h"

static void write_file(const char *root, const char *rel, const char *text)
{
    strbuf p = STRBUF_INIT;
    fs_join(&p, root, rel);
    char *d = fs_dirname(p.buf);
    assert_int_equal(fs_mkdirs(d), 0);
    assert_int_equal(fs_write_atomic(p.buf, text, strlen(text)), 0);
    free(d);
    strbuf_free(&p);
}

/* upstream_spec_kind is the one reader of a spec's prefix (upstream_open, the
 * workspace's relative paths). */
static void test_spec_kind(void **state)
{
    (void)state;
    const char *p = NULL;
    assert_int_equal(upstream_spec_kind("https://h/{tag}/{path}", &p), UPSTREAM_HTTP);
    assert_string_equal(p, "https://h/{tag}/{path}");
    assert_int_equal(upstream_spec_kind("http://127.0.0.1:1/{path}", &p), UPSTREAM_HTTP);
    assert_int_equal(upstream_spec_kind("git:../clone", &p), UPSTREAM_GIT);
    assert_string_equal(p, "../clone");
    assert_int_equal(upstream_spec_kind("dir:/t/{tag}", &p), UPSTREAM_DIR);
    assert_string_equal(p, "/t/{tag}");
    assert_int_equal(upstream_spec_kind("dir:/t/{tag}", NULL), UPSTREAM_DIR);
    const char *none[] = {"dir:", "git:", "ftp://h/{path}", "/abs/dir", "", "DIR:/x"};
    for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
        if (upstream_spec_kind(none[i], &p) != -1)
            fail_msg("'%s' read as a source kind", none[i]);
    assert_int_equal(upstream_spec_kind(NULL, &p), -1);
}

static void test_redact(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"https://user:tok@host/x/{tag}/{path}", "https://***@host/x/{tag}/{path}"},
        {"cannot fetch a from http://u@h:80/p: HTTP 404",
         "cannot fetch a from http://***@h:80/p: HTTP 404"},
        {"https://host/a@b/{path}", "https://host/a@b/{path}"}, /* an @ in the path is no user */
        {"two: http://a:b@x/ and https://c@y/z", "two: http://***@x/ and https://***@y/z"},
        {"no url at all", "no url at all"},
        {"dir:/tmp/x@y/{tag}", "dir:/tmp/x@y/{tag}"},
        {"https://", "https://"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = upstream_redact(cases[i][0]);
        assert_string_equal(got, cases[i][1]);
        free(got);
    }
}

static void test_url_template(void **state)
{
    (void)state;
    strbuf u = STRBUF_INIT;
    http_url(&u, "https://github.com/huggingface/transformers/raw/{tag}/src/{path}", "v5.16.1",
             "transformers/models/llama/modeling_llama.py");
    assert_string_equal(u.buf, "https://github.com/huggingface/transformers/raw/v5.16.1/src/"
                               "transformers/models/llama/modeling_llama.py");
    strbuf_reset(&u);
    /* repeated and absent placeholders, and a brace that is not a placeholder */
    http_url(&u, "http://h/{tag}/{tag}/{x}/{path}", "t1", "a/b.py");
    assert_string_equal(u.buf, "http://h/t1/t1/{x}/a/b.py");
    strbuf_reset(&u);
    http_url(&u, "http://h/static/{path}", "t1", "a.py");
    assert_string_equal(u.buf, "http://h/static/a.py");
    strbuf_free(&u);
}

static void test_module_path_and_names(void **state)
{
    (void)state;
    strbuf p = STRBUF_INIT;
    upstream_module_path(&p, "transformers.models.llama.modeling_llama");
    assert_string_equal(p.buf, "transformers/models/llama/modeling_llama.py");
    strbuf_reset(&p);
    upstream_module_path(&p, "transformers");
    assert_string_equal(p.buf, "transformers.py");
    strbuf_free(&p);

    assert_int_equal(upstream_module_check("transformers.models.llama.modeling_llama"), 0);
    assert_int_equal(upstream_module_check("_a.b_2.C"), 0);
    static const char *const bad[] = {"",         ".a",     "a.",     "a..b",  "a/b",
                                      "a.b.py/x", "2a.b",   "a.-b",   "a b",   "a.b\n",
                                      "..",       "a.../b", "a.\x01", "ü.mod", "a;rm"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(upstream_module_check(bad[i]), PGCI_EINVALID);
    assert_non_null(
        strstr((upstream_module_check("a..b"), pgci_error_last()), "not dotted identifiers"));

    assert_int_equal(upstream_tag_check("v5.16.1"), 0);
    assert_int_equal(upstream_tag_check("5.9.0"), 0);
    assert_int_equal(upstream_tag_check("v4.0.0-rc1+local_x"), 0);
    static const char *const bad_tags[] = {"",    "..",     "-x",  ".v1",  "v1/../x",
                                           "a b", "v1?x=1", "v1#", "a..b", "v\n1"};
    for (size_t i = 0; i < sizeof(bad_tags) / sizeof(bad_tags[0]); i++)
        assert_int_equal(upstream_tag_check(bad_tags[i]), PGCI_EINVALID);
}

static void test_validate(void **state)
{
    (void)state;
    const char *ok = "import torch\n\n\nclass A(torch.nn.Module):\n    def f(self, x: int = 1):\n"
                     "        return 'é' + \"\\u00e9\"\n";
    assert_int_equal(upstream_validate(ok, strlen(ok), "m.py"), 0);
    assert_int_equal(upstream_validate("", 0, "empty.py"), 0);
    /* four-byte and three-byte characters are fine */
    const char *emoji = "x = '\xf0\x9f\x98\x80 \xe2\x82\xac'\n";
    assert_int_equal(upstream_validate(emoji, strlen(emoji), "m.py"), 0);

    const char bin[] = "x = 1\n\0\1\2";
    assert_int_equal(upstream_validate(bin, sizeof(bin) - 1, "m.py"), PGCI_EINVALID);
    assert_string_equal(pgci_error_last(),
                        "m.py is binary data (a NUL byte at offset 6), not Python source");

    /* invalid UTF-8: a stray continuation byte, an overlong '/', a surrogate, past
     * U+10FFFF, a truncated sequence at the end, 0xff */
    static const char *const bad_utf8[] = {"x = '\x80'\n",         "x = '\xc0\xaf'\n",
                                           "x = '\xed\xa0\x80'\n", "x = '\xf4\x90\x80\x80'\n",
                                           "x = 1 # \xe2\x82",     "\xff"};
    for (size_t i = 0; i < sizeof(bad_utf8) / sizeof(bad_utf8[0]); i++) {
        assert_int_equal(upstream_validate(bad_utf8[i], strlen(bad_utf8[i]), "m.py"),
                         PGCI_EINVALID);
        assert_non_null(strstr(pgci_error_last(), "not valid UTF-8"));
    }
    assert_int_equal(upstream_validate("x = '\x80'\n", 8, "m.py"), PGCI_EINVALID);
    assert_string_equal(pgci_error_last(),
                        "m.py is not valid UTF-8 (byte 0x80 at offset 5), not Python source");

    static const char *const html[] = {"<!DOCTYPE html>\n<html></html>", "  \n<html lang=en>",
                                       "\xef\xbb\xbf<!doctype HTML>", "<?xml version=\"1.0\"?>",
                                       "<HEAD><title>x</title>"};
    for (size_t i = 0; i < sizeof(html) / sizeof(html[0]); i++) {
        assert_int_equal(upstream_validate(html[i], strlen(html[i]), "m.py"), PGCI_EINVALID);
        assert_non_null(strstr(pgci_error_last(), "m.py is an HTML page, not Python"));
    }
    /* Python that merely mentions HTML is Python */
    const char *mention = "HTML = '<html>'\n";
    assert_int_equal(upstream_validate(mention, strlen(mention), "m.py"), 0);

    const char *syntax = "def f(:\n    return\n";
    assert_int_equal(upstream_validate(syntax, strlen(syntax), "m.py"), PGCI_EINVALID);
    assert_true(pgci_starts_with(pgci_error_last(), "not valid Python: m.py:1:"));
}

static void count_entries(const char *dir, size_t *n, int *tmp_seen)
{
    strvec names = STRVEC_INIT;
    if (fs_list_dir(&names, dir) < 0) {
        pgci_error_clear();
        return;
    }
    for (size_t i = 0; i < names.len; i++) {
        (*n)++;
        if (strstr(names.items[i], "pgci-tmp"))
            *tmp_seen = 1;
    }
    strvec_free(&names);
}

static void test_cache(void **state)
{
    (void)state;
    strbuf root = STRBUF_INIT, out = STRBUF_INIT, p = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&root, "pgci-cache"), 0);
    const char *key = "pgci-cache-v1\nhttp\nhttp://x/{tag}/{path}\nv1\na/b.py";
    const char *key2 = "pgci-cache-v1\nhttp\nhttp://x/{tag}/{path}\nv2\na/b.py";
    const char *data = "x = 1\n";
    /* miss on an empty (even absent) cache */
    assert_int_equal(cache_get(root.buf, key, &out), 0);
    assert_int_equal(out.len, 0);
    assert_int_equal(cache_put(root.buf, key, data, strlen(data)), 0);
    assert_int_equal(cache_get(root.buf, key, &out), 1);
    assert_string_equal(out.buf, data);
    strbuf_reset(&out);
    assert_int_equal(cache_get(root.buf, key2, &out), 0);
    /* the same bytes under another key share one object */
    assert_int_equal(cache_put(root.buf, key2, data, strlen(data)), 0);
    size_t objects = 0, keys = 0;
    int tmp_seen = 0;
    strbuf_addf(&p, "%s/objects", root.buf);
    count_entries(p.buf, &objects, &tmp_seen);
    strbuf_reset(&p);
    strbuf_addf(&p, "%s/keys", root.buf);
    count_entries(p.buf, &keys, &tmp_seen);
    assert_int_equal(objects, 1);
    assert_int_equal(keys, 2);
    assert_false(tmp_seen);

    /* the object is named by its SHA-256; damaging it turns the hit into a miss, and
     * a put repairs it */
    char h[SHA256_HEX_LEN + 1];
    sha256_hex(data, strlen(data), h);
    strbuf_reset(&p);
    strbuf_addf(&p, "%s/objects/%s", root.buf, h);
    assert_true(fs_is_file(p.buf));
    assert_int_equal(fs_write_atomic(p.buf, "x = 2\n", 6), 0);
    assert_int_equal(cache_get(root.buf, key, &out), 0);
    assert_int_equal(out.len, 0);
    assert_int_equal(cache_put(root.buf, key, data, strlen(data)), 0);
    assert_int_equal(cache_get(root.buf, key, &out), 1);
    assert_string_equal(out.buf, data);
    strbuf_reset(&out);
    /* a missing object is a miss */
    unlink(p.buf);
    assert_int_equal(cache_get(root.buf, key, &out), 0);

    /* a cache that cannot be written (its keys/ is a file, which stops root too)
     * fails the put with a message, and no key, object or temporary file appears */
    {
        strbuf bad = STRBUF_INIT, q = STRBUF_INIT;
        strbuf_addf(&bad, "%s/bad", root.buf);
        write_file(bad.buf, "keys", "not a directory\n");
        assert_true(cache_put(bad.buf, key, data, strlen(data)) < 0);
        assert_non_null(strstr(pgci_error_last(), "cannot write the cache in"));
        assert_int_equal(cache_get(bad.buf, key, &out), 0);
        size_t n = 0;
        tmp_seen = 0;
        count_entries(bad.buf, &n, &tmp_seen);
        strbuf_addf(&q, "%s/objects", bad.buf);
        size_t nobj = 0;
        count_entries(q.buf, &nobj, &tmp_seen);
        assert_int_equal(n, 1); /* only keys, the file */
        assert_int_equal(nobj, 0);
        assert_false(tmp_seen);
        strbuf_free(&bad);
        strbuf_free(&q);
    }
    fs_remove_tree(root.buf);
    strbuf_free(&root);
    strbuf_free(&out);
    strbuf_free(&p);
}

static void test_cache_default_dir(void **state)
{
    (void)state;
    char *old_x = getenv("XDG_CACHE_HOME") ? pgci_strdup(getenv("XDG_CACHE_HOME")) : NULL;
    char *old_h = getenv("HOME") ? pgci_strdup(getenv("HOME")) : NULL;
    strbuf d = STRBUF_INIT;
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    assert_int_equal(cache_default_dir(&d), 0);
    assert_string_equal(d.buf, "/x/cache/pgci");
    strbuf_reset(&d);
    setenv("XDG_CACHE_HOME", "relative", 1); /* the XDG spec says to ignore it */
    setenv("HOME", "/home/u", 1);
    assert_int_equal(cache_default_dir(&d), 0);
    assert_string_equal(d.buf, "/home/u/.cache/pgci");
    strbuf_reset(&d);
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    assert_true(cache_default_dir(&d) < 0);
    if (old_x)
        setenv("XDG_CACHE_HOME", old_x, 1);
    if (old_h)
        setenv("HOME", old_h, 1);
    free(old_x);
    free(old_h);
    strbuf_free(&d);
}

static void test_open_specs(void **state)
{
    (void)state;
    upstream *u = NULL;
    upstream_opts o = {.no_cache = 1};
    assert_int_equal(upstream_open(&u, &o), 0);
    assert_string_equal(upstream_describe(u),
                        "https://github.com/huggingface/transformers/raw/{tag}/src/{path}");
    upstream_free(u);
    o.spec = "https://example.org/{tag}/no-path-here";
    assert_int_equal(upstream_open(&u, &o), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "no {path} placeholder"));
    o.spec = "ftp://example.org/{path}";
    assert_int_equal(upstream_open(&u, &o), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "unknown upstream source 'ftp://"));
    o.spec = "dir:";
    assert_int_equal(upstream_open(&u, &o), PGCI_EINVALID);
    o.spec = "dir:up/{tag}";
    o.base_dir = "/ws";
    assert_int_equal(upstream_open(&u, &o), 0);
    assert_string_equal(upstream_describe(u), "directory /ws/up/{tag}");
    /* a dir: source with {tag} lists the directories there (none: /ws/up is not) */
    strvec tags = STRVEC_INIT;
    assert_int_equal(upstream_list_tags(u, &tags), PGCI_ENOTFOUND);
    assert_non_null(strstr(pgci_error_last(), "cannot list tags of directory /ws/up/{tag}: "));
    upstream_free(u);
    /* one without {tag} has no tags */
    o.spec = "dir:/ws/site-packages";
    assert_int_equal(upstream_open(&u, &o), 0);
    assert_int_equal(upstream_list_tags(u, &tags), PGCI_EUNSUPPORTED);
    assert_int_equal(tags.len, 0);
    upstream_free(u);
    o.spec = "git:/nonexistent/clone";
    assert_int_equal(upstream_open(&u, &o), PGCI_ENOTFOUND);
    assert_non_null(strstr(pgci_error_last(), "cannot open git repository /nonexistent/clone"));
}

static void test_dir_source(void **state)
{
    (void)state;
    strbuf root = STRBUF_INIT, out = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&root, "pgci-dir"), 0);
    /* a checkout per tag (src/ layout) and a site-packages layout */
    write_file(root.buf, "up-v1/src/transformers/models/llama/modeling_llama.py", "A = 1\n");
    write_file(root.buf, "up-v2/src/transformers/models/llama/modeling_llama.py", "A = 2\n");
    write_file(root.buf, "site/transformers/models/llama/modeling_llama.py", "A = 3\n");
    write_file(root.buf, "site/transformers/models/bad/modeling_bad.py", "<!DOCTYPE html>\n");
    write_file(root.buf, "outside.py", "SECRET = 1\n");
    strbuf link = STRBUF_INIT, target = STRBUF_INIT;
    strbuf_addf(&link, "%s/site/transformers/models/evil.py", root.buf);
    strbuf_addf(&target, "%s/outside.py", root.buf);
    assert_int_equal(symlink(target.buf, link.buf), 0);

    upstream *u = NULL;
    upstream_opts o = {.spec = "dir:up-{tag}", .base_dir = root.buf};
    assert_int_equal(upstream_open(&u, &o), 0);
    const char *m = "transformers.models.llama.modeling_llama";
    assert_int_equal(upstream_fetch(u, "v1", m, &out), 0);
    assert_string_equal(out.buf, "A = 1\n");
    strbuf_reset(&out);
    assert_int_equal(upstream_fetch(u, "v2", m, &out), 0);
    assert_string_equal(out.buf, "A = 2\n");
    strbuf_reset(&out);
    assert_int_equal(upstream_fetch(u, "v3", m, &out), PGCI_ENOTFOUND);
    assert_non_null(strstr(pgci_error_last(),
                           "cannot fetch transformers@v3 src/transformers/models/llama/"
                           "modeling_llama.py from "));
    assert_non_null(strstr(pgci_error_last(), "/up-v3: no such directory"));
    assert_int_equal(upstream_fetch(u, "v1", "transformers.models.nope", &out), PGCI_ENOTFOUND);
    assert_non_null(strstr(pgci_error_last(),
                           "neither src/transformers/models/nope.py nor transformers/models/"
                           "nope.py exists there"));
    assert_int_equal(upstream_fetch(u, "v1", "transformers..x", &out), PGCI_EINVALID);
    assert_int_equal(upstream_fetch(u, "../v1", m, &out), PGCI_EINVALID);
    /* a batch mixes tags; each outcome lands in its own slot */
    upstream_item items[] = {{"v2", m, NULL}, {"v1", m, NULL}, {"v3", m, NULL}, {"..", m, NULL}};
    strbuf bres[4] = {STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT};
    char *berr[4];
    assert_int_equal(upstream_fetch_batch(u, items, 4, bres, berr), PGCI_ENOTFOUND);
    assert_string_equal(bres[0].buf, "A = 2\n");
    assert_string_equal(bres[1].buf, "A = 1\n");
    assert_null(berr[0]);
    assert_null(berr[1]);
    assert_non_null(strstr(berr[2], "no such directory"));
    assert_int_equal(bres[2].len, 0);
    assert_non_null(strstr(berr[3], "tag '..' must not start with '.'"));
    for (int i = 0; i < 4; i++) {
        free(berr[i]);
        strbuf_free(&bres[i]);
    }
    /* each item's validation parses into its own parse set (the survey keeps tag
     * A's trees apart from B's); an item without one, into the upstream's */
    py_parse_set *sa = py_parse_set_new(), *sb = py_parse_set_new(), *su = py_parse_set_new();
    upstream_set_parse_set(u, su);
    upstream_item two[] = {{"v1", m, sa}, {"v2", m, sb}, {"v2", m, NULL}};
    assert_int_equal(upstream_fetch_batch(u, two, 3, bres, berr), 0);
    size_t parses, reused;
    py_tree t;
    py_parse_set_counts(sa, &parses, &reused);
    assert_int_equal(parses, 1);
    py_parse_set_counts(sb, &parses, &reused);
    assert_int_equal(parses, 1);
    py_parse_set_counts(su, &parses, &reused);
    assert_int_equal(parses, 1);
    /* A's text is in A's set: asking for it there parses nothing */
    assert_int_equal(py_parse_set_get(sa, bres[0].buf, bres[0].len, "a", &t), 0);
    py_parse_set_release(&t);
    py_parse_set_counts(sa, &parses, &reused);
    assert_int_equal(parses, 1);
    assert_int_equal(reused, 1);
    for (int i = 0; i < 3; i++) {
        free(berr[i]);
        strbuf_free(&bres[i]);
    }
    upstream_set_parse_set(u, NULL);
    py_parse_set_free(sa);
    py_parse_set_free(sb);
    py_parse_set_free(su);
    upstream_stats st;
    upstream_get_stats(u, &st);
    assert_int_equal(st.fetched, 7);
    assert_int_equal(st.cached, 0);
    assert_int_equal(st.bytes, 42);
    assert_int_equal(st.requests, 0);
    /* its tags: the up-* directories, in version order; not a file, not another name */
    write_file(root.buf, "up-v10/x", "");
    write_file(root.buf, "up-v1rc1/x", "");
    write_file(root.buf, "up-v9", "a file\n");
    write_file(root.buf, "down-v7/x", "");
    strvec tags = STRVEC_INIT;
    assert_int_equal(upstream_list_tags(u, &tags), 0);
    assert_int_equal(tags.len, 4);
    assert_string_equal(tags.items[0], "v1rc1");
    assert_string_equal(tags.items[1], "v1");
    assert_string_equal(tags.items[2], "v2");
    assert_string_equal(tags.items[3], "v10");
    strvec_free(&tags);
    upstream_free(u);

    strbuf spec = STRBUF_INIT;
    strbuf_addf(&spec, "dir:%s/site", root.buf);
    o.spec = spec.buf;
    o.base_dir = NULL;
    assert_int_equal(upstream_open(&u, &o), 0);
    assert_int_equal(upstream_fetch(u, "any", m, &out), 0);
    assert_string_equal(out.buf, "A = 3\n");
    strbuf_reset(&out);
    assert_int_equal(upstream_fetch(u, "any", "transformers.models.bad.modeling_bad", &out),
                     PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "modeling_bad.py is an HTML page, not Python"));
    assert_int_equal(out.len, 0);
    /* a symlink that leaves the tree is refused, not followed */
    assert_int_equal(upstream_fetch(u, "any", "transformers.models.evil", &out), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "outside"));
    assert_int_equal(out.len, 0);

    /* fetch_all: every module tried, each outcome in its slot */
    strvec mods = STRVEC_INIT;
    strvec_push(&mods, "transformers.models.nope");
    strvec_push(&mods, m);
    strvec_push(&mods, "bad name");
    strbuf res[3] = {STRBUF_INIT, STRBUF_INIT, STRBUF_INIT};
    char *errs[3];
    assert_int_equal(upstream_fetch_all(u, "any", &mods, res, errs), PGCI_ENOTFOUND);
    assert_non_null(errs[0]);
    assert_null(errs[1]);
    assert_string_equal(res[1].buf, "A = 3\n");
    assert_non_null(errs[2]);
    assert_non_null(strstr(errs[2], "'bad name' is not dotted identifiers"));
    for (int i = 0; i < 3; i++) {
        free(errs[i]);
        strbuf_free(&res[i]);
    }
    strvec_free(&mods);
    upstream_free(u);

    /* validated on worker threads: each failure in its slot with its own words,
     * the first in item order returned, the good ones read */
    write_file(root.buf, "site/transformers/models/syn/modeling_syn.py", "def f(:\n");
    o.jobs = 3;
    assert_int_equal(upstream_open(&u, &o), 0);
    strvec_push(&mods, m);
    strvec_push(&mods, "transformers.models.syn.modeling_syn");
    strvec_push(&mods, "transformers.models.bad.modeling_bad");
    strvec_push(&mods, "transformers.models.nope");
    strbuf res4[4] = {STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT};
    char *errs4[4];
    assert_int_equal(upstream_fetch_all(u, "any", &mods, res4, errs4), PGCI_EINVALID);
    assert_null(errs4[0]);
    assert_string_equal(res4[0].buf, "A = 3\n");
    assert_non_null(strstr(errs4[1], "modeling_syn.py"));
    assert_non_null(strstr(errs4[1], "syntax error"));
    assert_non_null(strstr(errs4[2], "modeling_bad.py is an HTML page, not Python"));
    assert_non_null(strstr(errs4[3], "nope.py exists there"));
    for (int i = 1; i < 4; i++)
        assert_int_equal(res4[i].len, 0);
    upstream_stats st2;
    upstream_get_stats(u, &st2);
    assert_int_equal(st2.fetched, 1);
    for (int i = 0; i < 4; i++) {
        free(errs4[i]);
        strbuf_free(&res4[i]);
    }
    strvec_free(&mods);
    upstream_free(u);

    fs_remove_tree(root.buf);
    strbuf_free(&spec);
    strbuf_free(&link);
    strbuf_free(&target);
    strbuf_free(&root);
    strbuf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_kind),         cmocka_unit_test(test_redact),
        cmocka_unit_test(test_url_template),      cmocka_unit_test(test_module_path_and_names),
        cmocka_unit_test(test_validate),          cmocka_unit_test(test_cache),
        cmocka_unit_test(test_cache_default_dir), cmocka_unit_test(test_open_specs),
        cmocka_unit_test(test_dir_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
