/* Unit tests for checks/gate_ruff: the checked-in files normalised in one batch
 * on a thread beside the regeneration. Four check threads asking at once, before
 * anyone waited for the batch, all get ruff's own answer (a second join of the
 * batch thread hung the gate once); a source the batch did not see goes to ruff
 * alone; a file ruff cannot fix gives the per-file error. And normalize_ruff_batch's
 * verdict-only runs (the survey's look at tag A): the same verdicts as the full
 * way, remembered apart from its outputs. Needs the pinned ruff (PGCI_RUFF,
 * default build/deps/ruff). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/result_cache.h"
#include "patchgen/normalize.h"
#include "pipeline/gate_ruff.h"
#include "core/error.h"
#include "core/fs.h"

/* ruff runs in the test's directory: its path must not be relative */
static char *ruff(void)
{
    const char *r = getenv("PGCI_RUFF") ? getenv("PGCI_RUFF") : "build/deps/ruff";
    char *abs = realpath(r, NULL);
    assert_non_null(abs);
    return abs;
}

/* ruff's settings for a test: that ruff, isolated, run in dir */
static normalize_opts opts_in(const char *ruff_path, const char *dir)
{
    normalize_opts o;
    memset(&o, 0, sizeof(o));
    o.ruff = ruff_path;
    o.isolated = 1;
    o.cwd = dir;
    return o;
}

typedef struct asker {
    gate_ruff *g;
    const char *name, *src;
    strbuf out;
    int rc;
} asker;

static void *ask(void *arg)
{
    asker *a = arg;
    a->rc = gate_ruff_normalize(a->g, a->name, a->src, strlen(a->src), &a->out);
    return NULL;
}

static void test_concurrent_askers(void **state)
{
    (void)state;
    strbuf dir = STRBUF_INIT, p = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&dir, "pgci-test-gate-ruff"), 0);
    const char *srcs[] = {"import os\nx = ( 1 )\n", "y = 'a'\n", "z=[1,2]\n", "bad = nope\n"};
    const char *want[] = {"x = 1\n", "y = \"a\"\n", "z = [1, 2]\n", NULL};
    const char *rel[] = {"a/one.py", "b/two.py", "c/three.py", "d/four.py"};
    for (int i = 0; i < 4; i++) {
        strbuf_reset(&p);
        strbuf_addf(&p, "%s/%s", dir.buf, rel[i]);
        char *d = fs_dirname(p.buf);
        assert_int_equal(fs_mkdirs(d), 0);
        free(d);
        assert_int_equal(fs_write_atomic(p.buf, srcs[i], strlen(srcs[i])), 0);
    }
    char *r = ruff();
    normalize_opts o = opts_in(r, dir.buf);
    gate_ruff *g = gate_ruff_start(&o, dir.buf, rel, 4);
    pthread_t th[5];
    asker a[5];
    for (int i = 0; i < 5; i++) {
        memset(&a[i], 0, sizeof(a[i]));
        a[i].g = g;
        a[i].name = i < 4 ? rel[i] : "e/five.py";
        a[i].src = i < 4 ? srcs[i] : "w  =  2\n"; /* not in the batch: ruff alone */
        assert_int_equal(pthread_create(&th[i], NULL, ask, &a[i]), 0);
    }
    for (int i = 0; i < 5; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(a[i].rc, 0);
        assert_string_equal(a[i].out.buf, want[i]);
    }
    /* ruff check --fix cannot fix an undefined name: the per-file error */
    assert_true(a[3].rc < 0);
    assert_string_equal(a[4].out.buf, "w = 2\n");
    gate_ruff_free(g);
    free(r);
    for (int i = 0; i < 5; i++)
        strbuf_free(&a[i].out);
    fs_remove_tree(dir.buf);
    strbuf_free(&dir);
    strbuf_free(&p);
}

/* One batch over the three sources: each item's status, cached flag and output. */
static void batch(const normalize_opts *o, const char *const *srcs, size_t n, strbuf *summary)
{
    normalize_item items[8];
    memset(items, 0, sizeof(items));
    static const char *const names[] = {"a.py", "b.py", "c.py", "d.py"};
    for (size_t i = 0; i < n; i++) {
        items[i].file_name = names[i];
        items[i].src = srcs[i];
        items[i].len = strlen(srcs[i]);
    }
    normalize_ruff_batch(o, items, n);
    pgci_error_clear();
    strbuf_reset(summary);
    for (size_t i = 0; i < n; i++) {
        strbuf_addf(summary, "%s %s%s: %s|", names[i], items[i].status ? "refused" : "ok",
                    items[i].cached ? " (cached)" : "", items[i].out.buf ? items[i].out.buf : "");
        strbuf_free(&items[i].out);
        free(items[i].error);
    }
}

static void test_verdict_only(void **state)
{
    (void)state;
    strbuf dir = STRBUF_INIT, cdir = STRBUF_INIT, got = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&dir, "pgci-test-verdict"), 0);
    /* not under ruff's working directory: its listing is part of the settings */
    assert_int_equal(fs_mkdtemp(&cdir, "pgci-test-verdict-cache"), 0);
    const char *srcs[] = {"import os\nx = ( 1 )\n", "bad = nope\n", "z=[1,2]\n", "y = 'a'\n"};
    char *r = ruff();
    normalize_opts o = opts_in(r, dir.buf);
    o.ruff_version = "ruff test";
    o.jobs = 2;
    /* the verdicts, without outputs, as the full way gives them */
    o.verdict_only = 1;
    batch(&o, srcs, 3, &got);
    assert_string_equal(got.buf, "a.py ok: |b.py refused: |c.py ok: |");
    /* remembered: a second verdict-only run asks the cache, not ruff */
    rcache *c;
    assert_int_equal(rcache_open(&c, cdir.buf, 0), 0);
    o.cache = c;
    batch(&o, srcs, 3, &got);
    assert_string_equal(got.buf, "a.py ok: |b.py refused: |c.py ok: |");
    batch(&o, srcs, 3, &got);
    assert_string_equal(got.buf, "a.py ok (cached): |b.py refused (cached): |c.py ok (cached): |");
    /* a verdict is no output: the full way still runs ruff, then remembers */
    o.verdict_only = 0;
    batch(&o, srcs, 3, &got);
    assert_string_equal(got.buf, "a.py ok: x = 1\n|b.py refused: |c.py ok: z = [1, 2]\n|");
    /* and a verdict-only run reads the full way's entries too (the one item left
     * is no batch: it goes to ruff alone, the full way, output and all) */
    o.verdict_only = 1;
    const char *more[] = {srcs[0], srcs[1], srcs[2], srcs[3]};
    batch(&o, more, 4, &got);
    assert_string_equal(got.buf, "a.py ok (cached): x = 1\n|b.py refused (cached): |c.py ok "
                                 "(cached): z = [1, 2]\n|d.py ok: y = \"a\"\n|");
    rcache_free(c);
    free(r);
    fs_remove_tree(dir.buf);
    fs_remove_tree(cdir.buf);
    strbuf_free(&dir);
    strbuf_free(&cdir);
    strbuf_free(&got);
}

/* A batch's refusals are worded from the batched check's report, as each file's
 * own run words them: twelve items (so that one item's directory, <dir>/1, is a
 * prefix of another's, <dir>/10), every other one refused (undefined names, a
 * syntax error, several violations in one file, one that --fix half fixes), in
 * ruff's default format and in its concise one. The oracle is normalize_ruff() on
 * each item alone. */
static void test_batch_words_as_alone(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "x = y\n",
        "def f(:\n    pass\n",
        "import os\na = b\nc = d\n",
        "import sys\n\n\ndef g():\n    return undefined_here\n",
        "z = (\n",
        "if True:\n  q = nope\nelse:\n    q = 2\n",
    };
    for (int concise = 0; concise < 2; concise++) {
        strbuf dir = STRBUF_INIT;
        assert_int_equal(fs_mkdtemp(&dir, "pgci-test-batch-words"), 0);
        if (concise) {
            strbuf f = STRBUF_INIT;
            strbuf_addf(&f, "%s/ruff.toml", dir.buf);
            const char *cfg = "output-format = \"concise\"\n";
            assert_int_equal(fs_write_atomic(f.buf, cfg, strlen(cfg)), 0);
            strbuf_free(&f);
        }
        char *r = ruff();
        normalize_opts o = opts_in(r, dir.buf);
        o.isolated = 0; /* the configuration above applies */
        o.jobs = 2;
        normalize_item items[12];
        char names[12][16];
        memset(items, 0, sizeof(items));
        for (int i = 0; i < 12; i++) {
            snprintf(names[i], sizeof(names[i]), "m%d.py", i);
            items[i].file_name = names[i];
            items[i].src = i % 2 ? bad[i / 2] : "import os\nx = ( 1 )\n";
            items[i].len = strlen(items[i].src);
        }
        assert_true(normalize_ruff_batch(&o, items, 12) < 0);
        pgci_error_clear();
        for (int i = 0; i < 12; i++) {
            normalize_opts one = o;
            one.file_name = names[i];
            strbuf want = STRBUF_INIT;
            int rc = normalize_ruff(&one, items[i].src, items[i].len, &want);
            if (i % 2 == 0) {
                assert_int_equal(rc, 0);
                assert_int_equal(items[i].status, 0);
                assert_string_equal(items[i].out.buf, "x = 1\n");
            } else {
                assert_true(rc < 0);
                assert_true(items[i].status < 0);
                assert_int_equal(items[i].refused, 1);
                assert_non_null(items[i].error);
                assert_string_equal(items[i].error, pgci_error_last());
                /* the format applied: concise reports start with the path */
                assert_non_null(strstr(items[i].error,
                                       concise ? "exited with status 1: <tmp>/m" : "--> <tmp>/m"));
            }
            pgci_error_clear();
            strbuf_free(&want);
            strbuf_free(&items[i].out);
            free(items[i].error);
        }
        free(r);
        fs_remove_tree(dir.buf);
        strbuf_free(&dir);
    }
}

/* A verdict with words (the survey's look at tag B): no format, an accepted
 * item's out empty, a refused item's error the full way's word for word; the
 * refusal is cached as the full way's, and a verdict cached without words is not
 * taken for one with them. */
static void test_verdict_words(void **state)
{
    (void)state;
    strbuf dir = STRBUF_INIT, cdir = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&dir, "pgci-test-words"), 0);
    assert_int_equal(fs_mkdtemp(&cdir, "pgci-test-words-cache"), 0);
    const char *srcs[] = {"import os\nx = ( 1 )\n", "bad = nope\n", "z=[1,2]\n"};
    static const char *const names[] = {"a.py", "b.py", "c.py"};
    char *r = ruff();
    normalize_opts o = opts_in(r, dir.buf);
    o.ruff_version = "ruff test";
    o.jobs = 2;
    /* the full way's error of the refused item, alone and uncached */
    normalize_opts one = o;
    one.file_name = names[1];
    strbuf out = STRBUF_INIT;
    assert_true(normalize_ruff(&one, srcs[1], strlen(srcs[1]), &out) < 0);
    char *want = pgci_strdup(pgci_error_last());
    pgci_error_clear();
    rcache *c;
    assert_int_equal(rcache_open(&c, cdir.buf, 0), 0);
    o.cache = c;
    /* first a verdict without words: cached as a bare refusal */
    o.verdict_only = 1;
    for (int words = 0; words < 2; words++) {
        for (int round = 0; round < 2; round++) {
            o.words = words;
            normalize_item items[3];
            memset(items, 0, sizeof(items));
            for (int i = 0; i < 3; i++) {
                items[i].file_name = names[i];
                items[i].src = srcs[i];
                items[i].len = strlen(srcs[i]);
            }
            assert_true(normalize_ruff_batch(&o, items, 3) < 0);
            pgci_error_clear();
            assert_int_equal(items[0].status, 0);
            assert_int_equal(items[0].out.len, 0); /* no format */
            assert_int_equal(items[2].status, 0);
            assert_true(items[1].status < 0);
            assert_int_equal(items[1].refused, 1);
            if (words)
                assert_string_equal(items[1].error, want);
            else
                assert_string_equal(items[1].error, "ruff check --fix leaves a violation in b.py");
            /* the second round is the cache's; the bare refusal cached by the
             * verdict without words was not taken by the first round with them */
            assert_int_equal(items[1].cached, round);
            for (int i = 0; i < 3; i++) {
                strbuf_free(&items[i].out);
                free(items[i].error);
            }
        }
    }
    /* the worded refusal is the full way's cache entry: the full way reads it */
    o.verdict_only = 0;
    o.words = 0;
    o.file_name = names[1];
    strbuf_reset(&out);
    assert_true(normalize_ruff(&o, srcs[1], strlen(srcs[1]), &out) < 0);
    assert_string_equal(pgci_error_last(), want);
    pgci_error_clear();
    rcache_free(c);
    free(want);
    free(r);
    strbuf_free(&out);
    fs_remove_tree(dir.buf);
    fs_remove_tree(cdir.buf);
    strbuf_free(&dir);
    strbuf_free(&cdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_askers),
        cmocka_unit_test(test_verdict_only),
        cmocka_unit_test(test_batch_words_as_alone),
        cmocka_unit_test(test_verdict_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
