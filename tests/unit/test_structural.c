/* Unit tests for checks/structural: equality modulo formatting. The oracle part
 * runs the pinned ruff over every fixture module (check --fix, then format) and
 * requires the result to compare equal to the original, and a one-token edit to
 * compare unequal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/names.h"
#include "index/index.h"
#include "py/forest.h"
#include "py/parse_set.h"
#include "py/pytop.h"
#include "py/structural.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/proc.h"

static int eq(const char *a, const char *b)
{
    structural_result r;
    assert_int_equal(structural_compare(a, strlen(a), b, strlen(b), &r), 0);
    int e = r.equal;
    structural_result_free(&r);
    return e;
}

static void test_formatting_ignored(void **state)
{
    (void)state;
    assert_true(eq("x = 'a'\n", "x = \"a\"\n"));
    assert_true(eq("x = ('a' 'b')\n", "x = 'ab'\n"));
    assert_true(eq("def f(a,b):\n  return (a+b)\n", "def f(a, b):\n    return a + b\n"));
    assert_true(eq("f(a, b,)\n", "f(\n    a,\n    b,\n)\n"));
    assert_true(eq("x = 0XFF\n", "x = 0xff\n"));
    assert_true(eq("class A():\n    pass\n", "class A:\n    pass\n"));
    assert_true(eq("def f():\n    '''Doc.\n\n      more  '''\n",
                   "def f():\n    \"\"\"Doc.\n\n    more\n    \"\"\"\n"));
    assert_true(eq("x = 1  # c\n# d\n", "x = 1\n"));
    assert_true(eq("return_ = a, b\n", "return_ = (a, b)\n"));
    /* ruff format wraps a long return annotation in parentheses: an expression
     * then, a union of types without them */
    assert_true(eq("def f() -> tuple[A, B | None] | tuple[A]:\n    pass\n",
                   "def f() -> (\n    tuple[A, B | None] | tuple[A]\n):\n    pass\n"));
    assert_false(eq("def f() -> A | B:\n    pass\n", "def f() -> (A | C):\n    pass\n"));
    /* strings compare by all their bytes: a NUL inside one ended the comparison
     * (tokens were C strings), so these two compared equal */
    assert_false(eq("x = 'a\\x00b'\n", "x = 'a\\x00c'\n"));
    assert_true(eq("x = 'a\\x00b'\n", "x = \"a\\x00b\"\n"));
}

static void test_imports(void **state)
{
    (void)state;
    /* order and merging */
    assert_true(eq("import os\nfrom a import x\nfrom a import y\nprint(os, x, y)\n",
                   "from a import x, y\nimport os\nprint(os, x, y)\n"));
    /* an unused import dropped by ruff's F401 fix */
    assert_true(eq("import os\nfrom a import x\nprint(x)\n", "from a import x\nprint(x)\n"));
    /* a used import dropped is a difference */
    assert_false(eq("import os\nprint(os)\n", "print(os)\n"));
    /* an import the regen does not have */
    assert_false(eq("print(1)\n", "import os\nprint(1)\n"));
    /* what ruff's F401 fix removes on the real VeOmni tree: a name that only
     * appears as an attribute, a keyword, or a method's name is not a use */
    assert_true(eq("import torch.nn as nn\nfrom torch.nn import Parameter\nw = nn.Parameter(1)\n",
                   "import torch.nn as nn\nw = nn.Parameter(1)\n"));
    assert_true(eq("from v import g\nclass A:\n    def g(self):\n        return A.g(self)\n",
                   "class A:\n    def g(self):\n        return A.g(self)\n"));
    assert_true(eq("from v import g\nf(g=1)\n", "f(g=1)\n"));
    /* an import redefined by a later one before any use (the F811 fix) */
    assert_true(
        eq("import torch.nn.functional as F\nfrom torch.nn import functional as F\nF.pad(x)\n",
           "from torch.nn import functional as F\nF.pad(x)\n"));
    assert_true(
        eq("from torch.nn import functional as F\nimport torch.nn.functional as F\nF.pad(x)\n",
           "from torch.nn import functional as F\nF.pad(x)\n"));
    assert_false(
        eq("from torch.nn import functional as F\nimport torch.nn.functional as F\nF.pad(x)\n",
           "F.pad(x)\n"));
    /* ... while a bare reference keeps it */
    assert_false(eq("from v import g\nclass A:\n    h = g\n", "class A:\n    h = g\n"));
    /* a name listed in __all__ counts as used */
    assert_false(eq("from a import x\n__all__ = ['x']\n", "__all__ = ['x']\n"));
}

static void test_real_differences(void **state)
{
    (void)state;
    assert_false(eq("x = 'a'\n", "x = 'b'\n"));
    assert_false(eq("x = b'a'\n", "x = 'a'\n"));
    assert_false(eq("def f(a, b):\n    return a + b\n", "def f(a, b):\n    return a - b\n"));
    assert_false(eq("def f():\n    x = 1\n    y = 2\n", "def f():\n    x = 1\ny = 2\n"));
    structural_result r;
    const char *a = "a = 1\nb = 2\nc = 3\n", *b = "a = 1\nb = 2\nc = 4\n";
    assert_int_equal(structural_compare(a, strlen(a), b, strlen(b), &r), 0);
    assert_false(r.equal);
    assert_int_equal(r.line_a, 3);
    assert_int_equal(r.line_b, 3);
    assert_non_null(strstr(r.what.buf, "'3'"));
    structural_result_free(&r);

    /* the checked-in file's statements that are the regenerated file's byte for
     * byte take their tokens, at their own lines: the difference after them, and
     * the one in a copied statement past the regenerated file's end, keep their lines */
    a = "def f(x):\n    return g(x)\n\n\nclass C:\n    y = [1, 2]\n\n\nz = f(1)\n";
    b = "\n\n\nclass C:\n    y = [1, 2]\n\n\ndef f(x):\n    return g(x)\nz = f(2)\n";
    assert_int_equal(structural_compare(a, strlen(a), b, strlen(b), &r), 0);
    assert_false(r.equal);
    assert_int_equal(r.line_a, 1);
    assert_int_equal(r.line_b, 4);
    structural_result_free(&r);
    b = "def f(x):\n    return g(x)\n\n\nclass C:\n    y = [1, 2]\n\n\nz = f(1)\n"
        "def f(x):\n    return g(x)\n";
    assert_int_equal(structural_compare(a, strlen(a), b, strlen(b), &r), 0);
    assert_false(r.equal);
    assert_int_equal(r.line_b, 10);
    assert_non_null(strstr(r.what.buf, "checked-in line 10 has 'function_definition'"));
    structural_result_free(&r);
}

static void test_syntax_error(void **state)
{
    (void)state;
    structural_result r;
    assert_int_equal(structural_compare("x = (\n", 6, "x = 1\n", 6, &r), PGCI_EINVALID);
    structural_result_free(&r);
}

/* ruff as the oracle: what ruff makes of a file is structurally the file. */
static void ruff_run(const char *ruff, const char *sub, const char *path)
{
    const char *fix[] = {ruff,       "check",          "--fix",       "--quiet", "--isolated",
                         "--ignore", "E402,B007,F811", "--exit-zero", path,      NULL};
    const char *fmt[] = {ruff, "format", "--quiet", "--isolated", "--line-length",
                         "60", path,     NULL};
    proc_opts o = {.argv = !strcmp(sub, "check") ? fix : fmt, .timeout_ms = 60000};
    proc_result res;
    assert_int_equal(proc_run(&o, &res), 0);
    if (res.status != 0)
        fprintf(stderr, "%s", res.err.buf);
    assert_int_equal(res.status, 0);
    proc_result_free(&res);
}

/* dir/name read into *mod (its path in *path), and ruff's rewrite of it (check
 * --fix, format, on a copy in tmp) into *fmt. */
static void module_and_ruff(const char *ruff, const char *tmp, const char *dir, const char *name,
                            strbuf *path, strbuf *mod, strbuf *fmt)
{
    strbuf p = STRBUF_INIT;
    fs_join(path, dir, name);
    fs_join(&p, tmp, name);
    assert_int_equal(fs_read_file(mod, path->buf, 0), 0);
    assert_int_equal(fs_write_atomic(p.buf, mod->buf, mod->len), 0);
    ruff_run(ruff, "check", p.buf);
    ruff_run(ruff, "format", p.buf);
    assert_int_equal(fs_read_file(fmt, p.buf, 0), 0);
    strbuf_free(&p);
}

static void test_ruff_oracle(void **state)
{
    (void)state;
    const char *ruff = getenv("PGCI_RUFF") ? getenv("PGCI_RUFF") : "build/deps/ruff";
    assert_true(fs_is_file(ruff));
    const char *dirs[] = {"fixtures/upstream/v1.0.0/transformers/models/llama",
                          "fixtures/upstream/v1.0.0/transformers/models/qwen3",
                          "fixtures/upstream/v1.1.0/transformers/models/qwen3_moe"};
    strbuf tmp = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&tmp, "pgci-structural"), 0);
    int compared = 0, changed = 0;
    for (size_t d = 0; d < 3; d++) {
        strvec names = STRVEC_INIT;
        assert_int_equal(fs_list_dir(&names, dirs[d]), 0);
        for (size_t i = 0; i < names.len; i++) {
            if (!pgci_ends_with(names.items[i], ".py"))
                continue;
            strbuf src = STRBUF_INIT, out = STRBUF_INIT, back = STRBUF_INIT;
            module_and_ruff(ruff, tmp.buf, dirs[d], names.items[i], &src, &out, &back);
            changed += out.len != back.len || memcmp(out.buf, back.buf, out.len) != 0;
            structural_result r;
            assert_int_equal(structural_compare(out.buf, out.len, back.buf, back.len, &r), 0);
            if (!r.equal)
                fprintf(stderr, "%s: %s\n", src.buf, r.what.buf);
            assert_true(r.equal);
            structural_result_free(&r);
            /* and one real edit is caught: rename the first 'self' */
            char *s = strstr(back.buf, "self");
            if (s) {
                s[0] = 'z';
                assert_int_equal(structural_compare(out.buf, out.len, back.buf, back.len, &r), 0);
                assert_false(r.equal);
                structural_result_free(&r);
            }
            compared++;
            strbuf_free(&src);
            strbuf_free(&out);
            strbuf_free(&back);
        }
        strvec_free(&names);
    }
    assert_true(compared >= 6);
    /* the oracle is only worth something if ruff really rewrote the files */
    assert_true(changed >= compared / 2);
    fs_remove_tree(tmp.buf);
    strbuf_free(&tmp);
}

/* A function body compares for what runs: the annotation of a name it assigns is
 * never evaluated (transformers 5.12's `cache_layer: DeepseekV4CSACache = ...`
 * written `cache_layer: DeepseekV4CSACache | None = (...)` in two overridden
 * methods, reported as "the upstream body changed" before). Annotations that are
 * evaluated still count: a class body's (its own, or one a function defines) and a
 * nested function's parameters'. */
static void test_local_annotations(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        int equal;
    } cases[] = {
        {"def f(p):\n    c: Cache = p.layers[0] if p is not None else None\n    return c\n",
         "def f(p):\n    c: Cache | None = (\n        p.layers[0] if p is not None else None\n    "
         ")\n"
         "    return c\n",
         1},
        {"def f(p):\n    c: int\n    c = p\n    return c\n",
         "def f(p):\n    c: str\n    c = p\n    return c\n", 1},
        {"def f(p):\n    c: int = p\n    return c\n",
         "def f(p):\n    c: int = p + 1\n    return c\n", 0},
        {"class A:\n    x: int = 1\n", "class A:\n    x: str = 1\n", 0},
        {"def f():\n    class B:\n        x: int = 1\n    return B\n",
         "def f():\n    class B:\n        x: str = 1\n    return B\n", 0},
        {"def f():\n    def g(x: int):\n        y: int = x\n    return g\n",
         "def f():\n    def g(x: str):\n        y: str = x\n    return g\n", 0},
        {"def f():\n    def g(x: int):\n        y: int = x\n    return g\n",
         "def f():\n    def g(x: int):\n        y: str = x\n    return g\n", 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        int got =
            structural_bodies_equal(cases[i].a, strlen(cases[i].a), cases[i].b, strlen(cases[i].b));
        if (got != cases[i].equal)
            fail_msg("case %zu: %d, want %d", i, got, cases[i].equal);
    }
}

/* structural_def_bodies_equal() from the modules' trees gives the answer of
 * structural_bodies_equal() on the definitions' text, for every pair of
 * definitions of two versions of a module (decorated, async, nested, a docstring
 * changed, a body reformatted, a body changed); and refuses a byte where no
 * definition starts. */
static void test_def_bodies_from_trees(void **state)
{
    (void)state;
    const char *va = "import os\n\n\n"
                     "class A:\n"
                     "    '''A.'''\n\n"
                     "    @property\n"
                     "    def f(self):\n"
                     "        '''Doc.'''\n"
                     "        return g(1, 2)\n\n"
                     "    async def h(self, x):\n"
                     "        return await x\n\n"
                     "    class Inner:\n"
                     "        def k(self):\n"
                     "            return [1, 2]\n\n\n"
                     "def top(a):\n"
                     "    # c\n"
                     "    return a + 1\n";
    const char *vb = "import os\n\n\n"
                     "class A:\n"
                     "    '''A, changed.'''\n\n"
                     "    @property\n"
                     "    def f(self):\n"
                     "        '''Doc, changed.'''\n"
                     "        return g(\n            1,\n            2,\n        )\n\n"
                     "    async def h(self, x):\n"
                     "        return await y\n\n"
                     "    class Inner:\n"
                     "        def k(self):\n"
                     "            return [1, 2]\n\n\n"
                     "@decorated\n"
                     "def top(a):\n"
                     "    return a + 2\n";
    py_tree ta, tb;
    assert_int_equal(py_parse(&ta, va, strlen(va), "a.py"), 0);
    assert_int_equal(py_parse(&tb, vb, strlen(vb), "b.py"), 0);
    index_module *ma, *mb;
    assert_int_equal(index_module_build(&ma, &ta, "a"), 0);
    assert_int_equal(index_module_build(&mb, &tb, "b"), 0);
    const char *names[] = {"A", "A.f", "A.h", "A.Inner", "A.Inner.k", "top"};
    size_t n = sizeof(names) / sizeof(*names), equal = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            const index_def *a = index_find(ma, names[i]), *b = index_find(mb, names[j]);
            assert_non_null(a);
            assert_non_null(b);
            int want = structural_bodies_equal(va + a->start_byte, a->end_byte - a->start_byte,
                                               vb + b->start_byte, b->end_byte - b->start_byte);
            int got = structural_def_bodies_equal(&ta, a->start_byte, &tb, b->start_byte);
            assert_true(want >= 0);
            if (got != want)
                fail_msg("%s against %s: %d from the trees, %d from the text", names[i], names[j],
                         got, want);
            equal += got == 1;
        }
    /* f (its docstring and formatting changed) and Inner.k are the same bodies;
     * A (a method's body changed), h and top are not */
    assert_int_equal(structural_def_bodies_equal(&ta, index_find(ma, "A.f")->start_byte, &tb,
                                                 index_find(mb, "A.f")->start_byte),
                     1);
    assert_int_equal(structural_def_bodies_equal(&ta, index_find(ma, "A")->start_byte, &tb,
                                                 index_find(mb, "A")->start_byte),
                     0);
    assert_true(equal >= 2);
    /* no definition starts at byte 1 ("mport os") */
    assert_true(structural_def_bodies_equal(&ta, 1, &tb, 0) < 0);
    pgci_error_clear();
    index_module_free(ma);
    index_module_free(mb);
    py_tree_free(&ta);
    py_tree_free(&tb);
}

/* One mutation of a module, at its module-level statements (those py_top_split
 * finds): the edits a checked-in file can have against its regeneration, and the
 * traps for a comparison that parses only some statements (a statement's text
 * inside a string, an error, a clause or decorator separated from its statement). */
static void mutate(strbuf *out, const char *a, size_t alen, unsigned *seed)
{
    py_top *t;
    size_t n;
    strbuf_reset(out);
    if (py_top_split(a, alen, &t, &n) < 0 || n < 2) {
        strbuf_add(out, a, alen);
        return;
    }
    size_t i = (size_t)rand_r(seed) % n, j = (size_t)rand_r(seed) % n;
    uint32_t si = t[i].start, ei = i + 1 < n ? t[i + 1].start : (uint32_t)alen;
    int op = rand_r(seed) % 14;
    if (op >= 11) {
        /* in a class's body: a statement dropped, put in a string, re-indented */
        size_t c = i;
        while (c < n && !t[c].body)
            c++;
        py_top *m = NULL;
        size_t k;
        uint32_t end = c + 1 < n ? t[c + 1].start : (uint32_t)alen;
        if (c == n || py_top_split_body(a, alen, &t[c], end, &m, &k) < 0 || k < 2) {
            strbuf_add(out, a, alen);
            free(m);
            free(t);
            return;
        }
        size_t mj = 1 + (size_t)rand_r(seed) % (k - 1);
        uint32_t ls = m[mj].start, le = mj + 1 < k ? m[mj + 1].start : end;
        while (ls > 0 && a[ls - 1] != '\n')
            ls--;
        while (le < end && a[le - 1] != '\n')
            le--;
        strbuf_add(out, a, ls);
        if (op == 12) {
            strbuf_adds(out, "    s = '''\n");
            strbuf_add(out, a + ls, le - ls);
            strbuf_adds(out, "'''\n");
        } else if (op == 13) {
            strbuf_adds(out, "  ");
            strbuf_add(out, a + ls, le - ls);
        }
        strbuf_add(out, a + le, alen - le);
        free(m);
        free(t);
        return;
    }
    switch (op) {
    case 0: /* the same */
        strbuf_add(out, a, alen);
        break;
    case 1: { /* one identifier byte changed in one statement */
        strbuf_add(out, a, alen);
        for (uint32_t k = si + (uint32_t)rand_r(seed) % (ei - si); k < ei; k++)
            if (out->buf[k] >= 'a' && out->buf[k] <= 'y') {
                out->buf[k]++;
                break;
            }
        break;
    }
    case 2: /* a statement dropped */
        strbuf_add(out, a, si);
        strbuf_add(out, a + ei, alen - ei);
        break;
    case 3: /* a statement twice */
        strbuf_add(out, a, ei);
        strbuf_add(out, a + si, alen - si);
        break;
    case 4: /* an import, a comment and blank lines before a statement */
        strbuf_add(out, a, si);
        strbuf_adds(out, rand_r(seed) % 2 ? "import os\n" : "# moved\n\n\n");
        strbuf_add(out, a + si, alen - si);
        break;
    case 5: /* a statement inside a string: never the statement */
        strbuf_add(out, a, si);
        strbuf_adds(out, "s = \"\"\"\n");
        strbuf_add(out, a + si, ei - si);
        strbuf_adds(out, "\"\"\"\n");
        strbuf_add(out, a + ei, alen - ei);
        break;
    case 6: /* a syntax error */
        strbuf_add(out, a, si);
        strbuf_adds(out, "def (:\n");
        strbuf_add(out, a + si, alen - si);
        break;
    case 7: /* a statement re-indented into the one before */
        strbuf_add(out, a, si);
        strbuf_adds(out, "    ");
        strbuf_add(out, a + si, alen - si);
        break;
    case 8: /* two statements swapped */
        if (i > j) {
            size_t x = i;
            i = j;
            j = x;
        }
        if (i == j) {
            strbuf_add(out, a, alen);
            break;
        }
        {
            uint32_t sj = t[j].start, ej = j + 1 < n ? t[j + 1].start : (uint32_t)alen;
            si = t[i].start;
            ei = t[i + 1].start;
            strbuf_add(out, a, si);
            strbuf_add(out, a + sj, ej - sj);
            strbuf_add(out, a + ei, sj - ei);
            strbuf_add(out, a + si, ei - si);
            strbuf_add(out, a + ej, alen - ej);
        }
        break;
    case 9: /* a clause and a decorator with nothing to belong to */
        strbuf_add(out, a, si);
        strbuf_adds(out, rand_r(seed) % 2 ? "else:\n    pass\n" : "@decorator\n");
        strbuf_add(out, a + si, alen - si);
        break;
    default: /* a blank line inside a statement and one quote style changed */
        strbuf_add(out, a, alen);
        for (uint32_t k = si; k < ei; k++)
            if (out->buf[k] == '"' && k + 2 < ei && out->buf[k + 1] != '"' &&
                memchr(out->buf + k + 1, '"', ei - k - 1)) {
                char *q = memchr(out->buf + k + 1, '"', ei - k - 1);
                if (!memchr(out->buf + k + 1, '\'', (size_t)(q - out->buf) - k - 1) &&
                    !memchr(out->buf + k + 1, '\n', (size_t)(q - out->buf) - k - 1)) {
                    out->buf[k] = *q = '\'';
                    break;
                }
            }
        break;
    }
    free(t);
}

/* Fails the test, naming both, when got (read as `how`) does not say what the
 * whole comparison says. */
static void same_as_whole(const structural_result *whole, const structural_result *got,
                          const char *how, const char *what, int k)
{
    if (!structural_result_same(whole, got))
        fail_msg("%s, case %d: whole %d %u %u '%s', %s %d %u %u '%s'", what, k, whole->equal,
                 whole->line_a, whole->line_b, whole->what.buf, how, got->equal, got->line_a,
                 got->line_b, got->what.buf);
}

/* The comparison by pieces (only the checked-in file's statements that are not
 * the regenerated file's byte for byte parsed) says what the whole one says, to
 * the lines and the message, on every fixture module against ruff's rewrite of it
 * and against mutations of both; it declines only what it must. */
static void test_pieces_like_whole(void **state)
{
    (void)state;
    const char *ruff = getenv("PGCI_RUFF") ? getenv("PGCI_RUFF") : "build/deps/ruff";
    const char *dirs[] = {"fixtures/upstream/v1.0.0/transformers/models/llama",
                          "fixtures/upstream/v1.0.0/transformers/models/qwen3",
                          "fixtures/upstream/v1.1.0/transformers/models/qwen3_moe"};
    strbuf tmp = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&tmp, "pgci-pieces"), 0);
    /* the module's own tokens carry its row: after blank lines, the file's */
    const char *pairs[][2] = {
        {"\n\nx = 1\ny = 2\n", "\n\n\n# c\nx = 1\n"},
        {"\n\nx = 1\n", "\n\n\n\nx = 1\ny = 2\n"},
        /* statements found with the comments after them (tree-sitter's node ends) */
        {"class A:\n    x = 1  # c\n    # d\n\n\ny = 2\n",
         "class A:\n    x = 1  # c\n    # d\n\n\ny = 3\n"},
        /* a body whose first statement is donated: the block's tokens keep its line */
        {"class A:\n    xx = 1\n    y = 2\n    z = 3\n", "class A:\n\n    xx = 1\n    y = 2\n"},
        {"class A:\n    x = 1\n\n    def f(self):\n        return g  # noqa\n\n    z = 1\nq = 1\n",
         "class A:\n    x = 2\n\n    def f(self):\n        return g  # noqa\n\n    z = 1\nq = "
         "1\n"}};
    for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
        structural_result whole, pieces;
        const char *x = pairs[k][0], *y = pairs[k][1];
        assert_int_equal(structural_compare_whole(x, strlen(x), y, strlen(y), &whole), 0);
        assert_int_equal(structural_compare_pieces(x, strlen(x), y, strlen(y), &pieces), 0);
        assert_string_equal(pieces.what.buf, whole.what.buf);
        assert_int_equal(pieces.line_a, whole.line_a);
        assert_int_equal(pieces.line_b, whole.line_b);
        structural_result_free(&whole);
        structural_result_free(&pieces);
    }
    unsigned seed = 18;
    size_t cases = 0, by_pieces = 0, unequal = 0;
    for (size_t d = 0; d < 3; d++) {
        strvec names = STRVEC_INIT;
        assert_int_equal(fs_list_dir(&names, dirs[d]), 0);
        for (size_t f = 0; f < names.len; f++) {
            if (!pgci_ends_with(names.items[f], ".py"))
                continue;
            strbuf src = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT, m = STRBUF_INIT;
            module_and_ruff(ruff, tmp.buf, dirs[d], names.items[f], &src, &a, &b);
            for (int k = 0; k < 60; k++) {
                /* the checked-in side mutated, or the regenerated side */
                int side = k % 2;
                mutate(&m, side ? a.buf : b.buf, side ? a.len : b.len, &seed);
                const char *x = side ? m.buf : a.buf, *y = side ? b.buf : m.buf;
                size_t xl = side ? m.len : a.len, yl = side ? b.len : m.len;
                structural_result whole, pieces;
                int rw = structural_compare_whole(x, xl, y, yl, &whole);
                if (rw < 0)
                    pgci_error_clear();
                int rp = structural_compare_pieces(x, xl, y, yl, &pieces);
                cases++;
                if (rp == 0) {
                    by_pieces++;
                    assert_int_equal(rw, 0);
                    same_as_whole(&whole, &pieces, "pieces", src.buf, k);
                    unequal += !pieces.equal;
                    structural_result_free(&pieces);
                } else {
                    assert_int_equal(rp, PGCI_EUNSUPPORTED);
                }
                if (rw == 0)
                    structural_result_free(&whole);
            }
            strbuf_free(&src);
            strbuf_free(&a);
            strbuf_free(&b);
            strbuf_free(&m);
        }
        strvec_free(&names);
    }
    fs_remove_tree(tmp.buf);
    strbuf_free(&tmp);

    /* the pieces were taken, and on differences as well as on equal files */
    assert_true(cases >= 300);
    assert_true(by_pieces >= cases / 2);
    assert_true(unequal >= by_pieces / 4);
}

/* The names findings of a read whole and as a forest against u, as JSON text;
 * NULL for the forest when it declines, and for both when a does not parse. */
static void names_both(const char *u, size_t ulen, const char *a, size_t alen, char **whole,
                       char **forest)
{
    *whole = *forest = NULL;
    py_tree ta, tu;
    assert_int_equal(py_parse(&ta, a, alen, "a.py"), 0);
    assert_int_equal(py_parse(&tu, u, ulen, "u.py"), 0);
    findings fw = FINDINGS_INIT, ff = FINDINGS_INIT;
    if (check_names_tree(&fw, &ta, "m", "a.py", NULL) < 0) {
        pgci_error_clear();
        findings_free(&fw);
        py_tree_free(&ta);
        py_tree_free(&tu);
        return;
    }
    json_t *j = findings_to_json(&fw);
    *whole = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    py_forest f;
    if (py_check_syntax(&tu) == 0 && py_forest_build(&f, a, alen, "a.py", &tu, NULL, 0) == 0) {
        assert_int_equal(check_names_forest(&ff, &f, "m", "a.py", NULL), 0);
        j = findings_to_json(&ff);
        *forest = json_dumps(j, JSON_COMPACT);
        json_decref(j);
        py_forest_free(&f);
    }
    pgci_error_clear();
    findings_free(&fw);
    findings_free(&ff);
    py_tree_free(&ta);
    py_tree_free(&tu);
}

/* One case of test_forest_like_whole: the regenerated a read as a forest against
 * u must give what a read whole gives, to the structural comparison with b and
 * to the names check. The forest is read whenever a parses without error and its
 * statements can be told without a parse; returns 1 when it was. */
static int forest_case(const char *u, size_t ul, const char *a, size_t al, const char *b, size_t bl,
                       const char *what, int k)
{
    structural_result whole, forest;
    int rw = structural_compare_whole(a, al, b, bl, &whole);
    if (rw < 0)
        pgci_error_clear();
    int rf = structural_compare_forest(u, ul, a, al, b, bl, &forest);
    if (rf == 0) {
        assert_int_equal(rw, 0);
        same_as_whole(&whole, &forest, "forest", what, k);
        structural_result_free(&forest);
    } else {
        assert_int_equal(rf, PGCI_EUNSUPPORTED);
    }
    if (rw == 0)
        structural_result_free(&whole);
    char *nw, *nf;
    names_both(u, ul, a, al, &nw, &nf);
    if (nf && strcmp(nw, nf))
        fail_msg("%s, case %d: names whole %s, forest %s", what, k, nw, nf);
    py_top *t = NULL;
    size_t n;
    int readable = nw && py_top_split(a, al, &t, &n) == 0 && n > 0;
    free(t);
    if (readable && !nf)
        fail_msg("%s, case %d: the forest declined a clean text", what, k);
    int taken = nf != NULL;
    free(nw);
    free(nf);
    return taken;
}

static void test_forest_like_whole(void **state)
{
    (void)state;
    /* classes parsed in part, with what the names check reads around their
     * statements: noqa comments between them, after the header, file-wide;
     * `global` in a class body; a decorated class; a nested class */
    const char *u = "import os\n\n\n@dec\nclass A(B):\n    x = 1\n\n    def f(self):\n"
                    "        return os\n\n    def g(self):\n        return 2\n\n\n"
                    "class C:\n    class D:\n        y = 1\n\n    z = 2\n";
    const char *as[] = {
        "import os\n\n\n@dec\nclass A(B):  # noqa: F821\n    x = 1\n    # noqa\n\n"
        "    def f(self):\n        return os\n\n    def h(self):\n        return q  # noqa: "
        "F821\n\n    def g(self):\n        return r\n\n\nclass C:\n    class D:\n        y = "
        "1\n\n    z = 2\n",
        "# ruff: noqa: F821\nimport os\nimport sys\n\n\n@dec\nclass A(B):\n    x = 1\n\n"
        "    def f(self):\n        return os\n\n    def g(self):\n        return w\n",
        "import os\n\n\n@dec\nclass A(B):\n    global G\n    x = 1\n\n    def f(self):\n"
        "        return os\n\n    def g(self):\n        return 2\n\n\nG = G + 1\n\n\n"
        "class C:\n    class D:\n        y = 1\n\n    z = 3\n    v = '''\n# noqa\n'''\n",
        "import os\n\n\n@dec\nclass A(B):\n    x = 1\n\n    def f(self):\n"
        "        return os\n\n    def g(self):\n        return 2\n\n\n"
        "class C:\n    class D:\n        y = 1\n\n    z = 2\n"};
    size_t taken = 0;
    for (size_t i = 0; i < sizeof(as) / sizeof(as[0]); i++)
        taken +=
            (size_t)forest_case(u, strlen(u), as[i], strlen(as[i]), u, strlen(u), "fixed", (int)i);
    assert_int_equal(taken, sizeof(as) / sizeof(as[0]));

    /* the fixture modules as upstream, their mutations as the regenerated file,
     * compared with ruff's rewrite of the module, the regenerated file itself or
     * a mutation of it */
    const char *ruff = getenv("PGCI_RUFF") ? getenv("PGCI_RUFF") : "build/deps/ruff";
    const char *dirs[] = {"fixtures/upstream/v1.0.0/transformers/models/llama",
                          "fixtures/upstream/v1.1.0/transformers/models/qwen3_moe"};
    strbuf tmp = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&tmp, "pgci-forest"), 0);
    unsigned seed = 25;
    size_t cases = 0;
    taken = 0;
    for (size_t d = 0; d < 2; d++) {
        strvec names = STRVEC_INIT;
        assert_int_equal(fs_list_dir(&names, dirs[d]), 0);
        for (size_t f = 0; f < names.len; f++) {
            if (!pgci_ends_with(names.items[f], ".py"))
                continue;
            strbuf src = STRBUF_INIT, up = STRBUF_INIT, b = STRBUF_INIT, a = STRBUF_INIT,
                   m = STRBUF_INIT;
            module_and_ruff(ruff, tmp.buf, dirs[d], names.items[f], &src, &up, &b);
            for (int k = 0; k < 60; k++) {
                /* one to three mutations of the module */
                mutate(&a, up.buf, up.len, &seed);
                for (int r = rand_r(&seed) % 3; r > 0; r--) {
                    mutate(&m, a.buf, a.len, &seed);
                    strbuf_reset(&a);
                    strbuf_add(&a, m.buf, m.len);
                }
                int side = k % 3;
                if (side == 2)
                    mutate(&m, a.buf, a.len, &seed);
                const char *y = side == 0 ? b.buf : side == 1 ? a.buf : m.buf;
                size_t yl = side == 0 ? b.len : side == 1 ? a.len : m.len;
                cases++;
                taken += (size_t)forest_case(up.buf, up.len, a.buf, a.len, y, yl, src.buf, k);
            }
            strbuf_free(&src);
            strbuf_free(&up);
            strbuf_free(&b);
            strbuf_free(&a);
            strbuf_free(&m);
        }
        strvec_free(&names);
    }
    fs_remove_tree(tmp.buf);
    strbuf_free(&tmp);
    assert_true(cases >= 300);
    assert_true(taken >= cases / 3);
}

/* Where a statement of forest f starting with `text` came from: 'd' the donor,
 * 'p' the forest's own parse, 'k' an earlier forest's (kin); 0 when none starts
 * so. Module-level statements and those of classes parsed in part. */
static char origin(const py_forest *f, const char *text)
{
    size_t n = strlen(text);
    for (int pass = 0; pass < 2; pass++) {
        const py_forest_stmt *v = pass ? f->members : f->tops;
        size_t len = pass ? f->nmembers : f->ntops;
        for (size_t i = 0; i < len; i++) {
            if (v[i].start + n > f->file.len || memcmp(f->file.src + v[i].start, text, n))
                continue;
            return v[i].t == f->donor ? 'd' : v[i].t == &f->parsed ? 'p' : 'k';
        }
    }
    return 0;
}

/* The names findings of a forest, as JSON text. */
static char *names_of_forest(const py_forest *f)
{
    findings fs = FINDINGS_INIT;
    assert_int_equal(check_names_forest(&fs, f, "m", "a.py", NULL), 0);
    json_t *j = findings_to_json(&fs);
    char *out = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    findings_free(&fs);
    return out;
}

/* a through the set as a forest against u: read as a whole parse of it is, by the
 * names check and the structural comparison with b. Returns the number of its
 * statements taken from kin; -1 when the forest declined. */
static int kin_case(py_parse_set *set, const char *u, size_t ul, const char *a, size_t al,
                    const char *b, size_t bl, const char *what, int k)
{
    const py_forest *f = py_parse_set_get_forest(set, a, al, "a.py", u, ul);
    if (!f) {
        pgci_error_clear();
        return -1;
    }
    char *nw, *nf;
    names_both(u, ul, a, al, &nw, &nf);
    char *nk = names_of_forest(f);
    if (!nw || strcmp(nw, nk))
        fail_msg("%s, case %d: names whole %s, forest with kin %s", what, k, nw ? nw : "-", nk);
    free(nw);
    free(nf);
    free(nk);
    int kin = 0;
    for (size_t i = 0; i < f->ntops + f->nmembers; i++) {
        const py_forest_stmt *st = i < f->ntops ? &f->tops[i] : &f->members[i - f->ntops];
        kin += st->t != f->donor && st->t != &f->parsed;
    }
    py_parse_set_release_forest(set, f);
    structural_result whole, got;
    assert_int_equal(structural_compare_whole(a, al, b, bl, &whole), 0);
    assert_int_equal(structural_compare_in(set, u, ul, a, al, b, bl, &got), 0);
    same_as_whole(&whole, &got, "with kin", what, k);
    structural_result_free(&whole);
    structural_result_free(&got);
    return kin;
}

/* Forests against one upstream module, through a parse set, share what they
 * parse: a second regenerated file takes from the first one's parse the
 * statements it has too (a helper, an overridden method), and reads as a whole
 * parse of it does; a statement upstream has as well stays upstream's. Then
 * chains of mutations of the fixture modules, each against the module, each
 * read through the forests of the ones before. */
static void test_forest_kin(void **state)
{
    (void)state;
    const char *u = "import os\n\n\nclass A:\n    def f(self):\n        return os\n\n"
                    "    def g(self):\n        return 1\n\n\nclass B:\n    x = 1\n\n"
                    "    def k(self):\n        return 5\n\n\ndef top():\n    return 2\n";
    const char *a1 = "import os\n\n\ndef h(x):\n    return x + missing\n\n\nclass A:\n"
                     "    def f(self):\n        return os\n\n    def g(self):\n"
                     "        return h(3)\n\n\nclass B(Base):\n    x = 1\n\n    def k(self):\n"
                     "        return 5\n\n\ndef top():\n    return 2\n";
    const char *a2 = "import os\nimport sys\n\n\ndef h(x):\n    return x + missing\n\n\n"
                     "class A:\n    def f(self):\n        return sys\n\n    def g(self):\n"
                     "        return h(3)\n\n\nclass B(Base):\n    x = 1\n\n    def k(self):\n"
                     "        return 5\n\n    def n(self):\n        return 6\n\n\n"
                     "def top():\n    return 2\n";
    py_parse_set *set = py_parse_set_new();
    const py_forest *f1 = py_parse_set_get_forest(set, a1, strlen(a1), "a1.py", u, strlen(u));
    assert_non_null(f1);
    assert_int_equal(origin(f1, "def h"), 'p');
    assert_int_equal(origin(f1, "def g"), 'p');
    assert_int_equal(origin(f1, "x = 1"), 'p'); /* a class parsed in part keeps one */
    py_parse_set_release_forest(set, f1);
    const py_forest *f2 = py_parse_set_get_forest(set, a2, strlen(a2), "a2.py", u, strlen(u));
    assert_non_null(f2);
    assert_int_equal(origin(f2, "import os"), 'd');
    assert_int_equal(origin(f2, "import sys"), 'p');
    assert_int_equal(origin(f2, "def h"), 'k');
    assert_int_equal(origin(f2, "def f"), 'p');
    assert_int_equal(origin(f2, "def g"), 'k');
    assert_int_equal(origin(f2, "x = 1"), 'd'); /* in a1's parse too */
    assert_int_equal(origin(f2, "def n"), 'p');
    assert_int_equal(origin(f2, "def top"), 'd');
    py_parse_set_release_forest(set, f2);
    assert_int_equal(kin_case(set, u, strlen(u), a2, strlen(a2), a1, strlen(a1), "fixed", 0), 2);
    py_parse_set_free(set);

    const char *dirs[] = {"fixtures/upstream/v1.0.0/transformers/models/llama",
                          "fixtures/upstream/v1.1.0/transformers/models/qwen3_moe"};
    unsigned seed = 31;
    size_t cases = 0, with_kin = 0;
    for (size_t d = 0; d < 2; d++) {
        strvec names = STRVEC_INIT;
        assert_int_equal(fs_list_dir(&names, dirs[d]), 0);
        for (size_t f = 0; f < names.len; f++) {
            if (!pgci_ends_with(names.items[f], ".py"))
                continue;
            strbuf path = STRBUF_INIT, up = STRBUF_INIT, a = STRBUF_INIT, m = STRBUF_INIT;
            fs_join(&path, dirs[d], names.items[f]);
            assert_int_equal(fs_read_file(&up, path.buf, 0), 0);
            set = py_parse_set_new();
            char *kept[40];
            size_t nkept = 0;
            /* each text one or two mutations from the last one read as a forest
             * (a mutation to a text the forest declines, a syntax error, is
             * undone): most of what the forest parses, an earlier forest parsed */
            strbuf_add(&a, up.buf, up.len);
            for (int k = 0; k < 40; k++) {
                for (int r = 1 + rand_r(&seed) % 2; r > 0; r--) {
                    mutate(&m, a.buf, a.len, &seed);
                    strbuf_reset(&a);
                    strbuf_add(&a, m.buf, m.len);
                }
                kept[nkept] = pgci_strdup(a.buf); /* a source is its buffer in the set */
                int kin =
                    kin_case(set, up.buf, up.len, kept[nkept], a.len, up.buf, up.len, path.buf, k);
                if (kin < 0) {
                    strbuf_reset(&a);
                    strbuf_adds(&a, nkept ? kept[nkept - 1] : up.buf);
                    free(kept[nkept]);
                    continue;
                }
                nkept++;
                cases++;
                with_kin += kin > 0;
            }
            py_parse_set_free(set);
            for (size_t k = 0; k < nkept; k++)
                free(kept[k]);
            strbuf_free(&path);
            strbuf_free(&up);
            strbuf_free(&a);
            strbuf_free(&m);
        }
        strvec_free(&names);
    }
    assert_true(cases >= 80);
    assert_true(with_kin >= cases / 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formatting_ignored), cmocka_unit_test(test_imports),
        cmocka_unit_test(test_real_differences),   cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_ruff_oracle),        cmocka_unit_test(test_def_bodies_from_trees),
        cmocka_unit_test(test_local_annotations),  cmocka_unit_test(test_pieces_like_whole),
        cmocka_unit_test(test_forest_like_whole),  cmocka_unit_test(test_forest_kin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
