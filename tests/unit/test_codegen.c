/*
 * test_codegen.c - the code generator's Python string semantics and a small
 * end-to-end generation whose expected text is what patchgen (veomni 0.1.11's
 * ModelingCodeGenerator) produced for the same upstream module and config. The
 * full differential proof against the real patchgen is tests/oracle/patchgen.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "core/error.h"
#include "patchgen/codegen.h"
#include "patchgen/codegen_imports.h"
#include "patchgen/codegen_method.h"
#include "patchgen/codegen_source.h"
#include "patchgen/codegen_syntax.h"
#include "patchgen/codegen_text.h"

static void test_splitlines_python_boundaries(void **state)
{
    (void)state;
    /* "a\r\nb\rc\x0cd\xc2\x85e\xe2\x80\xa8f\n" splits at every boundary; no trailing "" */
    const char *s = "a\r\nb\rc\x0c"
                    "d\xc2\x85"
                    "e\xe2\x80\xa8"
                    "f\n";
    cg_lines l = VEC_INIT;
    cgtext_splitlines(&l, s, strlen(s));
    assert_int_equal(l.len, 6);
    const char *want[] = {"a", "b", "c", "d", "e", "f"};
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(l.items[i].n, 1);
        assert_memory_equal(l.items[i].p, want[i], 1);
    }
    VEC_FREE(&l);
    cgtext_splitlines(&l, "", 0);
    assert_int_equal(l.len, 0);
    cgtext_splitlines(&l, "\n\n", 2);
    assert_int_equal(l.len, 2);
    VEC_FREE(&l);
}

/* str.splitlines()'s boundaries one byte at a time, as the table-driven scan
 * must find them: the reference for the randomised comparison below. */
static size_t ref_break(const unsigned char *u, size_t n)
{
    if (u[0] == '\n' || u[0] == 0x0b || u[0] == 0x0c || (u[0] >= 0x1c && u[0] <= 0x1e))
        return 1;
    if (u[0] == '\r')
        return n > 1 && u[1] == '\n' ? 2 : 1;
    if (u[0] == 0xc2 && n > 1 && u[1] == 0x85)
        return 2;
    if (u[0] == 0xe2 && n > 2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9))
        return 3;
    return 0;
}

static void test_splitlines_random_against_reference(void **state)
{
    (void)state;
    /* bytes drawn from the break candidates and their near misses (0xc2 0x84,
     * 0xe2 0x80 0xa7, a lone 0xe2 at the end) among ordinary text */
    static const unsigned char alphabet[] = {'a',  ' ',  '\n', '\r', 0x0b, 0x0c, 0x1c, 0x1d, 0x1e,
                                             0x1f, 0xc2, 0x85, 0x84, 0xe2, 0x80, 0xa8, 0xa9, 0xa7};
    unsigned seed = 12345;
    for (int round = 0; round < 4000; round++) {
        unsigned char buf[64];
        /* every other round from 'a', ' ' and '\n' only: the memchr path */
        size_t kinds = round % 2 ? sizeof(alphabet) : 3;
        seed = seed * 1103515245u + 12345u;
        size_t n = (seed >> 16) % sizeof(buf);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            buf[i] = alphabet[(seed >> 16) % kinds];
        }
        cg_lines got = VEC_INIT;
        cgtext_splitlines(&got, (const char *)buf, n);
        size_t k = 0, start = 0, i = 0;
        while (i < n) {
            size_t bl = ref_break(buf + i, n - i);
            if (!bl) {
                i++;
                continue;
            }
            assert_true(k < got.len);
            assert_ptr_equal(got.items[k].p, (const char *)buf + start);
            assert_int_equal(got.items[k].n, i - start);
            k++;
            i += bl;
            start = i;
        }
        if (start < n) {
            assert_true(k < got.len);
            assert_ptr_equal(got.items[k].p, (const char *)buf + start);
            assert_int_equal(got.items[k].n, n - start);
            k++;
        }
        assert_int_equal(got.len, k);
        VEC_FREE(&got);
    }
}

static void test_dedent_like_textwrap(void **state)
{
    (void)state;
    struct {
        const char *in, *out;
    } cases[] = {
        /* textwrap.dedent results computed with CPython 3.11 */
        {"    a\n      b\n    c\n", "a\n  b\nc\n"},
        {"  a\n\t b\n", "  a\n\t b\n"},
        {"    a\n   \n    b", "a\n\nb"},
        {"\n    x = 1\n    y = 2\n    ", "\nx = 1\ny = 2\n"},
        {"  \t a\n  \t b\n", "a\nb\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        strbuf sb = STRBUF_INIT;
        cgtext_dedent(&sb, cases[i].in, strlen(cases[i].in));
        assert_string_equal(sb.buf, cases[i].out);
        strbuf_free(&sb);
    }
}

static void test_strip_unicode_and_replace(void **state)
{
    (void)state;
    assert_true(cgtext_is_blank(" \t\x0c\xc2\xa0\xe3\x80\x80", 8));
    assert_false(cgtext_is_blank("  x ", 4));
    strbuf sb = STRBUF_INIT;
    cgtext_replace(&sb, "abcabc", 6, "bc", "X", 1);
    assert_string_equal(sb.buf, "aXabc");
    strbuf_reset(&sb);
    cgtext_replace(&sb, "ab", 2, "", "-", -1);
    assert_string_equal(sb.buf, "-a-b-");
    strbuf_free(&sb);
}

static void test_name_map_longest_first(void **state)
{
    (void)state;
    pg_name_map_entry map[] = {{"Qwen3_5", "Q"}, {"Qwen3_5Moe", "M"}};
    strbuf sb = STRBUF_INIT;
    strbuf_adds(&sb, "Qwen3_5MoeX Qwen3_5Y # Qwen3_5Moe");
    cgsrc_apply_name_map(&sb, map, 2);
    assert_string_equal(sb.buf, "MX QY # M");
    strbuf_free(&sb);
}

static void test_strip_patch_decorators(void **state)
{
    (void)state;
    const char *src =
        "# keep\n@config.override_method(\n    \"A.f\",\n    description=\"x (y)\",\n)\n"
        "@torch.no_grad()\n@add_helper_after(\"T\")\n@replace_classes\ndef f():\n    pass\n";
    strbuf sb = STRBUF_INIT;
    cgsrc_strip_patch_decorators(&sb, src, strlen(src));
    assert_string_equal(sb.buf, "# keep\n@torch.no_grad()\n@replace_classes\ndef f():\n    pass");
    strbuf_free(&sb);
}

static void test_method_injection_inline_ellipsis(void **state)
{
    (void)state;
    strbuf cls = STRBUF_INIT;
    strbuf_adds(&cls, "class Foo(Bar): ...  # placeholder\n");
    int added = 0;
    cgm_replace_method(&cls, "go", "# c\ndef go(self):\n    return 1", &added);
    assert_int_equal(added, 1);
    assert_string_equal(cls.buf, "class Foo(Bar):\n    # c\n    def go(self):\n        return 1");
    strbuf_free(&cls);
}

static void test_indentation_like_cpython(void **state)
{
    (void)state;
    /* expectations: what ast.parse() says of each (CPython 3.11) */
    struct {
        const char *src;
        int ok;
    } cases[] = {
        {"class A:\n    def f(self):\n        return 1\n", 1},
        {"x = 1\n  y = 2\n", 0},                           /* unexpected indent */
        {"if x:\n        a = 1\n\tb = 2\n", 0},            /* TabError */
        {"if x:\n    if y:\n        a = 1\n  b = 2\n", 0}, /* unindent mismatch */
        {"x = (1,\n  2)\ny = 1 + \\\n      2\ns = '''\n   text\n'''\n", 1},
        {"\x0cx = 1\nif x:\n\x0c    y = 2\n", 1},
        {"if x:\n# c\n    y = 1\n      # deeper\n", 1},
        /* what lies on one row, stepped over: colons inside it, a colon at its end */
        {"x = {a: b}\nif y: pass\nd = lambda: (1)\ne = a[1:]\n", 1},
        {"if x:  # c\n", 0},
        {"e = a[1:]\n  b = 2\n", 0},
        {"def f(): return {1: 2}\nclass C: x = f(a, [b, (c)])\n", 1},
        {"s = f'{a:>{w}}' + \"\"\"t\nu\"\"\"[1:]\n  z = 1\n", 0},
        {"for a in b[c:d]: e(f); g[h:]\n", 1},
        /* what spans rows but holds no statement, stepped over in a tree without
         * error: its inner rows start no line, the row after it does */
        {"x = f(a,\n      b)\ny = [\n 1,\n]\n  z = 1\n", 0},
        {"if x:\n    y = g(1,\n  2)\n    z = 3\n", 1},
        {"def f():\n    return (a +\n b)\n  x = 1\n", 0},
        /* around an error tree-sitter's string rows are not CPython's: no stepping */
        {"\"\"\"\"\"\"ensors.\n d", 0},
        /* characters tree-sitter skips as blank between tokens, CPython refuses
         * ("invalid non-printable character"), but not in a string or a comment */
        {"x = 1\ny =\x0b 2\n", 0},
        {"x = 1\n\xe2\x80\x8by = 2\n", 0},
        {"x = f(a,\xef\xbb\xbf b)\n", 0},
        {"x = a\xe2\x81\xa0 + 1\n", 0},
        {"s = '\xe2\x80\x8b\x0b'  # \xef\xbb\xbf\n", 1},
        {"s = '\\\x0b'\n", 1},
        {"s = f'{a}\xe2\x80\x8b'\n", 1},
        {"x = \"\"\"\n\xe2\x80\x8b\"\"\"\n", 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        py_tree t;
        assert_int_equal(py_parse(&t, cases[i].src, strlen(cases[i].src), "<t>"), 0);
        assert_int_equal(cgsyn_python_accepts(&t), cases[i].ok);
        const char *w1 = NULL, *w2 = NULL;
        assert_int_equal(cgsyn_indent_error_line(&t, &w1),
                         cgsyn_indent_error_line_every_leaf(&t, &w2));
        assert_ptr_equal(w1, w2);
        py_tree_free(&t);
    }
    /* the line and the message: the first such character's, an indentation error
     * on its line before it */
    struct {
        const char *src, *why;
        unsigned line;
    } first[] = {
        {"a = 1\nb = [\n  2,\xe2\x81\xa0\n]\nc =\x0b 3\n", "invalid non-printable character U+2060",
         3},
        {"if x:\n    y = 1\n  \xe2\x80\x8bz = 2\n",
         "unindent does not match any outer indentation level", 3},
    };
    for (size_t i = 0; i < sizeof(first) / sizeof(first[0]); i++) {
        py_tree t;
        assert_int_equal(py_parse(&t, first[i].src, strlen(first[i].src), "<t>"), 0);
        const char *why = NULL;
        assert_int_equal(cgsyn_indent_error_line(&t, &why), first[i].line);
        assert_string_equal(why, first[i].why);
        py_tree_free(&t);
    }
}

/* A class's rewrites in a row, carrying one state (the class's items worked out
 * after each rewrite instead of a parse, where that can be shown) give what each
 * rewrite on a fresh parse gives: replaced methods with comments and decorators,
 * one added at the end, one replaced after that, and a tab-indented class (no
 * working out); without a memo of the methods parsed alone and with one kept
 * across classes and passes (the second pass finds every method there).
 * PGCI_VERIFY_REPARSE checks the items against a parse as well. */
static void test_rewrites_in_a_row(void **state)
{
    (void)state;
    setenv("PGCI_VERIFY_REPARSE", "1", 1);
    const char *classes[] = {
        "class A(B):\n    x = 1\n\n    @dec\n    def f(self):\n        return 1\n    # f's end\n"
        "\n    def g(self):\n        return 2",
        "class T:\n\tdef f(self):\n\t\treturn 1\n\n\tdef g(self):\n\t\tpass",
        "class E:\n    \"\"\"doc\"\"\"",
    };
    const char *steps[][2] = {
        {"f", "# why f\ndef f(self):\n    return 10"},
        {"g", "@other(\n    1)\ndef g(self):\n    return (20,\n            21)"},
        {"h", "# added\ndef h(self):\n    return 30\n    # trailing"},
        {"f", "def f(self):\n    return 11"},
        {"k", "async def k(self):\n    return 40"},
        {"g", "def g(self):\n    pass"},
    };
    cgm_memo *memo = cgm_memo_new();
    for (size_t pass = 0; pass < 3; pass++)
        for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++) {
            strbuf carried = STRBUF_INIT, fresh = STRBUF_INIT;
            strbuf_adds(&carried, classes[c]);
            strbuf_adds(&fresh, classes[c]);
            cgm_state st = {0};
            st.memo = pass ? memo : NULL;
            for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
                int a1 = 0, a2 = 0;
                cgm_replace_method_in(&st, &carried, steps[i][0], steps[i][1], &a1);
                cgm_replace_method(&fresh, steps[i][0], steps[i][1], &a2);
                assert_string_equal(carried.buf, fresh.buf);
                assert_int_equal(a1, a2);
            }
            cgm_state_free(&st);
            strbuf_free(&carried);
            strbuf_free(&fresh);
        }
    cgm_memo_free(memo);
    unsetenv("PGCI_VERIFY_REPARSE");
}

/* patchgen leaves a class alone when the text after an override no longer parses
 * (here: the override's spaces next to upstream tabs), so a second override that
 * would be appended is dropped - as CPython's TabError makes patchgen do. */
static void test_override_into_unparsable_class_is_skipped(void **state)
{
    (void)state;
    strbuf cls = STRBUF_INIT;
    strbuf_adds(&cls, "class A:\n\tdef f(self):\n\t\treturn 1\n\n\tdef h(self):\n\t\tpass");
    int added = 0;
    cgm_replace_method(&cls, "f", "def f(self):\n    return 2", &added);
    const char *want = "class A:\n def f(self):\n     return 2\n\n\tdef h(self):\n\t\tpass";
    assert_string_equal(cls.buf, want);
    cgm_replace_method(&cls, "z", "def z(self):\n    return 3", &added);
    assert_string_equal(cls.buf, want);
    strbuf_free(&cls);
}

static const char upstream_src[] = "\"\"\"Upstream doc.\"\"\"\n"
                                   "from ..base import (Thing as T,  # c\n"
                                   "    Other)\n"
                                   "import os, sys as system\n"
                                   "from . import sibling\n"
                                   "\n"
                                   "\n"
                                   "class A(Base):\n"
                                   "    # leading\n"
                                   "    @dec\n"
                                   "    def f(self, x):\n"
                                   "        return x\n"
                                   "\n"
                                   "\n"
                                   "class B: ...\n"
                                   "\n"
                                   "\n"
                                   "def helper(a):\n"
                                   "    import json\n"
                                   "    return a\n"
                                   "\n"
                                   "\n"
                                   "X: int = 3\n"
                                   "if os:\n"
                                   "    pass\n"
                                   "__all__ = [\"A\", \"B\", \"helper\"]\n"
                                   "";

static const char config_src[] =
    "from veomni.patchgen.patch_spec import PatchConfig\n"
    "\n"
    "config = PatchConfig(source_module=\"pkg.mods.up\", target_file=\"out.py\")\n"
    "config.drop_import_names(\"system\")\n"
    "config.exclude_from_output(\"B\")\n"
    "\n"
    "\n"
    "# why\n"
    "@config.override_method(\"A.f\", description=\"fast f\")\n"
    "def fast_f(self, x):\n"
    "    return x + 1\n"
    "\n"
    "\n"
    "@config.replace_function(\"helper\")\n"
    "def new_helper(a):\n"
    "    return a * 2\n"
    "";

/* The def `name` of config_src, lines first..last. */
static pg_object config_def(const char *name, unsigned first, unsigned last)
{
    return (pg_object){.name = name,
                       .module = "cfg",
                       .file = "/x/cfg.py",
                       .text = config_src,
                       .start_line = first,
                       .end_line = last,
                       .text_len = sizeof(config_src) - 1};
}

static const char expected[] =
    "# ==============================================================================\n"
    "#  AUTO-GENERATED FILE - DO NOT EDIT DIRECTLY\n"
    "# ==============================================================================\n"
    "#\n"
    "#  Source: pkg.mods.up\n"
    "#  Based on: transformers==9.9.9\n"
    "#\n"
    "#  This file was generated by the modeling code generator.\n"
    "#  It contains a patched version of the original HuggingFace modeling code.\n"
    "#\n"
    "#  Patches applied:\n"
    "#    - method_override: A.f\n"
    "#      fast f\n"
    "#    - function_replacement: helper\n"
    "#      Replace helper with new_helper\n"
    "#\n"
    "# ==============================================================================\n"
    "\n"
    "from pkg.base import Thing as T, Other\n"
    "import os\n"
    "from pkg.mods import sibling\n"
    "import json\n"
    "\n"
    "\"\"\"Upstream doc.\"\"\"\n"
    "\n"
    "\n"
    "# ======================================================================\n"
    "# [MODIFIED CLASS] A\n"
    "# Methods patched: f\n"
    "# ======================================================================\n"
    "\n"
    "\n"
    "class A(Base):\n"
    "    # leading\n"
    "    # why\n"
    "    @dec\n"
    "    def f(self, x):\n"
    "        return x + 1\n"
    "\n"
    "\n"
    "# ======================================================================\n"
    "# [PATCHED FUNCTION] helper\n"
    "# Reason: Replace helper with new_helper\n"
    "# Source: cfg\n"
    "# ======================================================================\n"
    "def helper(a):\n"
    "    return a * 2\n"
    "\n"
    "__all__ = [\n"
    "    \"A\",\n"
    "    \"helper\",\n"
    "]";

static void test_generate_matches_patchgen(void **state)
{
    (void)state;
    pg_config c;
    memset(&c, 0, sizeof(c));
    c.source_module = "pkg.mods.up";
    c.target_file = "out.py";
    pg_object fast_f = config_def("fast_f", 9, 11);
    pg_object new_helper = config_def("new_helper", 14, 16);
    pg_patch p1 = {PG_METHOD_OVERRIDE, "A.f", &fast_f, NULL, NULL, "cfg",
                   "fast f",           NULL,  0,       NULL, 0,    0};
    pg_patch p2 = {PG_FUNCTION_REPLACEMENT,          "helper", &new_helper, NULL, NULL, "cfg",
                   "Replace helper with new_helper", NULL,     0,           NULL, 0,    0};
    VEC_PUSH(&c.patches, p1);
    VEC_PUSH(&c.patches, p2);
    const char *drop = "system", *excl = "B";
    VEC_PUSH(&c.drop_imported_names, drop);
    VEC_PUSH(&c.exclude, excl);

    cg_result r;
    int rc = codegen_generate(&c, upstream_src, strlen(upstream_src), "9.9.9", &r);
    assert_int_equal(rc, 0);
    assert_string_equal(r.output.buf, expected);
    /* what patchgen did silently: two dropped statements (X: int, if) */
    int dropped = 0;
    for (size_t i = 0; i < r.notes.len; i++)
        dropped += r.notes.items[i].kind == CG_NOTE_DROPPED_STATEMENT;
    assert_int_equal(dropped, 2);
    /* both targets' top-level names (A, helper) are upstream classes or functions */
    assert_int_equal(r.targets_defined, 2);
    cg_result_free(&r);

    /* a text that is not the module defines none of them */
    rc = codegen_generate(&c, "class Other:\n    pass\n", 22, "9.9.9", &r);
    assert_int_equal(rc, 0);
    assert_int_equal(r.targets_defined, 0);
    cg_result_free(&r);

    /* a positioned helper whose target does not exist is an error naming it */
    pg_positioned_helper h = {"Nope", &new_helper, "after", NULL, 0, 0};
    VEC_PUSH(&c.positioned_helpers, h);
    rc = codegen_generate(&c, upstream_src, strlen(upstream_src), "9.9.9", &r);
    assert_int_equal(rc, PGCI_ENOTFOUND);
    assert_non_null(strstr(pgci_error_last(), "Nope"));
    cg_result_free(&r);

    /* an upstream syntax error is an error, not a guess */
    rc = codegen_generate(&c, "def (:\n", 7, "9.9.9", &r);
    assert_int_equal(rc, PGCI_EINVALID);
    cg_result_free(&r);

    VEC_FREE(&c.patches);
    VEC_FREE(&c.drop_imported_names);
    VEC_FREE(&c.exclude);
    VEC_FREE(&c.positioned_helpers);
}

/* Imports under every kind of statement that holds statements, one-line suites
 * too, are found in source order; none is looked for under an expression (the
 * import walk enters only statements that hold blocks, their clauses and blocks). */
static void test_imports_everywhere(void **state)
{
    (void)state;
    const char *src = "from __future__ import annotations\nimport a0\n"
                      "if x:\n    import a1\nelif y:\n    import a2\nelse:\n    import a3\n"
                      "for i in r:\n    import a4\nelse:\n    import a5\n"
                      "while w:\n    import a6\nelse:\n    import a7\n"
                      "try:\n    import a8\nexcept E:\n    import a9\nelse:\n    import a10\n"
                      "finally:\n    import a11\n"
                      "try:\n    pass\nexcept* E:\n    import a12\n"
                      "with c:\n    import a13\n"
                      "async def f(p=lambda: 1):\n    async with c:\n        import a14\n"
                      "    async for i in r:\n        import a15\n    import a16\n"
                      "match m:\n    case 1:\n        import a17\n    case _:\n"
                      "        if z: import a18\n"
                      "class K(Base):\n    import a19\n    def g(self):\n"
                      "        from . import a20 as b20\n"
                      "@dec(lambda: [i for i in x])\ndef h():\n    import a21\n"
                      "if q: import a22; import a23, a24\n"
                      "x = [lambda: y for y in z]\n";
    py_tree t;
    assert_int_equal(py_parse(&t, src, strlen(src), "m.py"), 0);
    assert_int_equal(py_check_syntax(&t), 0);
    pg_config c;
    memset(&c, 0, sizeof(c));
    c.source_module = "pkg.mod";
    strvec lines = STRVEC_INIT;
    cgimp_render(&lines, &t, &c);
    strbuf want = STRBUF_INIT, got = STRBUF_INIT;
    strbuf_adds(&want, "from __future__ import annotations\n");
    for (int i = 0; i <= 24; i++) {
        if (i == 20)
            strbuf_adds(&want, "from pkg import a20 as b20\n");
        else if (i != 24)
            strbuf_addf(&want, "import a%d%s\n", i, i == 23 ? ", a24" : "");
    }
    for (size_t i = 0; i < lines.len; i++)
        strbuf_addf(&got, "%s\n", lines.items[i]);
    assert_string_equal(got.buf, want.buf);
    strbuf_free(&want);
    strbuf_free(&got);
    strvec_free(&lines);
    py_tree_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splitlines_python_boundaries),
        cmocka_unit_test(test_splitlines_random_against_reference),
        cmocka_unit_test(test_dedent_like_textwrap),
        cmocka_unit_test(test_strip_unicode_and_replace),
        cmocka_unit_test(test_name_map_longest_first),
        cmocka_unit_test(test_strip_patch_decorators),
        cmocka_unit_test(test_method_injection_inline_ellipsis),
        cmocka_unit_test(test_generate_matches_patchgen),
        cmocka_unit_test(test_imports_everywhere),
        cmocka_unit_test(test_indentation_like_cpython),
        cmocka_unit_test(test_rewrites_in_a_row),
        cmocka_unit_test(test_override_into_unparsable_class_is_skipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
