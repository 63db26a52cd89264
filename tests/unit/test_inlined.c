/* Unit tests for checks/inlined.c: one-use temporaries written in place, and
 * every near miss where doing so could change when Python evaluates what. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "checks/inlined.h"
#include "core/error.h"
#include "py/py.h"

/* The rewrite of def; the count of folds into *n. Each output must be Python. */
static char *rewrite(const char *def, int *n)
{
    strbuf out = STRBUF_INIT;
    *n = inlined_temporaries(&out, def, strlen(def));
    if (*n >= 0) {
        py_tree t;
        assert_int_equal(py_parse(&t, out.buf, out.len, "out.py"), 0);
        assert_int_equal(py_check_syntax(&t), 0);
        py_tree_free(&t);
    }
    return strbuf_detach(&out, NULL);
}

static void folds_to(const char *def, int want_n, const char *want)
{
    int n;
    char *got = rewrite(def, &n);
    assert_int_equal(n, want_n);
    assert_string_equal(got, want);
    free(got);
}

static void stays(const char *def)
{
    folds_to(def, 0, def);
}

/* transformers 5.24.0's Qwen2-VL get_image_features, as a method's text starts
 * (its body indented as in the class): the temporary and its comment go */
static void test_inlined_real_shape(void **state)
{
    (void)state;
    folds_to("def get_image_features(self, pixel_values, grid):\n"
             "        split_sizes = (grid.prod(-1) // 4).tolist()\n"
             "        image_embeds = torch.split(out.pooler_output, split_sizes)  # per image\n"
             "        out.pooler_output = image_embeds\n"
             "        return out\n",
             1,
             "def get_image_features(self, pixel_values, grid):\n"
             "        split_sizes = (grid.prod(-1) // 4).tolist()\n"
             "        out.pooler_output = (torch.split(out.pooler_output, split_sizes))\n"
             "        return out\n");
}

/* a return, a callee before the read, keyword values, a chain in two rounds, a
 * decorated def, a nested block, a value over several lines */
static void test_inlined_folds(void **state)
{
    (void)state;
    folds_to("def f(self, h):\n    y = self.norm(h)\n    return y\n", 1,
             "def f(self, h):\n    return (self.norm(h))\n");
    folds_to("def f(self, h):\n    y = norm(h)\n    return self.proj(y, scale=2, bias=b)\n", 1,
             "def f(self, h):\n    return self.proj((norm(h)), scale=2, bias=b)\n");
    folds_to("def f(h):\n    y = g(h)\n    return k(h, 1, 'a', None, w=y)\n", 1,
             "def f(h):\n    return k(h, 1, 'a', None, w=(g(h)))\n");
    folds_to("def f(h):\n    a = g(h)\n    b = k(a)\n    return m(b)\n", 2,
             "def f(h):\n    return m((k((g(h)))))\n");
    folds_to("@dec\ndef f(h):\n    if h:\n        a = g(h)\n        out = a[0] + 1\n    return h\n",
             1, "@dec\ndef f(h):\n    if h:\n        out = (g(h))[0] + 1\n    return h\n");
    folds_to("def f(h):\n    a = g(\n        h,\n        2,\n    )\n    return a.x\n", 1,
             "def f(h):\n    return (g(\n        h,\n        2,\n    )).x\n");
    folds_to("def f(h):\n    a = h, 1\n    return k(a)\n", 1, "def f(h):\n    return k((h, 1))\n");
    folds_to("def f(h):\n    a = g(h)\n    return a and h\n", 1,
             "def f(h):\n    return (g(h)) and h\n");
    folds_to("def f(h):\n    a = g(h)\n    return h + a\n", 1,
             "def f(h):\n    return h + (g(h))\n");
    folds_to("def f(h):\n    a = g(h)\n    x = y = a\n    return x + y\n", 1,
             "def f(h):\n    x = y = (g(h))\n    return x + y\n");
    /* an earlier round's fold, in parentheses, is still a name before the read
     * (transformers 5.24.0's GIT model: `hidden_states = embedding_output`) */
    folds_to("def f(self, e):\n    m = mask(e)\n    h = e\n    return self.enc(h, m=m)\n", 2,
             "def f(self, e):\n    return self.enc((e), m=(mask(e)))\n");
    folds_to("def f(h):\n    a = g(h)\n    return k('x' 'y', a)\n", 1,
             "def f(h):\n    return k('x' 'y', (g(h)))\n");
    folds_to("def f(h):\n    a = g(h)\n    return h[0, a]\n", 1,
             "def f(h):\n    return h[0, (g(h))]\n");
}

/* what would move E past something it may change, run it more or fewer times, or
 * change what a name means */
static void test_inlined_near_misses(void **state)
{
    (void)state;
    /* a read twice stays; b, read once after a local name, goes */
    folds_to("def f(h):\n    a = g(h)\n    b = k(a)\n    return a + b\n", 1,
             "def f(h):\n    a = g(h)\n    return a + (k(a))\n");
    stays("def f(h):\n    a = g(h)\n    h = 1\n    return k(a)\n");    /* not next */
    stays("def f(h):\n    a = g(h)\n    return [a for _ in h]\n");     /* a comprehension */
    stays("def f(h):\n    a = g(h)\n    return lambda: a\n");          /* a lambda */
    stays("def f(h):\n    a = g(h)\n    return h if h else a\n");      /* conditional */
    stays("def f(h):\n    a = g(h)\n    return h or a\n");             /* short-circuit */
    stays("def f(h):\n    a = g(h)\n    return k(m(), a)\n");          /* a call first */
    stays("def f(self, h):\n    a = g(h)\n    return k(self.w, a)\n"); /* an attribute first */
    stays("def f(h):\n    a = g(h)\n    return m()(a)\n");             /* a callee called */
    stays("def f(h):\n    a = g(h)\n    return m() + a\n");            /* left operand a call */
    stays("def f(h):\n    a = g(h)\n    h[a] = 1\n");                  /* in a target */
    stays("def f(h):\n    a: int = g(h)\n    return a\n");             /* annotated */
    stays("def f(h):\n    a = g(h); return a\n");                      /* one line */
    stays("def f(a):\n    a = g(a)\n    return a\n");                  /* a parameter */
    stays("def f(h):\n    global a\n    a = g(h)\n    return a\n");    /* global */
    stays("def f(h):\n    a = g(h)\n    a += 1\n");                    /* augmented */
    stays("def f(h):\n    a = g(h)\n    for x in a:\n        pass\n"); /* a compound next */
    stays("def f(h):\n    a = b = g(h)\n    return a\n");              /* chained targets */
    stays("def f(h):\n    a, b = g(h)\n    return a\n");               /* unpacking */
    stays("def f(h):\n    a = g(h)\n    return f'{a}'\n");             /* in an f-string */
    stays("def f(h):\n    a = g(h)\n    return h < a < 3\n");          /* a chain compared */
    stays("def f(h):\n    a = g(h)\n    return h[m(), a]\n");          /* an index first */
    stays("def f(h):\n    a = g(h)\n    m(), a\n");                    /* a tuple statement */
    stays("def f(h):\n    a = g(h)\n    return k(f'{h}', a)\n");       /* an f-string first */
    stays("def f(h):\n    a = g(h)\n    return k(*h, a)\n");           /* a splat first */
    stays("def f(h):\n    a = g(h)\n    return k(a=h)\n");             /* a keyword, not a */
    stays("def f(h):\n    a = g(h)\n    return h.a\n");                /* an attribute, not a */
    stays("class A:\n    a = g()\n    b = a\n");                       /* not a function */
}

/* Read from a parsed module, a method says what its text alone says: folds (a
 * chain among them, over rounds), none, and a span that is no function. */
static void test_inlined_in_module(void **state)
{
    (void)state;
    static const char src[] = "import torch\n"
                              "class VL:\n"
                              "    @dec\n"
                              "    def feats(self, x):\n"
                              "        a = self.visual(x)\n"
                              "        b = torch.split(a, 2)  # note\n"
                              "        return self.merge(b)\n"
                              "\n"
                              "    def other(self, x):\n"
                              "        y = self.visual(x)\n"
                              "        return y + y\n";
    py_tree t;
    assert_int_equal(py_parse(&t, src, strlen(src), "m.py"), 0);
    const char *defs[] = {strstr(src, "    @dec") + 4, strstr(src, "def other")};
    const char *ends[] = {strstr(src, "\n\n") + 1, src + strlen(src)};
    const int want[] = {2, 0};
    for (int i = 0; i < 2; i++) {
        uint32_t start = (uint32_t)(defs[i] - src), end = (uint32_t)(ends[i] - src);
        strbuf alone = STRBUF_INIT, at = STRBUF_INIT;
        assert_int_equal(inlined_temporaries(&alone, defs[i], end - start), want[i]);
        assert_int_equal(inlined_temporaries_at(&at, &t, start, end), want[i]);
        assert_string_equal(at.buf, alone.buf);
        strbuf_free(&alone);
        strbuf_free(&at);
    }
    strbuf out = STRBUF_INIT;
    assert_int_equal(inlined_temporaries_at(&out, &t, 0, 12), 0); /* `import torch` */
    assert_string_equal(out.buf, "import torch");
    assert_true(inlined_temporaries_at(&out, &t, 5, (uint32_t)strlen(src) + 1) < 0);
    assert_true(inlined_temporaries_at(&out, &t, 9, 3) < 0);
    assert_string_equal(out.buf, "import torch"); /* untouched */
    pgci_error_clear();
    strbuf_free(&out);
    py_tree_free(&t);
}

static void test_inlined_not_python(void **state)
{
    (void)state;
    strbuf out = STRBUF_INIT;
    strbuf_adds(&out, "kept");
    assert_true(inlined_temporaries(&out, "def f(:\n    a = 1\n", 19) < 0);
    assert_string_equal(out.buf, "kept");
    pgci_error_clear();
    strbuf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inlined_real_shape),  cmocka_unit_test(test_inlined_folds),
        cmocka_unit_test(test_inlined_near_misses), cmocka_unit_test(test_inlined_in_module),
        cmocka_unit_test(test_inlined_not_python),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
