/* Unit tests for src/py/reparse: an incremental re-parse gives the tree a fresh
 * parse gives, for edits at the start, in the middle, at the end, that change the
 * indentation (Python's external scanner), that introduce and remove a syntax
 * error, and for a text that shares nothing with the old one; and so does the
 * line-matched re-parse, for many random edits of every fixture module at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fs.h"
#include "core/strbuf.h"

#include "py/py.h"
#include "py/reparse.h"

static void same_as_fresh(py_tree *t, const char *next)
{
    assert_int_equal(py_reparse(t, next, strlen(next)), 0);
    assert_string_equal(t->src, next);
    py_tree fresh;
    assert_int_equal(py_parse(&fresh, next, strlen(next), "<fresh>"), 0);
    char *a = ts_node_string(py_root(t)), *b = ts_node_string(py_root(&fresh));
    assert_string_equal(a, b);
    free(a);
    free(b);
    py_tree_free(&fresh);
}

/* Every node of a and b at the same bytes and points (ts_node_string shows
 * neither). */
static void assert_same_positions(TSNode a, TSNode b)
{
    TSTreeCursor ca = ts_tree_cursor_new(a), cb = ts_tree_cursor_new(b);
    for (;;) {
        TSNode x = ts_tree_cursor_current_node(&ca), y = ts_tree_cursor_current_node(&cb);
        assert_int_equal(ts_node_start_byte(x), ts_node_start_byte(y));
        assert_int_equal(ts_node_end_byte(x), ts_node_end_byte(y));
        assert_int_equal(ts_node_start_point(x).row, ts_node_start_point(y).row);
        assert_int_equal(ts_node_start_point(x).column, ts_node_start_point(y).column);
        assert_int_equal(ts_node_end_point(x).row, ts_node_end_point(y).row);
        assert_int_equal(ts_node_end_point(x).column, ts_node_end_point(y).column);
        if (ts_tree_cursor_goto_first_child(&ca)) {
            assert_true(ts_tree_cursor_goto_first_child(&cb));
            continue;
        }
        int up = 0;
        while (!ts_tree_cursor_goto_next_sibling(&ca)) {
            assert_false(ts_tree_cursor_goto_next_sibling(&cb));
            if (!ts_tree_cursor_goto_parent(&ca)) {
                up = -1;
                break;
            }
            assert_true(ts_tree_cursor_goto_parent(&cb));
        }
        if (up < 0)
            break;
        assert_true(ts_tree_cursor_goto_next_sibling(&cb));
    }
    ts_tree_cursor_delete(&ca);
    ts_tree_cursor_delete(&cb);
}

static void assert_same_tree(const py_tree *t, const char *src, size_t len)
{
    py_tree fresh;
    assert_int_equal(py_parse(&fresh, src, len, "<fresh>"), 0);
    assert_int_equal(t->len, len);
    assert_memory_equal(t->src, src, len);
    char *a = ts_node_string(py_root(t)), *b = ts_node_string(py_root(&fresh));
    assert_string_equal(a, b);
    assert_same_positions(py_root(t), py_root(&fresh));
    free(a);
    free(b);
    py_tree_free(&fresh);
}

/* A broken module, cut down from a transformers one, around the line the test
 * doubles. */
#define BROKEN_HEAD                                                                                \
    "    custom_intro=\"\"\"\n"                                                                    \
    "    \"\"\"\n"                                                                                 \
    "    def __init__(self, config, add_pooling_layer=True):\n"                                    \
    "    def forward(\n"                                                                           \
    "    ) -> tuple[torch.Tensor] | BaseModelOutputWithPoolingAndCrossAttentions:\n"               \
    "        embedding_output = self.embeddings(\n"
#define BROKEN_TAIL                                                                                \
    "        )\n"                                                                                  \
    "        return BaseModelOutputWithPoolingAndCrossAttentions(\n"                               \
    "        )\n"                                                                                  \
    "    def _create_attention_masks(\n"                                                           \
    "    ):\n"                                                                                     \
    "        if self.config.is_decoder:\n"                                                         \
    "            attention_mask = create_causal_mask(\n"                                           \
    "            )\n"                                                                              \
    "        else:\n"                                                                              \
    "            attention_mask = create_bidirectional_mask(\n"                                    \
    "            )\n"

static void test_lines_small(void **state)
{
    (void)state;
    const char *pairs[][2] = {
        {"", ""},
        {"", "x = 1\n"},
        {"x = 1\n", ""},
        {"x = 1", "x = 1\ny = 2"},          /* no final newline, either side */
        {"x = 1\ny = 2", "x = 1\ny = 3\n"}, /* the last line changes */
        {"import b\nimport a\n\nx = 1\n", "import a\nimport b\n\nx = 1\n"},
        {"def f(a,b):\n  return (a+b)\n\n\nclass A:\n  pass\n",
         "def f(a, b):\n    return a + b\n\n\nclass A:\n    pass\n"},
        {"class A:\n    def f(self):\n        return 1\n",
         "class A:\n    def f(self):\n    return 1\n"},     /* a syntax error */
        {"a = 1\nb = 2\nc = 3\n", "c = 3\nb = 2\na = 1\n"}, /* moved lines */
        /* lines of one length, another shape: matched by their bytes */
        {"x = 1\ny = (2)\nz = 3\n", "w = 0\ny = [2]\nz = 3\n"},
        {"x = (2)\nq = 1\nz = 3\n", "x = [2]\nq = 1\nz = 3\n"},
        /* broken text (cut down from a transformers module with a line doubled):
         * error recovery from a reused tree differs from a fresh parse's */
        {BROKEN_HEAD BROKEN_TAIL,
         BROKEN_HEAD "        embedding_output = self.embeddings(\n" BROKEN_TAIL},
    };
    for (size_t i = 0; i < sizeof(pairs) / sizeof(*pairs); i++) {
        py_tree t;
        assert_int_equal(py_parse(&t, pairs[i][0], strlen(pairs[i][0]), "<old>"), 0);
        assert_int_equal(py_reparse_lines(&t, pairs[i][1], strlen(pairs[i][1])), 0);
        assert_same_tree(&t, pairs[i][1], strlen(pairs[i][1]));
        py_tree_free(&t);
        /* py_parse_near leaves the tree it starts from as it was */
        py_tree near, n2;
        assert_int_equal(py_parse(&near, pairs[i][0], strlen(pairs[i][0]), "<near>"), 0);
        assert_int_equal(py_parse_near(&n2, pairs[i][1], strlen(pairs[i][1]), "<new>", &near), 0);
        assert_same_tree(&n2, pairs[i][1], strlen(pairs[i][1]));
        assert_same_tree(&near, pairs[i][0], strlen(pairs[i][0]));
        py_tree_free(&n2);
        py_tree_free(&near);
    }
}

/* A few lines of src changed at random: deleted, doubled, re-indented, swapped
 * with the next, or replaced by a line from elsewhere. */
static void mutate_lines(strbuf *out, const char *src, size_t len, unsigned *seed)
{
    const char *p = src, *end = src + len, *prev = src;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        size_t n = e ? (size_t)(e - p) + 1 : (size_t)(end - p);
        int r = rand_r(seed) % 40;
        if (r == 0)
            ; /* deleted */
        else if (r == 1)
            strbuf_add(out, p, n), strbuf_add(out, p, n);
        else if (r == 2)
            strbuf_adds(out, "  "), strbuf_add(out, p, n);
        else if (r == 3)
            strbuf_add(out, prev, (size_t)(p - prev)), strbuf_add(out, p, n);
        else
            strbuf_add(out, p, n);
        prev = p;
        p += n;
    }
}

static void test_lines_fixtures(void **state)
{
    (void)state;
    static const char *const files[] = {
        "fixtures/upstream/v1.0.0/transformers/models/llama/modeling_llama.py",
        "fixtures/upstream/v1.0.0/transformers/processing_utils.py",
        "fixtures/upstream/v1.0.0/transformers/configuration_utils.py",
    };
    unsigned seed = 18;
    for (size_t f = 0; f < sizeof(files) / sizeof(*files); f++) {
        strbuf src = STRBUF_INIT;
        assert_int_equal(fs_read_file(&src, files[f], 0), 0);
        py_tree t;
        assert_int_equal(py_parse(&t, src.buf, src.len, files[f]), 0);
        for (int round = 0; round < 20; round++) {
            strbuf next = STRBUF_INIT;
            mutate_lines(&next, t.src, t.len, &seed);
            assert_int_equal(py_reparse_lines(&t, next.buf, next.len), 0);
            assert_same_tree(&t, next.buf, next.len);
            strbuf_free(&next);
        }
        py_tree_free(&t);
        strbuf_free(&src);
    }
}

static void test_edits(void **state)
{
    (void)state;
    const char *steps[] = {
        "class A:\n    def f(self):\n        return 1\n",
        "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        pass\n",
        "class A:\n    x = 2\n    def f(self):\n        return 1\n\n    def g(self):\n        "
        "pass\n",
        "class A:\n    x = 2\n    def f(self):\n        if x:\n            return 1\n"
        "        return 2\n\n    def g(self):\n        pass\n",
        "class A:\n    x = 2\n    def f(self):\n    return 1\n",     /* a syntax error */
        "class A:\n    x = 2\n    def f(self):\n        return 1\n", /* and back */
        "@dec\nclass A:\n\tdef f(self):\n\t\treturn 1  # tabs\n",
        "def totally_other():\n    ...\n",
        "",
        "class B(A):\n    pass\n",
    };
    py_tree t;
    assert_int_equal(py_parse(&t, steps[0], strlen(steps[0]), "<class>"), 0);
    for (size_t i = 1; i < sizeof(steps) / sizeof(*steps); i++)
        same_as_fresh(&t, steps[i]);
    py_tree_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edits),
        cmocka_unit_test(test_lines_small),
        cmocka_unit_test(test_lines_fixtures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
