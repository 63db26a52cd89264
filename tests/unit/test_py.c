/* Unit tests for src/py: the tree-sitter wrapper over the pinned Python grammar,
 * and the parse set that shares a run's trees. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/sha256.h"
#include "py/parse_set.h"
#include "py/py.h"
#include "py/pysrc.h"

static void test_parse_function(void **state)
{
    (void)state;
    const char *src = "@auto_docstring\ndef f(x, *, y: int = 3) -> int:\n    return x\n";
    py_tree t;
    assert_int_equal(py_parse(&t, src, strlen(src), "m.py"), 0);
    TSNode root = py_root(&t);
    assert_string_equal(ts_node_type(root), "module");
    TSNode dec = ts_node_named_child(root, 0);
    assert_true(py_is(dec, "decorated_definition"));
    TSNode def = py_field(dec, "definition");
    assert_true(py_is(def, "function_definition"));
    assert_true(py_text_eq(&t, py_field(def, "name"), "f"));
    assert_int_equal(py_line(def), 2);
    assert_int_equal(py_check_syntax(&t), 0);
    py_tree_free(&t);
}

static void test_syntax_error(void **state)
{
    (void)state;
    const char *src = "x = 1\ndef (:\n";
    py_tree t;
    assert_int_equal(py_parse(&t, src, strlen(src), "bad.py"), 0);
    assert_int_equal(py_check_syntax(&t), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "bad.py:2:"));
    py_tree_free(&t);
}

static void test_html_is_not_python(void **state)
{
    (void)state;
    const char *src = "<!DOCTYPE html>\n<html><body>Not Found</body></html>\n";
    py_tree t;
    assert_int_equal(py_parse(&t, src, strlen(src), "page.py"), 0);
    assert_int_equal(py_check_syntax(&t), PGCI_EINVALID);
    py_tree_free(&t);
}

static size_t parses_of(py_parse_set *s)
{
    size_t parses, reused;
    py_parse_set_counts(s, &parses, &reused);
    return parses;
}

/* A forgotten tree: a copy still out stays whole until released, the next
 * request parses again; forgetting what the set never had does nothing. */
/* universal newlines as Python reads a source: \r\n and a lone \r become \n, at
 * the start, the end and side by side; text without \r is copied as it is */
/* A buffer asked for again is found by its address, its bytes compared: the same
 * buffer rewritten in place with other bytes of the same length is another text,
 * and a copy of the bytes elsewhere is the same one */
static void test_parse_set_same_buffer_new_bytes(void **state)
{
    (void)state;
    char buf[] = "x = 1\n";
    py_parse_set *s = py_parse_set_new();
    py_tree t;
    assert_int_equal(py_parse_set_get(s, buf, strlen(buf), "a.py", &t), 0);
    py_parse_set_release(&t);
    assert_int_equal(py_parse_set_get(s, buf, strlen(buf), "a.py", &t), 0);
    py_parse_set_release(&t);
    assert_int_equal(parses_of(s), 1);
    buf[0] = 'y';
    assert_int_equal(py_parse_set_get(s, buf, strlen(buf), "a.py", &t), 0);
    TSNode stmt = ts_node_named_child(py_root(&t), 0);
    TSNode assign = ts_node_named_child(stmt, 0);
    assert_true(py_text_eq(&t, py_field(assign, "left"), "y"));
    py_parse_set_release(&t);
    assert_int_equal(parses_of(s), 2);
    char copy[] = "y = 1\n";
    assert_int_equal(py_parse_set_get(s, copy, strlen(copy), "b.py", &t), 0);
    py_parse_set_release(&t);
    assert_int_equal(parses_of(s), 2);
    /* forgetting through the rewritten buffer forgets the text it now holds */
    py_parse_set_forget(s, buf, strlen(buf));
    assert_int_equal(py_parse_set_get(s, copy, strlen(copy), "b.py", &t), 0);
    py_parse_set_release(&t);
    assert_int_equal(parses_of(s), 3);
    py_parse_set_free(s);
}

/* The digest a set keyed a tree by is the SHA-256 of the bytes: given for a
 * buffer it parsed (and for a copy of it once asked for), refused for bytes it
 * never parsed, for a buffer rewritten since, and for a tree forgotten. */
static void test_parse_set_digest(void **state)
{
    (void)state;
    char buf[] = "x = 1\n", copy[] = "x = 1\n", want[SHA256_HEX_LEN + 1];
    char got[SHA256_HEX_LEN + 1];
    py_parse_set *s = py_parse_set_new();
    assert_int_equal(py_parse_set_digest(s, buf, strlen(buf), got), -1);
    py_tree t;
    assert_int_equal(py_parse_set_get(s, buf, strlen(buf), "a.py", &t), 0);
    py_parse_set_release(&t);
    sha256_hex(buf, strlen(buf), want);
    memset(got, 0, sizeof(got));
    assert_int_equal(py_parse_set_digest(s, buf, strlen(buf), got), 0);
    assert_string_equal(got, want);
    /* a copy is known by its address only once it was asked for */
    assert_int_equal(py_parse_set_digest(s, copy, strlen(copy), got), -1);
    assert_int_equal(py_parse_set_get(s, copy, strlen(copy), "b.py", &t), 0);
    py_parse_set_release(&t);
    assert_int_equal(py_parse_set_digest(s, copy, strlen(copy), got), 0);
    assert_string_equal(got, want);
    buf[0] = 'y';
    assert_int_equal(py_parse_set_digest(s, buf, strlen(buf), got), -1);
    py_parse_set_forget(s, copy, strlen(copy));
    assert_int_equal(py_parse_set_digest(s, copy, strlen(copy), got), -1);
    py_parse_set_free(s);
}

static size_t reused_of(py_parse_set *s)
{
    size_t parses, reused;
    py_parse_set_counts(s, &parses, &reused);
    return reused;
}

/* The text of the name the first statement `NAME = ...` of t binds. */
static int binds(const py_tree *t, const char *name)
{
    TSNode stmt = ts_node_named_child(py_root(t), 0);
    return py_text_eq(t, py_field(ts_node_named_child(stmt, 0), "left"), name);
}

/* Two paired sets (a survey's tags): bytes one holds parsed are the other's
 * without a parse, from either side, through buffers of their own; what only one
 * side has is parsed there; a tree taken from the twin outlives the twin (its
 * source is the set's own copy); and once the twin is gone, a set parses alone. */
static void test_parse_set_pair(void **state)
{
    (void)state;
    char a1[] = "x = 1\n", b1[] = "x = 1\n";         /* at both tags */
    char a2[] = "y = 2\n", b2[] = "y = 3\n";         /* changed by the bump */
    char b3[] = "z = 4\n", a3[] = "z = 4\n";         /* at both, B's asked first */
    char late_b[] = "w = 5\n", late_a[] = "w = 5\n"; /* asked of B after A went */
    py_parse_set *a = py_parse_set_new(), *b = py_parse_set_new();
    py_parse_set_pair(a, b);
    py_tree t, kept;
    assert_int_equal(py_parse_set_get(a, a1, strlen(a1), "a/m.py", &t), 0);
    py_parse_set_release(&t);
    assert_int_equal(py_parse_set_get(b, b1, strlen(b1), "b/m.py", &kept), 0);
    assert_int_equal(parses_of(b), 0);
    assert_int_equal(reused_of(b), 1);
    assert_ptr_not_equal(kept.src, b1);
    assert_string_equal(kept.path, "b/m.py");
    char hex[SHA256_HEX_LEN + 1], want[SHA256_HEX_LEN + 1];
    sha256_hex(b1, strlen(b1), want);
    assert_int_equal(py_parse_set_digest(b, b1, strlen(b1), hex), 0);
    assert_string_equal(hex, want);
    assert_int_equal(py_parse_set_get(a, a2, strlen(a2), "a/n.py", &t), 0);
    py_parse_set_release(&t);
    assert_int_equal(py_parse_set_get(b, b2, strlen(b2), "b/n.py", &t), 0);
    assert_true(binds(&t, "y"));
    TSNode assign = ts_node_named_child(ts_node_named_child(py_root(&t), 0), 0);
    assert_true(py_text_eq(&t, py_field(assign, "right"), "3"));
    py_parse_set_release(&t);
    assert_int_equal(parses_of(b), 1);
    assert_int_equal(py_parse_set_get(b, b3, strlen(b3), "b/o.py", &t), 0);
    py_parse_set_release(&t);
    assert_int_equal(py_parse_set_get(a, a3, strlen(a3), "a/o.py", &t), 0);
    assert_true(binds(&t, "z"));
    py_parse_set_release(&t);
    assert_int_equal(parses_of(a), 2);
    assert_int_equal(reused_of(a), 1);
    /* a forgotten tree is not the twin's to take */
    py_parse_set_forget(a, a2, strlen(a2));
    char b2again[] = "y = 2\n";
    assert_int_equal(py_parse_set_get(b, b2again, strlen(b2again), "b/n2.py", &t), 0);
    py_parse_set_release(&t);
    assert_int_equal(parses_of(b), 3);
    assert_int_equal(py_parse_set_get(a, late_a, strlen(late_a), "a/p.py", &t), 0);
    py_parse_set_release(&t);
    py_parse_set_free(a);
    assert_true(binds(&kept, "x"));
    assert_int_equal(ts_node_end_byte(py_root(&kept)), strlen(b1));
    py_parse_set_release(&kept);
    assert_int_equal(py_parse_set_get(b, late_b, strlen(late_b), "b/p.py", &t), 0);
    assert_true(binds(&t, "w"));
    py_parse_set_release(&t);
    assert_int_equal(parses_of(b), 4);
    py_parse_set_free(b);
}

/* Both sides of a pair asked for the same sources at once, in opposite orders,
 * as a survey's fetch validates its two tags: every tree is whole and right
 * (the sanitizers watch the locking), and no source is parsed more than twice. */
enum { PAIR_SOURCES = 64 };
typedef struct pair_side {
    py_parse_set *set;
    char src[PAIR_SOURCES][48];
    int reverse, wrong;
} pair_side;

static void *pair_side_main(void *arg)
{
    pair_side *p = arg;
    for (int k = 0; k < PAIR_SOURCES; k++) {
        int i = p->reverse ? PAIR_SOURCES - 1 - k : k;
        py_tree t;
        char name[16];
        snprintf(name, sizeof(name), "v%d", i);
        if (py_parse_set_get(p->set, p->src[i], strlen(p->src[i]), "m.py", &t) != 0 ||
            !binds(&t, name))
            p->wrong++;
        else
            py_parse_set_release(&t);
    }
    return NULL;
}

static void test_parse_set_pair_threads(void **state)
{
    (void)state;
    static pair_side sides[2];
    py_parse_set *a = py_parse_set_new(), *b = py_parse_set_new();
    py_parse_set_pair(a, b);
    for (int s = 0; s < 2; s++) {
        sides[s].set = s ? b : a;
        sides[s].reverse = s;
        sides[s].wrong = 0;
        for (int i = 0; i < PAIR_SOURCES; i++)
            snprintf(sides[s].src[i], sizeof(sides[s].src[i]), "v%d = [%d] * %d\n", i, i, i);
    }
    pthread_t th[2];
    for (int s = 0; s < 2; s++)
        assert_int_equal(pthread_create(&th[s], NULL, pair_side_main, &sides[s]), 0);
    for (int s = 0; s < 2; s++)
        pthread_join(th[s], NULL);
    assert_int_equal(sides[0].wrong + sides[1].wrong, 0);
    size_t parses = parses_of(a) + parses_of(b), reused = reused_of(a) + reused_of(b);
    assert_int_equal(parses + reused, 2 * PAIR_SOURCES);
    assert_true(parses >= PAIR_SOURCES);
    py_parse_set_free(b);
    py_parse_set_free(a);
}

static void test_prepare_newlines(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {{"a = 1\nb = 2\n", "a = 1\nb = 2\n"},
                 {"a\r\nb\rc\n", "a\nb\nc\n"},
                 {"\r\r\n\n\r", "\n\n\n\n"},
                 {"x\r", "x\n"},
                 {"\r\nx", "\nx"},
                 {"", ""}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        strbuf b = STRBUF_INIT;
        strbuf_adds(&b, "#");
        assert_int_equal(pysrc_prepare(&b, cases[i].in, strlen(cases[i].in), "t.py"), 0);
        assert_int_equal(b.len, 1 + strlen(cases[i].out));
        assert_memory_equal(b.buf + 1, cases[i].out, b.len - 1);
        strbuf_free(&b);
    }
}

static void test_parse_set_forget(void **state)
{
    (void)state;
    const char *a = "def f(x):\n    return x\n", *b = "y = 2\n";
    py_parse_set *s = py_parse_set_new();
    py_parse_set_forget(s, b, strlen(b));
    py_tree t1, t2;
    assert_int_equal(py_parse_set_get(s, a, strlen(a), "a.py", &t1), 0);
    assert_int_equal(py_parse_set_get(s, a, strlen(a), "a.py", &t2), 0);
    assert_int_equal(parses_of(s), 1);
    py_parse_set_forget(s, a, strlen(a));
    py_parse_set_release(&t1);
    /* t2 is still a whole tree over its source */
    TSNode def = ts_node_named_child(py_root(&t2), 0);
    assert_true(py_is(def, "function_definition"));
    assert_true(py_text_eq(&t2, py_field(def, "name"), "f"));
    py_parse_set_release(&t2);
    assert_int_equal(py_parse_set_get(s, a, strlen(a), "a.py", &t1), 0);
    assert_int_equal(parses_of(s), 2);
    /* asked for again before its last copy went: forgetting is undone */
    py_parse_set_forget(s, a, strlen(a));
    assert_int_equal(py_parse_set_get(s, a, strlen(a), "a.py", &t2), 0);
    py_parse_set_release(&t1);
    py_parse_set_release(&t2);
    assert_int_equal(py_parse_set_get(s, a, strlen(a), "a.py", &t1), 0);
    assert_int_equal(parses_of(s), 2);
    py_parse_set_release(&t1);
    /* forgotten with no copy out: gone at once */
    py_parse_set_forget(s, a, strlen(a));
    assert_int_equal(py_parse_set_get(s, a, strlen(a), "a.py", &t1), 0);
    assert_int_equal(parses_of(s), 3);
    py_parse_set_release(&t1);
    py_parse_set_free(s);
}

/* py_field is tree-sitter's ts_node_child_by_field_name, for every field name of
 * the grammar (and names it lacks) at every node of the tree. */
static size_t fields_like_tree_sitter(const py_tree *t)
{
    const TSLanguage *l = tree_sitter_python();
    uint32_t count = ts_language_field_count(l);
    const char *others[] = {"", "nosuchfield", "bod", "bodyx",
                            "a_very_long_field_name_beyond_32_chars"};
    size_t asked = 0;
    TSTreeCursor c = ts_tree_cursor_new(py_root(t));
    do {
        TSNode n = ts_tree_cursor_current_node(&c);
        for (uint32_t i = 1; i <= count; i++) {
            const char *name = ts_language_field_name_for_id(l, (TSFieldId)i);
            TSNode want = ts_node_child_by_field_name(n, name, (uint32_t)strlen(name));
            assert_true(ts_node_eq(py_field(n, name), want));
            asked++;
        }
        for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++)
            assert_true(ts_node_is_null(py_field(n, others[i])));
    } while (py_cursor_next(&c, 1));
    ts_tree_cursor_delete(&c);
    return asked;
}

static void test_field_like_tree_sitter(void **state)
{
    (void)state;
    const char *srcs[] = {
        "def f(a: int = 1, *b, c, **d) -> int:\n    return a if b else c\n",
        "class A(B, metaclass=M):\n    x: int = 1\n    def g(self): return self.y[0](z=1)\n",
        "for (i, j) in k:\n    with a as b, c: pass\nelse:\n    import x.y as z\n",
        "try:\n    f(*a, **k)\nexcept E as e:\n    raise X from e\nfinally:\n    del q\n",
        "lambda x, y=2: [v for v in x if v]\nmatch p:\n    case {'a': 1}: pass\n",
        "def broken(:\n",
    };
    size_t asked = 0;
    for (size_t i = 0; i < sizeof(srcs) / sizeof(*srcs); i++) {
        py_tree t;
        assert_int_equal(py_parse(&t, srcs[i], strlen(srcs[i]), "<fields>"), 0);
        asked += fields_like_tree_sitter(&t);
        py_tree_free(&t);
    }
    assert_true(asked > 1000);
    TSNode null = {0};
    assert_true(ts_node_is_null(py_field(null, "body")));
}

/* py_is is strcmp(ts_node_type(n), type) == 0, for every symbol name of the
 * grammar (aliased, anonymous, ERROR in broken code) and names it lacks, at every
 * node of the tree. */
static void test_is_like_tree_sitter(void **state)
{
    (void)state;
    const char *srcs[] = {
        "def f(a: int = 1, *b, c, **d) -> int:\n    return a if b else c\n",
        "class A(B, metaclass=M):\n    x: int = 1\n    def g(self): return self.y[0](z=1)\n",
        "print >> x, 'y'\nexec 'code'\nasync def h():\n    await q\n    yield from r\n",
        "lambda x, y=2: [v for v in x if v]\nmatch p:\n    case {'a': 1}: pass\n",
        "def broken(:\n  x = (1,\n",
        "f'{a!r:>{w}}' + b'\\x00' + r'\\n'\n",
    };
    const TSLanguage *l = tree_sitter_python();
    uint32_t count = ts_language_symbol_count(l);
    const char *others[] = {"", "ERROR", "nosuchtype", "identifie", "identifierx", "_"};
    size_t yes = 0;
    for (size_t k = 0; k < sizeof(srcs) / sizeof(*srcs); k++) {
        py_tree t;
        assert_int_equal(py_parse(&t, srcs[k], strlen(srcs[k]), "<is>"), 0);
        TSTreeCursor c = ts_tree_cursor_new(py_root(&t));
        do {
            TSNode n = ts_tree_cursor_current_node(&c);
            for (uint32_t i = 0; i < count; i++) {
                const char *name = ts_language_symbol_name(l, (TSSymbol)i);
                int want = strcmp(ts_node_type(n), name) == 0;
                assert_int_equal(py_is(n, name), want);
                yes += want;
            }
            for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++)
                assert_int_equal(py_is(n, others[i]), strcmp(ts_node_type(n), others[i]) == 0);
        } while (py_cursor_next(&c, 1));
        ts_tree_cursor_delete(&c);
        py_tree_free(&t);
    }
    assert_true(yes > 100);
    TSNode null = {0};
    assert_false(py_is(null, "identifier"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_function),
        cmocka_unit_test(test_is_like_tree_sitter),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_html_is_not_python),
        cmocka_unit_test(test_parse_set_forget),
        cmocka_unit_test(test_parse_set_digest),
        cmocka_unit_test(test_parse_set_pair),
        cmocka_unit_test(test_parse_set_pair_threads),
        cmocka_unit_test(test_prepare_newlines),
        cmocka_unit_test(test_parse_set_same_buffer_new_bytes),
        cmocka_unit_test(test_field_like_tree_sitter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
