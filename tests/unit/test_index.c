/* Unit tests for src/index: one hand-written snippet per construct the index holds
 * (tests/corpus/10-index.sh compares whole real releases with CPython's ast). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/vec.h"
#include "index/index.h"
#include "py/py.h"
#include "tests/unit/py_files.h"

static index_module *build(const char *src)
{
    index_module *m = NULL;
    int r = index_module_from_source(&m, src, strlen(src), "m.py", "pkg.m");
    if (r != 0)
        fail_msg("index failed: %s", pgci_error_last());
    return m;
}

static void test_imports(void **state)
{
    (void)state;
    index_module *m = build("from __future__ import annotations\n"
                            "import os, torch.nn as nn\n"
                            "from ..utils import (a as b,  # note\n"
                            "    c)\n"
                            "from . import x\n"
                            "from m import *\n"
                            "try:\n"
                            "    import flash\n"
                            "except ImportError:\n"
                            "    flash = None\n"
                            "if TYPE_CHECKING:\n"
                            "    from typing import Optional\n"
                            "class K:\n"
                            "    def f(self):\n"
                            "        from .y import z\n");
    assert_int_equal(m->n_imports, 10);
    const index_import *im = m->imports;
    assert_string_equal(im[0].module, "__future__");
    assert_string_equal(im[0].name, "annotations");
    assert_string_equal(im[1].module, "os");
    assert_null(im[1].name);
    assert_string_equal(im[2].module, "torch.nn");
    assert_string_equal(im[2].alias, "nn");
    assert_int_equal(im[1].stmt, im[2].stmt);
    assert_string_equal(im[3].module, "utils");
    assert_int_equal(im[3].level, 2);
    assert_string_equal(im[3].name, "a");
    assert_string_equal(im[3].alias, "b");
    assert_string_equal(im[4].name, "c");
    assert_int_equal(im[4].line, 4);
    assert_string_equal(im[5].module, "");
    assert_int_equal(im[5].level, 1);
    assert_string_equal(im[6].name, "*");
    assert_string_equal(im[7].module, "flash");
    assert_true(im[7].in_try);
    assert_false(im[7].in_if);
    assert_null(im[7].scope);
    assert_true(im[8].in_if);
    assert_string_equal(im[8].name, "Optional");
    assert_string_equal(im[9].scope, "K.f");
    assert_string_equal(im[9].module, "y");
    assert_int_equal(im[9].line, 15);
    index_module_free(m);
}

static void test_assignments(void **state)
{
    (void)state;
    index_module *m = build("\"\"\"Module doc.\"\"\"\n"
                            "logger = get_logger(\n"
                            "    __name__,  # why\n"
                            ")\n"
                            "a = b = 1\n"
                            "c, (d, *e) = x\n"
                            "f: int\n"
                            "g: dict[str, int] = {}\n"
                            "h.i = 3\n"
                            "j += 1\n"
                            "if X:\n"
                            "    k = 2\n");
    assert_string_equal(m->docstring, "Module doc.");
    assert_int_equal(m->n_assigns, 8);
    assert_string_equal(m->assigns[0].name, "logger");
    assert_string_equal(m->assigns[0].value, "get_logger(__name__,)");
    assert_int_equal(m->assigns[0].line, 2);
    assert_string_equal(m->assigns[1].name, "a");
    assert_string_equal(m->assigns[2].name, "b");
    assert_string_equal(m->assigns[2].value, "1");
    assert_string_equal(m->assigns[3].name, "c");
    assert_string_equal(m->assigns[4].name, "d");
    assert_string_equal(m->assigns[5].name, "e");
    assert_string_equal(m->assigns[6].name, "f");
    assert_null(m->assigns[6].value);
    assert_string_equal(m->assigns[6].annotation, "int");
    assert_string_equal(m->assigns[7].annotation, "dict[str, int]");
    assert_string_equal(m->assigns[7].value, "{}");
    index_module_free(m);
}

static const char class_src[] =
    "@auto_docstring\n"
    "@dataclass(frozen=True)  # a comment\n"
    "class LlamaMLP(nn.Module, metaclass=Meta):\n"
    "    '''The MLP.'''\n"
    "    base_model_prefix = \"model\"\n"
    "    _flag: bool = False\n"
    "\n"
    "    def __init__(me, config, /, *, layer_idx: Optional[int] = None):\n"
    "        super().__init__()\n"
    "        me.gate, me.up = 1, 2\n"
    "        me.act: Callable = ACT\n"
    "        if config.x:\n"
    "            me.extra = me.gate = 3\n"
    "        other.nope = 4\n"
    "        def inner():\n"
    "            me.hidden = 5\n"
    "\n"
    "    @can_return_tuple\n"
    "    async def forward(\n"
    "        self,\n"
    "        x: torch.Tensor | None,  # input\n"
    "        *args,\n"
    "        scale=1.0,\n"
    "        **kwargs: Unpack[Kw],\n"
    "    ) -> tuple[\n"
    "        torch.Tensor, int\n"
    "    ]:\n"
    "        \"\"\"Forward.\n"
    "\n"
    "        Args:\n"
    "            x (`torch.Tensor`):\n"
    "                The input.\n"
    "            scale: how much.\n"
    "            **kwargs: the rest.\n"
    "\n"
    "        Returns:\n"
    "            y: not an argument.\n"
    "        \"\"\"\n"
    "        return x  # done\n"
    "        # trailing comment\n"
    "\n"
    "    class Inner:\n"
    "        pass\n"
    "# end\n"
    "def helper(a, b=2, /, c=3, *d, e, f=4, **g):\n"
    "    ...\n";

static void test_class(void **state)
{
    (void)state;
    index_module *m = build(class_src);
    assert_int_equal(m->n_defs, 2);
    assert_int_equal(m->n_classes, 2);
    assert_int_equal(m->n_functions, 1);
    assert_int_equal(m->n_methods, 2);
    const index_def *c = index_find(m, "LlamaMLP");
    assert_non_null(c);
    assert_ptr_equal(c, m->defs[0]);
    assert_int_equal(c->kind, INDEX_CLASS);
    assert_int_equal(c->start_line, 1);
    assert_int_equal(c->line, 3);
    assert_int_equal(c->end_line, 43);
    assert_int_equal(c->n_decorators, 2);
    assert_string_equal(c->decorators[0], "auto_docstring");
    assert_string_equal(c->decorators[1], "dataclass(frozen=True)");
    assert_int_equal(c->n_bases, 2);
    assert_string_equal(c->bases[0], "nn.Module");
    assert_string_equal(c->bases[1], "metaclass=Meta");
    assert_string_equal(c->docstring, "The MLP.");
    assert_int_equal(c->n_attrs, 2);
    assert_string_equal(c->attrs[0].name, "base_model_prefix");
    assert_string_equal(c->attrs[0].value, "\"model\"");
    assert_string_equal(c->attrs[1].annotation, "bool");
    /* me.X anywhere in __init__ except nested defs; other.X is not self */
    assert_int_equal(c->n_init_attrs, 4);
    assert_string_equal(c->init_attrs[0], "act");
    assert_string_equal(c->init_attrs[1], "extra");
    assert_string_equal(c->init_attrs[2], "gate");
    assert_string_equal(c->init_attrs[3], "up");
    assert_int_equal(c->n_members, 3);

    const index_def *init = index_find(m, "LlamaMLP.__init__");
    assert_non_null(init);
    assert_ptr_equal(init, index_member(c, "__init__"));
    assert_int_equal(init->n_params, 3);
    assert_int_equal(init->params[0].kind, INDEX_PARAM_POSITIONAL_ONLY);
    assert_int_equal(init->params[1].kind, INDEX_PARAM_POSITIONAL_ONLY);
    assert_int_equal(init->params[2].kind, INDEX_PARAM_KEYWORD_ONLY);
    assert_string_equal(init->params[2].annotation, "Optional[int]");
    assert_string_equal(init->params[2].default_value, "None");

    const index_def *fw = index_find(m, "LlamaMLP.forward");
    assert_non_null(fw);
    assert_true(fw->is_async);
    assert_int_equal(fw->start_line, 18);
    assert_int_equal(fw->line, 19);
    assert_int_equal(fw->end_line, 39); /* the trailing comment is not code */
    assert_string_equal(fw->decorators[0], "can_return_tuple");
    assert_int_equal(fw->n_params, 5);
    assert_string_equal(fw->params[1].name, "x");
    assert_string_equal(fw->params[1].annotation, "torch.Tensor | None");
    assert_int_equal(fw->params[2].kind, INDEX_PARAM_VAR_POSITIONAL);
    assert_string_equal(fw->params[2].name, "args");
    assert_int_equal(fw->params[3].kind, INDEX_PARAM_KEYWORD_ONLY);
    assert_string_equal(index_param_find(fw, "kwargs")->annotation, "Unpack[Kw]");
    assert_int_equal(index_param_find(fw, "kwargs")->kind, INDEX_PARAM_VAR_KEYWORD);
    assert_null(index_param_find(fw, "nope"));
    assert_string_equal(fw->returns, "tuple[torch.Tensor, int]");
    assert_int_equal(fw->n_doc_args, 3);
    assert_string_equal(fw->doc_args[0], "x");
    assert_string_equal(fw->doc_args[1], "scale");
    assert_string_equal(fw->doc_args[2], "kwargs");
    assert_non_null(index_find(m, "LlamaMLP.Inner"));
    assert_null(index_find(m, "LlamaMLP.__init__.inner"));
    assert_null(index_find(m, "Inner"));

    const index_def *h = index_find(m, "helper");
    assert_int_equal(h->n_params, 7);
    static const index_param_kind kinds[] = {
        INDEX_PARAM_POSITIONAL_ONLY, INDEX_PARAM_POSITIONAL_ONLY, INDEX_PARAM_POSITIONAL_OR_KEYWORD,
        INDEX_PARAM_VAR_POSITIONAL,  INDEX_PARAM_KEYWORD_ONLY,    INDEX_PARAM_KEYWORD_ONLY,
        INDEX_PARAM_VAR_KEYWORD};
    for (size_t i = 0; i < 7; i++)
        assert_int_equal(h->params[i].kind, kinds[i]);
    assert_string_equal(h->params[1].default_value, "2");
    assert_null(h->params[4].default_value);
    assert_null(h->docstring);
    assert_null(h->returns);
    index_module_free(m);
}

static uint64_t fingerprint_of(const char *src, const char *name)
{
    index_module *m = build(src);
    const index_def *d = index_find(m, name);
    assert_non_null(d);
    uint64_t f = index_def_fingerprint(d);
    index_module_free(m);
    return f;
}

static void test_fingerprint(void **state)
{
    (void)state;
    uint64_t base = fingerprint_of("def f(a):\n"
                                   "    '''Doc.\n\n    More.\n    '''\n"
                                   "    x = g(a, 'k', 0xff)\n"
                                   "    b, c = x\n"
                                   "    return (x + 1) * 2\n",
                                   "f");
    /* formatting, comments, quotes, docstring indentation, trailing commas, redundant
     * parentheses, number case: same fingerprint */
    assert_int_equal(base, fingerprint_of("def f(a):  # c\n"
                                          "  \"\"\"Doc.\n\n  More.\n  \"\"\"\n"
                                          "  # a comment\n"
                                          "  x = (g(\n"
                                          "      a,\n"
                                          "      \"k\",\n"
                                          "      0XFF,\n"
                                          "  ))\n"
                                          "  (b, c) = x\n"
                                          "  return ((x + 1) * 2)\n",
                                          "f"));
    /* the signature is not the body */
    assert_int_equal(base, fingerprint_of("def f(a, b=1):\n"
                                          "    '''Doc.\n\n    More.\n    '''\n"
                                          "    x = g(a, 'k', 0xff)\n"
                                          "    b, c = x\n"
                                          "    return (x + 1) * 2\n",
                                          "f"));
    /* grouping, operators, names, strings and the docstring's text count */
    const char *changed[] = {
        "def f(a):\n    '''Doc.\n\n    More.\n    '''\n    x = g(a, 'k', 0xff)\n    b, c = x\n"
        "    return x + 1 * 2\n",
        "def f(a):\n    '''Doc.\n\n    More.\n    '''\n    x = g(a, 'k', 0xff)\n    b, c = x\n"
        "    return (x - 1) * 2\n",
        "def f(a):\n    '''Doc.\n\n    More.\n    '''\n    x = g(a, 'K', 0xff)\n    b, c = x\n"
        "    return (x + 1) * 2\n",
        "def f(a):\n    '''Doc!\n\n    More.\n    '''\n    x = g(a, 'k', 0xff)\n    b, c = x\n"
        "    return (x + 1) * 2\n",
        "def f(a):\n    '''Doc.\n\n    More.\n    '''\n    x = g(a, 'k', 0xff)\n    b, d = x\n"
        "    return (x + 1) * 2\n",
    };
    for (size_t i = 0; i < sizeof(changed) / sizeof(*changed); i++)
        assert_int_not_equal(base, fingerprint_of(changed[i], "f"));
}

/* A class's fingerprint reads its methods' fingerprints instead of walking their
 * bodies again: it still agrees exactly when the class's body does, up to
 * formatting, methods of nested classes included. */
static void test_class_fingerprint(void **state)
{
    (void)state;
    const char *base_src = "class A(B):\n"
                           "    '''Doc.'''\n"
                           "    x = 1\n"
                           "    @property\n"
                           "    def f(self, a):\n"
                           "        '''F.\n\n        More.\n        '''\n"
                           "        return g(a, 'k')\n"
                           "    class Inner:\n"
                           "        def h(self):\n"
                           "            return 2\n"
                           "    def k(self):\n"
                           "        def local():\n"
                           "            return 3\n"
                           "        return local()\n";
    uint64_t base = fingerprint_of(base_src, "A");
    /* formatting, in the class and in its methods' bodies: the same */
    assert_int_equal(base, fingerprint_of("class A(B):\n"
                                          "  \"\"\"Doc.\"\"\"\n"
                                          "  x = (1)  # one\n"
                                          "  @property\n"
                                          "  def f(self, a):\n"
                                          "    \"\"\"F.\n\n    More.\n    \"\"\"\n"
                                          "    return g(\n      a,\n      \"k\",\n    )\n"
                                          "  class Inner:\n"
                                          "    def h(self):\n"
                                          "      return (2)\n"
                                          "  def k(self):\n"
                                          "    def local():\n"
                                          "      return 3\n"
                                          "    return local()\n",
                                          "A"));
    /* each of these changes the class */
    static const char *const from[] = {
        "return g(a, 'k')",   /* a method's body */
        "return 2",           /* a nested class's method's body */
        "return 3",           /* a function inside a method */
        "x = 1",              /* a class attribute */
        "def f(self, a)",     /* a method's signature */
        "@property",          /* a decorator */
        "'''F.\n",            /* a method's docstring */
        "    class Inner:\n", /* a nested class's name */
    };
    static const char *const to[] = {
        "return g(a, 'K')", "return 4",      "return 5", "x = 2",
        "def f(self, b)",   "@staticmethod", "'''G.\n",  "    class Other:\n",
    };
    for (size_t i = 0; i < sizeof(from) / sizeof(*from); i++) {
        const char *at = strstr(base_src, from[i]);
        assert_non_null(at);
        char *src =
            pgci_asprintf("%.*s%s%s", (int)(at - base_src), base_src, to[i], at + strlen(from[i]));
        if (fingerprint_of(src, "A") == base)
            fail_msg("the class's fingerprint did not change with: %s", to[i]);
        free(src);
    }
    /* a method keeps its own fingerprint, the same as alone */
    assert_int_equal(fingerprint_of(base_src, "A.Inner.h"),
                     fingerprint_of("def h(self):\n    return 2\n", "h"));
}

static void test_conditional_and_duplicates(void **state)
{
    (void)state;
    index_module *m = build("try:\n"
                            "    from fast import op\n"
                            "except ImportError:\n"
                            "    def op(x):\n"
                            "        return x\n"
                            "if A:\n"
                            "    class C: pass\n"
                            "else:\n"
                            "    class C(B): pass\n"
                            "def op(y): pass\n");
    assert_int_equal(m->n_defs, 4);
    assert_true(m->defs[0]->conditional);
    assert_false(m->defs[3]->conditional);
    /* the first definition of a name is the one found */
    assert_ptr_equal(index_find(m, "op"), m->defs[0]);
    assert_int_equal(index_find(m, "C")->n_bases, 0);
    index_module_free(m);
}

static void test_syntax_error_refused(void **state)
{
    (void)state;
    index_module *m = (index_module *)1;
    const char *src = "def f(:\n    pass\n";
    assert_int_equal(index_module_from_source(&m, src, strlen(src), "bad.py", NULL), PGCI_EINVALID);
    assert_null(m);
    assert_non_null(strstr(pgci_error_last(), "bad.py:1:"));
}

static void test_depth_limit(void **state)
{
    (void)state;
    /* 100000 nested brackets would overflow the recursive walkers' stack */
    size_t n = 100000;
    strbuf src = STRBUF_INIT;
    strbuf_adds(&src, "def f():\n    x = ");
    strbuf_addrep(&src, "(", n);
    strbuf_adds(&src, "1");
    strbuf_addrep(&src, ")", n);
    strbuf_adds(&src, "\n");
    index_module *m = (index_module *)1;
    assert_int_equal(index_module_from_source(&m, src.buf, src.len, "deep.py", NULL), PGCI_ELIMIT);
    assert_null(m);
    assert_non_null(strstr(pgci_error_last(), "deep.py: nested more than"));
    /* CPython's own limit (200 brackets) is well inside */
    strbuf_reset(&src);
    strbuf_adds(&src, "def f():\n    x = ");
    strbuf_addrep(&src, "(", 199);
    strbuf_adds(&src, "1");
    strbuf_addrep(&src, ")", 199);
    strbuf_adds(&src, "\n");
    assert_int_equal(index_module_from_source(&m, src.buf, src.len, "ok.py", NULL), 0);
    index_module_free(m);
    strbuf_free(&src);
}

static void test_docstring_helpers(void **state)
{
    (void)state;
    strbuf sb = STRBUF_INIT;
    /* as inspect.cleandoc: tabs expand to 8 columns before the margin is taken */
    index_cleandoc(&sb, "  First.\n\n\tTabbed\n      deeper\n    \n");
    assert_string_equal(sb.buf, "First.\n\n  Tabbed\ndeeper");
    strbuf_free(&sb);

    arena a = ARENA_INIT;
    const char **names = NULL;
    size_t n = 0;
    index_doc_args(&a,
                   "Summary.\n\n    Arguments:\n        *args: positional.\n"
                   "        input_ids (`torch.LongTensor` of shape `(b, s)`):\n"
                   "            Indices. Not: an entry.\n"
                   "        not an entry line\n"
                   "    Parameters:\n        beta: second section.\n"
                   "    Returns:\n        out: no.\n",
                   &names, &n);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "args");
    assert_string_equal(names[1], "input_ids");
    assert_string_equal(names[2], "beta");

    /* no Args: header: the whole docstring up to an example or the returns, as
     * @auto_docstring reads it (transformers' parse_docstring), entries `name (`
     * at the least indent; `name: text` is not one there */
    names = NULL;
    n = 0;
    index_doc_args(&a,
                   "\n    cache_position (`torch.LongTensor`, *optional*):\n"
                   "        Indices (in the cache).\n"
                   "    rope_deltas(`torch.LongTensor`):\n"
                   "        The deltas.\n"
                   "    plain: not read without a header.\n"
                   "    Returns:\n"
                   "    out (`torch.Tensor`): after the returns.\n",
                   &names, &n);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "cache_position");
    assert_string_equal(names[1], "rope_deltas");
    /* an `Args:` header whose entries sit at its own indent: transformers reads
     * every entry after the header, up to the returns */
    names = NULL;
    n = 0;
    index_doc_args(&a,
                   "Replace symbols.\n\n    Args:\n    input_ids (`torch.LongTensor`):\n"
                   "           Indices.\n    mask (`torch.Tensor`): the mask.\n\n"
                   "    Returns: torch.Tensor\n    out (`int`): no.\n",
                   &names, &n);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "input_ids");
    assert_string_equal(names[1], "mask");
    names = NULL;
    n = 0;
    index_doc_args(&a, "Summary (a sentence).\n\n    Example:\n    x (`int`): no.\n", &names, &n);
    /* a line at the least indent that opens `name (` is an entry for pgci even
     * without the `):` transformers also wants: reading a name too many only
     * makes the auto-docstring check say less (tests/corpus/81-docstring-args.sh
     * holds pgci to never reading fewer than transformers) */
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "Summary");
    arena_free(&a);
}

static void test_json(void **state)
{
    (void)state;
    index_module *m = build(class_src);
    strbuf sb = STRBUF_INIT;
    assert_int_equal(index_module_to_json(&sb, m, 0), 0);
    json_error_t err;
    json_t *j = json_loads(sb.buf, 0, &err);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "schema_version")),
                     INDEX_SCHEMA_VERSION);
    assert_string_equal(json_string_value(json_object_get(j, "module")), "pkg.m");
    json_t *cls = json_array_get(json_object_get(j, "definitions"), 0);
    assert_string_equal(json_string_value(json_object_get(cls, "kind")), "class");
    json_t *fw = json_array_get(json_object_get(cls, "members"), 1);
    assert_string_equal(json_string_value(json_object_get(fw, "qualname")), "LlamaMLP.forward");
    json_t *p3 = json_array_get(json_object_get(fw, "parameters"), 4);
    assert_string_equal(json_string_value(json_object_get(p3, "kind")), "var_keyword");
    assert_string_equal(json_string_value(json_object_get(p3, "name")), "kwargs");
    assert_true(json_is_null(json_object_get(p3, "default")));
    assert_int_equal(strlen(json_string_value(json_object_get(fw, "fingerprint"))), 16);
    json_decref(j);
    /* same module, same bytes */
    strbuf again = STRBUF_INIT;
    index_module_to_json(&again, m, 0);
    assert_string_equal(sb.buf, again.buf);
    strbuf_free(&again);
    strbuf_free(&sb);
    index_module_free(m);
}

static void test_json_lone_surrogate(void **state)
{
    (void)state;
    index_module *m = build("def f():\n    '''a\\ud800b'''\n");
    strbuf sb = STRBUF_INIT;
    assert_int_equal(index_module_to_json(&sb, m, 0), 0);
    assert_non_null(strstr(sb.buf, "\"docstring\":\"a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                                   "b\""));
    strbuf_free(&sb);
    index_module_free(m);
}

typedef VEC(const index_def *) def_list;

/* Every definition under defs, parents before their members. */
static void all_defs(index_def **defs, size_t n, def_list *out)
{
    for (size_t i = 0; i < n; i++) {
        VEC_PUSH(out, defs[i]);
        all_defs(defs[i]->members, defs[i]->n_members, out);
    }
}

/* Fingerprints on demand equal those made at build, asked parents first (how 0),
 * members first (1), or after the index let its tree go (2). Returns the number
 * of definitions. */
static size_t lazy_like_eager(const char *src, size_t len, const char *path)
{
    py_tree t;
    assert_int_equal(py_parse(&t, src, len, path), 0);
    index_module *eager = NULL;
    if (index_module_build(&eager, &t, "m") < 0) { /* a fixture with a syntax error */
        pgci_error_clear();
        py_tree_free(&t);
        return 0;
    }
    def_list want = VEC_INIT;
    all_defs(eager->defs, eager->n_defs, &want);
    for (int how = 0; how < 3; how++) {
        index_module *lazy = NULL;
        assert_int_equal(index_module_from_parse_set_lazy(&lazy, NULL, src, len, path, "m"), 0);
        if (how == 2)
            index_module_drop_tree(lazy);
        def_list got = VEC_INIT;
        all_defs(lazy->defs, lazy->n_defs, &got);
        assert_int_equal(got.len, want.len);
        for (size_t k = 0; k < got.len; k++) {
            size_t i = how == 1 ? got.len - 1 - k : k;
            assert_string_equal(got.items[i]->qualname, want.items[i]->qualname);
            if (index_def_fingerprint(got.items[i]) != index_def_fingerprint(want.items[i]))
                fail_msg("%s: %s: %016llx on demand, %016llx at build", path,
                         want.items[i]->qualname,
                         (unsigned long long)index_def_fingerprint(got.items[i]),
                         (unsigned long long)index_def_fingerprint(want.items[i]));
        }
        VEC_FREE(&got);
        index_module_free(lazy);
    }
    size_t n = want.len;
    VEC_FREE(&want);
    index_module_free(eager);
    py_tree_free(&t);
    return n;
}

static void lazy_file(const char *path, const char *src, size_t len, void *arg)
{
    *(size_t *)arg += lazy_like_eager(src, len, path);
}

/* index_module_from_parse_set_lazy: the fingerprints index_module_build makes, on
 * nested and repeated classes, decorated and conditional definitions, on every
 * fixture module, and (PGCI_INDEX_LAZY_DIR) on any tree of modules. */
static void test_fingerprints_on_demand(void **state)
{
    (void)state;
    const char *src = "import os\n"
                      "class A(B):\n"
                      "    \"\"\"Doc.\"\"\"\n"
                      "    x = 1\n"
                      "    @property\n"
                      "    def f(self):\n"
                      "        def inner():\n"
                      "            return 1\n"
                      "        return inner()\n"
                      "    class C:\n"
                      "        def g(self): return 2\n"
                      "        async def h(self):\n"
                      "            '''h.'''\n"
                      "            await x\n"
                      "    def f(self): return 3\n"
                      "if os.name:\n"
                      "    def k(): pass\n"
                      "else:\n"
                      "    class A: pass\n"
                      "@decorate(1)\n"
                      "def last(a, *b, **c): return a\n";
    assert_int_equal(lazy_like_eager(src, strlen(src), "m.py"), 9);
    size_t defs = 0;
    assert_true(py_files_under("fixtures", lazy_file, &defs) >= 100);
    assert_true(defs >= 500);
    const char *more = getenv("PGCI_INDEX_LAZY_DIR");
    if (more && *more) {
        size_t d0 = defs, files = py_files_under(more, lazy_file, &defs);
        print_message("PGCI_INDEX_LAZY_DIR: %zu modules, %zu definitions\n", files, defs - d0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_imports),
        cmocka_unit_test(test_assignments),
        cmocka_unit_test(test_class),
        cmocka_unit_test(test_fingerprint),
        cmocka_unit_test(test_class_fingerprint),
        cmocka_unit_test(test_conditional_and_duplicates),
        cmocka_unit_test(test_syntax_error_refused),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_docstring_helpers),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_json_lone_surrogate),
        cmocka_unit_test(test_fingerprints_on_demand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
