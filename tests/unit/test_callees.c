/* Following what patch bodies use (checks/callees.h, body_uses.h, source_text.h,
 * deprecate_kwarg.h), the survey's precision rules (signatures.h, survey_compare.h)
 * and the grouping by upstream change (changes.h), on small upstream modules
 * written here: each test is one case of fixtures/upstream/DRIFT.md's kinds, cut
 * down to the lines that make it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/body_uses.h"
#include "checks/callees.h"
#include "checks/external_bases.h"
#include "checks/keyword_calls.h"
#include "checks/changes.h"
#include "checks/deprecate_kwarg.h"
#include "checks/inherited.h"
#include "checks/returned.h"
#include "checks/source_text.h"
#include "checks/survey_compare.h"
#include "checks/survey_trees.h"
#include "core/error.h"
#include "core/fs.h"
#include "index/index.h"
#include "patchgen/config_eval.h"
#include "py/parse_set.h"
#include "workspace/workspace.h"

#include "survey_case.h"
#include "tmp_pkg.h"

/* ---- body_uses ------------------------------------------------------------------- */

static void test_body_uses(void **state)
{
    (void)state;
    static const char body[] =
        "@config.override_method(\"A.forward\")\n"
        "def forward(self, x: Optional[Tensor] = None, *args, scale=DEFAULT, **kw):\n"
        "    y = helper(x, dim=1)\n"
        "    q, k = self.split(y, mode=\"a\")\n"
        "    z = self.proj(x).sum()\n"
        "    for i in range(3):\n"
        "        y = y + i\n"
        "    return torch.cat([q, k, z, y], dim=-1).view(logger.level)\n";
    body_uses u;
    assert_int_equal(body_uses_read(&u, body, sizeof(body) - 1), 0);
    /* names read and not bound: annotations and defaults count, parameters, locals,
     * attributes and keyword names do not; the registering decorator is skipped */
    strvec want = STRVEC_INIT;
    const char *names[] = {"Optional", "Tensor", "DEFAULT", "helper", "range", "torch", "logger"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        assert_true(strvec_find(&u.loads, names[i]) >= 0);
    assert_int_equal(u.loads.len, sizeof(names) / sizeof(names[0]));
    assert_int_equal(u.n_calls, 2);
    assert_string_equal(u.calls[0].method, "split");
    assert_int_equal(u.calls[0].unpacked, 2);
    assert_int_equal(u.calls[0].n_positional, 1);
    assert_string_equal(u.calls[0].keywords.items[0], "mode");
    assert_string_equal(u.calls[1].method, "proj");
    assert_int_equal(u.calls[1].result_used, 1);
    assert_int_equal(u.calls[1].unpacked, 0);
    body_uses_free(&u);
    strvec_free(&want);
}

/* The decorators a body keeps are read: patchgen drops only the registering ones
 * (`@config.add_helper_after(...)`, a bare `@add_helper`), and `@dataclass` on a
 * helper is evaluated in the generated module (transformers 5.24.0's Qwen3.5 module
 * stopped importing `dataclass`, which a helper of the Qwen3.5 configs needs). */
static void test_body_uses_decorators(void **state)
{
    (void)state;
    static const char body[] = "@config.add_helper_after(\"Out\", note=NOTE)\n"
                               "@add_helper\n"
                               "@dataclass\n"
                               "@torch.no_grad()\n"
                               "class Helper(Out):\n"
                               "    @staticmethod\n"
                               "    def f(x):\n"
                               "        return x\n";
    body_uses u;
    assert_int_equal(body_uses_read(&u, body, sizeof(body) - 1), 0);
    const char *names[] = {"dataclass", "torch", "Out", "staticmethod"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        assert_true(strvec_find(&u.loads, names[i]) >= 0);
    assert_int_equal(u.loads.len, sizeof(names) / sizeof(names[0]));
    body_uses_free(&u);
}

/* Calls of free names, through a local alias or with a `**kw` dict literal, and what
 * a loop over a container of submodules does with each element. */
static void test_body_uses_calls(void **state)
{
    (void)state;
    static const char body[] = "def forward(self, x, flag):\n"
                               "    fn = make_mask if flag else make_window_mask\n"
                               "    m = fn(config=self.config, cache_position=x)\n"
                               "    kw = {\"config\": self.config, 'cache_position': x}\n"
                               "    full = make_mask(**kw)\n"
                               "    other = {\"config\": 1}\n"
                               "    other[\"extra\"] = 2\n"
                               "    make_window_mask(x, **other)\n"
                               "    for i, layer in enumerate(self.layers[: self.n]):\n"
                               "        x = layer(x, mask=m[layer.attention_type])\n"
                               "    for block in self.blocks:\n"
                               "        x = block.norm(x) + block.scale\n"
                               "    return x\n";
    body_uses u;
    assert_int_equal(body_uses_read(&u, body, sizeof(body) - 1), 0);
    /* fn(...) is a call of each name it may hold; the dict literal splatted and named
     * nowhere else passes its keys; the one changed in between passes unknown ones */
    assert_int_equal(u.n_name_calls, 5);
    assert_string_equal(u.name_calls[0].method, "make_mask");
    assert_string_equal(u.name_calls[1].method, "make_window_mask");
    for (int i = 0; i < 2; i++) {
        assert_int_equal(u.name_calls[i].keywords.len, 2);
        assert_string_equal(u.name_calls[i].keywords.items[1], "cache_position");
        assert_int_equal(u.name_calls[i].star_args, 0);
    }
    assert_string_equal(u.name_calls[2].method, "make_mask");
    assert_int_equal(u.name_calls[2].star_args, 0);
    assert_int_equal(u.name_calls[2].keywords.len, 2);
    assert_string_equal(u.name_calls[2].keywords.items[0], "config");
    assert_string_equal(u.name_calls[2].keywords.items[1], "cache_position");
    assert_string_equal(u.name_calls[3].method, "make_window_mask");
    assert_int_equal(u.name_calls[3].star_args, 1);
    assert_string_equal(u.name_calls[4].method, "enumerate");
    /* the elements of self.layers and self.blocks: their attributes read, their calls */
    assert_int_equal(u.elem_attrs.len, 4);
    assert_string_equal(u.elem_attrs.items[0], "layers");
    assert_string_equal(u.elem_attrs.items[1], "attention_type");
    assert_string_equal(u.elem_attrs.items[2], "blocks");
    assert_string_equal(u.elem_attrs.items[3], "scale");
    assert_int_equal(u.n_elem_calls, 1);
    assert_string_equal(u.elem_calls[0].method, "layers");
    assert_int_equal(u.elem_calls[0].n_positional, 1);
    assert_string_equal(u.elem_calls[0].keywords.items[0], "mask");
    body_uses_free(&u);
}

/* A body tree-sitter recovers from (the fuzzer's find: an `if&` and two bytes that
 * are not UTF-8 where a name was): the zero-width names its recovery put in are no
 * names, no call, no attribute. */
static void test_body_uses_broken(void **state)
{
    (void)state;
    static const char body[] = "def forward(self, x, flag, **kwargs):\n"
                               "    fn = make_mask if&flag else make_window_mask\n"
                               "    kw = {\"config\": self.config, 'cache_position': x}\n"
                               "    \x91\x84her = {\"a\": 1}\n"
                               "    other[\"b\"] = 2\n"
                               "    m = fn(x, **kw) + make_mask(**other)\n"
                               "    return m\n";
    /* fuzz_body_uses, later: a loop over `self.` with the attribute made up, its
     * element's attribute read (the container was an empty name) */
    static const char loop[] = ")\n for block in self.:block.t";
    const char *const bodies[] = {body, loop};
    const size_t lens[] = {sizeof(body) - 1, sizeof(loop) - 1};
    for (size_t b = 0; b < 2; b++) {
        body_uses u;
        assert_int_equal(body_uses_read(&u, bodies[b], lens[b]), 0);
        for (size_t i = 0; i < u.loads.len; i++)
            assert_true(u.loads.items[i][0] != '\0');
        for (size_t i = 0; i < u.n_calls; i++)
            assert_true(u.calls[i].method[0] != '\0');
        for (size_t i = 0; i < u.n_name_calls; i++)
            assert_true(u.name_calls[i].method[0] != '\0');
        for (size_t i = 0; i < u.elem_attrs.len; i++)
            assert_true(u.elem_attrs.items[i][0] != '\0');
        body_uses_free(&u);
    }
}

/* ---- source_text -------------------------------------------------------------------- */

static index_module *index_of(const char *src)
{
    index_module *m;
    assert_int_equal(index_module_from_source(&m, src, strlen(src), "m.py", "m"), 0);
    return m;
}

static void test_source_text(void **state)
{
    (void)state;
    static const char src[] = "class A(nn.Module):\n"
                              "    def __init__(self, config):\n"
                              "        self.gate = Router(\n"
                              "            config,   # the router\n"
                              "        )\n"
                              "        self.n: int = config.n\n"
                              "    def split(self, x):\n"
                              "        def inner():\n"
                              "            return 1, 2, 3, 4\n"
                              "        if x:\n"
                              "            return (x, x)\n"
                              "        return x, x, f(x, 1)\n"
                              "class B(A):\n"
                              "    pass\n"
                              "def build(c):\n"
                              "    return A(c)\n"
                              "__all__ = [\"A\", \"B\"]\n";
    index_module *m = index_of(src);
    const index_def *init = index_find(m, "A.__init__");
    char *v = source_attr_value(src, strlen(src), init, "gate");
    assert_string_equal(v, "Router(config,)");
    free(v);
    v = source_attr_value(src, strlen(src), init, "n");
    assert_string_equal(v, "config.n");
    free(v);
    assert_null(source_attr_value(src, strlen(src), init, "missing"));
    assert_int_equal(source_return_arity(src, strlen(src), index_find(m, "A.split")), 3);
    assert_int_equal(source_return_arity(src, strlen(src), index_find(m, "build")), 1);
    assert_true(source_instantiates(src, strlen(src), "A"));
    assert_false(source_instantiates(src, strlen(src), "B")); /* a class line and __all__ */
    assert_false(source_references(src, strlen(src), "B"));
    assert_true(source_references(src, strlen(src), "Router"));
    index_module_free(m);
    /* read within len, with no NUL after it (fuzz_signatures: strstr ran past the
     * end of a module that was not the last text of its buffer) */
    static const char text[] = "x = Foo(1)\ny = Bar";
    size_t n = sizeof(text) - 1;
    char *buf = malloc(n);
    memcpy(buf, text, n);
    assert_true(source_instantiates(buf, n, "Foo"));
    assert_false(source_instantiates(buf, n, "Bar"));
    assert_true(source_references(buf, n, "Bar"));
    assert_false(source_references(buf, 11, "Bar")); /* "y = Bar" is past len */
    free(buf);
}

/* returned_read of the definition of `qualname` in src */
static void returned_of(returned *r, py_tree *t, const char *src, const char *qualname)
{
    index_module *m = index_of(src);
    assert_int_equal(py_parse(t, src, strlen(src), "m.py"), 0);
    assert_int_equal(returned_read(r, t, index_find(m, qualname)->start_byte), 0);
    index_module_free(m);
}

/* The steps that bind each returned value, and when two releases' differ. */
static void test_returned(void **state)
{
    (void)state;
    static const char a[] = "class Router(nn.Module):\n"
                            "    @torch.no_grad()\n"
                            "    def forward(self, h):\n"
                            "        logits = F.linear(h, self.weight)  # (seq, experts)\n"
                            "        logits = torch.softmax(logits, dim=-1)\n"
                            "        top, idx = torch.topk(logits, self.k)\n"
                            "        if self.norm:\n"
                            "            top /= top.sum(dim=-1)\n"
                            "        def inner():\n"
                            "            top = 0\n"
                            "        out = top\n"
                            "        out += idx\n"
                            "        if h is None:\n"
                            "            return None\n"
                            "        return logits, top, idx, self.k\n";
    /* the softmax is no longer what `logits` holds; `top` is divided by another
     * argument; `out += idx` is written out of place; self.k returned as is */
    static const char b[] = "class Router(nn.Module):\n"
                            "    @torch.no_grad()\n"
                            "    def forward(self, h):\n"
                            "        logits = F.linear(h, self.weight)\n"
                            "        probs = torch.softmax(logits, dim=-1)\n"
                            "        top, idx = torch.topk(probs, self.k)\n"
                            "        if self.norm:\n"
                            "            top /= top.sum(dim=-2)\n"
                            "        out = top\n"
                            "        out = out + idx\n"
                            "        return logits, top, idx, self.k\n";
    returned ra, rb;
    py_tree ta, tb;
    returned_of(&ra, &ta, a, "Router.forward");
    returned_of(&rb, &tb, b, "Router.forward");
    assert_int_equal(ra.n, 4);
    assert_string_equal(ra.values[0].name, "logits");
    assert_null(ra.values[3].name); /* self.k: not a plain name */
    assert_int_equal(ra.values[0].steps.len, 2);
    assert_string_equal(ra.values[0].steps.items[0], "F . linear ()");
    assert_string_equal(ra.values[0].texts.items[0], "logits = F.linear(h, self.weight)");
    /* the tuple target's position, the augmented step, not the nested def's */
    assert_int_equal(ra.values[1].steps.len, 2);
    assert_string_equal(ra.values[1].steps.items[0], "[1 of 2] torch . topk ()");
    assert_string_equal(ra.values[1].steps.items[1], "top / top . sum ()");
    assert_true(returned_value_changed(&ra, &rb, 0));  /* a step dropped */
    assert_false(returned_value_changed(&ra, &rb, 1)); /* arguments only */
    assert_false(returned_value_changed(&ra, &rb, 2));
    assert_false(returned_value_changed(&ra, &rb, 3)); /* not a name */
    assert_false(returned_value_changed(&ra, &ra, 0));
    strbuf d = STRBUF_INIT;
    returned_describe(&d, &ra, &rb, 0, "v1.0", "v2.0");
    assert_string_equal(d.buf, "the value it returns as `logits` (value 1 of 4), bound by:\n"
                               "  v1.0:  logits = F.linear(h, self.weight)\n"
                               "         logits = torch.softmax(logits, dim=-1)\n"
                               "  v2.0:  logits = F.linear(h, self.weight)\n");
    /* x += y and x = x + y are one step; a rewrite that shares no step with the
     * old one says nothing of the value */
    static const char c[] = "class Router(nn.Module):\n"
                            "    def forward(self, h):\n"
                            "        out = top\n"
                            "        out += idx\n"
                            "        return out\n";
    static const char e[] = "class Router(nn.Module):\n"
                            "    def forward(self, h):\n"
                            "        out = route(h, self.weight)\n"
                            "        return out\n";
    returned rc, re;
    py_tree tc, te;
    returned_of(&rc, &tc, c, "Router.forward");
    returned_of(&re, &te, e, "Router.forward");
    assert_string_equal(rc.values[0].steps.items[1], "out + idx");
    assert_string_equal(rb.values[1].steps.items[1], "top / top . sum ()");
    assert_false(returned_value_changed(&rc, &re, 0));
    /* a field of the value set is a step of it, but never the one shared: the same
     * field set after another computation is a rewrite; a call returned as is is
     * the step its name binds elsewhere */
    static const char f1[] = "def f(x):\n"
                             "    out = route(x)\n"
                             "    out.a = list(x)\n"
                             "    return out\n";
    static const char f2[] = "def f(x):\n"
                             "    out = other(x)\n"
                             "    out.a = list(x)\n"
                             "    return out\n";
    static const char f3[] = "def f(x):\n"
                             "    return route(x)\n";
    /* f1 with the field's value through a one-use temporary */
    static const char f4[] = "def f(x):\n"
                             "    out = route(x)\n"
                             "    parts = list(x)\n"
                             "    out.a = parts\n"
                             "    return out\n";
    returned r1, r2, r3, r4;
    py_tree t1, t2, t3, t4;
    returned_of(&r1, &t1, f1, "f");
    returned_of(&r2, &t2, f2, "f");
    returned_of(&r3, &t3, f3, "f");
    returned_of(&r4, &t4, f4, "f");
    assert_string_equal(r4.values[0].steps.items[1], ".a = list ()");
    assert_false(returned_value_changed(&r1, &r4, 0));
    assert_string_equal(r1.values[0].steps.items[1], ".a = list ()");
    assert_null(r3.values[0].name);
    assert_string_equal(r3.values[0].steps.items[0], "route ()");
    assert_false(returned_value_changed(&r1, &r2, 0));
    assert_true(returned_value_changed(&r3, &r1, 0));
    assert_true(returned_value_changed(&r1, &r3, 0));
    assert_false(returned_value_changed(&r3, &r3, 0)); /* no name on either side */
    assert_string_equal(returned_value_name(&r3, &r1, 0), "out");
    strbuf_reset(&d);
    returned_describe(&d, &r3, &r1, 0, "v1.0", "v2.0");
    assert_string_equal(d.buf,
                        "the value it returns (a call returned as is at v1.0; `out` at v2.0), "
                        "bound by:\n"
                        "  v1.0:  return route(x)\n"
                        "  v2.0:  out = route(x)\n"
                        "         out.a = list(x)\n");
    strbuf_free(&d);
    returned_free(&r1);
    returned_free(&r2);
    returned_free(&r3);
    returned_free(&r4);
    py_tree_free(&t1);
    py_tree_free(&t2);
    py_tree_free(&t3);
    py_tree_free(&t4);
    returned_free(&ra);
    returned_free(&rb);
    returned_free(&rc);
    returned_free(&re);
    py_tree_free(&ta);
    py_tree_free(&tb);
    py_tree_free(&tc);
    py_tree_free(&te);
}

static void test_deprecate_kwarg(void **state)
{
    (void)state;
    deprecated_kwarg k;
    assert_int_equal(deprecated_kwarg_parse(&k, "deprecate_kwarg(\"device\", version=\"5.18\")"),
                     1);
    assert_string_equal(k.old_name, "device");
    assert_null(k.new_name);
    assert_string_equal(k.version, "5.18");
    deprecated_kwarg_free(&k);
    assert_int_equal(deprecated_kwarg_parse(&k, "utils.deprecate_kwarg('rotary_pos_emb', "
                                                "version='v5.20', new_name='position_embeddings')"),
                     1);
    assert_string_equal(k.new_name, "position_embeddings");
    assert_string_equal(k.version, "v5.20");
    deprecated_kwarg_free(&k);
    /* the version as the second positional argument (transformers 5.24) */
    assert_int_equal(deprecated_kwarg_parse(&k, "deprecate_kwarg(\"past_key_values\", \"5.40.0\", "
                                                "new_name=\"cache\")"),
                     1);
    assert_string_equal(k.version, "5.40.0");
    assert_string_equal(k.new_name, "cache");
    deprecated_kwarg_free(&k);
    assert_int_equal(deprecated_kwarg_parse(&k, "can_return_tuple"), 0);
    assert_int_equal(deprecated_kwarg_parse(&k, "my_deprecate_kwarg(\"x\")"), 0);
}

/* ---- the survey of one config on two small modules ------------------------------- */

typedef struct tpatch {
    pg_patch_type type;
    const char *target;
    const char *body; /* the replacement's source, or NULL */
} tpatch;

/* The survey of one config (patches ps) between modules a and b (the model's
 * module, transformers.models.toy.modeling_toy), as "severity kind: title" lines,
 * in order; ext_a/ext_b: transformers.masking_utils at A and B, or NULL. */
/* A post-import block the next survey's config adds (NULL: none). */
static const char *post_block;
static const char *helper_after, *helper_body; /* an add_helper_after's target and text */
/* the helper's first line in helper_body (0: 1) and the add_helper_after's line in
 * "cfg.py" (0: none) */
static unsigned helper_line, helper_reg_line;
/* 1: each finding's line and column follow its title in the next survey's text */
static int show_line;
/* the name_map entry of every patch of the next survey (NULL: none) */
static const char *map_from, *map_to;
/* transformers.modeling_utils at both tags for the next survey (NULL: none). */
static const char *base_src;
/* 1: each finding's detail follows its line in the next survey's text */
static int show_detail;
/* the config's file and module for the next survey (NULL: none), so that its
 * workspace is the directory above them */
static const char *cfg_file, *cfg_module;
/* The modules the survey reads at B to settle questions about external bases
 * (checks/external_bases.h) for the next survey: name, source, ..., NULL; NULL: no
 * settling. A module asked for and not listed cannot be read. */
static const char *const *settle_mods;

/* As the survey does after the comparison: the modules the questions need, a round
 * at a time, then the verdicts. */
static void settle(findings *fs, const index_module *model, const index_module *base)
{
    xbases *x = xbases_new();
    xbases_add(x, model->name, model);
    if (base)
        xbases_add(x, base->name, base);
    index_module **read = calloc(64, sizeof(*read));
    size_t n_read = 0;
    for (int round = 0; round < 6; round++) {
        strvec need = STRVEC_INIT;
        xbases_needed(x, fs, &need);
        for (size_t i = 0; i < need.len; i++) {
            const index_module *got = NULL;
            for (size_t k = 0; settle_mods[k]; k += 2) {
                char *pkg = pgci_asprintf("%s.__init__", need.items[i]);
                int is_pkg = !strcmp(settle_mods[k], pkg);
                free(pkg);
                if (!is_pkg && strcmp(settle_mods[k], need.items[i]))
                    continue;
                assert_true(n_read < 64);
                got = read[n_read++] = index_named(settle_mods[k + 1], settle_mods[k]);
                break;
            }
            xbases_add(x, need.items[i], got);
        }
        int done = !need.len;
        strvec_free(&need);
        if (done)
            break;
    }
    xbases_settle(x, fs);
    xbases_free(x);
    for (size_t i = 0; i < n_read; i++)
        index_module_free(read[i]);
    free(read);
}

static char *survey_with(const char *src_a, const char *src_b, const tpatch *ps, size_t n,
                         const char *ext_a, const char *ext_b)
{
    const char *model = "transformers.models.toy.modeling_toy";
    index_module *a = index_named(src_a, model), *b = index_named(src_b, model);
    index_module *ea = ext_a ? index_named(ext_a, "transformers.masking_utils") : NULL;
    index_module *eb = ext_b ? index_named(ext_b, "transformers.masking_utils") : NULL;
    survey_ext ext = {"transformers.masking_utils", ea, eb, ext_a, ext_b, ext_a ? strlen(ext_a) : 0,
                      ext_b ? strlen(ext_b) : 0};
    pg_config cfg;
    config_of(&cfg, "transformers.models.toy.modeling_toy", cfg_file, cfg_module);
    cfg.target_file = cfg_file ? "patched_toy.py" : NULL;
    if (post_block)
        VEC_PUSH(&cfg.post_import_blocks, post_block);
    pg_object helper = {.name = "Helper",
                        .module = "cfg",
                        .file = "/x/cfg.py",
                        .text = helper_body,
                        .start_line = helper_line ? helper_line : 1,
                        .end_line = helper_body ? count_lines(helper_body) : 0,
                        .text_len = helper_body ? strlen(helper_body) : 0,
                        .is_class = 1};
    if (helper_body) {
        pg_positioned_helper h = {helper_after, &helper,         "after",
                                  "cfg.py",     helper_reg_line, helper_reg_line ? 5 : 0};
        VEC_PUSH(&cfg.positioned_helpers, h);
    }
    pg_object *objs = calloc(n + 1, sizeof(*objs));
    pg_name_map_entry *maps = calloc(n + 1, sizeof(*maps));
    for (size_t i = 0; i < n; i++) {
        pg_patch p = {0};
        p.type = ps[i].type;
        p.target = ps[i].target;
        p.reg_file = "cfg.py"; /* the i-th patch registered at line 10 * (i + 1) */
        p.reg_line = 10 * ((unsigned)i + 1);
        p.reg_col = 1;
        if (ps[i].body) {
            objs[i] = body_of("body", "cfg", "/x/cfg.py", ps[i].body);
            p.replacement = &objs[i];
        }
        if (map_from) {
            maps[i] = (pg_name_map_entry){(char *)map_from, (char *)map_to};
            p.name_map = &maps[i];
            p.name_map_len = 1;
        }
        VEC_PUSH(&cfg.patches, p);
    }
    index_module *base = base_src ? index_named(base_src, "transformers.modeling_utils") : NULL;
    survey_pair p = pair_of(&cfg, "cfg.py", a, src_a, b, src_b);
    p.base_a = p.base_b = base;
    p.base_src_a = p.base_src_b = base_src;
    p.base_src_a_len = p.base_src_b_len = base_src ? strlen(base_src) : 0;
    p.ext = ea ? &ext : NULL;
    p.n_ext = ea ? 1 : 0;
    /* once parsing every body where a check reads it, once through a parse set and
     * a memo of body uses as the survey runs: the same findings, each body parsed
     * once for B and A */
    strbuf got[2] = {STRBUF_INIT, STRBUF_INIT};
    py_parse_set *set = py_parse_set_new();
    survey_bodies *memo = survey_bodies_new();
    /* the modules' trees are in the set before the comparison, as the survey's
     * fetch leaves them (a body under an override is compared from them) */
    py_tree mt;
    assert_int_equal(py_parse_set_get(set, src_a, strlen(src_a), "a", &mt), 0);
    py_parse_set_release(&mt);
    assert_int_equal(py_parse_set_get(set, src_b, strlen(src_b), "b", &mt), 0);
    py_parse_set_release(&mt);
    size_t modules, reused0;
    py_parse_set_counts(set, &modules, &reused0);
    for (int pass = 0; pass < 2; pass++) {
        p.parses = pass ? set : NULL;
        p.bodies = pass ? memo : NULL;
        findings fs = FINDINGS_INIT, targets = FINDINGS_INIT;
        survey_compare(&fs, &p, NULL, &targets);
        if (settle_mods)
            settle(&fs, b, base);
        for (size_t i = 0; i < fs.len; i++) {
            strbuf_addf(&got[pass], "%s %s: %s", severity_name(fs.items[i]->sev),
                        json_string_value(json_object_get(fs.items[i]->data, "kind")),
                        fs.items[i]->title);
            if (show_line)
                strbuf_addf(&got[pass], " @%u:%u", fs.items[i]->line, fs.items[i]->col);
            strbuf_addc(&got[pass], '\n');
        }
        for (size_t i = 0; show_detail && i < fs.len; i++)
            strbuf_adds(&got[pass], fs.items[i]->detail ? fs.items[i]->detail : "");
        findings_free(&fs);
        findings_free(&targets);
    }
    if (strcmp(got[1].buf ? got[1].buf : "", got[0].buf ? got[0].buf : ""))
        fprintf(stderr, "--- pass 0\n%s--- pass 1\n%s", got[0].buf, got[1].buf);
    assert_string_equal(got[1].buf ? got[1].buf : "", got[0].buf ? got[0].buf : "");
    size_t parses, reused, bodies = 0, patch_bodies = 0;
    py_parse_set_counts(set, &parses, &reused);
    for (size_t i = 0; i < n; i++)
        patch_bodies += ps[i].body != NULL;
    bodies = patch_bodies;
    bodies += post_block != NULL; /* read once a run too */
    bodies += helper_body != NULL;
    parses -= modules;
    reused -= reused0;
    /* every body, block and helper parsed once, no other text */
    assert_int_equal(parses, bodies);
    /* each patch body's tree is asked for again from the set, by its second reader
     * (its calls, after its uses): never parsed a second time. A helper's text and
     * a post-import block have one reader; the second readings (the comparison
     * with A in B's place) are answered by the memos of uses and calls */
    assert_true(reused >= patch_bodies);
    py_parse_set_free(set);
    survey_bodies_free(memo);
    strbuf out = got[0];
    strbuf_free(&got[1]);
    VEC_FREE(&cfg.patches);
    VEC_FREE(&cfg.post_import_blocks);
    VEC_FREE(&cfg.positioned_helpers);
    free(objs);
    free(maps);
    index_module_free(a);
    index_module_free(b);
    if (base)
        index_module_free(base);
    if (ea)
        index_module_free(ea);
    if (eb)
        index_module_free(eb);
    return strbuf_detach(&out, NULL);
}

static char *survey(const char *src_a, const char *src_b, const tpatch *ps, size_t n)
{
    return survey_with(src_a, src_b, ps, n, NULL, NULL);
}

static void expect(const char *got, const char *want)
{
    if (strcmp(got, want))
        fprintf(stderr, "--- got\n%s--- want\n%s", got, want);
    assert_string_equal(got, want);
}

/* got holds the line "SEV HEADTAIL" (case i of a table, named when it does not). */
static void expect_has(const char *got, size_t i, const char *sev, const char *head,
                       const char *tail)
{
    strbuf want = STRBUF_INIT;
    strbuf_addf(&want, "%s %s%s", sev, head, tail);
    if (!strstr(got, want.buf))
        fprintf(stderr, "case %zu\n--- got\n%s--- want (a line of)\n%s", i, got, want.buf);
    assert_non_null(strstr(got, want.buf));
    strbuf_free(&want);
}

/* self.next_skip_topk went and self.hidden_size came with another value: no
 * rename is claimed, the removal is the finding. */
static void test_attr_removed_no_guess(void **state)
{
    (void)state;
    static const char a[] = "class Attn(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.next_skip_topk = config.skip + 1\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    static const char b[] = "class Attn(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.hidden_size = config.hidden_size\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Attn.forward",
                    "def forward(self, x):\n    return x[: self.next_skip_topk]\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "error init-attr-removed: `Attn.__init__`: `self.next_skip_topk` no longer set "
                "and the patch still uses it\n"
                "info init-attr-added: `Attn.__init__`: `self.hidden_size` added\n");
    free(got);
}

/* A buffer or parameter registered by name is set as much as one assigned:
 * transformers 5.16.1 wrote `self.register_buffer("e_score_correction_bias", ...)`
 * as `self.e_score_correction_bias = nn.Buffer(...)` (no attribute added), and
 * 5.9.0 the other way round GlmMoeDsaIndexer's `self._cached_keys = None` (no
 * attribute gone: the error said so). */
static void test_registered_attrs(void **state)
{
    (void)state;
    static const char a[] =
        "class Router(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        self.register_buffer(\"bias\", torch.zeros(4), persistent=True)\n"
        "        self.register_parameter('w', nn.Parameter(torch.ones(4)))\n"
        "        self.scale = nn.Buffer(torch.ones(4))\n"
        "    def forward(self, x):\n"
        "        return x\n";
    static const char b[] = "class Router(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.bias = nn.Buffer(torch.zeros(4))\n"
                            "        self.w = nn.Parameter(torch.ones(4))\n"
                            "        self.register_buffer(\"scale\", torch.ones(4))\n"
                            "        self.extra = config.extra\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Router.forward",
                    "def forward(self, x):\n"
                    "    return x * self.w + self.bias * self.scale\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "info init-attr-added: `Router.__init__`: `self.extra` added\n");
    free(got);
}

/* A name only registered at A that goes at B is gone as an assigned one is: an
 * error where the patch reads it and never sets it, a warning where it sets it
 * but can read it first (5.12.1's GlmMoeDsaIndexer dropped `self._cached_keys`,
 * which the override sets only under `if seq_len > 1:` and reads under
 * `if use_cache:`, an AttributeError on a first one-token call with a cache), and
 * nothing where every override that names it sets it first. */
static void test_registered_attr_gone(void **state)
{
    (void)state;
    static const char a[] =
        "class Indexer(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        self.wk = nn.Linear(4, 4)\n"
        "        self.register_buffer(\"_cached_keys\", None, persistent=False)\n"
        "        self.register_buffer(\"_scale\", None, persistent=False)\n"
        "        self.register_buffer(\"_seen\", None, persistent=False)\n"
        "    def forward(self, x, use_cache=False):\n"
        "        return x\n";
    static const char b[] = "class Indexer(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.wk = nn.Linear(4, 4)\n"
                            "    def forward(self, x, use_cache=False):\n"
                            "        return x\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Indexer.forward",
                    "def forward(self, x, use_cache=False):\n"
                    "    self._seen = x.shape\n"
                    "    k = self.wk(x) * self._scale\n"
                    "    if x.shape[1] > 1:\n"
                    "        self._cached_keys = None\n"
                    "    if use_cache:\n"
                    "        if self._cached_keys is not None:\n"
                    "            k = torch.cat([self._cached_keys, k], dim=1)\n"
                    "        self._cached_keys = k\n"
                    "    return k, self._seen\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "warning init-attr-removed: `Indexer.__init__`: `self._cached_keys` no longer "
                "registered, and the patch can read it before it sets it\n"
                "error init-attr-removed: `Indexer.__init__`: `self._scale` no longer registered "
                "and the patch still uses it\n");
    assert_null(strstr(got, "_seen"));
    free(got);
}

/* The config overrides __init__ and sets self.act itself: upstream's __init__ no
 * longer runs, its attributes are not the patch's. */
static void test_patched_init_sets_attr(void **state)
{
    (void)state;
    static const char a[] = "class Net(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.act = ACT[config.act]\n"
                            "    def forward(self, x):\n"
                            "        return self.act(x)\n";
    static const char b[] = "class Net(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.activation = make(config)\n"
                            "    def forward(self, x):\n"
                            "        return self.act(x)\n";
    tpatch ps[] = {
        {PG_METHOD_OVERRIDE, "Net.__init__",
         "def init(self, config):\n    self.act = ACT[config.act]\n"},
        {PG_METHOD_OVERRIDE, "Net.forward", "def forward(self, x):\n    return self.act(x)\n"}};
    char *got = survey(a, b, ps, 2);
    expect(got, "warning body-changed: `Net.__init__`: the upstream body changed under the patch "
                "(written against v1.0)\n");
    free(got);
}

/* Calls through self: a keyword the call passes is gone (error); a method that left
 * the module while the class has an external base (warning: it may live there). */
static void test_self_calls(void **state)
{
    (void)state;
    static const char a[] = "class Base(PreTrainedModel):\n"
                            "    def helper(self, x):\n"
                            "        return x\n"
                            "class Net(Base):\n"
                            "    def mix(self, x, mode=None):\n"
                            "        return x\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    static const char b[] = "class Base(PreTrainedModel):\n"
                            "    pass\n"
                            "class Net(Base):\n"
                            "    def mix(self, x, *, style=None):\n"
                            "        return x\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Net.forward",
                    "def forward(self, x):\n    return self.helper(self.mix(x, mode=1))\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "warning callee-vanished: `Net.forward` calls `self.helper()`, which `Base` no "
                "longer defines at v2.0 (an external base class may provide it now)\n"
                "error callee-signature-changed: `Net.forward` calls `self.mix()`, whose "
                "signature changed at v2.0: it passes `mode=`, which the new signature lacks\n");
    free(got);
}

/* A method that left the model's module while the class reaches PreTrainedModel:
 * the survey reads PreTrainedModel's bases where they are defined at B (through a
 * package's re-export, and one under `if TYPE_CHECKING:`) and settles it. None
 * defines `helper`: an error, the classes read in the detail; PeftAdapterMixin
 * defines `load_adapter`: the call binds, a note; `train` is torch.nn.Module's:
 * still the warning. With integrations.peft unreadable, nothing can be settled but
 * what a base read defines. (5.18.0's get_window_index, padded_and_mask_function,
 * fast_pos_embed_interpolate, warnings before.) */
static void test_external_bases_settled(void **state)
{
    (void)state;
    static const char a[] = "from ...modeling_utils import PreTrainedModel\n"
                            "class ToyPreTrainedModel(PreTrainedModel):\n"
                            "    pass\n"
                            "class Net(ToyPreTrainedModel):\n"
                            "    def helper(self, x):\n"
                            "        return x\n"
                            "    def load_adapter(self, x):\n"
                            "        return x\n"
                            "    def train(self, mode=True):\n"
                            "        return self\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    static const char b[] = "from ...modeling_utils import PreTrainedModel\n"
                            "class ToyPreTrainedModel(PreTrainedModel):\n"
                            "    pass\n"
                            "class Net(ToyPreTrainedModel):\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    static const char mu[] = "from .integrations import PeftAdapterMixin\n"
                             "from .utils import PushToHubMixin\n"
                             "class ModuleUtilsMixin:\n"
                             "    def num_parameters(self):\n"
                             "        return 0\n"
                             "class PreTrainedModel(nn.Module, ModuleUtilsMixin, PushToHubMixin,\n"
                             "                      PeftAdapterMixin):\n"
                             "    pass\n";
    static const char *const mods[] = {
        "transformers.utils.__init__",
        "from .hub import PushToHubMixin, cached_file\n",
        "transformers.utils.hub",
        "class PushToHubMixin:\n    def push_to_hub(self):\n        pass\n",
        "transformers.integrations.__init__",
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from .peft import PeftAdapterMixin\n"
        "else:\n"
        "    sys.modules[__name__] = _LazyModule(__name__)\n",
        "transformers.integrations.peft",
        "class PeftAdapterMixin:\n    def load_adapter(self, x):\n        pass\n",
        NULL};
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Net.forward",
                    "def forward(self, x):\n"
                    "    self.train()\n"
                    "    return self.helper(self.load_adapter(x))\n"}};
    base_src = mu;
    settle_mods = mods;
    show_detail = 1;
    char *got = survey(a, b, ps, 1);
    expect(got,
           "warning callee-vanished: `Net.forward` calls `self.train()`, which `Net` no longer "
           "defines at v2.0 (an external base class may provide it now)\n"
           "error callee-vanished: `Net.forward` calls `self.helper()`, which `Net` no longer "
           "defines at v2.0\n"
           "info callee-inherited: `Net.forward` calls `self.load_adapter()`, which `Net` no "
           "longer defines at v2.0: it inherits `PeftAdapterMixin.load_adapter` "
           "(transformers.integrations.peft) now\n"
           "classes read at v2.0, none of which defines `helper` (nor does torch.nn.Module):\n"
           "  Net (transformers.models.toy.modeling_toy)\n"
           "  ToyPreTrainedModel (transformers.models.toy.modeling_toy)\n"
           "  PreTrainedModel (transformers.modeling_utils)\n"
           "  ModuleUtilsMixin (transformers.modeling_utils)\n"
           "  PushToHubMixin (transformers.utils.hub)\n"
           "  PeftAdapterMixin (transformers.integrations.peft)\n");
    free(got);
    /* integrations.peft cannot be read: helper may be there */
    static const char *const some[] = {
        "transformers.utils.__init__",
        "from .hub import PushToHubMixin\n",
        "transformers.utils.hub",
        "class PushToHubMixin:\n    def load_adapter(self, x):\n"
        "        pass\n",
        "transformers.integrations.__init__",
        "if TYPE_CHECKING:\n    from .peft import PeftAdapterMixin\n",
        NULL};
    settle_mods = some;
    show_detail = 0;
    got = survey(a, b, ps, 1);
    expect(got,
           "warning callee-vanished: `Net.forward` calls `self.train()`, which `Net` no longer "
           "defines at v2.0 (an external base class may provide it now)\n"
           "warning callee-vanished: `Net.forward` calls `self.helper()`, which `Net` no longer "
           "defines at v2.0 (an external base class may provide it now)\n"
           "info callee-inherited: `Net.forward` calls `self.load_adapter()`, which `Net` no "
           "longer defines at v2.0: it inherits `PushToHubMixin.load_adapter` "
           "(transformers.utils.hub) now\n");
    free(got);
    /* a base from outside transformers (typing's Generic here) cannot be read: the
     * warning stays, whatever the modules read say */
    static const char b_generic[] = "from typing import Generic\n"
                                    "from ...modeling_utils import PreTrainedModel\n"
                                    "class ToyPreTrainedModel(PreTrainedModel, Generic):\n"
                                    "    pass\n"
                                    "class Net(ToyPreTrainedModel):\n"
                                    "    def forward(self, x):\n"
                                    "        return x\n";
    tpatch helper_only[] = {
        {PG_METHOD_OVERRIDE, "Net.forward", "def forward(self, x):\n    return self.helper(x)\n"}};
    settle_mods = mods;
    got = survey(a, b_generic, helper_only, 1);
    expect(got, "warning callee-vanished: `Net.forward` calls `self.helper()`, which `Net` no "
                "longer defines at v2.0 (an external base class may provide it now)\n");
    free(got);
    settle_mods = NULL;
    base_src = NULL;
}

/* A method gone at B that A announced the removal of: the finding quotes what the
 * notice told callers to do instead, for a method the body calls through self, for
 * a patch target (5.16.1's `get_window_index`, `fast_pos_embed_interpolate`) and for
 * a module-level function the body reads. */
static void test_vanished_quotes_deprecation(void **state)
{
    (void)state;
    static const char a[] =
        "class Enc(nn.Module):\n"
        "    def get_window_index(self, grid):\n"
        "        logger.warning_once(\n"
        "            f\"`{self.__class__.__name__}.get_window_index` is deprecated and will be "
        "removed in v5.11. Use `get_vision_window_index` from `transformers.vision_utils` "
        "instead.\",\n"
        "        )\n"
        "        return grid\n"
        "    def interp(self, grid):\n"
        "        warnings.warn(\"`interp` is deprecated; use `interpolate_grid` instead\")\n"
        "        return grid\n"
        "    def forward(self, x):\n"
        "        return x\n"
        "def merge_grid(g):\n"
        "    warnings.warn(\"merge_grid is deprecated, please use `merge_grids` instead\")\n"
        "    return g\n";
    static const char b[] = "class Enc(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    tpatch ps[] = {
        {PG_METHOD_OVERRIDE, "Enc.forward",
         "def forward(self, x):\n    return self.get_window_index(merge_grid(x))\n"},
        {PG_METHOD_OVERRIDE, "Enc.interp", "def interp(self, grid):\n    return grid\n"}};
    char *got = survey(a, b, ps, 2);
    expect(got, "error vanished: `Enc.interp` vanished upstream between v1.0 and v2.0; upstream "
                "deprecated it at v1.0: \"use `interpolate_grid` instead\"\n"
                "error callee-vanished: `Enc.forward` calls `self.get_window_index()`, which `Enc` "
                "no longer defines at v2.0; upstream deprecated it at v1.0: \"Use "
                "`get_vision_window_index` from `transformers.vision_utils` instead.\"\n"
                "error name-removed: `Enc.forward` uses `merge_grid`, which upstream no longer "
                "defines at v2.0; upstream deprecated it at v1.0: \"use `merge_grids` instead\"\n");
    free(got);
}

/* An attribute __init__ stops setting is an error when any override of the class
 * reads it, whichever override is compared first (5.24.0's Omni thinkers: the
 * `get_audio_features` override, met first, does not read `self.visual`, the
 * `forward` override does; it was a warning, by the order of the patches). */
static void test_init_attr_read_by_a_later_override(void **state)
{
    (void)state;
    static const char a[] = "class Thinker(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.audio = Audio(config)\n"
                            "        self.visual = Visual(config)\n"
                            "    def get_audio_features(self, x):\n"
                            "        return x\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    static const char b[] = "class Thinker(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.audio = Audio(config)\n"
                            "    def get_audio_features(self, x):\n"
                            "        return x\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Thinker.get_audio_features",
                    "def get_audio_features(self, x):\n    return self.audio(x)\n"},
                   {PG_METHOD_OVERRIDE, "Thinker.forward",
                    "def forward(self, x):\n    return self.visual(x)\n"}};
    char *got = survey(a, b, ps, 2);
    expect(got, "error init-attr-removed: `Thinker.__init__`: `self.visual` no longer set and the "
                "patch still uses it\n");
    free(got);
}

/* A module whose classes fan out (`class F0(F1, F1, ..., F1)`, ten deep: 8^10 paths)
 * and whose methods pass `**kwargs` on a hundred times each, three deep: every walk
 * over bases, and the search for where a keyword goes, visits each class and
 * method once, so the comparison ends (it ran for hours before). */
static void test_fans_walked_once(void **state)
{
    (void)state;
    strbuf fan = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT;
    for (int i = 0; i < 10; i++) {
        strbuf_addf(&fan, "class F%d(", i);
        for (int k = 0; k < 8; k++)
            strbuf_addf(&fan, "%sF%d", k ? ", " : "", i + 1);
        strbuf_adds(&fan, "):\n    pass\n");
    }
    strbuf_adds(&fan, "class F10(PreTrainedModel):\n    pass\n");
    strbuf_addf(&a,
                "%sclass Net(F0):\n"
                "    def helper(self, x):\n        return x\n"
                "    def mix(self, x, mode=None):\n        return x\n"
                "    def forward(self, x):\n        return x\n",
                fan.buf);
    strbuf_addf(&b, "%sclass Net(F0):\n    def mix(self, x, **kwargs):\n", fan.buf);
    for (int level = 0; level < 3; level++) {
        for (int k = 0; k < 100; k++)
            strbuf_addf(&b, "        self.g%d(x, **kwargs)\n", level);
        strbuf_addf(&b, "        return x\n    def g%d(self, x, **kwargs):\n", level);
    }
    strbuf_adds(&b, "        return x\n"
                    "    def forward(self, x):\n        return x\n");
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Net.forward",
                    "def forward(self, x):\n    return self.helper(self.mix(x, mode=1))\n"}};
    alarm(60); /* a walk that is exponential again fails here, not in CI's timeout */
    char *got = survey(a.buf, b.buf, ps, 1);
    alarm(0);
    expect(got, "warning callee-vanished: `Net.forward` calls `self.helper()`, which `Net` no "
                "longer defines at v2.0 (an external base class may provide it now)\n"
                "warning callee-signature-changed: `Net.forward` calls `self.mix()`, whose "
                "signature changed at v2.0\n"
                "info callee-body-changed: `Net.forward` calls `self.mix()`, whose upstream body "
                "changed (v1.0 → v2.0)\n");
    free(got);
    strbuf_free(&fan);
    strbuf_free(&a);
    strbuf_free(&b);
}

/* A function the module imports from another transformers module (the 5.2.0 ->
 * 5.9.0 bump's create_causal_mask, which dropped cache_position): a call that no
 * longer binds is an error, through a `**kw` dict literal and a local alias too; a
 * call that still binds says nothing (an optional parameter added is the library's
 * business); the same tag against itself says nothing. */
static void test_imported_function_call(void **state)
{
    (void)state;
    static const char mod[] = "from ...masking_utils import create_causal_mask, window_mask\n"
                              "class Net(nn.Module):\n"
                              "    def forward(self, x):\n"
                              "        return x\n";
    static const char ext_a[] = "def create_causal_mask(config, embeds, cache_position, kv):\n"
                                "    return None\n"
                                "def window_mask(config, embeds):\n"
                                "    return None\n";
    static const char ext_b[] = "def create_causal_mask(config, embeds, kv, ids=None):\n"
                                "    return None\n"
                                "def window_mask(config, embeds, block_ids=None):\n"
                                "    return None\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Net.forward",
                    "def forward(self, x):\n"
                    "    kw = {\"config\": 1, \"embeds\": x, \"cache_position\": 0, \"kv\": None}\n"
                    "    fn = create_causal_mask if x else window_mask\n"
                    "    return create_causal_mask(**kw), fn(1, x)\n"}};
    char *got = survey_with(mod, mod, ps, 1, ext_a, ext_b);
    expect(got, "error callee-signature-changed: `Net.forward` calls `create_causal_mask()` "
                "(imported from `transformers.masking_utils`), whose signature changed at v2.0: "
                "it passes `cache_position=`, which the new signature lacks\n");
    free(got);
    got = survey_with(mod, mod, ps, 1, ext_a, ext_a);
    expect(got, "");
    free(got);
}

/* Which modules the survey fetches for a config's calls: those the model's module
 * imports a function from that a body calls, directly or through a local alias
 * (qwen3_moe's `mask_function = create_causal_mask if ... else ...`, the one
 * config that calls the mask functions only so); not for a class, not for an
 * import the bodies never call. */
static void test_imported_modules(void **state)
{
    (void)state;
    static const char mod[] = "from ...masking_utils import create_causal_mask, window_mask\n"
                              "from ...cache_utils import DynamicCache, cache_helper\n"
                              "from ...integrations import sdpa\n"
                              "class Net(nn.Module):\n"
                              "    pass\n";
    static const char alias[] = "def forward(self, x):\n"
                                "    fn = create_causal_mask if x else window_mask\n"
                                "    return fn(x), DynamicCache(), sdpa\n";
    static const char none[] = "def forward(self, x):\n"
                               "    return x == cache_helper\n";
    const char *bodies[] = {alias, none};
    const char *want[] = {"transformers.masking_utils", NULL};
    for (int i = 0; i < 2; i++) {
        index_module *a = index_named(mod, "transformers.models.toy.modeling_toy");
        pg_config cfg;
        memset(&cfg, 0, sizeof(cfg));
        pg_object o = {.name = "forward",
                       .module = "cfg",
                       .file = "/x/cfg.py",
                       .text = bodies[i],
                       .start_line = 1,
                       .end_line = 3,
                       .text_len = strlen(bodies[i])};
        pg_patch p = {0};
        p.type = PG_METHOD_OVERRIDE;
        p.target = "Net.forward";
        p.replacement = &o;
        VEC_PUSH(&cfg.patches, p);
        strvec mods = STRVEC_INIT;
        callees_imported_modules(&mods, &cfg, a);
        assert_int_equal(mods.len, want[i] ? 1 : 0);
        if (want[i])
            assert_string_equal(mods.items[0], want[i]);
        strvec_free(&mods);
        VEC_FREE(&cfg.patches);
        index_module_free(a);
    }
}

/* A submodule called through self: its class's forward, as upstream's __init__
 * makes it. A positional argument that now binds a parameter of another name is a
 * warning (transformers 5.9's vision rotary embedding: seqlen -> position_ids); one
 * more optional parameter is not. */
static void test_submodule_call(void **state)
{
    (void)state;
    static const char a[] = "class Rope(nn.Module):\n"
                            "    def forward(self, seqlen: int):\n"
                            "        return seqlen\n"
                            "class Norm(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return x\n"
                            "class Vision(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.rotary = Rope(config.dim // 2)\n"
                            "        self.norm = Norm()\n"
                            "    def rot(self, grid):\n"
                            "        return grid\n";
    static const char b[] = "class Rope(nn.Module):\n"
                            "    def forward(self, position_ids: torch.Tensor):\n"
                            "        return position_ids\n"
                            "class Norm(nn.Module):\n"
                            "    def forward(self, x, eps=None):\n"
                            "        return x\n"
                            "class Vision(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.rotary = Rope(config.dim // 2)\n"
                            "        self.norm = Norm()\n"
                            "    def rot(self, grid):\n"
                            "        return grid\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Vision.rot",
                    "def rot(self, grid):\n    return self.norm(self.rotary(grid.max()))\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "warning callee-signature-changed: `Vision.rot` calls `self.rotary()` (a `Rope`), "
                "whose signature changed at v2.0: its positional argument 1 now binds "
                "`position_ids` (was `seqlen`)\n");
    free(got);
}

/* A router that stops rebinding its logits to their softmax (transformers 5.9's
 * Qwen3-MoE routers): the block override that reads the logits from `self.gate()`
 * gets logits where it took probabilities, and a router override returns
 * probabilities where upstream's callers now take logits. A body that discards
 * that value (`_`) is not told; `x += y` written `x = x + y` is a body change. */
static void test_value_changed(void **state)
{
    (void)state;
    static const char a[] = "class Router(nn.Module):\n"
                            "    def forward(self, h):\n"
                            "        logits = F.linear(h, self.weight)\n"
                            "        logits = torch.softmax(logits, dim=-1)\n"
                            "        top, idx = torch.topk(logits, self.k)\n"
                            "        return logits, top, idx\n"
                            "class Block(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.gate = Router(config)\n"
                            "    def forward(self, h):\n"
                            "        out = self.experts(h)\n"
                            "        out += h\n"
                            "        return out\n";
    static const char b[] = "class Router(nn.Module):\n"
                            "    def forward(self, h):\n"
                            "        logits = F.linear(h, self.weight)\n"
                            "        probs = torch.softmax(logits, dim=-1)\n"
                            "        top, idx = torch.topk(probs, self.k)\n"
                            "        return logits, top, idx\n"
                            "class Block(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.gate = Router(config)\n"
                            "    def forward(self, h):\n"
                            "        out = self.experts(h)\n"
                            "        out = out + h\n"
                            "        return out\n";
    tpatch reads[] = {{PG_METHOD_OVERRIDE, "Block.forward",
                       "def forward(self, h):\n"
                       "    logits, top, idx = self.gate(h)\n"
                       "    return self.experts(h, logits.gather(1, idx))\n"}};
    char *got = survey(a, b, reads, 1);
    expect(got, "warning body-changed: `Block.forward`: the upstream body changed under the patch "
                "(written against v1.0)\n"
                "warning callee-value-changed: `Block.forward` uses `logits` of what `self.gate()` "
                "(a `Router`) returns, computed by other steps at v2.0\n");
    free(got);
    /* with the router patched too, the block's call runs the patch: nothing to tell */
    tpatch both[] = {reads[0],
                     {PG_METHOD_OVERRIDE, "Router.forward",
                      "def forward(self, h):\n"
                      "    return self.route(h)\n"}};
    got = survey(a, b, both, 2);
    expect(got, "warning body-changed: `Block.forward`: the upstream body changed under the patch "
                "(written against v1.0)\n"
                "warning return-value-changed: `Router.forward`: upstream now computes what it "
                "returns as `logits` by other steps (the patch was written against v1.0)\n");
    free(got);
    tpatch discards[] = {{PG_METHOD_OVERRIDE, "Block.forward",
                          "def forward(self, h):\n"
                          "    _, top, idx = self.gate(h)\n"
                          "    return self.experts(h, top, idx)\n"}};
    got = survey(a, b, discards, 1);
    expect(got, "warning body-changed: `Block.forward`: the upstream body changed under the patch "
                "(written against v1.0)\n");
    free(got);
}

/* An override's target whose last `return` gives another number of values
 * (DeepSeek-V3's router at 5.14.1: `return router_logits` became `return
 * router_logits, topk_weights, topk_indices`, written over three lines here): the
 * finding says so, not only "the body changed". A single value that is a call
 * may be a tuple itself: a body change. */
static void test_return_count_changed(void **state)
{
    (void)state;
    static const char a[] = "class Router(nn.Module):\n"
                            "    def forward(self, h):\n"
                            "        logits = F.linear(h, self.weight)\n"
                            "        return logits\n"
                            "    def route(self, h):\n"
                            "        return self.inner(h)\n";
    static const char b[] = "class Router(nn.Module):\n"
                            "    def forward(self, h):\n"
                            "        logits = F.linear(h, self.weight)\n"
                            "        top, idx = torch.topk(logits.sigmoid(), self.k)\n"
                            "        return (\n"
                            "            logits,\n"
                            "            top, idx\n"
                            "        )\n"
                            "    def route(self, h):\n"
                            "        top, idx = self.inner(h)\n"
                            "        return top, idx\n";
    tpatch over[] = {{PG_METHOD_OVERRIDE, "Router.forward",
                      "def forward(self, h):\n"
                      "    return F.linear(h, self.weight)\n"},
                     {PG_METHOD_OVERRIDE, "Router.route",
                      "def route(self, h):\n"
                      "    return self.inner(h)\n"}};
    char *got = survey(a, b, over, 2);
    expect(got, "warning return-count-changed: `Router.forward`: upstream now returns 3 values, "
                "`logits, top, idx`, where it returned `logits` (the patch was written against "
                "v1.0)\n"
                "warning body-changed: `Router.route`: the upstream body changed under the patch "
                "(written against v1.0)\n");
    free(got);
}

/* The same router, and a block upstream does not let the config patch: at B it
 * unpacks three values of `self.gate(h)` where the override still returns one, a
 * ValueError on every call (unpackers.h); an error naming the caller. The
 * block's forward patched too, or a starred target, or the override already
 * returning three: the warning. The class's own method calling `self.route()`
 * counts for `route`. */
static void test_return_count_breaks_caller(void **state)
{
    (void)state;
    static const char a[] = "class Router(nn.Module):\n"
                            "    def forward(self, h):\n"
                            "        logits = F.linear(h, self.weight)\n"
                            "        return logits\n"
                            "    def route(self, h):\n"
                            "        top = self.inner(h)\n"
                            "        return top\n"
                            "    def use(self, h):\n"
                            "        return self.route(h)\n"
                            "class Block(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.gate = Router(config)\n"
                            "    def forward(self, h):\n"
                            "        logits = self.gate(h)\n"
                            "        return logits\n";
    static const char b[] = "class Router(nn.Module):\n"
                            "    def forward(self, h):\n"
                            "        logits = F.linear(h, self.weight)\n"
                            "        top, idx = torch.topk(logits, self.k)\n"
                            "        return logits, top, idx\n"
                            "    def route(self, h):\n"
                            "        top, idx = self.inner(h)\n"
                            "        return top, idx\n"
                            "    def use(self, h):\n"
                            "        top, idx = self.route(h)\n"
                            "        return top\n"
                            "class Block(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.gate = Router(config)\n"
                            "    def forward(self, h):\n"
                            "        logits, top, idx = self.gate(h)\n"
                            "        return logits\n";
    tpatch router[] = {{PG_METHOD_OVERRIDE, "Router.forward",
                        "def forward(self, h):\n"
                        "    logits = F.linear(h, self.weight.float())\n"
                        "    return logits\n"}};
    char *got = survey(a, b, router, 1);
    expect(got, "error return-count-changed: `Router.forward`: at v2.0 upstream's `Block.forward` "
                "(line 16) unpacks 3 values of `self.gate(...)`, and the override returns 1, as "
                "upstream did at v1.0 (`logits`, now `logits, top, idx`): a "
                "ValueError on every call\n");
    free(got);
    tpatch both[] = {router[0],
                     {PG_METHOD_OVERRIDE, "Block.forward",
                      "def forward(self, h):\n"
                      "    return self.gate(h)\n"}};
    got = survey(a, b, both, 2);
    assert_non_null(strstr(got, "warning return-count-changed: `Router.forward`: upstream now "
                                "returns 3 values"));
    assert_null(strstr(got, "error"));
    free(got);
    tpatch three[] = {{PG_METHOD_OVERRIDE, "Router.forward",
                       "def forward(self, h):\n"
                       "    logits = F.linear(h, self.weight.float())\n"
                       "    top, idx = torch.topk(logits, self.k)\n"
                       "    return (logits, top, idx)\n"}};
    got = survey(a, b, three, 1);
    assert_non_null(strstr(got, "warning return-count-changed: `Router.forward`"));
    assert_null(strstr(got, "error"));
    free(got);
    tpatch route[] = {{PG_METHOD_OVERRIDE, "Router.route",
                       "def route(self, h):\n"
                       "    top = self.inner(h)\n"
                       "    return top\n"}};
    got = survey(a, b, route, 1);
    assert_non_null(strstr(got, "error return-count-changed: `Router.route`: at v2.0 upstream's "
                                "`Router.use` (line 10) unpacks 2 values of `self.route(...)`, and "
                                "the override returns 1"));
    free(got);
}

/* A required parameter added to an overridden layer's forward (GLM-MoE-DSA's
 * indexer at 5.12.1): an error while upstream's caller that still runs passes it;
 * a warning when that caller is patched too and the config's call passes nothing
 * the override refuses. A model nothing in the module builds (the framework calls
 * its forward) stays an error. */
static void test_required_param_callers(void **state)
{
    (void)state;
    static const char a[] = "class Indexer(nn.Module):\n"
                            "    def forward(self, h, q):\n"
                            "        return h\n"
                            "class Attention(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.indexer = None if config.skip else Indexer(config)\n"
                            "    def forward(self, h, q):\n"
                            "        return self.indexer(h, q)\n"
                            "class Model(nn.Module):\n"
                            "    def forward(self, h):\n"
                            "        return h\n";
    static const char b[] = "class Indexer(nn.Module):\n"
                            "    def forward(self, h, q, position_ids):\n"
                            "        return h\n"
                            "class Attention(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.indexer = None if config.skip else Indexer(config)\n"
                            "    def forward(self, h, q, position_ids):\n"
                            "        return self.indexer(h, q, position_ids=position_ids)\n"
                            "class Model(nn.Module):\n"
                            "    def forward(self, h, mask):\n"
                            "        return h\n";
    tpatch indexer = {PG_METHOD_OVERRIDE, "Indexer.forward",
                      "def forward(self, h, q):\n"
                      "    return h\n"};
    char *got = survey(a, b, &indexer, 1);
    assert_non_null(strstr(got, "error param-added-required: `Indexer.forward`: required "
                                "parameter `position_ids` added (v1.0 → v2.0)\n"));
    free(got);
    tpatch both[] = {indexer,
                     {PG_METHOD_OVERRIDE, "Attention.forward",
                      "def forward(self, h, q):\n"
                      "    return self.indexer(h, q)\n"}};
    got = survey(a, b, both, 2);
    assert_non_null(strstr(got, "warning param-added-required: `Indexer.forward`: required "
                                "parameter `position_ids` added (v1.0 → v2.0); no call of it "
                                "that still runs passes it (upstream's callers in the module are "
                                "patched too)\n"));
    free(got);
    /* the config's own caller passing it by position, into the override's `q`
     * (as `cache_position` took `past_key_values` in Qwen3.5's mask at 5.9.0) */
    tpatch positional[] = {indexer,
                           {PG_METHOD_OVERRIDE, "Attention.forward",
                            "def forward(self, h, q, position_ids):\n"
                            "    return self.indexer(h, q, position_ids)\n"}};
    got = survey(a, b, positional, 2);
    assert_non_null(strstr(got, "error param-added-required: `Indexer.forward`: required "
                                "parameter `position_ids` added (v1.0 → v2.0)\n"));
    free(got);
    tpatch model = {PG_METHOD_OVERRIDE, "Model.forward",
                    "def forward(self, h):\n"
                    "    return h\n"};
    got = survey(a, b, &model, 1);
    assert_non_null(strstr(got, "error param-added-required: `Model.forward`: required parameter "
                                "`mask` added (v1.0 → v2.0)\n"));
    free(got);
}

/* A callee that returned a call's result as is and now rebinds a field of it
 * before returning it (transformers 5.16.1's Qwen-Omni thinkers: `get_image_features`
 * returned `self.visual(...)`, now splits its `pooler_output` into a list, which the
 * thinker override's `.pooler_output.to(...)` cannot take): what the patch reads of
 * the result is computed by another step, a warning, where it was a note that the
 * body changed. A return folded into a name (`out = f(); return out` for `return
 * f()`) is the same body; a field set the same way at both tags is no change. */
static void test_value_field_rebound(void **state)
{
    (void)state;
    static const char a[] = "class Thinker(nn.Module):\n"
                            "    def get_image_features(self, pixel_values, grid):\n"
                            "        pixel_values = pixel_values.type(self.visual.dtype)\n"
                            "        return self.visual(pixel_values, grid_thw=grid)\n"
                            "    def get_video_features(self, pixel_values, grid):\n"
                            "        return self.visual(pixel_values, grid_thw=grid)\n"
                            "    def get_audio_features(self, x):\n"
                            "        out = self.audio(x)\n"
                            "        out.last = None\n"
                            "        return out\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    static const char b[] = "class Thinker(nn.Module):\n"
                            "    def get_image_features(self, pixel_values, grid):\n"
                            "        pixel_values = pixel_values.type(self.visual.dtype)\n"
                            "        vision_outputs = self.visual(pixel_values, grid_thw=grid)\n"
                            "        sizes = (grid.prod(-1) // 4).tolist()\n"
                            "        embeds = torch.split(vision_outputs.pooler_output, sizes)\n"
                            "        vision_outputs.pooler_output = list(embeds)\n"
                            "        return vision_outputs\n"
                            "    def get_video_features(self, pixel_values, grid):\n"
                            "        outputs = self.visual(pixel_values, grid_thw=grid)\n"
                            "        return outputs\n"
                            "    def get_audio_features(self, x):\n"
                            "        out = self.audio(x)\n"
                            "        out.last = None\n"
                            "        return out\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Thinker.forward",
                    "def forward(self, x, pixel_values=None, grid=None):\n"
                    "    image_embeds = self.get_image_features(pixel_values, grid).pooler_output\n"
                    "    image_embeds = image_embeds.to(x.device, x.dtype)\n"
                    "    video_embeds = self.get_video_features(pixel_values, grid).pooler_output\n"
                    "    audio = self.get_audio_features(x)\n"
                    "    return x + image_embeds + video_embeds + audio.last_hidden_state\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "warning callee-value-changed: `Thinker.forward` uses what "
                "`self.get_image_features()` returns, computed by other steps at v2.0 "
                "(`vision_outputs` there)\n");
    free(got);
}

/* The submodule made through a factory (`Cls._from_config(...)`, transformers'
 * way for a sub-config's model) is followed as `Cls(...)` is: Qwen3-Omni's thinker
 * at 5.22.2 swapped `self.model` for a wrapper whose `**kwargs` carry the
 * override's `deepstack_visual_embeds=` on to a call that passes it too. */
static void test_kwarg_collision_factory(void **state)
{
    (void)state;
    static const char a[] = "class Text(nn.Module):\n"
                            "    def forward(self, h, deep=None, **kwargs):\n"
                            "        return h\n"
                            "class Top(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.model = Text._from_config(config.text_config)\n"
                            "    def forward(self, h, **kwargs):\n"
                            "        return self.model(h, **kwargs)\n";
    static const char b[] = "class Text(nn.Module):\n"
                            "    def forward(self, h, deep=None, **kwargs):\n"
                            "        return h\n"
                            "class Wrap(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.language_model = Text._from_config(config.text_config)\n"
                            "    def forward(self, h, **kwargs):\n"
                            "        return self.language_model(h, deep=h, **kwargs)\n"
                            "class Top(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.model = Wrap(config)\n"
                            "    def forward(self, h, **kwargs):\n"
                            "        return self.model(h, **kwargs)\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Top.forward",
                    "def forward(self, h, **kwargs):\n"
                    "    return self.model(h, deep=h, **kwargs)\n"}};
    char *got = survey(a, b, ps, 1);
    expect_has(got, 0, "error", "callee-signature-changed: ",
               "`Top.forward` calls `self.model()` (a `Wrap` at v2.0, a `Text` at v1.0), whose "
               "signature changed at v2.0: "
               "`deep=` now goes into its `**kwargs` and on to `self.language_model()` (in "
               "`Wrap.forward`, line 8), which passes `deep=` too: a TypeError (multiple values "
               "for one keyword)");
    free(got);
}

/* A keyword the body passes by name that the callee no longer names: it goes into
 * the callee's **kwargs and on, through a submodule, to a call that passes it by
 * name too (transformers 5.9's audio encoder layers and `attention_mask`): a
 * TypeError there. Not when a call on the way takes it, or reads kwargs itself. */
static void test_kwarg_collision(void **state)
{
    (void)state;
    static const char a[] =
        "class Attn(nn.Module):\n"
        "    def forward(self, h, mask=None, **kwargs):\n"
        "        return attention(h, mask=mask, **kwargs)\n"
        "class Layer(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        self.attn = Attn(config)\n"
        "    def forward(self, h, mask=None, **kwargs):\n"
        "        return self.attn(h, mask=mask, **kwargs)\n"
        "class Encoder(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        self.layers = nn.ModuleList([Layer(config) for _ in range(2)])\n"
        "    def forward(self, h, **kwargs):\n"
        "        return h\n";
    static const char b[] =
        "class Attn(nn.Module):\n"
        "    def forward(self, h, **kwargs):\n"
        "        out = self.inner(h, **kwargs)\n"
        "        return out\n"
        "    def inner(self, h, **kwargs):\n"
        "        return attention(h, mask=None, **kwargs)\n"
        "class Layer(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        self.attn = Attn(config)\n"
        "    def forward(self, h, **kwargs):\n"
        "        return self.attn(h, **kwargs)\n"
        "class Encoder(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        self.layers = nn.ModuleList([Layer(config) for _ in range(2)])\n"
        "    def forward(self, h, **kwargs):\n"
        "        return h\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Encoder.forward",
                    "def forward(self, h, **kwargs):\n"
                    "    for layer in self.layers:\n"
                    "        h = layer(h, mask=None, **kwargs)\n"
                    "    return h\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "error callee-signature-changed: `Encoder.forward` calls `self.layers[i]()` (a "
                "`Layer`), whose signature changed at v2.0: `mask=` now goes into its `**kwargs` "
                "and on to `attention()` (in `Attn.inner`, line 6), which passes `mask=` too: a "
                "TypeError (multiple values for one keyword)\n");
    free(got);
    /* kwargs read on the way: where `mask` goes is not known, only the signature
     * is told (quietly: nothing) */
    const char *call = "        out = self.inner(h, **kwargs)\n";
    const char *at = strstr(b, call);
    char *b2 = NULL;
    assert_true(asprintf(&b2, "%.*s        kwargs.pop('mask', None)\n%s", (int)(at - b), b, at) >
                0);
    got = survey(a, b2, ps, 1);
    expect(got, "");
    free(got);
    free(b2);
    /* a call that passes `mask` only inside its own **kwargs: not told */
    tpatch named[] = {{PG_METHOD_OVERRIDE, "Encoder.forward",
                       "def forward(self, h, **kwargs):\n"
                       "    for layer in self.layers:\n"
                       "        h = layer(h, **kwargs)\n"
                       "    return h\n"}};
    got = survey(a, b, named, 1);
    expect(got, "");
    free(got);
}

/* A method the body runs on a SimpleNamespace standing in for self (VeOmni's
 * picklable position-id function and transformers 5.9's `get_rope_index`, which
 * started calling `self.get_vision_position_ids`): what it reads off self at B and
 * did not at A, and the stand-in lacks, is an AttributeError. */
static void test_stand_in(void **state)
{
    (void)state;
    static const char a[] = "class Model(nn.Module):\n"
                            "    def rope_index(self, ids):\n"
                            "        return ids * self.config.theta\n"
                            "    def position_fn(self):\n"
                            "        return None\n";
    static const char b[] = "class Model(nn.Module):\n"
                            "    def rope_index(self, ids):\n"
                            "        pos = self.vision_ids(ids, self.config)\n"
                            "        return pos * self.config.theta * self.scale\n"
                            "    def vision_ids(self, ids, config):\n"
                            "        return ids\n"
                            "    def position_fn(self):\n"
                            "        return None\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Model.position_fn",
                    "def position_fn(self):\n"
                    "    fake = SimpleNamespace(config=self.config, scale=2)\n"
                    "    return partial(helper, Model.rope_index, fake)\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "error stand-in-attr-missing: `Model.position_fn` runs `Model.rope_index` on a "
                "`SimpleNamespace` standing in for `self`, and at v2.0 that method reads "
                "`self.vision_ids`, which the stand-in lacks: an AttributeError\n");
    free(got);
    /* run directly; a stand-in given more attributes after it is made is not told */
    tpatch direct[] = {{PG_METHOD_OVERRIDE, "Model.position_fn",
                        "def position_fn(self):\n"
                        "    fake = SimpleNamespace(config=self.config)\n"
                        "    return Model.rope_index(fake, [1])\n"},
                       {PG_METHOD_OVERRIDE, "Model.rope_index",
                        "def rope_index(self, ids):\n"
                        "    fake = SimpleNamespace(config=self.config)\n"
                        "    fake.vision_ids = len\n"
                        "    return partial(Model.position_fn, fake)\n"}};
    got = survey(a, b, direct, 1);
    expect(got, "error stand-in-attr-missing: `Model.position_fn` runs `Model.rope_index` on a "
                "`SimpleNamespace` standing in for `self`, and at v2.0 that method reads "
                "`self.vision_ids`, which the stand-in lacks: an AttributeError\n"
                "error stand-in-attr-missing: `Model.position_fn` runs `Model.rope_index` on a "
                "`SimpleNamespace` standing in for `self`, and at v2.0 that method reads "
                "`self.scale`, which the stand-in lacks: an AttributeError\n");
    free(got);
    const char *body = "warning body-changed: `Model.rope_index`: the upstream body changed "
                       "under the patch (written against v1.0)\n";
    got = survey(a, b, &direct[1], 1);
    expect(got, body);
    free(got);
    /* with the method patched, the stand-in runs the patch: only the body change */
    got = survey(a, b, direct, 2);
    expect(got, body);
    free(got);
}

/* An attribute read off each element of a container of submodules that the
 * element's class no longer sets (transformers 5.9's Qwen2DecoderLayer and
 * `attention_type`): an error, a warning when an external base may set it. */
static void test_element_attr_removed(void **state)
{
    (void)state;
    static const char a[] = "class Layer(nn.Module):\n"
                            "    def __init__(self, config, i):\n"
                            "        self.attention_type = config.layer_types[i]\n"
                            "class Model(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.layers = nn.ModuleList([Layer(config, i) for i in "
                            "range(config.n)])\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    static const char b[] = "class Layer(nn.Module):\n"
                            "    def __init__(self, config, i):\n"
                            "        self.mlp = None\n"
                            "class Model(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.layers = nn.ModuleList([Layer(config, i) for i in "
                            "range(config.n)])\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Model.forward",
                    "def forward(self, x, masks):\n"
                    "    for layer in self.layers:\n"
                    "        x = layer(x, masks[layer.attention_type])\n"
                    "    return x\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "error element-attr-removed: `Model.forward` reads `.attention_type` of each "
                "`Layer` in `self.layers`, which `Layer` no longer sets at v2.0\n");
    free(got);
}

/* A parameter dropped where another of another type came, at the same position and
 * with the list's length kept, is a removal and an addition, not a rename
 * (transformers 5.9: cache_position -> mm_token_type_ids in the VL models). */
static void test_param_swapped_not_renamed(void **state)
{
    (void)state;
    static const char a[] = "class M(nn.Module):\n"
                            "    def forward(self, x, cache_position: torch.LongTensor | None = "
                            "None, **kwargs):\n"
                            "        return x\n";
    static const char b[] = "class M(nn.Module):\n"
                            "    def forward(self, x, mm_token_type_ids: torch.IntTensor | None = "
                            "None, **kwargs):\n"
                            "        return x\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "M.forward",
                    "def forward(self, x, cache_position=None, **kwargs):\n    return x\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "warning param-removed: `M.forward`: parameter `cache_position` removed (v1.0 → "
                "v2.0)\n"
                "warning param-added-optional: `M.forward`: optional parameter "
                "`mm_token_type_ids` added (v1.0 → v2.0)\n");
    free(got);
}

/* A keyword the call passes renamed behind @deprecate_kwarg binds the new name:
 * not a break, a warning (transformers 5.24's compute_3d_position_ids). */
static void test_self_call_through_shim(void **state)
{
    (void)state;
    static const char a[] = "class Net(nn.Module):\n"
                            "    def pos(self, ids, past_key_values, extra=None):\n"
                            "        return ids\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    static const char b[] =
        "class Net(nn.Module):\n"
        "    @deprecate_kwarg(\"past_key_values\", \"5.40.0\", new_name=\"cache\")\n"
        "    def pos(self, ids, cache, extra=None):\n"
        "        return ids\n"
        "    def forward(self, x):\n"
        "        return x\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Net.forward",
                    "def forward(self, x):\n    return self.pos(ids=x, past_key_values=None)\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "warning callee-signature-changed: `Net.forward` calls `self.pos()`, whose "
                "signature changed at v2.0\n"
                "info kwarg-deprecated: `Net.pos`: argument `past_key_values` is deprecated "
                "upstream at v2.0 in favour of `cache` (removal in 5.40.0)\n");
    free(got);
}

/* An argument a class's `__init__` deprecates is no fact of an override of another
 * of its methods: nothing there builds the class (5.16.1 -> 5.18.0: the DeepSeek-V4
 * configs override `DeepseekV4RotaryEmbedding.forward`, and `__init__`'s
 * `@deprecate_kwarg("device", version="5.18")` reaching its removal was a warning on
 * them). A body that builds the class still hears of it. */
static void test_init_kwarg_shim_under_another_method(void **state)
{
    (void)state;
    static const char src[] = "class Rope(nn.Module):\n"
                              "    @deprecate_kwarg(\"device\", version=\"1.5\")\n"
                              "    def __init__(self, config, device=None):\n"
                              "        self.dim = config.dim\n"
                              "    def forward(self, x):\n"
                              "        return x\n"
                              "class Model(nn.Module):\n"
                              "    def forward(self, x):\n"
                              "        return x\n";
    tpatch ps[] = {
        {PG_METHOD_OVERRIDE, "Rope.forward", "def forward(self, x):\n    return x * 2\n"}};
    char *got = survey(src, src, ps, 1);
    expect(got, "");
    free(got);
    tpatch builds[] = {{PG_METHOD_OVERRIDE, "Model.forward",
                        "def forward(self, x):\n    return Rope(self.config)(x)\n"}};
    got = survey(src, src, builds, 1);
    /* a removal release the tag is past says so (upstream's message was not updated) */
    expect(got, "warning kwarg-deprecated: `Rope.__init__`: argument `device` is deprecated "
                "upstream at v2.0 (removal announced for 1.5, overdue at v2.0)\n");
    free(got);
}

/* A parameter of the patch's target dropped behind `@deprecate_kwarg("old")` (no new
 * name) is one fact: the removal, which names the shim and its removal version, not
 * a removal and a deprecation of the same argument (transformers 5.10's
 * `rotary_pos_emb` of the vision attention and blocks). A shim that names no new
 * parameter also keeps the removal from being read as a rename. */
static void test_param_removed_through_shim(void **state)
{
    (void)state;
    static const char a[] = "class M(nn.Module):\n"
                            "    def forward(self, x, rotary_pos_emb: torch.Tensor | None = None,\n"
                            "                **kwargs):\n"
                            "        return x\n";
    static const char b[] =
        "class M(nn.Module):\n"
        "    @deprecate_kwarg(\"rotary_pos_emb\", version=\"v5.10\")\n"
        "    def forward(self, x, position_embeddings: torch.Tensor | None = None,\n"
        "                **kwargs):\n"
        "        return x\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "M.forward",
                    "def forward(self, x, rotary_pos_emb=None, **kwargs):\n    return x\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "warning param-removed: `M.forward`: parameter `rotary_pos_emb` removed (v1.0 → "
                "v2.0); upstream deprecates it through `@deprecate_kwarg` (removal in 5.10)\n"
                "warning param-added-optional: `M.forward`: optional parameter "
                "`position_embeddings` added (v1.0 → v2.0)\n");
    free(got);
    /* a shim naming a successor the list does not hold in the old one's place: the
     * removal names it, one finding too */
    static const char c[] =
        "class M(nn.Module):\n"
        "    @deprecate_kwarg(\"rotary_pos_emb\", \"v5.10\", new_name=\"pe\")\n"
        "    def forward(self, x, position_embeddings: torch.Tensor | None = None,\n"
        "                **kwargs):\n"
        "        return x\n";
    got = survey(a, c, ps, 1);
    expect(got, "warning param-removed: `M.forward`: parameter `rotary_pos_emb` removed (v1.0 → "
                "v2.0); upstream deprecates it through `@deprecate_kwarg` in favour of `pe` "
                "(removal in 5.10)\n"
                "warning param-added-optional: `M.forward`: optional parameter "
                "`position_embeddings` added (v1.0 → v2.0)\n");
    free(got);
}

/* A module-level name the body reads that upstream stops defining is provided by
 * the config only when one of its post-import blocks binds it, as the generated
 * module runs the block (dedented): a comment that mentions it does not
 * (transformers 5.16's `is_fast_path_available`, named in a Qwen3.5 block's
 * comment); an assignment, an import (`import a.b` binds `a`) does. */
static void test_post_import_block_binds(void **state)
{
    (void)state;
    static const char a[] = "is_fast = all((conv, rule))\n"
                            "class Net(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    static const char b[] = "class Net(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Net.forward",
                    "def forward(self, x):\n"
                    "    return x if is_fast and fastlib.ok else None\n"}};
    static const char *const blocks[] = {
        "\n    # `is_fast = all((conv, rule))` upstream stays False\n    conv = None\n",
        "\n    import fastlib.kernels\n    is_fast = False\n",
        "\n    if is_fast (\n",
    };
    static const char *const want[] = {
        "error name-removed: `Net.forward` uses `is_fast`, which upstream no longer defines at "
        "v2.0\n",
        "",
        "",
    };
    for (size_t i = 0; i < 3; i++) {
        post_block = blocks[i];
        char *got = survey(a, b, ps, 1);
        expect(got, want[i]); /* a block that does not parse binds what it mentions */
        free(got);
    }
    post_block = NULL;
}

/* A replaced class's own decorator reads a name upstream stopped importing: an
 * error, as any other name its body reads. */
static void test_decorator_name_removed(void **state)
{
    (void)state;
    static const char a[] = "from dataclasses import dataclass\n"
                            "@dataclass\n"
                            "class Out:\n"
                            "    x: int = 0\n";
    static const char b[] = "class Out:\n"
                            "    x: int = 0\n";
    tpatch ps[] = {{PG_CLASS_REPLACEMENT, "Out",
                    "@config.replace_class(\"Out\")\n"
                    "@dataclass\n"
                    "class Out:\n"
                    "    x: int = 1\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "warning decorator-removed: `Out`: decorator `@dataclass` removed\n"
                "error import-removed: `Out` uses `dataclass`, which upstream no longer imports at "
                "v2.0\n");
    free(got);
}

/* A helper placed after a class reads a name upstream stopped importing in its
 * decorator: an error (5.24.0's Qwen3.5 module and the configs' `@dataclass`
 * helper placed after `Qwen3_5CausalLMOutputWithPast`). */
static void test_positioned_helper_name_removed(void **state)
{
    (void)state;
    static const char a[] = "from dataclasses import dataclass\n"
                            "@dataclass\n"
                            "class Out:\n"
                            "    x: int = 0\n";
    static const char b[] = "class Out:\n"
                            "    x: int = 0\n";
    helper_after = "Out";
    helper_body = "@config.add_helper_after(\"Out\")\n"
                  "@dataclass\n"
                  "class Helper(Out):\n"
                  "    y: int = 1\n";
    char *got = survey(a, b, NULL, 0);
    helper_after = helper_body = NULL;
    expect(got, "error import-removed: `Helper` uses `dataclass`, which upstream no longer imports "
                "at v2.0\n");
    free(got);
}

/* Findings about a positioned helper are at the config's lines (they had none:
 * 5.24.0's Qwen3.5 configs got three errors with no line, and annotations without
 * a line): its target's vanishing at the add_helper_after that names it, what the
 * helper's own text uses at its first line when the config's file defines it,
 * else at the add_helper_after too. */
static void test_positioned_helper_lines(void **state)
{
    (void)state;
    static const char a[] = "from dataclasses import dataclass\n"
                            "@dataclass\n"
                            "class Out:\n"
                            "    x: int = 0\n";
    static const char b[] = "class Other:\n"
                            "    y: int = 0\n";
    /* the config's file: 39 lines, then the helper */
    static const char text[] = "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"
                               "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"
                               "@dataclass\n"
                               "class Helper(Out):\n"
                               "    y: int = 1\n";
    helper_after = "Out";
    helper_body = text;
    helper_line = 40;
    helper_reg_line = 90; /* config.add_helper_after("Out", Helper) */
    show_line = 1;
    cfg_file = "/x/cfg.py";
    char *got = survey(a, b, NULL, 0);
    expect(got, "error vanished: `Out` vanished upstream between v1.0 and v2.0 @90:5\n"
                "error import-removed: `Helper` uses `dataclass`, which upstream no longer imports "
                "at v2.0 @40:1\n"
                "error name-removed: `Helper` uses `Out`, which upstream no longer defines at "
                "v2.0 @40:1\n");
    free(got);
    cfg_file = NULL; /* the helper comes from another file */
    got = survey(a, b, NULL, 0);
    expect(got, "error vanished: `Out` vanished upstream between v1.0 and v2.0 @90:5\n"
                "error import-removed: `Helper` uses `dataclass`, which upstream no longer imports "
                "at v2.0 @90:5\n"
                "error name-removed: `Helper` uses `Out`, which upstream no longer defines at "
                "v2.0 @90:5\n");
    free(got);
    helper_after = helper_body = NULL;
    helper_line = helper_reg_line = 0;
    show_line = 0;
}

/* A class upstream dropped for one it imports: its own code now writes the new
 * name where it wrote the old one (transformers 5.24.0: `return
 * Qwen2VLModelOutputWithPast(` became `return MultimodalBaseModelOutputWithPast(`,
 * no definition of the module like the old class), so that name is the
 * successor; of two, what the overridden method itself builds (Qwen3.5's
 * `Qwen3_5Model.forward` annotates with `BaseModelOutputWithPast` and builds
 * `MultimodalBaseModelOutputWithPast`, its `Qwen3_5TextModel.forward` builds the
 * first). Before, the action was to import the old class "from where upstream
 * keeps it now": nowhere. */
static void test_written_instead(void **state)
{
    (void)state;
    static const char a[] = "class ToyOut:\n"
                            "    x: int = 0\n"
                            "class ToyText(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        y = self.norm(x)\n"
                            "        return ToyOut(x=y)\n"
                            "class ToyModel(nn.Module):\n"
                            "    def forward(self, x) -> ToyOut:\n"
                            "        h = self.text(x)\n"
                            "        return ToyOut(x=h)\n"
                            "class ToyTop(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        out: ToyOut = self.model(x)\n"
                            "        return out\n";
    static const char b[] = "from ...modeling_outputs import BaseOut, MultiOut\n"
                            "class ToyText(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        y = self.norm(x)\n"
                            "        return BaseOut(x=y)\n"
                            "class ToyModel(nn.Module):\n"
                            "    def forward(self, x) -> BaseOut:\n"
                            "        h = self.text(x)\n"
                            "        return MultiOut(x=h)\n"
                            "class ToyTop(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        out: MultiOut = self.model(x)\n"
                            "        return out\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "ToyModel.forward",
                    "def forward(self, x) -> ToyOut:\n"
                    "    return ToyOut(x=self.text(x) + 1)\n"},
                   {PG_METHOD_OVERRIDE, "ToyText.forward",
                    "def forward(self, x):\n"
                    "    return ToyOut(x=self.norm(x) + 1)\n"},
                   {PG_METHOD_OVERRIDE, "ToyTop.forward",
                    "def forward(self, x):\n"
                    "    out: ToyOut = self.model(x)\n"
                    "    return out\n"}};
    show_detail = 1;
    char *got = survey(a, b, ps, 3);
    show_detail = 0;
    static const char *const want[] = {
        "error name-removed: `ToyModel.forward` uses `ToyOut`, which upstream no longer defines "
        "at v2.0; successor `MultiOut` (upstream's code writes it in its place)\n",
        "error name-removed: `ToyText.forward` uses `ToyOut`, which upstream no longer defines "
        "at v2.0; successor `BaseOut` (upstream's code writes it in its place)\n",
        /* ToyTop.forward builds nothing: what it writes, in most places */
        "error name-removed: `ToyTop.forward` uses `ToyOut`, which upstream no longer defines "
        "at v2.0; successor `MultiOut` (upstream's code writes it in its place)\n",
        "upstream at v2.0 writes `MultiOut` where v1.0 wrote `ToyOut` (2 places):\n"
        "  `ToyModel.forward`: `return ToyOut(x=h)` → `return MultiOut(x=h)`\n"
        "  `ToyTop.forward`: `out: ToyOut = self.model(x)` → `out: MultiOut = self.model(x)`\n"
        "  and `BaseOut` in 2 places\n"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(got, want[i])) {
            fprintf(stderr, "--- got\n%s--- want (a part of)\n%s", got, want[i]);
            fail();
        }
    free(got);

    /* what B writes there but does not bind, or a line that only the name tells
     * apart ("y = ToyOut" against "y = other"), is no successor */
    static const char a2[] = "class ToyOut:\n"
                             "    x: int = 0\n"
                             "class ToyModel(nn.Module):\n"
                             "    def forward(self, x):\n"
                             "        y = ToyOut\n"
                             "        return Wrapped(ToyOut(x=y))\n";
    static const char b2[] = "other = 1\n"
                             "class ToyModel(nn.Module):\n"
                             "    def forward(self, x):\n"
                             "        y = other\n"
                             "        return Wrapped(Gone(x=y))\n";
    tpatch ps2[] = {{PG_METHOD_OVERRIDE, "ToyModel.forward",
                     "def forward(self, x):\n"
                     "    return ToyOut(x=x)\n"}};
    got = survey(a2, b2, ps2, 1);
    expect(got, "warning body-changed: `ToyModel.forward`: the upstream body changed under the "
                "patch (written against v1.0)\n"
                "error name-removed: `ToyModel.forward` uses `ToyOut`, which upstream no longer "
                "defines at v2.0\n");
    free(got);

    /* a line B dropped is not the line B renamed next to it: the `ToyRot` branch
     * went, the `ToyUp` one became `ToyNewUp` (transformers 5.25.0's
     * `Qwen2_5OmniPreTrainedModel._init_weights`, whose vision rotary branch went
     * while `UpSample1d`'s became `Qwen2_5OmniUpSample1d`) */
    static const char a3[] = "class ToyPos:\n"
                             "    pos: int = 0\n"
                             "class ToyRot:\n"
                             "    dim: int = 0\n"
                             "class ToyUp:\n"
                             "    ratio: int = 0\n"
                             "class ToyPre(nn.Module):\n"
                             "    def _init_weights(self, module):\n"
                             "        if isinstance(module, ToyPos):\n"
                             "            init.zeros_(module.pos)\n"
                             "        elif isinstance(module, ToyUp):\n"
                             "            init.copy_(module.filter, 1)\n"
                             "        elif isinstance(module, ToyRot):\n"
                             "            init.copy_(module.inv_freq, 2)\n";
    static const char b3[] = "class ToyPos:\n"
                             "    pos: int = 0\n"
                             "class ToyNewUp:\n"
                             "    ratio: int = 0\n"
                             "class ToyPre(nn.Module):\n"
                             "    def _init_weights(self, module):\n"
                             "        if isinstance(module, ToyPos):\n"
                             "            init.zeros_(module.pos)\n"
                             "        elif isinstance(module, ToyNewUp):\n"
                             "            init.copy_(module.filter, 1)\n";
    tpatch ps3[] = {{PG_METHOD_OVERRIDE, "ToyPre._init_weights",
                     "def _init_weights(self, module):\n"
                     "    if isinstance(module, ToyRot):\n"
                     "        init.copy_(module.inv_freq, 3)\n"}};
    got = survey(a3, b3, ps3, 1);
    expect_has(got, 3, "error", "name-removed: ",
               "`ToyPre._init_weights` uses `ToyRot`, which upstream no longer defines at v2.0\n");
    free(got);
}

/* A body reused through name_map reads the renamed names (patchgen rewrites its
 * text): upstream removing `ToyMoeOutput` breaks it though the body says
 * `ToyOutput`, and a class B no longer has is no dataclass left with fields to
 * fill (transformers 5.24.0 dropped `Qwen3_5MoeModelOutputWithPast`, which the
 * NPU config's reused dense `Qwen3_5TextModel.forward` builds). */
static void test_name_map_reads_renamed_names(void **state)
{
    (void)state;
    static const char a[] = "from .outputs import ToyMoeCache\n"
                            "class ToyMoeOutput:\n"
                            "    hidden: int = 0\n"
                            "    router_logits: int = 0\n"
                            "class ToyMoeModel(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return ToyMoeOutput(hidden=x, router_logits=x)\n";
    static const char b[] = "class MoeOutput:\n"
                            "    hidden: int = 0\n"
                            "    router_logits: int = 0\n"
                            "class ToyMoeModel(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return MoeOutput(hidden=x, router_logits=x)\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "ToyMoeModel.forward",
                    "def forward(self, x):\n"
                    "    c = ToyCache()\n"
                    "    return ToyOutput(hidden=x)\n"}};
    map_from = "Toy";
    map_to = "ToyMoe";
    char *got = survey(a, b, ps, 1);
    expect_has(
        got, 0, "error", "import-removed: ",
        "`ToyMoeModel.forward` uses `ToyMoeCache`, which upstream no longer imports at v2.0");
    expect_has(
        got, 1, "error", "name-removed: ",
        "`ToyMoeModel.forward` uses `ToyMoeOutput`, which upstream no longer defines at v2.0");
    assert_null(strstr(got, "name-map-fields"));
    free(got);

    /* still there at B, with a field it did not have at A: the field the call
     * leaves out is the finding; the original class is not in this module, so
     * nothing is said of it */
    static const char a2[] = "class ToyMoeOutput:\n"
                             "    hidden: int = 0\n"
                             "class ToyMoeModel(nn.Module):\n"
                             "    def forward(self, x):\n"
                             "        return x\n";
    static const char b2[] = "class ToyMoeOutput:\n"
                             "    hidden: int = 0\n"
                             "    router_logits: int = 0\n"
                             "class ToyMoeModel(nn.Module):\n"
                             "    def forward(self, x):\n"
                             "        return x\n";
    tpatch ps2[] = {{PG_METHOD_OVERRIDE, "ToyMoeModel.forward",
                     "def forward(self, x):\n    return ToyOutput(hidden=x)\n"}};
    got = survey(a2, b2, ps2, 1);
    map_from = map_to = NULL;
    expect(got,
           "warning name-map-fields: `ToyMoeModel.forward` (reused through name_map) builds "
           "`ToyMoeOutput` without `router_logits`, which `ToyMoeOutput` has: they stay None\n");
    free(got);
}

/* A successor named both by similarity and by its name (one token dropped,
 * transformers 5.16's `torch_causal_conv1d_update` → `causal_conv1d_update`) is one
 * line of the detail, with both reasons, not two. */
static void test_successor_named_once(void **state)
{
    (void)state;
    static const char a[] = "def torch_conv_update(state, x, weight, bias=None):\n"
                            "    out = torch.conv1d(state, weight, bias)\n"
                            "    return out[..., -x.shape[-1]:]\n"
                            "class Net(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    static const char b[] = "def conv_update(x, conv_state, weight, bias=None, activation=None):\n"
                            "    hidden = torch.cat([conv_state, x], dim=-1)\n"
                            "    out = torch.conv1d(hidden, weight, bias)\n"
                            "    return act(out, activation)\n"
                            "class Net(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Net.forward",
                    "def forward(self, x):\n    return torch_conv_update(x, x, x)\n"}};
    show_detail = 1;
    char *got = survey(a, b, ps, 1);
    show_detail = 0;
    assert_non_null(strstr(got, "likely successor `conv_update`"));
    const char *line = strstr(got, "successor candidate: conv_update (");
    assert_non_null(line);
    assert_null(strstr(line + 1, "successor candidate: conv_update ("));
    assert_non_null(strstr(got, "successor candidate: conv_update (its name is this one's with "
                                "`torch` dropped; similarity "));
    free(got);
}

/* A method a body calls that upstream's class stops defining because a base class
 * of transformers.modeling_utils gives it now (transformers 5.9's
 * get_input_embeddings, left to PreTrainedModel's EmbeddingAccessMixin): the call
 * binds, a note; without such a base, a warning as before. */
static void test_callee_inherited(void **state)
{
    (void)state;
    static const char a[] = "class ToyPreTrainedModel(PreTrainedModel):\n"
                            "    pass\n"
                            "class ToyModel(ToyPreTrainedModel):\n"
                            "    def get_input_embeddings(self):\n"
                            "        return self.language_model.embed_tokens\n"
                            "    def forward(self, ids):\n"
                            "        return ids\n";
    static const char b[] = "class ToyPreTrainedModel(PreTrainedModel):\n"
                            "    pass\n"
                            "class ToyModel(ToyPreTrainedModel):\n"
                            "    def forward(self, ids):\n"
                            "        return ids\n";
    static const char mu[] = "class EmbeddingAccessMixin:\n"
                             "    def get_input_embeddings(self):\n"
                             "        return getattr(self, 'embed_tokens')\n"
                             "class PreTrainedModel(nn.Module, EmbeddingAccessMixin):\n"
                             "    pass\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "ToyModel.forward",
                    "def forward(self, ids):\n    return self.get_input_embeddings()(ids)\n"}};
    base_src = mu;
    char *got = survey(a, b, ps, 1);
    base_src = NULL;
    expect(got, "info callee-inherited: `ToyModel.forward` calls `self.get_input_embeddings()`, "
                "which `ToyModel` no longer defines at v2.0: it inherits "
                "`EmbeddingAccessMixin.get_input_embeddings` (transformers.modeling_utils) now\n");
    free(got);
    got = survey(a, b, ps, 1);
    expect(got, "warning callee-vanished: `ToyModel.forward` calls `self.get_input_embeddings()`, "
                "which `ToyModel` no longer defines at v2.0 (an external base class may provide "
                "it now)\n");
    free(got);
}

/* An override's own target renames an argument behind @deprecate_kwarg: one fact,
 * the rename (with the shim and its removal version); not a deprecation note
 * beside it, nor an @auto_docstring warning that the override's old name is not
 * documented upstream (transformers 5.24's past_key_values -> cache: three
 * findings a method before; `extra`, undocumented at both tags, stands). */
static void test_override_renamed_by_shim(void **state)
{
    (void)state;
    static const char a[] = "class Net(nn.Module):\n"
                            "    @auto_docstring\n"
                            "    def forward(self, x, past_key_values=None):\n"
                            "        return x\n";
    static const char b[] =
        "class Net(nn.Module):\n"
        "    @deprecate_kwarg(\"past_key_values\", \"5.40.0\", new_name=\"cache\")\n"
        "    @auto_docstring\n"
        "    def forward(self, x, cache=None):\n"
        "        return x\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Net.forward",
                    "def forward(self, x, past_key_values=None, extra=None):\n    return x\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "warning param-renamed: `Net.forward`: parameter `past_key_values` renamed to "
                "`cache` (v1.0 → v2.0); the override keeps upstream's `@deprecate_kwarg`, which "
                "turns `past_key_values=` into `cache=`, which the override does not take: a call "
                "passing either by name raises a TypeError (no call found passes it by name)\n");
    free(got);
}

/* The same for a method other than `forward`: its callers are the class's own
 * `self.<method>(...)`. */
static void test_override_keeps_shim_method(void **state)
{
    (void)state;
    static const char a[] = "class Net(nn.Module):\n"
                            "    def helper(self, x, past_key_values=None):\n"
                            "        return x\n"
                            "    def forward(self, x):\n"
                            "        return self.helper(x, past_key_values=x)\n";
    static const char b[] =
        "class Net(nn.Module):\n"
        "    @deprecate_kwarg(\"past_key_values\", \"5.40.0\", new_name=\"cache\")\n"
        "    def helper(self, x, cache=None):\n"
        "        return x\n"
        "    def forward(self, x):\n"
        "        return self.helper(x, cache=x)\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Net.helper",
                    "def helper(self, x, past_key_values=None):\n    return x\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "error param-renamed: `Net.helper`: parameter `past_key_values` renamed to `cache` "
                "(v1.0 → v2.0); the override keeps upstream's `@deprecate_kwarg`, which turns "
                "`past_key_values=` into `cache=`, which the override does not take: `Net.forward` "
                "passes `cache=` (line 6), a TypeError\n");
    free(got);
}

/* A replaced class carries its own decorators, not upstream's shim: upstream's
 * callers now pass the new name, which reaches the replacement's method as it is.
 * Taking the new name is a warning that says so; taking only the old one, an error
 * once such a call is found; carrying the shim itself, the shim's warning. */
static void test_replacement_without_shim(void **state)
{
    (void)state;
    static const char a[] = "class Net(nn.Module):\n"
                            "    def forward(self, x, past_key_values=None):\n"
                            "        return x\n"
                            "class Outer(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.net = Net(config)\n"
                            "    def forward(self, x, state=None):\n"
                            "        return self.net(x, past_key_values=state)\n";
    static const char b[] =
        "class Net(nn.Module):\n"
        "    @deprecate_kwarg(\"past_key_values\", \"5.40.0\", new_name=\"cache\")\n"
        "    def forward(self, x, cache=None):\n"
        "        return x\n"
        "class Outer(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        self.net = Net(config)\n"
        "    def forward(self, x, state=None):\n"
        "        return self.net(x, cache=state)\n";
    static const char head[] = "param-renamed: `Net.forward`: parameter `past_key_values` renamed "
                               "to `cache` (v1.0 → v2.0); ";
    struct {
        const char *body, *sev, *want;
    } cases[] = {
        {"class Net(nn.Module):\n    def forward(self, x, cache=None):\n        return x\n",
         "warning", "the replacement takes `cache`\n"},
        {"class Net(nn.Module):\n    def forward(self, x, past_key_values=None):\n        return "
         "x\n",
         "error",
         "the replacement does not carry upstream's `@deprecate_kwarg` and does not take `cache`: "
         "`Outer.forward` passes `cache=` (line 9), a TypeError\n"},
        {"class Net(nn.Module):\n    @deprecate_kwarg(\"past_key_values\", \"5.40.0\", "
         "new_name=\"cache\")\n    def forward(self, x, cache=None):\n        return x\n",
         "warning", "`@deprecate_kwarg` keeps `past_key_values` working until 5.40.0\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tpatch ps[] = {{PG_CLASS_REPLACEMENT, "Net", cases[i].body}};
        char *got = survey(a, b, ps, 1);
        expect_has(got, i, cases[i].sev, head, cases[i].want);
        free(got);
    }
}

/* A call written in a docstring or a comment is not a call: only code that runs
 * makes the rename a TypeError (a text scan read `self.net(x, cache=...)` in an
 * example as one, an error where Python raises nothing). */
static void test_keyword_call_in_docstring(void **state)
{
    (void)state;
    static const char a[] = "class Net(nn.Module):\n"
                            "    def forward(self, x, past_key_values=None):\n"
                            "        return x\n"
                            "class Outer(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.net = Net(config)\n"
                            "    def forward(self, x, state=None):\n"
                            "        return self.net(x, state)\n";
    static const char b[] =
        "class Net(nn.Module):\n"
        "    @deprecate_kwarg(\"past_key_values\", \"5.40.0\", new_name=\"cache\")\n"
        "    def forward(self, x, cache=None):\n"
        "        return x\n"
        "class Outer(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        self.net = Net(config)\n"
        "    def forward(self, x, state=None):\n"
        "        \"\"\"Runs `self.net(x, cache=state)`.\"\"\"\n"
        "        # as self.net(x, cache=state) would\n"
        "        return self.net(x, state)\n";
    tpatch ps[] = {{PG_CLASS_REPLACEMENT, "Net",
                    "class Net(nn.Module):\n    def forward(self, x, past_key_values=None):\n"
                    "        return x\n"}};
    char *got = survey(a, b, ps, 1);
    assert_non_null(strstr(got, "warning param-renamed: `Net.forward`: parameter `past_key_values` "
                                "renamed to `cache` (v1.0 → v2.0); the replacement does not carry "
                                "upstream's `@deprecate_kwarg` and does not take `cache`: a call "
                                "passing it by name raises a TypeError (no call found passes it "
                                "by name)\n"));
    free(got);
}

/* A replaced module-level function carries its own decorators, not upstream's
 * shim, and upstream's callers pass the new name: its calls `f(new=...)` are
 * searched as a class's are (upstream's, outside what the config replaces or
 * overrides, at the module's top level too, and the config's own bodies), not in
 * strings, comments, nor `obj.f(...)`. */
static void test_function_replacement_without_shim(void **state)
{
    (void)state;
    static const char a[] = "def rotate(x, past_key_values=None):\n"
                            "    return x\n"
                            "class Net(nn.Module):\n"
                            "    def forward(self, x, state=None):\n"
                            "        return rotate(x, past_key_values=state)\n";
    static const char b[] =
        "@deprecate_kwarg(\"past_key_values\", \"5.40.0\", new_name=\"cache\")\n"
        "def rotate(x, cache=None):\n"
        "    return rotate(x[1:], cache=cache) if x else x\n"
        "def helper(x):\n"
        "    \"\"\"Like rotate(x, cache=x).\"\"\"\n"
        "    # rotate(x, cache=x)\n"
        "    return x.rotate(x, cache=x), \"rotate(x, cache=x)\"\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x, state=None):\n"
        "        return rotate(x, cache=state)\n"
        "DEFAULT = rotate(0, cache=None)\n";
    static const char head[] = "param-renamed: `rotate`: parameter `past_key_values` renamed to "
                               "`cache` (v1.0 → v2.0); the replacement does not carry upstream's "
                               "`@deprecate_kwarg` and does not take `cache`: ";
    static const char old[] = "def rotate(x, past_key_values=None):\n    return x\n";
    static const char quiet[] = "def forward(self, x, state=None):\n    return rotate(x, state)\n";
    static const char loud[] =
        "def forward(self, x, state=None):\n    return rotate(x, cache=state)\n";
    /* b without its module-level call */
    char *b_nodefault = pgci_strndup(b, strlen(b) - strlen("DEFAULT = rotate(0, cache=None)\n"));
    struct {
        const char *src_b;
        tpatch ps[2];
        size_t n;
        const char *sev, *want;
    } cases[] = {
        {b,
         {{PG_FUNCTION_REPLACEMENT, "rotate", old}},
         1,
         "error",
         "`Net.forward` passes `cache=` (line 10), a TypeError\n"},
        {b,
         {{PG_FUNCTION_REPLACEMENT, "rotate", old}, {PG_METHOD_OVERRIDE, "Net.forward", quiet}},
         2,
         "error",
         "the module passes `cache=` (line 11), a TypeError\n"},
        {b_nodefault,
         {{PG_FUNCTION_REPLACEMENT, "rotate", old}, {PG_METHOD_OVERRIDE, "Net.forward", quiet}},
         2,
         "warning",
         "a call passing it by name raises a TypeError (no call found passes it by "
         "name)\n"},
        {b_nodefault,
         {{PG_FUNCTION_REPLACEMENT, "rotate", old}, {PG_METHOD_OVERRIDE, "Net.forward", loud}},
         2,
         "error",
         "the config's `Net.forward` passes `cache=`, a TypeError\n"},
        {b_nodefault,
         {{PG_FUNCTION_REPLACEMENT, "rotate", old},
          {PG_CLASS_REPLACEMENT, "Net",
           "class Net(nn.Module):\n    def forward(self, x):\n        return x\n"}},
         2,
         "warning",
         "a call passing it by name raises a TypeError (no call found passes it by "
         "name)\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = survey(a, cases[i].src_b, cases[i].ps, cases[i].n);
        expect_has(got, i, cases[i].sev, head, cases[i].want);
        free(got);
    }
    free(b_nodefault);
}

/* An optional parameter upstream adds to a patched target: upstream's callers may
 * pass it now, and a patch taking neither it nor `**kwargs` raises a TypeError at
 * such a call; an error once one is found where the code still runs at B and none
 * passed it at A, the warning as before otherwise. */
static void test_optional_param_passed_by_caller(void **state)
{
    (void)state;
    static const char a[] = "class Net(nn.Module):\n"
                            "    def forward(self, x, **kwargs):\n"
                            "        return x\n"
                            "def rotate(x):\n"
                            "    return x\n"
                            "class Outer(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.net = Net(config)\n"
                            "    def forward(self, x, state=None):\n"
                            "        return self.net(rotate(x))\n";
    static const char b[] = "class Net(nn.Module):\n"
                            "    def forward(self, x, scale=None, **kwargs):\n"
                            "        return x\n"
                            "def rotate(x, dim=-1):\n"
                            "    return x\n"
                            "class Outer(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.net = Net(config)\n"
                            "    def forward(self, x, state=None):\n"
                            "        return self.net(rotate(x, dim=1), scale=state)\n";
    /* at A Outer already passed scale= (into Net's **kwargs) */
    static const char a_standing[] = "class Net(nn.Module):\n"
                                     "    def forward(self, x, **kwargs):\n"
                                     "        return x\n"
                                     "def rotate(x):\n"
                                     "    return x\n"
                                     "class Outer(nn.Module):\n"
                                     "    def __init__(self, config):\n"
                                     "        self.net = Net(config)\n"
                                     "    def forward(self, x, state=None):\n"
                                     "        return self.net(rotate(x), scale=state)\n";
    static const char net_head[] =
        "param-added-optional: `Net.forward`: optional parameter `scale` added (v1.0 → v2.0)";
    static const char rot_head[] =
        "param-added-optional: `rotate`: optional parameter `dim` added (v1.0 → v2.0)";
    struct {
        const char *src_a;
        tpatch p;
        const char *sev, *head, *tail;
    } cases[] = {
        {a,
         {PG_METHOD_OVERRIDE, "Net.forward", "def forward(self, x):\n    return x\n"},
         "error",
         net_head,
         "; the override takes neither `scale` nor `**kwargs`: `Outer.forward` passes `scale=` "
         "(line 10), a TypeError\n"},
        {a,
         {PG_METHOD_OVERRIDE, "Net.forward", "def forward(self, x, **kw):\n    return x\n"},
         "warning",
         net_head,
         "\n"},
        {a,
         {PG_METHOD_OVERRIDE, "Net.forward", "def forward(self, x, scale=None):\n    return x\n"},
         "warning",
         net_head,
         "\n"},
        {a_standing,
         {PG_METHOD_OVERRIDE, "Net.forward", "def forward(self, x):\n    return x\n"},
         "warning",
         net_head,
         "\n"},
        {a,
         {PG_FUNCTION_REPLACEMENT, "rotate", "def rotate(x):\n    return x\n"},
         "error",
         rot_head,
         "; the replacement takes neither `dim` nor `**kwargs`: `Outer.forward` passes `dim=` "
         "(line 10), a TypeError\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = survey(cases[i].src_a, b, &cases[i].p, 1);
        expect_has(got, i, cases[i].sev, cases[i].head, cases[i].tail);
        free(got);
    }
}

/* The same argument passed by position: past what the patch takes so (no `*args`),
 * a TypeError whatever its `**kwargs`. */
static void test_optional_param_passed_by_position(void **state)
{
    (void)state;
    static const char a[] = "class Net(nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return x\n"
                            "class Outer(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.net = Net(config)\n"
                            "    def forward(self, x, state=None):\n"
                            "        return self.net(x)\n";
    static const char b[] = "class Net(nn.Module):\n"
                            "    def forward(self, x, scale=None):\n"
                            "        return x\n"
                            "class Outer(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.net = Net(config)\n"
                            "    def forward(self, x, state=None):\n"
                            "        return self.net(x, state)\n";
    static const char b_star[] = "class Net(nn.Module):\n"
                                 "    def forward(self, x, scale=None):\n"
                                 "        return x\n"
                                 "class Outer(nn.Module):\n"
                                 "    def __init__(self, config):\n"
                                 "        self.net = Net(config)\n"
                                 "    def forward(self, x, *rest):\n"
                                 "        return self.net(x, *rest)\n";
    static const char head[] =
        "param-added-optional: `Net.forward`: optional parameter `scale` added (v1.0 → v2.0)";
    struct {
        const char *src_b, *body, *sev, *tail;
    } cases[] = {
        {b, "def forward(self, x, **kwargs):\n    return x\n", "error",
         "; the override takes 1 argument by position: `Outer.forward` passes 2 arguments by "
         "position (line 8), a TypeError\n"},
        {b, "def forward(self, x, *args):\n    return x\n", "warning", "\n"},
        {b, "def forward(self, x, y=None):\n    return x\n", "warning", "\n"},
        {b_star, "def forward(self, x):\n    return x\n", "warning", "\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tpatch ps[] = {{PG_METHOD_OVERRIDE, "Net.forward", cases[i].body}};
        char *got = survey(a, cases[i].src_b, ps, 1);
        expect_has(got, i, cases[i].sev, head, cases[i].tail);
        free(got);
    }
}

/* Arguments passed by position at a call's top level; unknown with an unpacking. */
static void test_keyword_calls_positional(void **state)
{
    (void)state;
    struct {
        const char *call;
        long n;
    } cases[] = {
        {"()", 0},
        {"(x)", 1},
        {"(x, y)", 2},
        {"(x, y,)", 2},
        {"(x, k=1)", 1},
        {"(f(a, b), c)", 2},
        {"(x, *rest)", -1},
        {"(x, **kw)", -1},
        {"(x == y, z)", 2},
        {"(\"a,b\", c)", 2},
        {"(x,  # a, b\n y)", 2},
        {"(x for x in y)", 1},
        {"([1, 2], (3,))", 2},
        {"(x", -1},
        {"(k=(1, 2))", 0},
        {"(1, k=2)", 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        long got = keyword_calls_positional(cases[i].call, strlen(cases[i].call));
        if (got != cases[i].n)
            fprintf(stderr, "case %zu: %s\n", i, cases[i].call);
        assert_int_equal(got, cases[i].n);
    }
}

/* Decoder layers are called as the elements of a ModuleList, in a loop over it
 * (`for i, layer in enumerate(self.layers[:n]): layer(x, cache=...)`): such a call
 * is one of Layer.forward's, found as `self.<attr>(...)` is; a loop over another
 * container, a comment or a docstring is not. */
static void test_keyword_call_of_an_element(void **state)
{
    (void)state;
    static const char a[] = "class Layer(nn.Module):\n"
                            "    def forward(self, x, past_key_values=None):\n"
                            "        return x\n"
                            "class Model(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.layers = nn.ModuleList([Layer(config, i) for i in "
                            "range(config.n)])\n"
                            "        self.norms = nn.ModuleList([Norm(config) for _ in range(2)])\n"
                            "    def forward(self, x, past_key_values=None):\n"
                            "        for i, layer in enumerate(self.layers[: 2]):\n"
                            "            x = layer(x, past_key_values=past_key_values)\n"
                            "        return x\n";
    static const char b_head[] =
        "class Layer(nn.Module):\n"
        "    @deprecate_kwarg(\"past_key_values\", \"5.40.0\", new_name=\"cache\")\n"
        "    def forward(self, x, cache=None):\n"
        "        return x\n"
        "class Model(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        self.layers = nn.ModuleList([Layer(config, i) for i in range(config.n)])\n"
        "        self.norms = nn.ModuleList([Norm(config) for _ in range(2)])\n"
        "    def forward(self, x, cache=None):\n";
    static const char loop[] = "        for i, layer in enumerate(self.layers[: 2]):\n"
                               "            # layer(x, past_key_values=cache) before\n"
                               "            x = layer(\n"
                               "                x, cache=cache\n"
                               "            )\n"
                               "        return x\n";
    static const char other[] = "        \"\"\"for layer in self.layers: layer(x, cache=c)\"\"\"\n"
                                "        for layer in self.layers:\n"
                                "            x = layer(x, cache)\n"
                                "        for norm in self.norms:\n"
                                "            x = norm(x, cache=cache)\n"
                                "        return x\n";
    static const char head[] =
        "param-renamed: `Layer.forward`: parameter `past_key_values` renamed to `cache` (v1.0 → "
        "v2.0); the override keeps upstream's `@deprecate_kwarg`, which turns `past_key_values=` "
        "into `cache=`, which the override does not take: ";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Layer.forward",
                    "def forward(self, x, past_key_values=None):\n    return x\n"}};
    strbuf b = STRBUF_INIT;
    strbuf_addf(&b, "%s%s", b_head, loop);
    char *got = survey(a, b.buf, ps, 1);
    expect_has(got, 0, "error", head, "`Model.forward` passes `cache=` (line 12), a TypeError\n");
    free(got);
    strbuf_reset(&b);
    strbuf_addf(&b, "%s%s", b_head, other);
    got = survey(a, b.buf, ps, 1);
    expect_has(got, 1, "warning", head,
               "a call passing either by name raises a TypeError (no call found passes it by "
               "name)\n");
    free(got);
    strbuf_free(&b);
}

/* A keyword passed at a call's top level, not inside a nested call, a string, a
 * comment, nor a comparison. */
static void test_keyword_calls_passes(void **state)
{
    (void)state;
    struct {
        const char *call;
        int passes;
    } cases[] = {
        {"(x, cache=c)", 1},        {"(x,\n    cache = c,\n)", 1}, {"(x, f(cache=c))", 0},
        {"(x, cache == c)", 0},     {"(x, \"cache=c\")", 0},       {"(x, '''cache=\n''')", 0},
        {"(x,  # cache=c\n y)", 0}, {"(x, my_cache=c)", 0},        {"(x, **{'cache': c})", 0},
        {"(x) + g(cache=c)", 0},    {"(x, [1, (2)], cache=c)", 1}, {"(x, cache", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int got = keyword_calls_passes(cases[i].call, strlen(cases[i].call), "cache");
        if (got != cases[i].passes)
            fprintf(stderr, "case %zu: %s\n", i, cases[i].call);
        assert_int_equal(got, cases[i].passes);
    }
}

/* An override keeps upstream's decorators, `@deprecate_kwarg` among them: the shim
 * turns `past_key_values=` into `cache=` before the override runs. It keeps the
 * override working only when the override takes `cache` too; with `**kwargs` the
 * value goes there; with neither, a call passing either name by keyword raises a
 * TypeError (what transformers 5.24.0's shim does to an override of
 * `Qwen3_5GatedDeltaNet.forward` that keeps `cache_params`, checked in its venv):
 * an error once such a call is found — upstream's, in a method the config does not
 * replace, or the config's own override of the caller — a warning otherwise. */
static void test_override_keeps_shim(void **state)
{
    (void)state;
    static const char a[] = "class Net(nn.Module):\n"
                            "    @auto_docstring\n"
                            "    def forward(self, x, past_key_values=None):\n"
                            "        return x\n"
                            "class Outer(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.net = Net(config)\n"
                            "    def forward(self, x, state=None):\n"
                            "        return self.net(x, state)\n";
    static const char b_pos[] =
        "class Net(nn.Module):\n"
        "    @deprecate_kwarg(\"past_key_values\", \"5.40.0\", new_name=\"cache\")\n"
        "    @auto_docstring\n"
        "    def forward(self, x, cache=None):\n"
        "        return x\n"
        "class Outer(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        self.net = Net(config)\n"
        "    def forward(self, x, state=None):\n"
        "        return self.net(x, state)\n";
    static const char b_kw[] =
        "class Net(nn.Module):\n"
        "    @deprecate_kwarg(\"past_key_values\", \"5.40.0\", new_name=\"cache\")\n"
        "    @auto_docstring\n"
        "    def forward(self, x, cache=None):\n"
        "        return x\n"
        "class Outer(nn.Module):\n"
        "    def __init__(self, config):\n"
        "        self.net = Net(config)\n"
        "    def forward(self, x, state=None):\n"
        "        return self.net(x, cache=state)\n";
    static const char head[] = "warning param-renamed: `Net.forward`: parameter `past_key_values` "
                               "renamed to `cache` (v1.0 → v2.0); ";
    static const char shim[] = "the override keeps upstream's `@deprecate_kwarg`, which turns "
                               "`past_key_values=` into `cache=`, ";
    struct {
        const char *b, *body, *outer, *want;
    } cases[] = {
        {b_kw, "def forward(self, x, past_key_values=None, cache=None):\n    return x\n", NULL,
         "`@deprecate_kwarg` keeps `past_key_values` working until 5.40.0\n"},
        {b_pos, "def forward(self, x, past_key_values=None, **kwargs):\n    return x\n", NULL,
         "and `cache=` goes into the override's `**kwargs`: a call passing either by name no "
         "longer reaches `past_key_values`\n"},
        {b_pos, "def forward(self, x, past_key_values=None):\n    return x\n", NULL,
         "which the override does not take: a call passing either by name raises a TypeError "
         "(no call found passes it by name)\n"},
        {b_kw, "def forward(self, x, past_key_values=None):\n    return x\n", NULL,
         "which the override does not take: `Outer.forward` passes `cache=` (line 10), a "
         "TypeError\n"},
        /* upstream's Outer.forward no longer runs: the config's does */
        {b_kw, "def forward(self, x, past_key_values=None):\n    return x\n",
         "def forward(self, x, state=None):\n    return self.net(x, state)\n",
         "which the override does not take: a call passing either by name raises a TypeError "
         "(no call found passes it by name)\n"},
        {b_pos, "def forward(self, x, past_key_values=None):\n    return x\n",
         "def forward(self, x, state=None):\n    return self.net(x, past_key_values=state)\n",
         "which the override does not take: the config's `Outer.forward` passes "
         "`past_key_values=`, a TypeError\n"},
        /* upstream's Outer.forward, which still runs, passes `cache=`: the override's
         * `**kwargs` takes it, and `past_key_values` is None there (qwen2_5_omni's
         * vision attention at 5.10.4: an AttributeError on `None.cos()`) */
        {b_kw,
         "def forward(self, x, past_key_values=None, **kwargs):\n    return x + past_key_values\n",
         NULL,
         "and `cache=` goes into the override's `**kwargs`: `Outer.forward` passes `cache=` "
         "(line 10), so `past_key_values` keeps its default there\n"},
        /* one that does not read it loses nothing */
        {b_kw, "def forward(self, x, past_key_values=None, **kwargs):\n    return x\n", NULL,
         "and `cache=` goes into the override's `**kwargs`: a call passing either by name no "
         "longer reaches `past_key_values`\n"},
        /* unless the override passes it on as it is (a cache left None on a training
         * step is the callee's to handle), tests it for None, */
        {b_kw,
         "def forward(self, x, past_key_values=None, **kwargs):\n"
         "    return self.inner(x, past_key_values=past_key_values)\n",
         NULL,
         "and `cache=` goes into the override's `**kwargs`: a call passing either by name no "
         "longer reaches `past_key_values`\n"},
        {b_kw,
         "def forward(self, x, past_key_values=None, **kwargs):\n"
         "    return x if past_key_values is None else x + past_key_values\n",
         NULL,
         "and `cache=` goes into the override's `**kwargs`: a call passing either by name no "
         "longer reaches `past_key_values`\n"},
        /* or reads it out of its `**kwargs` */
        {b_kw,
         "def forward(self, x, past_key_values=None, **kwargs):\n"
         "    return x + kwargs.get(\"cache\", past_key_values)\n",
         NULL,
         "and `cache=` goes into the override's `**kwargs`: a call passing either by name no "
         "longer reaches `past_key_values`\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        tpatch ps[] = {{PG_METHOD_OVERRIDE, "Net.forward", cases[i].body},
                       {PG_METHOD_OVERRIDE, "Outer.forward", cases[i].outer}};
        char *got = survey(a, cases[i].b, ps, cases[i].outer ? 2 : 1);
        strbuf want = STRBUF_INIT;
        strbuf_addf(&want, "%s%s%s", head, i ? shim : "", cases[i].want);
        char *line = strstr(got, "param-renamed: `Net.forward`");
        assert_non_null(line);
        char *end = strchr(line, '\n');
        const char *w = strstr(want.buf, "param-renamed");
        if (strncmp(line, w, (size_t)(end - line + 1)))
            fprintf(stderr, "case %zu\n--- got\n%s--- want\n%s", i, got, want.buf);
        assert_memory_equal(line, w, (size_t)(end - line + 1));
        /* the severity: an error once a call passing it by name is found */
        int error = strstr(cases[i].want, "passes `") != NULL;
        assert_true(line - got >= (error ? 6 : 8));
        assert_memory_equal(line - (error ? 6 : 8), error ? "error " : "warning ", error ? 6 : 8);
        strbuf_free(&want);
        free(got);
    }
}

/* An unreachable tower takes the patches of what it builds with it (5.12.1's
 * Qwen3-VL text model: its attention's and its norm's patches ran only inside it):
 * the error names them; a patched class the tower does not build is not named. */
static void test_unreachable_names_built(void **state)
{
    (void)state;
    static const char common[] = "class Block(nn.Module):\n"
                                 "    def forward(self, x):\n"
                                 "        return x\n"
                                 "class Norm(nn.Module):\n"
                                 "    def forward(self, x):\n"
                                 "        return x\n"
                                 "class Vision(PreTrainedModel):\n"
                                 "    def __init__(self, config):\n"
                                 "        self.blocks = nn.ModuleList([Block(config)])\n"
                                 "    def forward(self, x):\n"
                                 "        return x\n";
    char *a = pgci_asprintf("%sclass Model(PreTrainedModel):\n"
                            "    def __init__(self, config):\n"
                            "        self.visual = Vision._from_config(config.vision_config)\n"
                            "        self.norm = Norm(config)\n",
                            common);
    char *b = pgci_asprintf("%sclass Model(PreTrainedModel):\n"
                            "    def __init__(self, config):\n"
                            "        self.visual = AutoModel.from_config(config.vision_config)\n"
                            "        self.norm = Norm(config)\n",
                            common);
    tpatch ps[] = {
        {PG_METHOD_OVERRIDE, "Block.forward", "def forward(self, x):\n    return x\n"},
        {PG_METHOD_OVERRIDE, "Norm.forward", "def forward(self, x):\n    return x * 2\n"},
        {PG_METHOD_OVERRIDE, "Vision.forward", "def forward(self, x):\n    return x + 1\n"}};
    char *got = survey(a, b, ps, 3);
    expect(got, "error unreachable: `Vision` is patched, but upstream no longer instantiates it at "
                "v2.0 (nothing in the module names it): the patch silently stops applying, and so "
                "do the patches of `Block` inside it (it builds them)\n");
    free(got);
    free(a);
    free(b);
}

/* 5.12.1's VL models build their towers through `AutoModel.from_config`: the
 * factory builds transformers' own classes, not the generated module's. A tower the
 * module names nowhere else is the unreachable rule's; one another class still
 * builds by name (`Qwen3_5ForCausalLM`'s `Qwen3_5TextModel`) escaped it, and with
 * it every patch of the classes the tower builds (the GatedDeltaNet, the layers). A
 * config that builds the tower itself (qwen3_5_moe's override of
 * `Qwen3_5MoeModel.__init__`) keeps its patches: neither rule then. */
static void test_auto_built_bypasses_patched(void **state)
{
    (void)state;
    static const char common[] = "class Layer(nn.Module):\n"
                                 "    def forward(self, x):\n"
                                 "        return x\n"
                                 "class Text(PreTrainedModel):\n"
                                 "    def __init__(self, config):\n"
                                 "        self.layers = [Layer(config)]\n"
                                 "class Vision(PreTrainedModel):\n"
                                 "    def forward(self, x):\n"
                                 "        return x\n"
                                 "class ForCausalLM(PreTrainedModel):\n"
                                 "    def __init__(self, config):\n"
                                 "        self.model = Text(config)\n";
    char *a = pgci_asprintf("%sclass Model(PreTrainedModel):\n"
                            "    def __init__(self, config):\n"
                            "        self.visual = Vision._from_config(config.vision_config)\n"
                            "        self.language_model = Text._from_config(config.text_config)\n",
                            common);
    char *b =
        pgci_asprintf("%sclass Model(PreTrainedModel):\n"
                      "    def __init__(self, config):\n"
                      "        self.visual = AutoModel.from_config(config.vision_config)\n"
                      "        self.language_model = AutoModel.from_config(config.text_config)\n",
                      common);
    static const char unreachable[] =
        "error unreachable: `Vision` is patched, but upstream no longer instantiates it at v2.0 "
        "(nothing in the module names it): the patch silently stops applying\n";
    static const char auto_built[] =
        "error auto-built: `Model` builds its `Text` through `AutoModel` at v2.0 (v1.0 named the "
        "class): transformers' own class runs there, so the patches of `Layer` silently stop "
        "applying inside `Model`\n";
    tpatch ps[] = {
        {PG_METHOD_OVERRIDE, "Layer.forward", "def forward(self, x):\n    return x\n"},
        {PG_METHOD_OVERRIDE, "Vision.forward", "def forward(self, x):\n    return x + 1\n"},
        {PG_METHOD_OVERRIDE, "Model.__init__", NULL}};
    char *got = survey(a, b, ps, 2);
    strbuf want = STRBUF_INIT;
    strbuf_addf(&want, "%s%s", unreachable, auto_built);
    expect(got, want.buf);
    free(got);
    strbuf_free(&want);
    /* each at the patch it is about: Vision.forward's, and Layer.forward's for the
     * patches of `Layer` */
    show_line = 1;
    got = survey(a, b, ps, 2);
    show_line = 0;
    assert_non_null(strstr(got, "stops applying @20:1\n"));
    assert_non_null(strstr(got, "inside `Model` @10:1\n"));
    free(got);
    /* the config's own Model.__init__ builds both by name */
    ps[2].body = "def __init__(self, config):\n"
                 "    self.visual = Vision._from_config(config.vision_config)\n"
                 "    self.language_model = Text._from_config(config.text_config)\n";
    got = survey(a, b, ps, 3);
    expect(got, "warning body-changed: `Model.__init__`: the upstream body changed under the "
                "patch (written against v1.0)\n");
    free(got);
    /* a tag against itself: nothing */
    got = survey(b, b, ps, 2);
    expect(got, "");
    free(got);
    free(a);
    free(b);
}

/* A method the body calls through self starts announcing its removal: the
 * deprecation is reported where the patch calls it. */
static void test_self_call_deprecated(void **state)
{
    (void)state;
    static const char a[] = "class Net(nn.Module):\n"
                            "    def helper(self, x):\n"
                            "        return x\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    static const char b[] = "class Net(nn.Module):\n"
                            "    def helper(self, x):\n"
                            "        warnings.warn(\"helper is deprecated and will be removed in "
                            "v3.0\", FutureWarning)\n"
                            "        return x\n"
                            "    def forward(self, x):\n"
                            "        return x\n";
    tpatch ps[] = {
        {PG_METHOD_OVERRIDE, "Net.forward", "def forward(self, x):\n    return self.helper(x)\n"}};
    char *got = survey(a, b, ps, 1);
    expect(got, "info callee-body-changed: `Net.forward` calls `self.helper()`, whose upstream "
                "body changed (v1.0 → v2.0)\n"
                "info deprecation: `Net.helper`, which a patch calls, is deprecated upstream at "
                "v2.0: removal in 3.0\n");
    free(got);
}

/* Nothing changed: nothing reported, whatever the config does (standing facts are
 * pgci check's). */
static void test_same_tag_reports_nothing(void **state)
{
    (void)state;
    static const char a[] = "from typing import Optional\n"
                            "logger = get_logger()\n"
                            "class Net(nn.Module):\n"
                            "    def __init__(self, config):\n"
                            "        self.act = ACT[config.act]\n"
                            "    def forward(self, x: Optional[int] = None):\n"
                            "        return self.act(x)\n";
    tpatch ps[] = {{PG_METHOD_OVERRIDE, "Net.forward",
                    "def forward(self, x: Optional[int] = None):\n"
                    "    logger.info(x)\n    return self.gone(self.act(x))\n"},
                   {PG_CLASS_REPLACEMENT, "Missing", NULL}};
    char *got = survey(a, a, ps, 2);
    expect(got, "");
    free(got);
}

/* A base method of modeling_utils that starts telling classes by their module:
 * a warning for a patched class that inherits it, none for one that does not. */
static void test_inherited_module_keyed(void **state)
{
    (void)state;
    static const char model[] = "class ToyPreTrainedModel(PreTrainedModel):\n"
                                "    pass\n"
                                "class ToyModel(ToyPreTrainedModel):\n"
                                "    def forward(self, x):\n"
                                "        return x\n"
                                "class ToyMLP(nn.Module):\n"
                                "    def forward(self, x):\n"
                                "        return x\n";
    static const char base_a[] = "class PreTrainedModel(nn.Module):\n"
                                 "    def is_custom_code(cls):\n"
                                 "        return cls._auto_class is not None\n";
    static const char base_b[] =
        "class PreTrainedModel(nn.Module):\n"
        "    def is_custom_code(cls):\n"
        "        return not cls.__module__.startswith(\"transformers.\")\n";
    index_module *m = index_of(model), *ba = index_of(base_a), *bb = index_of(base_b);
    pg_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.source_module = "transformers.models.toy.modeling_toy";
    pg_patch p1 = {0}, p2 = {0};
    p1.type = p2.type = PG_METHOD_OVERRIDE;
    p1.target = "ToyModel.forward";
    p2.target = "ToyMLP.forward";
    /* registered in the config's file: the finding is at ToyModel's patch */
    p1.reg_file = p2.reg_file = "cfg.py";
    p1.reg_line = 12;
    p2.reg_line = 20;
    p1.reg_col = p2.reg_col = 1;
    VEC_PUSH(&cfg.patches, p1);
    VEC_PUSH(&cfg.patches, p2);
    survey_pair p;
    memset(&p, 0, sizeof(p));
    p.config = "cfg";
    p.config_path = "cfg.py";
    p.cfg = &cfg;
    p.a = p.b = m;
    p.tag_a = "v1.0";
    p.tag_b = "v2.0";
    p.base_a = ba;
    p.base_b = bb;
    p.base_src_a = base_a;
    p.base_src_a_len = strlen(base_a);
    p.base_src_b = base_b;
    p.base_src_b_len = strlen(base_b);
    findings fs = FINDINGS_INIT;
    check_inherited(&fs, &p);
    assert_int_equal(fs.len, 1);
    assert_string_equal(fs.items[0]->title,
                        "`ToyModel` inherits `PreTrainedModel.is_custom_code`, which now tells "
                        "classes by their module at v2.0: the generated class lives outside "
                        "`transformers.`");
    assert_int_equal(fs.items[0]->line, 12);
    assert_int_equal(fs.items[0]->col, 1);
    findings_free(&fs);
    /* the same base at both tags: nothing */
    p.base_b = ba;
    p.base_src_b = base_a;
    p.base_src_b_len = strlen(base_a);
    check_inherited(&fs, &p);
    assert_int_equal(fs.len, 0);
    findings_free(&fs);
    VEC_FREE(&cfg.patches);
    index_module_free(m);
    index_module_free(ba);
    index_module_free(bb);
}

/* ---- changes ------------------------------------------------------------------------ */

static json_t *jfinding(const char *check, const char *sev, const char *config, const char *title,
                        json_t *data, const char *detail)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s?, s:o*}", "check", check, "severity", sev, "config",
                     config, "title", title, "detail", detail, "data", data);
}

/* What the survey's summaries count: vanished targets, changed ones, and neither
 * for body changes, names no longer imported, targets that appeared, other checks. */
static void test_target_count_kind(void **state)
{
    (void)state;
    assert_int_equal(changes_target_count_kind("signatures", "vanished"), 1);
    assert_int_equal(changes_target_count_kind("targets", "missing-target"), 1);
    assert_int_equal(changes_target_count_kind("signatures", "param-renamed"), 2);
    assert_int_equal(changes_target_count_kind("signatures", "decorator-removed"), 2);
    assert_int_equal(changes_target_count_kind("signatures", "body-changed"), 0);
    assert_int_equal(changes_target_count_kind("signatures", "replaced-body-changed"), 0);
    assert_int_equal(changes_target_count_kind("signatures", "import-removed"), 0);
    assert_int_equal(changes_target_count_kind("signatures", "appeared"), 0);
    assert_int_equal(changes_target_count_kind("callees", "callee-vanished"), 0);
    assert_int_equal(changes_target_count_kind("signatures", NULL), 0);
}

static void test_changes_group(void **state)
{
    (void)state;
    json_t *fs = json_array();
    const char *m1 = "transformers.models.qwen3_omni_moe.modeling_qwen3_omni_moe";
    const char *m2 = "transformers.models.qwen2_5_omni.modeling_qwen2_5_omni";
    json_array_append_new(fs, jfinding("signatures", "warning", "c.omni3", "t1",
                                       json_pack("{s:s, s:s, s:s, s:s}", "kind", "param-removed",
                                                 "target", "Qwen3OmniMoeVisionAttention.forward",
                                                 "module", m1, "parameter", "rotary_pos_emb"),
                                       NULL));
    json_array_append_new(fs, jfinding("signatures", "warning", "c.omni25", "t2",
                                       json_pack("{s:s, s:s, s:s, s:s}", "kind", "param-removed",
                                                 "target", "Qwen2_5OmniVisionAttention.forward",
                                                 "module", m2, "parameter", "rotary_pos_emb"),
                                       NULL));
    json_array_append_new(fs, jfinding("regen", "error", "c.omni25",
                                       "fails to regenerate: F821 Undefined name `Optional`", NULL,
                                       NULL));
    json_array_append_new(fs, jfinding("signatures", "error", "c.omni25", "t3",
                                       json_pack("{s:s, s:s, s:s, s:s}", "kind", "import-removed",
                                                 "target", "Qwen2_5OmniVisionAttention.forward",
                                                 "module", m2, "name", "Optional"),
                                       NULL));
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 2);
    json_t *c0 = json_array_get(cs, 0), *c1 = json_array_get(cs, 1);
    /* what fails to regenerate first; the regen failure joined `Optional`'s change */
    assert_string_equal(json_string_value(json_object_get(c0, "how")), "fails-to-regenerate");
    assert_string_equal(json_string_value(json_object_get(c0, "title")),
                        "`Optional` is no longer imported by the modeling module upstream");
    assert_int_equal(json_integer_value(json_object_get(c0, "findings")), 2);
    /* one change for both models' copies that changed alike, the model prefix as `*`
     * (copies that changed differently: test_changes_split_by_phrases) */
    assert_string_equal(json_string_value(json_object_get(c1, "title")),
                        "`*VisionAttention.forward` dropped `rotary_pos_emb`");
    assert_int_equal(json_array_size(json_object_get(c1, "configs")), 2);
    const char *id1 = json_string_value(json_object_get(c1, "id"));
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_array_get(fs, 0), "data"), "change")),
                        id1);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_array_get(fs, 2), "data"), "change")),
                        json_string_value(json_object_get(c0, "id")));
    json_decref(cs);
    json_decref(fs);
}

/* A regeneration failure is grouped by its first cause, and its title lists the
 * others ("(and 4 more: ...)", regen_finding.c): the change's title names them too,
 * since the first alone is not why the file fails (the Qwen3.5 configs at 5.16.1:
 * a redefinition, then four more names), each by what ruff says of it (F811: upstream
 * defines it too; F821: undefined; another rule by ruff's word), and says in how many
 * configs when not all. */
static void test_changes_other_regen_causes(void **state)
{
    (void)state;
    json_t *fs = json_array();
    const char *more = " (and 5 more: F811 `conv_fn`, F821 `old_update`, F821 `fast_path`, "
                       "F821 `logger`, F821 `conv_update`)";
    for (int i = 0; i < 2; i++) {
        char *t = pgci_asprintf("fails to regenerate: F811 Redefinition of unused `conv_update` "
                                "from line 12%s",
                                more);
        json_array_append_new(fs, jfinding("regen", "error", i ? "c.npu" : "c.gpu", t, NULL, NULL));
        free(t);
    }
    json_array_append_new(fs, jfinding("regen", "error", "c.a",
                                       "fails to regenerate: F821 Undefined name `Out` (and 1 "
                                       "more: F821 `BaseOut`)",
                                       NULL, NULL));
    json_array_append_new(fs,
                          jfinding("regen", "error", "c.b",
                                   "fails to regenerate: F821 Undefined name `Out`", NULL, NULL));
    json_array_append_new(fs,
                          jfinding("regen", "error", "c.c",
                                   "fails to regenerate: F821 Undefined name `Plain`", NULL, NULL));
    json_array_append_new(fs, jfinding("regen", "error", "c.d",
                                       "fails to regenerate: F821 Undefined name `Mix` (and 3 "
                                       "more: F823 `loc`, F811 `dup`, F821 `gone`)",
                                       NULL, NULL));
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 4);
    const char *want[] = {
        "`conv_update` is now defined upstream as well as by the config; upstream now defines "
        "`conv_fn` too; `old_update`, `fast_path` and `logger` are undefined; ruff also flags 1 "
        "more cause",
        "`Out` is no longer imported by the modeling module upstream; in 1 config, `BaseOut` is "
        "undefined",
        "`Plain` is no longer imported by the modeling module upstream",
        "`Mix` is no longer imported by the modeling module upstream; upstream now defines `dup` "
        "too; `gone` is undefined; ruff also flags `loc`"};
    for (size_t i = 0; i < 4; i++) {
        const char *got = NULL;
        for (size_t k = 0; k < 4; k++) {
            const char *t = json_string_value(json_object_get(json_array_get(cs, k), "title"));
            if (!strncmp(t, want[i], 5))
                got = t;
        }
        assert_non_null(got);
        assert_string_equal(got, want[i]);
    }
    json_decref(cs);
    json_decref(fs);
}

/* A callee's rename behind upstream's @deprecate_kwarg shim, called by patch bodies
 * that still pass the old name: the signature change (a warning), the callee's body
 * change and the deprecation (notes) are one upstream edit, one change, on the same
 * configs and targets (`compute_3d_position_ids` at 5.24.0: three entries per
 * config). A deprecation the signature change does not show, and a body change on
 * other targets, stay apart. */
static void test_changes_callee_shim(void **state)
{
    (void)state;
    json_t *fs = json_array();
    const char *m = "transformers.models.qwen2_vl.modeling_qwen2_vl";
    const char *target = "Qwen2VLModel.compute_3d_position_ids";
    for (int i = 0; i < 2; i++) {
        const char *cfg = i ? "c.npu" : "c.gpu";
        json_array_append_new(
            fs,
            jfinding("callees", "warning", cfg, "t1",
                     json_pack("{s:s, s:s, s:s, s:s, s:s}", "kind", "callee-signature-changed",
                               "target", target, "module", m, "old_signature",
                               "compute_3d_position_ids(self, ids, past_key_values=None)",
                               "new_signature", "compute_3d_position_ids(self, ids, cache=None)"),
                     NULL));
        json_array_append_new(fs,
                              jfinding("callees", "info", cfg, "t2",
                                       json_pack("{s:s, s:s, s:s}", "kind", "callee-body-changed",
                                                 "target", target, "module", m),
                                       NULL));
        json_array_append_new(
            fs, jfinding("deprecations", "info", cfg, "t3",
                         json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "kind", "kwarg-deprecated",
                                   "target", target, "module", m, "parameter", "past_key_values",
                                   "new_parameter", "cache", "removal_version", "5.40.0"),
                         NULL));
    }
    /* an argument the signature does not show renamed (on the same targets); a
     * body change in one more config than the signature change */
    for (int i = 0; i < 2; i++)
        json_array_append_new(fs,
                              jfinding("deprecations", "info", i ? "c.npu" : "c.gpu", "t4",
                                       json_pack("{s:s, s:s, s:s, s:s, s:s}", "kind",
                                                 "kwarg-deprecated", "target", target, "module", m,
                                                 "parameter", "ids", "new_parameter", "input_ids"),
                                       NULL));
    const char *other = "Qwen2VLModel.get_rope_index";
    json_array_append_new(
        fs, jfinding("callees", "warning", "c.gpu", "t5",
                     json_pack("{s:s, s:s, s:s, s:s, s:s}", "kind", "callee-signature-changed",
                               "target", other, "module", m, "old_signature", "f(self, a)",
                               "new_signature", "f(self, a, b=None)"),
                     NULL));
    for (int i = 0; i < 2; i++)
        json_array_append_new(fs,
                              jfinding("callees", "info", i ? "c.npu" : "c.gpu", "t6",
                                       json_pack("{s:s, s:s, s:s}", "kind", "callee-body-changed",
                                                 "target", other, "module", m),
                                       NULL));
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 4);
    json_t *c = json_array_get(cs, 0);
    assert_string_equal(json_string_value(json_object_get(c, "title")),
                        "`Qwen2VLModel.compute_3d_position_ids` (called by patch bodies) changed "
                        "its signature and its body; `past_key_values` is deprecated for `cache` "
                        "(removal in 5.40.0)");
    assert_string_equal(json_string_value(json_object_get(c, "severity")), "warning");
    assert_int_equal(json_integer_value(json_object_get(c, "findings")), 6);
    assert_string_equal(json_string_value(json_object_get(json_array_get(cs, 1), "title")),
                        "`Qwen2VLModel.get_rope_index` (called by patch bodies) changed its "
                        "signature");
    assert_string_equal(json_string_value(json_object_get(json_array_get(cs, 2), "title")),
                        "`Qwen2VLModel.get_rope_index` (called by patch bodies) changed its body");
    assert_string_equal(json_string_value(json_object_get(json_array_get(cs, 3), "title")),
                        "`Qwen2VLModel.compute_3d_position_ids`: argument `ids` is deprecated");
    json_decref(cs);
    json_decref(fs);
}

/* A body change over models' copies of a method whose signatures changed in
 * different ways (two signature changes): its findings on every method of one
 * signature change join that change, one upstream edit, and those on a method of
 * no signature change (or of one whose methods did not all change their bodies)
 * stay a body change (5.22.2 -> 5.24.0: `*Model.forward`'s body change over 11
 * configs and the renames of `past_key_values` over 10 of them). */
static void test_changes_split_bodies(void **state)
{
    (void)state;
    json_t *fs = json_array();
    const struct {
        const char *cfg, *target, *module;
        int sig, body; /* 0 none, 1 renamed, 2 renamed and gained */
    } f[] = {
        {"c.a1", "AaaModel.forward", "transformers.models.aaa.modeling_aaa", 1, 1},
        {"c.a2", "AaaModel.forward", "transformers.models.aaa.modeling_aaa", 1, 1},
        {"c.b", "BbbModel.forward", "transformers.models.bbb.modeling_bbb", 2, 1},
        {"c.c", "CccModel.forward", "transformers.models.ccc.modeling_ccc", 0, 1},
        {"c.d", "DddModel.forward", "transformers.models.ddd.modeling_ddd", 2, 0},
    };
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        if (f[i].sig)
            json_array_append_new(
                fs, jfinding("signatures", "warning", f[i].cfg, "t",
                             json_pack("{s:s, s:s, s:s, s:s, s:s}", "kind", "param-renamed",
                                       "target", f[i].target, "module", f[i].module, "parameter",
                                       "past_key_values", "new_parameter", "cache"),
                             NULL));
        if (f[i].sig == 2)
            json_array_append_new(
                fs,
                jfinding("signatures", "warning", f[i].cfg, "t",
                         json_pack("{s:s, s:s, s:s, s:s}", "kind", "param-added-optional", "target",
                                   f[i].target, "module", f[i].module, "parameter", "mask"),
                         NULL));
        if (f[i].body)
            json_array_append_new(fs,
                                  jfinding("signatures", "warning", f[i].cfg, "t",
                                           json_pack("{s:s, s:s, s:s}", "kind", "body-changed",
                                                     "target", f[i].target, "module", f[i].module),
                                           "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n"));
    }
    json_t *cs = changes_group(fs);
    const char *want[][2] = {
        {"`AaaModel.forward` renamed `past_key_values` → `cache` and changed its body", "4"},
        {"`*Model.forward` renamed `past_key_values` → `cache` and gained `mask`", "4"},
        {"`*Model.forward`: the upstream body changed under the override", "2"},
    };
    assert_int_equal(json_array_size(cs), 3);
    for (size_t i = 0; i < 3; i++) {
        json_t *got = NULL;
        for (size_t k = 0; k < 3; k++)
            if (!strcmp(json_string_value(json_object_get(json_array_get(cs, k), "title")),
                        want[i][0]))
                got = json_array_get(cs, k);
        assert_non_null(got);
        assert_int_equal(json_integer_value(json_object_get(got, "findings")), atoi(want[i][1]));
    }
    json_decref(cs);
    json_decref(fs);
}

/* The keys of one plan that break at one segment are one change (one move
 * upstream made), titled by the path that went and where it went. */
static void test_changes_plan_keys(void **state)
{
    (void)state;
    json_t *fs = json_array();
    const char *keys[] = {"thinker.model.layers.*.mlp.experts.gate_up_proj",
                          "thinker.model.layers.*.mlp.experts.down_proj"};
    for (int i = 0; i < 4; i++)
        json_array_append_new(
            fs,
            jfinding("callees", "error", i < 2 ? "c.gpu" : "c.npu", keys[i % 2],
                     json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:s}", "kind",
                               "plan-key-unmatched", "target", keys[i % 2], "segment", "layers",
                               "class", "ThinkerModel", "file", "pkg/parallel_plan.py", "prefix",
                               "thinker.model", "line", 15 + i % 2, "dead", "thinker.model.layers",
                               "moved_to", "thinker.model.language_model.layers", "now",
                               "thinker.model.language_model.layers.*.mlp.experts.x"),
                     NULL));
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 1);
    json_t *c = json_array_get(cs, 0);
    assert_string_equal(json_string_value(json_object_get(c, "how")), "silently-dropped");
    assert_string_equal(json_string_value(json_object_get(c, "title")),
                        "the workspace's `pkg/parallel_plan.py` shards parameters under "
                        "`thinker.model.layers`, which no longer exists: `thinker.model` (a "
                        "`ThinkerModel`) has no `layers` (now "
                        "`thinker.model.language_model.layers`): ParallelPlan.apply leaves them "
                        "replicated, silently");
    assert_string_equal(json_string_value(json_object_get(c, "action")),
                        "rewrite the plan's keys under `thinker.model.layers` to "
                        "`thinker.model.language_model.layers` (`pkg/parallel_plan.py` line 15)");
    assert_int_equal(json_array_size(json_object_get(c, "configs")), 2);
    json_decref(cs);
    json_decref(fs);
}

/* A vanished target or callee whose A definition announced its removal: the
 * change's action quotes what the notice said to do instead (it said "port the
 * patch to what replaced it" / "call its successor", naming none). */
static void test_changes_quote_deprecation_advice(void **state)
{
    (void)state;
    json_t *fs = json_array();
    const char *m = "transformers.models.qwen2_5_vl.modeling_qwen2_5_vl";
    const char *advice = "Use `get_vision_window_index` from `transformers.vision_utils` instead.";
    json_array_append_new(
        fs, jfinding("callees", "error", "c.vl", "t1",
                     json_pack("{s:s, s:s, s:s, s:s}", "kind", "callee-vanished", "target",
                               "Qwen2_5_VisionTransformerPretrainedModel.get_window_index",
                               "module", m, "advice", advice),
                     NULL));
    json_array_append_new(fs, jfinding("signatures", "error", "c.vl", "t2",
                                       json_pack("{s:s, s:s, s:s, s:s}", "kind", "vanished",
                                                 "target", "Qwen2_5_VLModel.rot_pos_emb", "module",
                                                 m, "advice", "Use `f` instead."),
                                       NULL));
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 2);
    const char *want[] = {
        "port the patch as upstream's notice says, \"Use `f` instead.\", or drop it",
        "as upstream's notice says, \"Use `get_vision_window_index` from "
        "`transformers.vision_utils` instead.\", or add the method to the config"};
    for (size_t i = 0; i < 2; i++)
        assert_string_equal(json_string_value(json_object_get(json_array_get(cs, i), "action")),
                            want[i]);
    json_decref(cs);
    json_decref(fs);
}

/* An attribute read off each element of a container that the element's class no
 * longer sets is the same fact as the class's own attribute removal: one change,
 * titled by the class's __init__ (it was a generic "`X.__init__` changed"). */
static void test_changes_element_attr(void **state)
{
    (void)state;
    json_t *fs = json_array();
    const char *m = "transformers.models.qwen2.modeling_qwen2";
    json_array_append_new(
        fs, jfinding("callees", "warning", "c.qwen2", "t1",
                     json_pack("{s:s, s:s, s:s, s:s}", "kind", "element-attr-removed", "target",
                               "Qwen2DecoderLayer", "module", m, "attribute", "attention_type"),
                     NULL));
    json_array_append_new(
        fs, jfinding("signatures", "error", "c.qwen2", "t2",
                     json_pack("{s:s, s:s, s:s, s:s}", "kind", "init-attr-removed", "target",
                               "Qwen2DecoderLayer", "module", m, "attribute", "sliding_window"),
                     NULL));
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 1);
    json_t *c = json_array_get(cs, 0);
    assert_string_equal(json_string_value(json_object_get(c, "title")),
                        "`Qwen2DecoderLayer.__init__` no longer sets `self.attention_type` and "
                        "`self.sliding_window`");
    assert_string_equal(json_string_value(json_object_get(c, "kind")), "attrs-removed");
    assert_int_equal(json_integer_value(json_object_get(c, "findings")), 2);
    json_decref(cs);
    json_decref(fs);
}

/* Attributes that moved into a submodule the class now builds: the change says
 * where each went (`self.model.visual`), the patch bodies' mechanical action. */
static void test_changes_attr_moved(void **state)
{
    (void)state;
    json_t *fs = json_array();
    const char *m = "transformers.models.qwen2_5_omni.modeling_qwen2_5_omni";
    const char *t = "Qwen2_5OmniThinkerForConditionalGeneration";
    json_array_append_new(
        fs, jfinding("signatures", "error", "c.omni25", "t1",
                     json_pack("{s:s, s:s, s:s, s:s, s:s}", "kind", "init-attr-removed", "target",
                               t, "module", m, "attribute", "visual", "moved_to", "model.visual"),
                     NULL));
    json_array_append_new(
        fs, jfinding("signatures", "error", "c.omni25", "t2",
                     json_pack("{s:s, s:s, s:s, s:s}", "kind", "init-attr-removed", "target", t,
                               "module", m, "attribute", "spatial_merge_size"),
                     NULL));
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(cs, 0), "title")),
                        "`Qwen2_5OmniThinkerForConditionalGeneration.__init__` no longer sets "
                        "`self.visual` (now `self.model.visual`) and `self.spatial_merge_size`");
    json_decref(cs);
    json_decref(fs);
}

/* Overrides of different methods, left undocumented because auto_docstring.py's
 * table stopped documenting one argument, are one fact, titled by the argument;
 * methods that became @auto_docstring group by their name. */
static void test_changes_auto_docstring(void **state)
{
    (void)state;
    json_t *fs = json_array();
    const char *m = "transformers.models.qwen2.modeling_qwen2";
    const char *targets[] = {"Qwen2Model.forward", "Qwen2ForCausalLM.forward"};
    for (size_t i = 0; i < 2; i++)
        json_array_append_new(
            fs, jfinding("auto-docstring", "warning", "c.qwen2", "t",
                         json_pack("{s:s, s:s, s:s, s:[s], s:s, s:s}", "kind", "auto-docstring",
                                   "target", targets[i], "module", m, "arguments", "cache_position",
                                   "cause", "table", "table", "ModelArgs"),
                         NULL));
    json_array_append_new(
        fs, jfinding("auto-docstring", "warning", "c.qwen3_vl", "t",
                     json_pack("{s:s, s:s, s:s, s:[s, s], s:s}", "kind", "auto-docstring", "target",
                               "Qwen3VLVisionBlock.forward", "module",
                               "transformers.models.qwen3_vl.modeling_qwen3_vl", "arguments",
                               "max_seqlen", "cu_seqlens", "cause", "decorated"),
                     NULL));
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 2);
    json_t *c0 = json_array_get(cs, 0), *c1 = json_array_get(cs, 1);
    assert_string_equal(json_string_value(json_object_get(c0, "title")),
                        "auto_docstring.py's `ModelArgs` no longer documents `cache_position`: "
                        "the `@auto_docstring` overrides that take it leave it undocumented");
    assert_string_equal(json_string_value(json_object_get(c0, "symbol")), "cache_position");
    assert_int_equal(json_integer_value(json_object_get(c0, "findings")), 2);
    assert_string_equal(json_string_value(json_object_get(c1, "title")),
                        "`Qwen3VLVisionBlock.forward` became `@auto_docstring`: the overrides' "
                        "docstrings leave arguments undocumented");
    json_decref(cs);
    json_decref(fs);
}

/* Two models' copies of a method that changed differently are two changes: one
 * title listing both ("gained `logits_to_keep` and gained `output_router_logits`")
 * would say of each what only the other did. Copies that changed alike stay one. */
static void test_changes_split_by_phrases(void **state)
{
    (void)state;
    json_t *fs = json_array();
    const struct {
        const char *cfg, *target, *module, *param;
    } f[] = {{"c.llama", "LlamaForCausalLM.forward", "transformers.models.llama.modeling_llama",
              "logits_to_keep"},
             {"c.qwen3", "Qwen3ForCausalLM.forward", "transformers.models.qwen3.modeling_qwen3",
              "logits_to_keep"},
             {"c.moe", "Qwen3MoeForCausalLM.forward",
              "transformers.models.qwen3_moe.modeling_qwen3_moe", "output_router_logits"}};
    for (size_t i = 0; i < 3; i++)
        json_array_append_new(
            fs, jfinding("signatures", "warning", f[i].cfg, "t",
                         json_pack("{s:s, s:s, s:s, s:s}", "kind", "param-added-optional", "target",
                                   f[i].target, "module", f[i].module, "parameter", f[i].param),
                         NULL));
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(cs, 0), "title")),
                        "`*ForCausalLM.forward` gained `logits_to_keep`");
    assert_int_equal(json_array_size(json_object_get(json_array_get(cs, 0), "configs")), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(cs, 1), "title")),
                        "`Qwen3MoeForCausalLM.forward` gained `output_router_logits`");
    /* each finding names its own change */
    const char *moe = json_string_value(json_object_get(json_array_get(cs, 1), "id"));
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_array_get(fs, 2), "data"), "change")),
                        moe);
    assert_string_not_equal(json_string_value(json_object_get(
                                json_object_get(json_array_get(fs, 0), "data"), "change")),
                            moe);
    json_decref(cs);
    json_decref(fs);
}

/* patchgen refusing an add_helper_after whose target upstream dropped is that
 * definition's change, as an undefined name is (it stood apart, untitled). */
static void test_changes_positioned_helper(void **state)
{
    (void)state;
    json_t *fs = json_array();
    const char *cfg = "veomni.models.transformers.qwen3_5.qwen3_5_gpu_patch_gen_config";
    json_array_append_new(
        fs, jfinding("regen", "error", cfg,
                     "fails to regenerate against 5.25.0: cfg.py: positioned helper target(s) "
                     "not found in generated output: Qwen3_5CausalLMOutputWithPast, Other "
                     "(add_helper_after needs a top-level class or function of m)",
                     NULL, NULL));
    json_array_append_new(fs, jfinding("signatures", "error", cfg, "t",
                                       json_pack("{s:s, s:s, s:s}", "kind", "vanished", "target",
                                                 "Qwen3_5CausalLMOutputWithPast", "module",
                                                 "transformers.models.qwen3_5.modeling_qwen3_5"),
                                       NULL));
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 1);
    json_t *c = json_array_get(cs, 0);
    assert_string_equal(json_string_value(json_object_get(c, "how")), "fails-to-regenerate");
    assert_string_equal(json_string_value(json_object_get(c, "title")),
                        "`Qwen3_5CausalLMOutputWithPast` vanished upstream");
    assert_int_equal(json_integer_value(json_object_get(c, "findings")), 2);
    json_decref(cs);
    json_decref(fs);
}

/* A body change on exactly the targets of a signature change is one upstream edit
 * with it; on other targets it stays apart (a joint title would claim of some
 * methods what only others did). */
static void test_changes_body_joins_signature(void **state)
{
    (void)state;
    json_t *fs = json_array();
    const char *m = "transformers.models.llama.modeling_llama";
    const char *cfgs[] = {"c.a", "c.b"};
    for (size_t i = 0; i < 2; i++) {
        json_array_append_new(fs,
                              jfinding("signatures", "warning", cfgs[i], "t",
                                       json_pack("{s:s, s:s, s:s, s:s}", "kind", "param-removed",
                                                 "target", "LlamaForCausalLM.forward", "module", m,
                                                 "parameter", "cache_position"),
                                       NULL));
        json_array_append_new(fs,
                              jfinding("signatures", "warning", cfgs[i], "t",
                                       json_pack("{s:s, s:s, s:s}", "kind", "body-changed",
                                                 "target", "LlamaForCausalLM.forward", "module", m),
                                       NULL));
        json_array_append_new(
            fs, jfinding("signatures", "warning", cfgs[i], "t",
                         json_pack("{s:s, s:s, s:s, s:s}", "kind", "param-removed", "target",
                                   "LlamaModel.forward", "module", m, "parameter", "x"),
                         NULL));
    }
    json_array_append_new(fs, jfinding("signatures", "warning", "c.a", "t",
                                       json_pack("{s:s, s:s, s:s}", "kind", "body-changed",
                                                 "target", "LlamaModel.forward", "module", m),
                                       NULL));
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 3);
    int joined = 0, apart = 0;
    for (size_t i = 0; i < 3; i++) {
        json_t *c = json_array_get(cs, i);
        const char *t = json_string_value(json_object_get(c, "title"));
        if (!strcmp(t, "`LlamaForCausalLM.forward` dropped `cache_position` and changed its "
                       "body")) {
            joined++;
            assert_string_equal(json_string_value(json_object_get(c, "kind")), "signature");
            assert_int_equal(json_integer_value(json_object_get(c, "findings")), 4);
            /* every finding names the change it joined */
            const char *id = json_string_value(json_object_get(c, "id"));
            assert_string_equal(json_string_value(json_object_get(
                                    json_object_get(json_array_get(fs, 1), "data"), "change")),
                                id);
        } else if (!strcmp(t, "`LlamaModel.forward`: the upstream body changed under the "
                              "override")) {
            apart++;
            assert_string_equal(json_string_value(json_object_get(c, "kind")), "body");
        }
    }
    assert_int_equal(joined, 1);
    assert_int_equal(apart, 1);
    json_decref(cs);
    json_decref(fs);
}

/* Upstream's body changes under a replaced class: one change per class and set
 * of methods, across the configs that replace it (the GPU and NPU twins) and the
 * models' copies (`*Experts`), a contract change; a copy whose other methods
 * changed too is another change (its title would be false of the rest). */
static void test_changes_replaced_body(void **state)
{
    (void)state;
    json_t *fs = json_array();
    static const struct {
        const char *cfg, *target, *module, *methods[2];
    } in[] = {
        {"c.moe_gpu",
         "Qwen3MoeExperts",
         "transformers.models.qwen3_moe.modeling_qwen3_moe",
         {"forward", NULL}},
        {"c.moe_npu",
         "Qwen3MoeExperts",
         "transformers.models.qwen3_moe.modeling_qwen3_moe",
         {"forward", NULL}},
        {"c.v4_gpu",
         "DeepseekV4Experts",
         "transformers.models.deepseek_v4.modeling_deepseek_v4",
         {"forward", NULL}},
        {"c.oss_gpu",
         "GptOssExperts",
         "transformers.models.gpt_oss.modeling_gpt_oss",
         {"__init__", "forward"}},
    };
    for (size_t i = 0; i < sizeof(in) / sizeof(*in); i++) {
        json_t *ms = json_array();
        for (size_t k = 0; k < 2 && in[i].methods[k]; k++)
            json_array_append_new(ms, json_string(in[i].methods[k]));
        json_array_append_new(
            fs, jfinding("signatures", "warning", in[i].cfg, "t",
                         json_pack("{s:s, s:s, s:s, s:o}", "kind", "replaced-body-changed",
                                   "target", in[i].target, "module", in[i].module, "methods", ms),
                         NULL));
    }
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 2);
    int experts = 0, oss = 0;
    for (size_t i = 0; i < 2; i++) {
        json_t *c = json_array_get(cs, i);
        const char *t = json_string_value(json_object_get(c, "title"));
        assert_string_equal(json_string_value(json_object_get(c, "kind")), "replaced-body");
        assert_string_equal(json_string_value(json_object_get(c, "how")), "contract-changed");
        assert_string_equal(json_string_value(json_object_get(c, "action")),
                            "read the upstream diffs and port what applies into the replacement");
        if (!strcmp(t, "`*Experts` changed under the replacement: `forward` changed its body")) {
            experts++;
            assert_int_equal(json_array_size(json_object_get(c, "configs")), 3);
        } else if (!strcmp(t, "`GptOssExperts` changed under the replacement: `__init__` and "
                              "`forward` changed their bodies")) {
            oss++;
        }
    }
    assert_int_equal(experts, 1);
    assert_int_equal(oss, 1);
    json_decref(cs);
    json_decref(fs);
}

/* ---- a config's bodies read inside its file's tree ---------------------------------- */

/* What survey_object_view reads of each object of cfg, checked against a parse of
 * the object's lines alone: the body's uses (survey_object_uses) and its def
 * (survey_object_def). Returns how many were read from the file's tree. */
static size_t views_like_parses(const pg_config *cfg, survey_bodies *memo)
{
    survey_pair p = {.cfg = cfg, .bodies = memo};
    size_t viewed = 0;
    VEC(const pg_object *) objs = VEC_INIT;
    for (size_t i = 0; i < cfg->patches.len; i++)
        if (cfg->patches.items[i].replacement)
            VEC_PUSH(&objs, cfg->patches.items[i].replacement);
    for (size_t i = 0; i < cfg->helpers.len; i++)
        VEC_PUSH(&objs, cfg->helpers.items[i]);
    for (size_t i = 0; i < objs.len; i++) {
        const pg_object *o = objs.items[i];
        char *text = signatures_object_text(o);
        assert_non_null(text);
        size_t len = strlen(text);
        survey_view v;
        int seen = survey_object_view(o, &v);
        /* a def at column 0 of a file Python accepts is read in its file's tree
         * (unless PGCI_NO_OBJECT_VIEWS) */
        assert_int_equal(seen,
                         o->parses_alone && o->tree != NULL && !getenv("PGCI_NO_OBJECT_VIEWS"));
        body_uses alone, own;
        assert_int_equal(body_uses_read(&alone, text, len), 0);
        const body_uses *u = survey_object_uses(&p, o, text, len, &own);
        assert_non_null(u);
        assert_true(body_uses_equal(u, &alone));
        if (seen) {
            body_uses direct;
            body_uses_of_statements(&direct, &v.t, v.root, v.stmts, v.n, v.row0);
            assert_true(body_uses_equal(&direct, &alone));
            for (size_t k = 0; k < direct.n_calls; k++)
                assert_true(direct.calls[k].line >= 1 &&
                            direct.calls[k].line <= o->end_line - o->start_line + 1);
            body_uses_free(&direct);
            viewed++;
        }
        body_uses_free(&alone);
        body_uses_free(&own);
        /* the calls, read once a run, as a walk over a parse of the lines alone */
        survey_pair lone = {.cfg = cfg};
        survey_calls c_own, c_alone;
        const survey_calls *calls = survey_object_calls(&p, o, text, len, &c_own);
        survey_object_calls(&lone, NULL, text, len, &c_alone);
        assert_int_equal(calls->len, c_alone.len);
        for (size_t k = 0; k < c_alone.len; k++) {
            assert_int_equal(calls->items[k].self_, c_alone.items[k].self_);
            assert_string_equal(calls->items[k].name, c_alone.items[k].name);
        }
        if (!strcmp(o->name, "mlp_forward")) {
            /* helper(y), inner(x), self.split, self.down_proj, self.act_fn; not
             * out.view (not self) nor the decorators' calls of `config` */
            assert_int_equal(calls->len, 5);
            size_t selfs = 0;
            for (size_t k = 0; k < calls->len; k++)
                selfs += calls->items[k].self_;
            assert_int_equal(selfs, 3);
        }
        survey_calls_free(&c_own);
        survey_calls_free(&c_alone);
        index_module *im = NULL, *own_m = NULL;
        assert_int_equal(index_module_from_source(&im, text, len, "<patch>", NULL), 0);
        const index_def *want = im->n_defs ? im->defs[0] : NULL;
        const index_def *got = survey_object_def(&p, o, text, len, &own_m);
        assert_true((want == NULL) == (got == NULL));
        if (want) {
            assert_int_equal(got->kind, want->kind);
            assert_string_equal(got->name, want->name);
            assert_int_equal(got->n_params, want->n_params);
            for (size_t k = 0; k < want->n_params; k++) {
                assert_string_equal(got->params[k].name, want->params[k].name);
                assert_int_equal(got->params[k].kind, want->params[k].kind);
            }
            assert_int_equal(got->n_doc_args, want->n_doc_args);
            for (size_t k = 0; k < want->n_doc_args; k++)
                assert_string_equal(got->doc_args[k], want->doc_args[k]);
            assert_int_equal(got->n_members, want->n_members);
            /* from the file's index when read there: its lines are the file's */
            if (seen)
                assert_int_equal(got->start_line, o->start_line);
        }
        if (own_m)
            index_module_free(own_m);
        index_module_free(im);
        free(text);
    }
    VEC_FREE(&objs);
    return viewed;
}

/* The configs a memo has read, kept until the memo is freed: it knows a config
 * file by its tree's address, which a config freed before it would give to the
 * next tree (survey_trees.h); the survey frees its configs after its memo. */
typedef VEC(pg_config *) config_list;

static void configs_free(config_list *l)
{
    for (size_t i = 0; i < l->len; i++)
        pg_config_free(l->items[i]);
    VEC_FREE(l);
}

static size_t views_of_workspace(const char *dir, survey_bodies *memo, size_t *configs,
                                 config_list *keep)
{
    workspace *ws;
    assert_int_equal(workspace_open(&ws, dir), 0);
    size_t viewed = 0;
    for (size_t i = 0; i < ws->configs.len; i++) {
        config_eval *ev;
        assert_int_equal(config_eval_new(&ev, ws), 0);
        pg_config *cfg = NULL;
        if (config_eval_file(ev, ws->configs.items[i].path, NULL, &cfg) == 0) {
            viewed += views_like_parses(cfg, memo);
            (*configs)++;
            VEC_PUSH(keep, cfg);
        }
        pgci_error_clear();
        config_eval_free(ev); /* the config's objects keep their file's tree */
    }
    workspace_free(ws);
    return viewed;
}

static void test_object_views(void **state)
{
    (void)state;
    /* every shape a def's lines take in its file: comments above, between its
     * decorators and after its body (at the body's column and at column 0), a
     * docstring with Args:, a nested def, another def right after, and a class
     * (parsed alone: not a def) */
    char dir[] = "/tmp/pgci-views-XXXXXX";
    assert_non_null(mkdtemp(dir));
    strbuf p = STRBUF_INIT;
    strbuf_addf(&p, "%s/pyproject.toml", dir);
    static const char toml[] = "[tool.patchgen]\nsearch_root = \"pkg\"\npackage_prefix = \"pkg\"\n";
    assert_int_equal(fs_write_atomic(p.buf, toml, sizeof(toml) - 1), 0);
    strbuf_reset(&p);
    strbuf_addf(&p, "%s/pkg", dir);
    assert_int_equal(fs_mkdirs(p.buf), 0);
    strbuf_adds(&p, "/shapes_patch_gen_config.py");
    static const char cfg[] =
        "\"\"\"Shapes.\"\"\"\n"
        "import torch\n"
        "from veomni.patchgen.patch_spec import PatchConfig\n"
        "\n"
        "config = PatchConfig(source_module=\"transformers.models.llama.modeling_llama\",\n"
        "                     target_file=\"patched_modeling_llama.py\")\n"
        "\n"
        "\n"
        "# above the decorators\n"
        "@config.override_method(\"LlamaMLP.forward\")\n"
        "# between decorators\n"
        "@torch.no_grad()\n"
        "def mlp_forward(self, x, *args, scale=1.0, **kwargs):\n"
        "    \"\"\"Forward.\n"
        "\n"
        "    Args:\n"
        "        x: the input.\n"
        "        scale: a factor.\n"
        "    \"\"\"\n"
        "    def inner(y):\n"
        "        return helper(y)\n"
        "    a, b = self.split(inner(x), dim=1)\n"
        "    out = self.down_proj(self.act_fn(a) * b) * scale\n"
        "    return out.view(-1)\n"
        "    # after the body, at its column\n"
        "# at column 0\n"
        "@config.replace_function(\"rotate_half\")\n"
        "def rotate_half(x):\n"
        "    x1, x2 = x.chunk(2, dim=-1)\n"
        "    return torch.cat((-x2, x1), dim=-1)\n"
        "@config.replace_class(\"LlamaRMSNorm\")\n"
        "class RMSNorm(torch.nn.Module):\n"
        "    def forward(self, hidden_states):\n"
        "        return self.weight * hidden_states\n";
    assert_int_equal(fs_write_atomic(p.buf, cfg, sizeof(cfg) - 1), 0);
    survey_bodies *memo = survey_bodies_new();
    config_list keep = VEC_INIT;
    size_t configs = 0;
    /* mlp_forward, rotate_half */
    assert_int_equal(views_of_workspace(dir, memo, &configs, &keep), 2);
    assert_int_equal(configs, 1);
    /* the fixtures' workspaces: the demo, the survey's, the protocol's */
    static const char *const wss[] = {"fixtures/workspace", "fixtures/verify_workspace"};
    size_t viewed = 0;
    configs = 0;
    for (size_t i = 0; i < sizeof(wss) / sizeof(*wss); i++)
        viewed += views_of_workspace(wss[i], memo, &configs, &keep);
    assert_true(configs >= 5);
    assert_true(viewed >= 10);
    /* PGCI_NO_OBJECT_VIEWS: every object parsed alone */
    setenv("PGCI_NO_OBJECT_VIEWS", "1", 1);
    configs = 0;
    assert_int_equal(views_of_workspace(dir, memo, &configs, &keep), 0);
    unsetenv("PGCI_NO_OBJECT_VIEWS");
    survey_bodies_free(memo);
    configs_free(&keep);
    assert_int_equal(fs_remove_tree(dir), 0);
    strbuf_free(&p);
}

/* Threads asking one memo for the same bodies at once (the survey's workers): each
 * body is read once, and every thread gets that reading, equal to a parse of the
 * lines alone. */
typedef struct uses_race {
    const pg_config *cfg;
    survey_bodies *memo;
    const body_uses *got[64];
    size_t n;
} uses_race;

static void *race_uses(void *arg)
{
    uses_race *r = arg;
    survey_pair p = {.cfg = r->cfg, .bodies = r->memo};
    r->n = 0;
    for (size_t i = 0; i < r->cfg->patches.len && r->n < 64; i++) {
        const pg_object *o = r->cfg->patches.items[i].replacement;
        if (!o)
            continue;
        char *text = signatures_object_text(o);
        body_uses own;
        r->got[r->n++] = survey_object_uses(&p, o, text, strlen(text), &own);
        body_uses_free(&own);
        free(text);
    }
    return NULL;
}

static void test_object_uses_threads(void **state)
{
    (void)state;
    workspace *ws;
    assert_int_equal(workspace_open(&ws, "fixtures/workspace"), 0);
    size_t raced = 0;
    for (size_t c = 0; c < ws->configs.len; c++) {
        config_eval *ev;
        assert_int_equal(config_eval_new(&ev, ws), 0);
        pg_config *cfg = NULL;
        if (config_eval_file(ev, ws->configs.items[c].path, NULL, &cfg) == 0) {
            survey_bodies *memo = survey_bodies_new();
            uses_race r[4];
            pthread_t th[4];
            for (int t = 0; t < 4; t++) {
                r[t] = (uses_race){.cfg = cfg, .memo = memo};
                assert_int_equal(pthread_create(&th[t], NULL, race_uses, &r[t]), 0);
            }
            for (int t = 0; t < 4; t++)
                assert_int_equal(pthread_join(th[t], NULL), 0);
            for (size_t k = 0, i = 0; i < cfg->patches.len; i++) {
                const pg_object *o = cfg->patches.items[i].replacement;
                if (!o)
                    continue;
                for (int t = 1; t < 4; t++) /* one reading, shared */
                    assert_ptr_equal(r[t].got[k], r[0].got[k]);
                char *text = signatures_object_text(o);
                body_uses alone;
                assert_int_equal(body_uses_read(&alone, text, strlen(text)), 0);
                assert_non_null(r[0].got[k]);
                assert_true(body_uses_equal(r[0].got[k], &alone));
                body_uses_free(&alone);
                free(text);
                k++;
                raced++;
            }
            survey_bodies_free(memo);
        }
        pgci_error_clear();
        config_eval_free(ev);
        pg_config_free(cfg);
    }
    workspace_free(ws);
    assert_true(raced >= 5);
}

/* ---- the parallel plan's keys (checks/plan_paths.h) -------------------------------- */

/* The toy model of the plan tests at A: Top -> thinker (Thinker) -> model
 * (TextModel) -> layers (a ModuleList of Layer) -> mlp (Moe or MLP, by the
 * config) -> experts (Experts) -> gate_up_proj, down_proj (parameters). */
#define PLAN_COMMON                                                                                \
    "class Experts(nn.Module):\n"                                                                  \
    "    def __init__(self, config):\n"                                                            \
    "        super().__init__()\n"                                                                 \
    "        self.gate_up_proj = nn.Parameter(torch.empty(4, 8, 2))\n"                             \
    "        self.down_proj = nn.Parameter(\n"                                                     \
    "            torch.empty(4, 2, 4)\n"                                                           \
    "        )\n"                                                                                  \
    "class Moe(nn.Module):\n"                                                                      \
    "    def __init__(self, config):\n"                                                            \
    "        super().__init__()\n"                                                                 \
    "        self.experts = Experts(config)\n"                                                     \
    "class MLP(nn.Module):\n"                                                                      \
    "    def __init__(self, config):\n"                                                            \
    "        super().__init__()\n"                                                                 \
    "        self.up = nn.Linear(2, 2)\n"                                                          \
    "class Layer(GradientCheckpointingLayer):\n"                                                   \
    "    def __init__(self, config, i):\n"                                                         \
    "        super().__init__()\n"                                                                 \
    "        if config.sparse:\n"                                                                  \
    "            self.mlp = Moe(config)\n"                                                         \
    "        else:\n"                                                                              \
    "            self.mlp = MLP(config)\n"                                                         \
    "class ToyPreTrainedModel(PreTrainedModel):\n"                                                 \
    "    base_model_prefix = 'model'\n"                                                            \
    "class TextModel(ToyPreTrainedModel):\n"                                                       \
    "    def __init__(self, config):\n"                                                            \
    "        super().__init__(config)\n"                                                           \
    "        self.layers = nn.ModuleList(\n"                                                       \
    "            [Layer(config, i) for i in range(config.n)]  # each a layer\n"                    \
    "        )\n"                                                                                  \
    "    def forward(self, x):\n"                                                                  \
    "        for layer in self.layers:\n"                                                          \
    "            x = layer(x)\n"                                                                   \
    "        return x\n"

#define PLAN_TOP                                                                                   \
    "class Top(ToyPreTrainedModel, GenerationMixin):\n"                                            \
    "    def __init__(self, config):\n"                                                            \
    "        super().__init__(config)\n"                                                           \
    "        self.thinker = Thinker._from_config(config.thinker_config)\n"                         \
    "    def forward(self, x):\n"                                                                  \
    "        return self.thinker(x)\n"

static const char plan_a[] = PLAN_COMMON "class Thinker(ToyPreTrainedModel):\n"
                                         "    def __init__(self, config):\n"
                                         "        super().__init__(config)\n"
                                         "        self.model = TextModel._from_config(config)\n"
                                         "        self.lm_head = nn.Linear(2, 2)\n"
                                         "    def forward(self, x):\n"
                                         "        return self.model(x)\n" PLAN_TOP;

/* B: the thinker's model a multimodal wrapper holding the text model */
static const char plan_b[] =
    PLAN_COMMON "class ThinkerModel(ToyPreTrainedModel):\n"
                "    def __init__(self, config):\n"
                "        super().__init__(config)\n"
                "        self.language_model = TextModel._from_config(config)\n"
                "    def forward(self, x):\n"
                "        return self.language_model(x)\n"
                "class Thinker(ToyPreTrainedModel):\n"
                "    def __init__(self, config):\n"
                "        super().__init__(config)\n"
                "        self.model = ThinkerModel(config)\n"
                "        self.lm_head = nn.Linear(2, 2)\n"
                "    def forward(self, x):\n"
                "        return self.model(x)\n" PLAN_TOP;

static const char plan_py[] =
    "from torch.distributed._tensor import Shard\n"
    "\n"
    "from ..distributed.parallel_plan import ParallelPlan\n"
    "\n"
    "\n"
    "def get_parallel_plan():\n"
    "    \"\"\"The plan (\"thinker.model.layers.*.mlp\": not a key).\"\"\"\n"
    "    ep_plan = {\n"
    "        \"thinker.model.layers.*.mlp.experts.gate_up_proj\": Shard(0),\n"
    "        'thinker.model.layers.*.mlp.experts.down_proj': Shard(0),  # a comment\n"
    "        \"thinker.lm_head.weight\": Shard(0),\n"
    "        \"thinker.gone.layers.*.mlp.experts.down_proj\": Shard(0),\n"
    "        \"thinker.lm_head.bias\": Shard(0),\n"
    "    }\n"
    "    return ParallelPlan(extra_parallel_plan={\"ep\": ep_plan})\n";

static const char plan_body[] = "def get_parallel_plan(self):\n"
                                "    from ..parallel_plan import get_parallel_plan as _get\n"
                                "\n"
                                "    return _get()\n";

/* The survey of the plan override (and more patches) on a and b in a workspace
 * holding plan_py: its plan-key-unmatched lines. */
static char *plan_survey(const char *a, const char *b, const tpatch *more, size_t n_more)
{
    /* the workspace: pkg/parallel_plan.py; the config is pkg/cfg.py */
    char *root = tmp_pkg_new("pgci-plan-");
    tmp_pkg_put(root, "parallel_plan.py", plan_py);
    char *file = pgci_asprintf("%s/pkg/cfg.py", root);
    cfg_file = file;
    cfg_module = "pkg.cfg";
    tpatch ps[8] = {{PG_METHOD_OVERRIDE, "Top.get_parallel_plan", plan_body}};
    assert_true(n_more < 8);
    for (size_t i = 0; i < n_more; i++)
        ps[i + 1] = more[i];
    show_detail = 1;
    char *got = survey(a, b, ps, n_more + 1);
    show_detail = 0;
    cfg_file = cfg_module = NULL;
    free(file);
    tmp_pkg_rm(root);
    strbuf out = STRBUF_INIT;
    for (const char *l = got; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l + 1) : strlen(l);
        if (strstr(l, "plan-key-unmatched") && strstr(l, "plan-key-unmatched") < l + n)
            strbuf_add(&out, l, n);
        else if (!strncmp(l, "v1.0: ", 6) || !strncmp(l, "v2.0: ", 6))
            strbuf_add(&out, l, n);
        l += n;
    }
    free(got);
    return strbuf_detach(&out, NULL);
}

/* transformers 5.22.2 moved the Qwen3-Omni thinker's layers under
 * `model.language_model`: the plan's keys match no parameter, and VeOmni
 * replicates the experts it was to shard. The `lm_head.weight` key (an nn.Linear's)
 * and the key that matched nothing at A are not judged. */
static void test_plan_key_unmatched(void **state)
{
    (void)state;
    char *got = plan_survey(plan_a, plan_b, NULL, 0);
    expect(got, "error plan-key-unmatched: `pkg/parallel_plan.py` line 9: the parallel plan key "
                "`thinker.model.layers.*.mlp.experts.gate_up_proj` matches no parameter at v2.0: "
                "`thinker.model` (a `ThinkerModel`) has no `layers` (now "
                "`thinker.model.language_model.layers.*.mlp.experts.gate_up_proj`): "
                "ParallelPlan.apply leaves them replicated, silently\n"
                "error plan-key-unmatched: `pkg/parallel_plan.py` line 10: the parallel plan key "
                "`thinker.model.layers.*.mlp.experts.down_proj` matches no parameter at v2.0: "
                "`thinker.model` (a `ThinkerModel`) has no `layers` (now "
                "`thinker.model.language_model.layers.*.mlp.experts.down_proj`): "
                "ParallelPlan.apply leaves them replicated, silently\n"
                "v1.0: `Top.get_parallel_plan`'s key reaches a parameter of `Experts` through "
                "`thinker.model` (a `TextModel`).\n"
                "v2.0: `thinker.model` (a `ThinkerModel`): no `__init__` of its chain sets "
                "`self.layers`, nothing else does.\n"
                "v2.0: the same parameter of a `Experts` is "
                "`thinker.model.language_model.layers.*.mlp.experts.gate_up_proj`.\n"
                "v1.0: `Top.get_parallel_plan`'s key reaches a parameter of `Experts` through "
                "`thinker.model` (a `TextModel`).\n"
                "v2.0: `thinker.model` (a `ThinkerModel`): no `__init__` of its chain sets "
                "`self.layers`, nothing else does.\n"
                "v2.0: the same parameter of a `Experts` is "
                "`thinker.model.language_model.layers.*.mlp.experts.down_proj`.\n");
    free(got);
    /* the same at both tags: nothing */
    got = plan_survey(plan_a, plan_a, NULL, 0);
    expect(got, "");
    free(got);
}

/* text with `from` replaced by `to` (which must occur once). */
static char *plan_with(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    assert_non_null(at);
    assert_null(strstr(at + 1, from));
    return pgci_asprintf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

/* B's text with `from` replaced by `to` (which must occur once). */
static char *plan_b_with(const char *from, const char *to)
{
    return plan_with(plan_b, from, to);
}

/* b with the layer's `mlp` renamed `block` (the thinker's model the text model
 * itself), and more lines at the end of the layer's __init__. */
static char *plan_layer_block(const char *b, const char *more)
{
    char *b1 = pgci_asprintf("%s", b);
    const char *m = "            self.mlp = Moe(config)\n"
                    "        else:\n"
                    "            self.mlp = MLP(config)\n";
    const char *at = strstr(b1, m);
    assert_non_null(at);
    char *b2 = pgci_asprintf("%.*s            self.block = Moe(config)\n"
                             "        else:\n"
                             "            self.block = MLP(config)\n%s%s",
                             (int)(at - b1), b1, more, at + strlen(m));
    free(b1);
    const char *tm = "self.model = ThinkerModel(config)";
    at = strstr(b2, tm);
    assert_non_null(at);
    char *b3 =
        pgci_asprintf("%.*sself.model = TextModel(config)%s", (int)(at - b2), b2, at + strlen(tm));
    free(b2);
    return b3;
}

/* What the resolver cannot follow with certainty at B leaves the key unjudged. */
static void test_plan_key_unjudged(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        /* a factory it does not know */
        {"self.model = ThinkerModel(config)", "self.model = AutoModel.from_config(config)"},
        /* a conditional value */
        {"self.model = ThinkerModel(config)",
         "self.model = ThinkerModel(config) if config.mm else TextModel(config)"},
        /* set outside __init__ */
        {"        self.language_model = TextModel._from_config(config)\n",
         "        self.language_model = TextModel._from_config(config)\n"
         "    def build(self):\n"
         "        self.layers = self.language_model.layers\n"},
        /* set by name */
        {"        self.language_model = TextModel._from_config(config)\n",
         "        self.language_model = TextModel._from_config(config)\n"
         "        setattr(self, 'lay' + 'ers', None)\n"},
        /* a base of another module */
        {"class ThinkerModel(ToyPreTrainedModel):", "class ThinkerModel(other.Base):"},
    };
    /* the control: B as it is breaks the keys */
    char *got = plan_survey(plan_a, plan_b, NULL, 0);
    assert_non_null(strstr(got, "has no `layers`"));
    free(got);
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        char *b = plan_b_with(cases[i][0], cases[i][1]);
        got = plan_survey(plan_a, b, NULL, 0);
        if (*got)
            fprintf(stderr, "case %zu\n%s", i, got);
        assert_string_equal(got, "");
        free(got);
        free(b);
    }
}

/* Past the key's `*`: every parameter under the layers read, none matches. The
 * layer's `mlp` renamed `block` (the way the key takes at A names the segment);
 * the MoE block's `experts` renamed `routed` (the layer's mlp is Moe or MLP by the
 * config: nothing under a layer matches the rest of the key). */
static void test_plan_key_past_star(void **state)
{
    (void)state;
    char *b = plan_layer_block(plan_b, "");
    char *got = plan_survey(plan_a, b, NULL, 0);
    expect(got, "error plan-key-unmatched: `pkg/parallel_plan.py` line 9: the parallel plan key "
                "`thinker.model.layers.*.mlp.experts.gate_up_proj` matches no parameter at v2.0: "
                "`thinker.model.layers.*` (a `Layer`) has no `mlp` (now "
                "`thinker.model.layers.*.block.experts.gate_up_proj`): ParallelPlan.apply leaves "
                "them replicated, silently\n"
                "error plan-key-unmatched: `pkg/parallel_plan.py` line 10: the parallel plan key "
                "`thinker.model.layers.*.mlp.experts.down_proj` matches no parameter at v2.0: "
                "`thinker.model.layers.*` (a `Layer`) has no `mlp` (now "
                "`thinker.model.layers.*.block.experts.down_proj`): ParallelPlan.apply leaves "
                "them replicated, silently\n"
                "v1.0: `Top.get_parallel_plan`'s key reaches a parameter of `Experts`.\n"
                "v2.0: `thinker.model.layers.*` (a `Layer`): no `__init__` of its chain sets "
                "`self.mlp`, nothing else does.\n"
                "v2.0: every parameter under `thinker.model.layers` read, every branch taken (4 "
                "paths): none matches the key.\n"
                "v2.0: the same parameter of a `Experts` is "
                "`thinker.model.layers.*.block.experts.gate_up_proj`.\n"
                "v1.0: `Top.get_parallel_plan`'s key reaches a parameter of `Experts`.\n"
                "v2.0: `thinker.model.layers.*` (a `Layer`): no `__init__` of its chain sets "
                "`self.mlp`, nothing else does.\n"
                "v2.0: every parameter under `thinker.model.layers` read, every branch taken (4 "
                "paths): none matches the key.\n"
                "v2.0: the same parameter of a `Experts` is "
                "`thinker.model.layers.*.block.experts.down_proj`.\n");
    free(got);
    free(b);
    b = plan_with(plan_a, "self.experts = Experts(config)", "self.routed = Experts(config)");
    got = plan_survey(plan_a, b, NULL, 0);
    expect(got, "error plan-key-unmatched: `pkg/parallel_plan.py` line 9: the parallel plan key "
                "`thinker.model.layers.*.mlp.experts.gate_up_proj` matches no parameter at v2.0: "
                "`thinker.model.layers.*` (a `Layer`) has no `mlp.experts.gate_up_proj` (now "
                "`thinker.model.layers.*.mlp.routed.gate_up_proj`): ParallelPlan.apply leaves "
                "them replicated, silently\n"
                "error plan-key-unmatched: `pkg/parallel_plan.py` line 10: the parallel plan key "
                "`thinker.model.layers.*.mlp.experts.down_proj` matches no parameter at v2.0: "
                "`thinker.model.layers.*` (a `Layer`) has no `mlp.experts.down_proj` (now "
                "`thinker.model.layers.*.mlp.routed.down_proj`): ParallelPlan.apply leaves them "
                "replicated, silently\n"
                "v1.0: `Top.get_parallel_plan`'s key reaches a parameter of `Experts`.\n"
                "v2.0: every parameter under `thinker.model.layers` read, every branch taken (4 "
                "paths): none matches the key.\n"
                "v2.0: the same parameter of a `Experts` is "
                "`thinker.model.layers.*.mlp.routed.gate_up_proj`.\n"
                "v1.0: `Top.get_parallel_plan`'s key reaches a parameter of `Experts`.\n"
                "v2.0: every parameter under `thinker.model.layers` read, every branch taken (4 "
                "paths): none matches the key.\n"
                "v2.0: the same parameter of a `Experts` is "
                "`thinker.model.layers.*.mlp.routed.down_proj`.\n");
    free(got);
    free(b);
    /* the config's override of a method of the layer runs instead of upstream's,
     * whose stores are not read (a tuple's targets) */
    static const tpatch reset[] = {
        {PG_METHOD_OVERRIDE, "Layer.reset", "def reset(self):\n    self.a = None\n"}};
    b = plan_layer_block(plan_b, "    def reset(self):\n        self.a, self.b = None, None\n");
    got = plan_survey(plan_a, b, reset, 1);
    assert_non_null(strstr(got, "line 9: the parallel plan key "
                                "`thinker.model.layers.*.mlp.experts.gate_up_proj` matches no "
                                "parameter at v2.0: `thinker.model.layers.*` (a `Layer`) has no "
                                "`mlp`"));
    free(got);
    got = plan_survey(plan_a, b, NULL, 0);
    expect(got, "");
    free(got);
    free(b);
    /* one parameter renamed: its key alone */
    b = plan_with(plan_a, "self.gate_up_proj = ", "self.gate_up = ");
    got = plan_survey(plan_a, b, NULL, 0);
    assert_non_null(strstr(got, "line 9: the parallel plan key "
                                "`thinker.model.layers.*.mlp.experts.gate_up_proj` matches no "
                                "parameter at v2.0: `thinker.model.layers.*` (a `Layer`) has no "
                                "`mlp.experts.gate_up_proj`: ParallelPlan"));
    assert_null(strstr(got, "line 10:"));
    free(got);
    free(b);
}

/* Past the key's `*`, a parameter deeper than the way the key takes at A may
 * still match: `*` is `.*` (a block between the layer and its mlp). */
static void test_plan_key_past_star_deeper(void **state)
{
    (void)state;
    static const char *const mlp = "        if config.sparse:\n"
                                   "            self.mlp = Moe(config)\n"
                                   "        else:\n"
                                   "            self.mlp = MLP(config)\n";
    char *b1 = plan_with(plan_a, mlp, "        self.block = Block(config)\n");
    char *b = plan_with(b1, "class Layer(GradientCheckpointingLayer):\n",
                        "class Block(nn.Module):\n"
                        "    def __init__(self, config):\n"
                        "        super().__init__()\n"
                        "        self.mlp = Moe(config)\n"
                        "class Layer(GradientCheckpointingLayer):\n");
    char *got = plan_survey(plan_a, b, NULL, 0);
    expect(got, "");
    free(got);
    /* the control: without the block's mlp, nothing under a layer matches */
    char *b2 = plan_with(b, "self.mlp = Moe(config)", "self.inner = Moe(config)");
    got = plan_survey(plan_a, b2, NULL, 0);
    assert_non_null(strstr(got, "`thinker.model.layers.*` (a `Layer`) has no `mlp` (now "
                                "`thinker.model.layers.*.block.inner.experts.gate_up_proj`)"));
    free(got);
    free(b2);
    free(b);
    free(b1);
}

/* Past the `*`, anything under the layers not read in full, or a prefix not
 * certain, leaves the key unjudged. */
static void test_plan_key_past_star_unjudged(void **state)
{
    (void)state;
    static const char *const more[] = {
        "        self.extra = make_extra(config)\n",    /* a factory */
        "        self.extra = other.Block(config)\n",   /* another module's class */
        "        self.a, self.b = Moe(config), None\n", /* a tuple's targets */
        "        self.extra.weight = None\n",           /* an attribute's attribute */
        "        setattr(self, 'extra', None)\n",       /* by name */
        "        self.sub = Layer(config, i)\n",        /* the layer within itself */
        "        self.norm = i\n",                      /* a parameter of any type */
    };
    /* the control: the layer's mlp renamed, the keys break past their `*` */
    char *b = plan_layer_block(plan_b, "");
    char *got = plan_survey(plan_a, b, NULL, 0);
    assert_non_null(strstr(got, "`thinker.model.layers.*` (a `Layer`) has no `mlp`"));
    free(got);
    free(b);
    for (size_t i = 0; i < sizeof(more) / sizeof(*more); i++) {
        b = plan_layer_block(plan_b, more[i]);
        got = plan_survey(plan_a, b, NULL, 0);
        if (*got)
            fprintf(stderr, "case %zu\n%s", i, got);
        assert_string_equal(got, "");
        free(got);
        free(b);
    }
    /* a decorator not known to add nothing; the layers set twice; a store of the
     * config's override of a method of the layer */
    static const char *const edits[][2] = {
        {"class Experts(nn.Module):\n", "@hooked\nclass Experts(nn.Module):\n"},
        {"    def forward(self, x):\n        for layer",
         "    def reset(self):\n        self.layers = None\n"
         "    def forward(self, x):\n        for layer"},
    };
    for (size_t i = 0; i < sizeof(edits) / sizeof(*edits); i++) {
        char *b1 = plan_layer_block(plan_b, "");
        b = plan_with(b1, edits[i][0], edits[i][1]);
        got = plan_survey(plan_a, b, NULL, 0);
        if (*got)
            fprintf(stderr, "edit %zu\n%s", i, got);
        assert_string_equal(got, "");
        free(got);
        free(b);
        free(b1);
    }
    static const tpatch fwd[] = {{PG_METHOD_OVERRIDE, "Layer.forward",
                                  "def forward(self, x):\n"
                                  "    self.cache = make_cache(x)\n"
                                  "    return x\n"}};
    b = plan_layer_block(plan_b, "");
    got = plan_survey(plan_a, b, fwd, 1);
    expect(got, "");
    free(got);
    free(b);
}

/* A torch leaf module's parameters, as its constructor call gives them: the
 * thinker's `lm_head` (an nn.Linear) loses its bias, or goes. */
static void test_plan_key_leaf(void **state)
{
    (void)state;
    static const char *const lm = "self.lm_head = nn.Linear(2, 2)";
    char *b = plan_with(plan_a, lm, "self.lm_head = nn.Linear(2, 2, bias=False)");
    char *got = plan_survey(plan_a, b, NULL, 0);
    expect(got, "error plan-key-unmatched: `pkg/parallel_plan.py` line 13: the parallel plan key "
                "`thinker.lm_head.bias` matches no parameter at v2.0: `thinker.lm_head` (a "
                "`nn.Linear`) has no `bias`: ParallelPlan.apply leaves them replicated, "
                "silently\n"
                "v1.0: `Top.get_parallel_plan`'s key reaches a parameter of `nn.Linear`.\n"
                "v2.0: `thinker.lm_head` (a `nn.Linear`): its constructor call gives it no "
                "`bias`.\n");
    free(got);
    free(b);
    b = plan_with(plan_a, "        self.lm_head = nn.Linear(2, 2)\n", "");
    got = plan_survey(plan_a, b, NULL, 0);
    expect(got, "error plan-key-unmatched: `pkg/parallel_plan.py` line 11: the parallel plan key "
                "`thinker.lm_head.weight` matches no parameter at v2.0: `thinker` (a `Thinker`) "
                "has no `lm_head`: ParallelPlan.apply leaves them replicated, silently\n"
                "error plan-key-unmatched: `pkg/parallel_plan.py` line 13: the parallel plan key "
                "`thinker.lm_head.bias` matches no parameter at v2.0: `thinker` (a `Thinker`) "
                "has no `lm_head`: ParallelPlan.apply leaves them replicated, silently\n"
                "v1.0: `Top.get_parallel_plan`'s key reaches a parameter of `nn.Linear` through "
                "`thinker` (a `Thinker`).\n"
                "v2.0: `thinker` (a `Thinker`): no `__init__` of its chain sets `self.lm_head`, "
                "nothing else does.\n"
                "v1.0: `Top.get_parallel_plan`'s key reaches a parameter of `nn.Linear` through "
                "`thinker` (a `Thinker`).\n"
                "v2.0: `thinker` (a `Thinker`): no `__init__` of its chain sets `self.lm_head`, "
                "nothing else does.\n");
    free(got);
    free(b);
    /* a bias the call does not fix, at B or at A: unjudged */
    static const char *const maybe = "self.lm_head = nn.Linear(2, 2, bias=config.bias)";
    char *a = plan_with(plan_a, lm, maybe);
    b = plan_with(plan_a, lm, "self.lm_head = nn.Linear(2, 2, bias=False)");
    char *bm = plan_with(plan_a, lm, maybe);
    got = plan_survey(plan_a, bm, NULL, 0);
    expect(got, "");
    free(got);
    got = plan_survey(a, b, NULL, 0);
    expect(got, "");
    free(got);
    free(a);
    free(b);
    free(bm);
}

/* The config's own __init__ override and replaced classes come first, as the
 * generated module runs them: B's upstream renamed `thinker` and dropped the
 * experts' parameters, the config's override and replacement keep them. */
static void test_plan_key_config_first(void **state)
{
    (void)state;
    char *b1 = plan_b_with("self.model = ThinkerModel(config)", "self.model = TextModel(config)");
    char *b2 = pgci_asprintf("%s", b1);
    char *p;
    for (int k = 0; k < 2; k++) { /* set and read by forward */
        assert_non_null(p = strstr(b2, "self.thinker"));
        memcpy(p, "self.brainer", 12);
    }
    assert_null(strstr(b2, "self.thinker"));
    char *b3 = pgci_asprintf("%s", b2);
    p = strstr(b3, "self.gate_up_proj = ");
    assert_non_null(p);
    memcpy(p, "self.gate_up_prox = ", 20);
    /* upstream alone: the renamed attribute breaks the key before the `*` */
    char *got = plan_survey(plan_a, b2, NULL, 0);
    assert_non_null(strstr(got, "the model (a `Top`) has no `thinker`"));
    free(got);
    static const tpatch fix[] = {
        {PG_METHOD_OVERRIDE, "Top.__init__",
         "def top_init_patched(self, config):\n"
         "    super().__init__(config)\n"
         "    self.thinker = Thinker._from_config(config.thinker_config)\n"},
        {PG_CLASS_REPLACEMENT, "Experts",
         "class PatchedExperts(nn.Module):\n"
         "    def __init__(self, config):\n"
         "        super().__init__()\n"
         "        self.gate_up_proj = nn.Parameter(torch.empty(4, 8, 2))\n"
         "        self.down_proj = nn.Parameter(torch.empty(4, 2, 4))\n"},
    };
    got = plan_survey(plan_a, b3, fix, 2);
    expect(got, "");
    free(got);
    free(b1);
    free(b2);
    free(b3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_body_uses),
        cmocka_unit_test(test_object_views),
        cmocka_unit_test(test_object_uses_threads),
        cmocka_unit_test(test_body_uses_calls),
        cmocka_unit_test(test_body_uses_decorators),
        cmocka_unit_test(test_body_uses_broken),
        cmocka_unit_test(test_imported_function_call),
        cmocka_unit_test(test_imported_modules),
        cmocka_unit_test(test_submodule_call),
        cmocka_unit_test(test_value_changed),
        cmocka_unit_test(test_return_count_changed),
        cmocka_unit_test(test_return_count_breaks_caller),
        cmocka_unit_test(test_required_param_callers),
        cmocka_unit_test(test_value_field_rebound),
        cmocka_unit_test(test_registered_attrs),
        cmocka_unit_test(test_registered_attr_gone),
        cmocka_unit_test(test_kwarg_collision),
        cmocka_unit_test(test_kwarg_collision_factory),
        cmocka_unit_test(test_stand_in),
        cmocka_unit_test(test_element_attr_removed),
        cmocka_unit_test(test_param_swapped_not_renamed),
        cmocka_unit_test(test_source_text),
        cmocka_unit_test(test_returned),
        cmocka_unit_test(test_deprecate_kwarg),
        cmocka_unit_test(test_attr_removed_no_guess),
        cmocka_unit_test(test_patched_init_sets_attr),
        cmocka_unit_test(test_self_calls),
        cmocka_unit_test(test_self_call_through_shim),
        cmocka_unit_test(test_init_kwarg_shim_under_another_method),
        cmocka_unit_test(test_param_removed_through_shim),
        cmocka_unit_test(test_override_renamed_by_shim),
        cmocka_unit_test(test_override_keeps_shim),
        cmocka_unit_test(test_keyword_calls_passes),
        cmocka_unit_test(test_override_keeps_shim_method),
        cmocka_unit_test(test_replacement_without_shim),
        cmocka_unit_test(test_function_replacement_without_shim),
        cmocka_unit_test(test_keyword_call_in_docstring),
        cmocka_unit_test(test_optional_param_passed_by_caller),
        cmocka_unit_test(test_optional_param_passed_by_position),
        cmocka_unit_test(test_keyword_calls_positional),
        cmocka_unit_test(test_keyword_call_of_an_element),
        cmocka_unit_test(test_post_import_block_binds),
        cmocka_unit_test(test_decorator_name_removed),
        cmocka_unit_test(test_positioned_helper_name_removed),
        cmocka_unit_test(test_positioned_helper_lines),
        cmocka_unit_test(test_written_instead),
        cmocka_unit_test(test_name_map_reads_renamed_names),
        cmocka_unit_test(test_successor_named_once),
        cmocka_unit_test(test_callee_inherited),
        cmocka_unit_test(test_self_call_deprecated),
        cmocka_unit_test(test_same_tag_reports_nothing),
        cmocka_unit_test(test_inherited_module_keyed),
        cmocka_unit_test(test_target_count_kind),
        cmocka_unit_test(test_changes_group),
        cmocka_unit_test(test_changes_other_regen_causes),
        cmocka_unit_test(test_changes_callee_shim),
        cmocka_unit_test(test_changes_split_bodies),
        cmocka_unit_test(test_changes_replaced_body),
        cmocka_unit_test(test_changes_quote_deprecation_advice),
        cmocka_unit_test(test_changes_auto_docstring),
        cmocka_unit_test(test_changes_body_joins_signature),
        cmocka_unit_test(test_changes_positioned_helper),
        cmocka_unit_test(test_changes_split_by_phrases),
        cmocka_unit_test(test_changes_element_attr),
        cmocka_unit_test(test_changes_attr_moved),
        cmocka_unit_test(test_external_bases_settled),
        cmocka_unit_test(test_fans_walked_once),
        cmocka_unit_test(test_vanished_quotes_deprecation),
        cmocka_unit_test(test_init_attr_read_by_a_later_override),
        cmocka_unit_test(test_auto_built_bypasses_patched),
        cmocka_unit_test(test_unreachable_names_built),
        cmocka_unit_test(test_plan_key_unmatched),
        cmocka_unit_test(test_changes_plan_keys),
        cmocka_unit_test(test_plan_key_unjudged),
        cmocka_unit_test(test_plan_key_config_first),
        cmocka_unit_test(test_plan_key_past_star),
        cmocka_unit_test(test_plan_key_past_star_deeper),
        cmocka_unit_test(test_plan_key_past_star_unjudged),
        cmocka_unit_test(test_plan_key_leaf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
