/* Unit tests for src/patchgen/normalize_prelint.c: a yes/no verdict batch
 * (normalize_ruff_batch, verdict_only without words) gives the fix loop's
 * verdict on every case, the oracle being `ruff check --fix` on each file alone
 * (normalize_ruff, the full way); and one lint settles exactly the cases the
 * rules name (unused imports, their sorting, whitespace, a redefinition that a
 * fix removes) and leaves the near misses to the fix loop: a redefinition of a
 * def, of an import on a line whose unused import binds another name, of a
 * binding the fixes do not remove, an unsafe fix, a syntax error. A lint that
 * fails or names a file it was not given leaves every file to the fix loop.
 * Needs the pinned ruff (PGCI_RUFF, default build/deps/ruff). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/fs.h"
#include "patchgen/normalize.h"
#include "patchgen/normalize_internal.h"

static char *ruff(void)
{
    const char *r = getenv("PGCI_RUFF") ? getenv("PGCI_RUFF") : "build/deps/ruff";
    char *abs = realpath(r, NULL);
    assert_non_null(abs);
    return abs;
}

typedef struct pcase {
    const char *src;
    int settled; /* 1: one lint settles it */
} pcase;

static const pcase cases[] = {
    /* settled */
    {"import os\nimport sys\n\nprint(sys)\n", 1},
    {"x = 1   \ny = 2", 1},
    {"import sys\nimport os\n\nprint(os, sys)\n", 1},
    {"import os\nimport os\n\nprint(os)\n", 1},
    {"import os\n\n\nclass A:\n    def os(self):\n        pass\n", 1},
    {"from m import a\n\n\nclass A:\n    def a(self):\n        pass\n", 1},
    {"import m.n as a\n\n\nclass A:\n    def a(self):\n        pass\n", 1},
    {"from m import n as a\n\n\nclass A:\n    def a(self):\n        pass\n", 1},
    {"from . import a\n\n\nclass A:\n    def a(self):\n        pass\n", 1},
    {"from m import (\n    a,\n    b,\n)\n\nprint(b)\n\n\nclass A:\n    def a(self):\n        "
     "pass\n",
     1},
    {"import os, sys\n\nprint(sys)\n\n\nclass A:\n    def os(self):\n        pass\n", 1},
    {"y = 1\n", 1},
    /* near misses: the fix loop decides */
    {"import os\n\n\ndef os():\n    pass\n", 0},
    {"def f():\n    pass\n\n\ndef f():\n    pass\n", 0},
    {"from x import y\nfrom z import y\n\nprint(y)\n", 0},
    {"def g():\n    x = 1\n", 0},
    {"def h(:\n    pass\n", 0},
    {"try:\n    import os\nexcept ImportError:\n    pass\n", 0},
    {"def f(): import os\n\n\ndef f():\n    pass\n", 0},
    {"from m import (\n    a,\n    b,\n)\n\n\ndef b():\n    pass\n", 0},
    {"x = nope\n", 0},
    {"import os as o, sys\n\n\ndef sys():\n    pass\n", 0},
    {"import a\n\n\nclass A:\n    def a(self):\n        pass\n\n    def a(self):\n        pass\n",
     0},
};
#define NCASES (sizeof(cases) / sizeof(*cases))

/* dir with a ruff.toml selecting F, I and W (not isolated: it applies) */
static normalize_opts setup(const char *ruff_path, strbuf *dir)
{
    assert_int_equal(fs_mkdtemp(dir, "pgci-test-prelint"), 0);
    strbuf f = STRBUF_INIT;
    strbuf_addf(&f, "%s/ruff.toml", dir->buf);
    const char *cfg = "[lint]\nselect = [\"F\", \"I\", \"W\"]\n";
    assert_int_equal(fs_write_atomic(f.buf, cfg, strlen(cfg)), 0);
    strbuf_free(&f);
    normalize_opts o;
    memset(&o, 0, sizeof(o));
    o.ruff = ruff_path;
    o.cwd = dir->buf;
    o.jobs = 2;
    return o;
}

/* The batch's verdicts equal the fix loop's, file by file (the oracle). */
static void verdicts_as_fix_loop(const normalize_opts *o, const char *oracle_ruff)
{
    normalize_item items[NCASES];
    char names[NCASES][16];
    memset(items, 0, sizeof(items));
    for (size_t i = 0; i < NCASES; i++) {
        snprintf(names[i], sizeof(names[i]), "m%zu.py", i);
        items[i].file_name = names[i];
        items[i].src = cases[i].src;
        items[i].len = strlen(cases[i].src);
    }
    normalize_opts v = *o;
    v.verdict_only = 1;
    normalize_ruff_batch(&v, items, NCASES);
    pgci_error_clear();
    normalize_opts one = *o;
    one.ruff = oracle_ruff;
    for (size_t i = 0; i < NCASES; i++) {
        one.file_name = names[i];
        strbuf out = STRBUF_INIT;
        int want = normalize_ruff(&one, cases[i].src, strlen(cases[i].src), &out);
        pgci_error_clear();
        if ((want == 0) != (items[i].status == 0))
            fail_msg("case %zu: the fix loop %s it, the batch %s it", i,
                     want == 0 ? "accepts" : "refuses",
                     items[i].status == 0 ? "accepts" : "refuses");
        if (items[i].status < 0)
            assert_int_equal(items[i].refused, 1);
        strbuf_free(&out);
        strbuf_free(&items[i].out);
        free(items[i].error);
    }
}

static void test_verdicts_and_settled(void **state)
{
    (void)state;
    strbuf dir = STRBUF_INIT;
    char *r = ruff();
    normalize_opts o = setup(r, &dir);
    verdicts_as_fix_loop(&o, r);
    /* which cases one lint settles, the files linted where they are written */
    normalize_item items[NCASES];
    size_t todo[NCASES];
    strvec files = STRVEC_INIT;
    memset(items, 0, sizeof(items));
    for (size_t i = 0; i < NCASES; i++) {
        strbuf p = STRBUF_INIT;
        strbuf_addf(&p, "%s/m%zu.py", dir.buf, i);
        assert_int_equal(fs_write_atomic(p.buf, cases[i].src, strlen(cases[i].src)), 0);
        strvec_push_owned(&files, strbuf_detach(&p, NULL));
        items[i].src = cases[i].src;
        items[i].len = strlen(cases[i].src);
        todo[i] = i;
    }
    unsigned char sure[NCASES];
    assert_int_equal(normalize_prelint(&o, &files, items, todo, sure), 0);
    for (size_t i = 0; i < NCASES; i++)
        if (sure[i] != cases[i].settled)
            fail_msg("case %zu: one lint %s it", i, sure[i] ? "settles" : "does not settle");
    strvec_free(&files);
    free(r);
    fs_remove_tree(dir.buf);
    strbuf_free(&dir);
}

/* A lint that fails, or whose report is not about the batch's files, settles
 * nothing: the fix loop decides every file, and the verdicts stay the oracle's. */
static void test_lint_failure_falls_back(void **state)
{
    (void)state;
    static const char *const lints[] = {
        "echo 'not json'; exit 1",
        "echo '[{\"filename\": \"/nowhere/x.py\", \"code\": \"F401\"}]'; exit 1",
        "exit 2",
    };
    char *r = ruff();
    for (size_t k = 0; k < sizeof(lints) / sizeof(*lints); k++) {
        strbuf dir = STRBUF_INIT, wrap = STRBUF_INIT, body = STRBUF_INIT;
        normalize_opts o = setup(r, &dir);
        strbuf_addf(&wrap, "%s/ruff-wrapper", dir.buf);
        strbuf_addf(&body,
                    "#!/bin/sh\ncase \" $* \" in *\" --no-fix \"*) %s;; esac\nexec '%s' \"$@\"\n",
                    lints[k], r);
        assert_int_equal(fs_write_atomic(wrap.buf, body.buf, body.len), 0);
        assert_int_equal(chmod(wrap.buf, 0755), 0);
        o.ruff = wrap.buf;
        verdicts_as_fix_loop(&o, r);
        /* and the lint itself reports the failure */
        strvec files = STRVEC_INIT;
        strbuf p = STRBUF_INIT;
        strbuf_addf(&p, "%s/m0.py", dir.buf);
        assert_int_equal(fs_write_atomic(p.buf, cases[0].src, strlen(cases[0].src)), 0);
        strvec_push_owned(&files, strbuf_detach(&p, NULL));
        normalize_item it;
        memset(&it, 0, sizeof(it));
        it.src = cases[0].src;
        it.len = strlen(cases[0].src);
        size_t todo = 0;
        unsigned char sure = 1;
        assert_true(normalize_prelint(&o, &files, &it, &todo, &sure) < 0);
        assert_int_equal(sure, 0);
        pgci_error_clear();
        strvec_free(&files);
        fs_remove_tree(dir.buf);
        strbuf_free(&dir);
        strbuf_free(&wrap);
        strbuf_free(&body);
    }
    free(r);
}

/* A report whose words disagree with the source settles nothing: the rules read
 * both. Each row: the source, the unused import's message and column on line 1,
 * the name line 5 redefines, and whether one lint settles it. */
static void test_report_disagreeing_with_source(void **state)
{
    (void)state;
    static const struct {
        const char *src, *msg;
        int col;
        const char *name;
        int settled;
    } rows[] = {
        {"from m import a\n", "`m.a` imported but unused", 15, "a", 1},
        {"from m import a\n", "`m.zzz` imported but unused", 15, "a", 0},
        {"from m import a\n", "`m.a` is imported and read", 15, "a", 0},
        {"from m import a\n", "`m.a` imported but unused", 14, "a", 0},
        {"import a.b as c\n", "`a.b` imported but unused", 15, "c", 1},
        /* pointing at the dotted name, not at its alias: `a` is not what it binds */
        {"import a.b as c\n", "`a.b` imported but unused", 8, "a", 0},
    };
    char *r = ruff();
    for (size_t k = 0; k < sizeof(rows) / sizeof(*rows); k++) {
        strbuf dir = STRBUF_INIT, wrap = STRBUF_INIT, body = STRBUF_INIT, p = STRBUF_INIT;
        strbuf src = STRBUF_INIT;
        strbuf_addf(&src, "%s\n\nclass A:\n    def %s(self):\n        pass\n", rows[k].src,
                    rows[k].name);
        normalize_opts o = setup(r, &dir);
        strbuf_addf(&wrap, "%s/ruff-wrapper", dir.buf);
        strbuf_addf(&body,
                    "#!/bin/sh\nfor a; do f=$a; done\n"
                    "printf '[{\"filename\": \"%%s\", \"code\": \"F401\", \"message\": \"%s\", "
                    "\"location\": {\"row\": 1, \"column\": %d}, \"fix\": {\"applicability\": "
                    "\"safe\"}}, {\"filename\": \"%%s\", \"code\": \"F811\", \"message\": "
                    "\"Redefinition of unused `%s` from line 1\", \"location\": {\"row\": 5, "
                    "\"column\": 9}, \"fix\": null}]' \"$f\" \"$f\"\nexit 1\n",
                    rows[k].msg, rows[k].col, rows[k].name);
        assert_int_equal(fs_write_atomic(wrap.buf, body.buf, body.len), 0);
        assert_int_equal(chmod(wrap.buf, 0755), 0);
        o.ruff = wrap.buf;
        strvec files = STRVEC_INIT;
        strbuf_addf(&p, "%s/m0.py", dir.buf);
        assert_int_equal(fs_write_atomic(p.buf, src.buf, src.len), 0);
        strvec_push_owned(&files, strbuf_detach(&p, NULL));
        normalize_item it;
        memset(&it, 0, sizeof(it));
        it.src = src.buf;
        it.len = src.len;
        size_t todo = 0;
        unsigned char sure = 2;
        assert_int_equal(normalize_prelint(&o, &files, &it, &todo, &sure), 0);
        if (sure != rows[k].settled)
            fail_msg("row %zu: one lint %s it", k, sure ? "settles" : "does not settle");
        strvec_free(&files);
        fs_remove_tree(dir.buf);
        strbuf_free(&dir);
        strbuf_free(&wrap);
        strbuf_free(&body);
        strbuf_free(&src);
    }
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdicts_and_settled),
        cmocka_unit_test(test_lint_failure_falls_back),
        cmocka_unit_test(test_report_disagreeing_with_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
