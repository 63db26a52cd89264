/* Unit tests for names-only indexes (index_module_build_names), which the targets
 * check's near-miss suggestions read: the same definitions, members and suggestions
 * as full indexes over every Python file of fixtures/ and hand-written edge cases,
 * the same refusals (tests/tools/names_cmp.h; tests/corpus/11-near-miss.sh does the
 * same over a transformers release). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/fs.h"
#include "tests/tools/names_cmp.h"
#include "tests/unit/py_files.h"

/* Compares one file of the fixtures. */
static void compare_file(const char *path, const char *src, size_t len, void *arg)
{
    names_cmp *c = arg;
    size_t before = c->files;
    int r = names_cmp_source(c, src, len, path);
    if (c->files == before)
        c->why.len = 0; /* a fixture that does not parse: not indexable either way */
    else if (r < 0)
        fail_msg("%s", c->why.buf);
}

/* Every Python file of fixtures/ (upstream tags, configs, workspaces), every edit of
 * every name at every position. */
static void test_fixtures(void **state)
{
    (void)state;
    names_cmp c = {.dense = 1, .why = STRBUF_INIT};
    py_files_under("fixtures", compare_file, &c);
    assert_true(c.files >= 100);
    assert_true(c.defs >= 500);
    assert_true(c.suggestions >= 10000);
    assert_true(c.targets > c.suggestions);
    strbuf_free(&c.why);
}

static void compare(names_cmp *c, const char *src)
{
    if (names_cmp_source(c, src, strlen(src), "m.py") < 0)
        fail_msg("%s", c->why.buf);
}

/* What a names-only index holds and leaves out. */
static void test_names_only(void **state)
{
    (void)state;
    const char *src = "import os\nX = 1\n\n\nclass A(B):\n    \"\"\"Doc.\"\"\"\n    y = 2\n\n"
                      "    def __init__(self, a=1):\n        self.a = a\n\n"
                      "    @property\n    async def forward(self):\n        return 1\n";
    index_module *m = NULL;
    assert_int_equal(index_module_from_parse_set(&m, NULL, src, strlen(src), "m.py", "m"), 0);
    assert_false(m->names_only);
    assert_int_equal(m->n_imports, 1);
    index_module_free(m);
    assert_int_equal(index_module_names_from_parse_set(&m, NULL, src, strlen(src), "m.py", "m"), 0);
    assert_true(m->names_only);
    assert_int_equal(m->n_imports, 0);
    assert_int_equal(m->n_assigns, 0);
    assert_int_equal(m->n_defs, 1);
    const index_def *a = m->defs[0];
    assert_string_equal(a->name, "A");
    assert_int_equal(a->n_bases, 0);
    assert_int_equal(a->n_attrs, 0);
    assert_int_equal(a->n_init_attrs, 0);
    assert_null(a->docstring);
    assert_int_equal(a->n_members, 2);
    assert_string_equal(a->members[1]->qualname, "A.forward");
    assert_true(a->members[1]->is_async);
    assert_int_equal(a->members[1]->n_params, 0);
    assert_int_equal(a->members[1]->n_decorators, 0);
    assert_ptr_equal(index_find(m, "A.forward"), a->members[1]);
    index_module_free(m);
}

/* Definitions under if/try/with/else, decorated, nested, duplicated, async; members
 * under an if in a class (not searched by either). */
static void test_edge_cases(void **state)
{
    (void)state;
    names_cmp c = {.dense = 1, .why = STRBUF_INIT};
    compare(&c, "if TYPE_CHECKING:\n    def conditional_one(): pass\nelif X:\n"
                "    class Conditional:\n        def method_one(self): pass\nelse:\n"
                "    def conditional_two(): pass\n"
                "try:\n    import flash\n    def flash_forward(): pass\nexcept ImportError:\n"
                "    def flash_forward(): pass\nfinally:\n    def finally_func(): pass\n"
                "with ctx():\n    class WithClass: pass\n");
    compare(&c, "@dataclass\nclass Config:\n    hidden_size: int = 8\n\n"
                "class Outer:\n    class Inner:\n        def forward(self): pass\n"
                "        def forwards(self): pass\n    def forward(self): pass\n"
                "    if X:\n        def hidden_method(self): pass\n"
                "    def forward(self, x): pass\n    async def aforward(self): pass\n\n"
                "def rotate_half(x): pass\ndef rotate_half(x, y): pass\n"
                "async def apply_rotary(q): pass\n");
    compare(&c, "def f(:\n    pass\n"); /* a syntax error: both refuse */
    compare(&c, "");
    compare(&c, "\"\"\"Only a docstring.\"\"\"\n");
    assert_int_equal(c.files, 5);
    assert_int_equal(c.refused, 1);
    assert_true(c.suggestions > 100);
    strbuf_free(&c.why);
}

/* A tree nested deeper than INDEX_MAX_DEPTH in an expression: the full index
 * refuses it, the names-only index does not (it never walks expressions), and
 * index_too_deep() tells the targets check to withhold suggestions, as before. */
static void test_deep_expression(void **state)
{
    (void)state;
    strbuf src = STRBUF_INIT;
    strbuf_adds(&src, "class Qwen3MLP:\n    def forward(self, x):\n        return x\n\n\nY = ");
    for (int i = 0; i < INDEX_MAX_DEPTH + 10; i++)
        strbuf_adds(&src, "-");
    strbuf_adds(&src, "1\n");
    py_tree t;
    assert_int_equal(py_parse(&t, src.buf, src.len, "deep.py"), 0);
    index_module *full = NULL, *names = NULL;
    assert_int_equal(index_module_build(&full, &t, "m"), PGCI_ELIMIT);
    assert_int_equal(index_module_build_names(&names, &t, "m"), 0);
    assert_string_equal(near_miss_suggest(names, "Qwen3MLP.fowrard"), "forward");
    assert_int_equal(index_too_deep(&t), 1);
    assert_int_equal(index_source_too_deep(NULL, src.buf, src.len, "deep.py"), 1);
    index_module_free(names);
    py_tree_free(&t);
    names_cmp c = {.dense = 1, .why = STRBUF_INIT};
    compare(&c, src.buf);
    assert_int_equal(c.refused, 1);
    strbuf_free(&c.why);
    strbuf_free(&src);
}

/* Definitions nested deeper than INDEX_MAX_DEPTH (if within if): both refuse (the
 * grammar's indentation stack gives up long before, so the names-only walk's own
 * depth limit is a guard never reached by a tree free of syntax errors), and the
 * names-only build neither crashes nor accepts. */
static void test_deep_statements(void **state)
{
    (void)state;
    strbuf src = STRBUF_INIT;
    int levels = INDEX_MAX_DEPTH; /* two tree levels each: if_statement, block */
    for (int i = 0; i < levels; i++)
        strbuf_addf(&src, "%*sif x:\n", i, "");
    strbuf_addf(&src, "%*sdef forward(): pass\n", levels, "");
    names_cmp c = {.dense = 1, .why = STRBUF_INIT};
    compare(&c, src.buf);
    assert_int_equal(c.refused, 1);
    index_module *m = NULL;
    assert_true(index_module_names_from_parse_set(&m, NULL, src.buf, src.len, "m.py", "m") < 0);
    assert_null(m);
    pgci_error_clear();
    strbuf_free(&c.why);
    strbuf_free(&src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),        cmocka_unit_test(test_names_only),
        cmocka_unit_test(test_edge_cases),      cmocka_unit_test(test_deep_expression),
        cmocka_unit_test(test_deep_statements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
