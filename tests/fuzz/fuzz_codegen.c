/*
 * fuzz_codegen - libFuzzer target for the code generator (src/patchgen/codegen*)
 * on arbitrary upstream modules.
 *
 * The input is the text of an upstream module; the config is fixed (below): method
 * overrides of A and of three fixture llama classes (three on one class, so that
 * rewrites follow one another, one of a method the class lacks), a class and a
 * function replacement. PGCI_VERIFY_REPARSE
 * is set, so the generator aborts where a tree it derives instead of parsing (the
 * first rewrite of a class seen through the module's tree, a class's items
 * worked out after a rewrite, an override's source known to parse from the
 * evaluator, an incremental re-parse) differs from a fresh parse. The target aborts too when an
 * invariant breaks:
 *  - a failure sets exactly one line of message;
 *  - a success gives output that starts with patchgen's header and holds no NUL
 *    the input did not hold.
 *  - the indentation check that steps over what lies on one row gives the answer
 *    of the one that visits every leaf, on the input's tree.
 * Sanitizers catch the rest.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "patchgen/codegen.h"
#include "patchgen/codegen_syntax.h"
#include "py/py.h"
#include "patchgen/config_eval.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char config_src[] =
    "from veomni.patchgen.patch_spec import PatchConfig\n"
    "config = PatchConfig(source_module='up.mod', target_file='mod.py')\n"
    "\n\n"
    "# why f\n"
    "@config.override_method('A.f')\n"
    "@config.override_method('LlamaMLP.forward')\n"
    "def f(self, x):\n"
    "    return x + 1\n"
    "\n\n"
    "@config.override_method('A.g', name_map={'x': 'y'})\n"
    "@config.override_method('LlamaAttention.forward')\n"
    "async def g(self, x):\n"
    "    # inside\n"
    "    return x\n"
    "\n\n"
    "@config.override_method('LlamaAttention.__init__')\n"
    "@config.override_method('LlamaRMSNorm.extra_repr')\n"
    "def init(self, *a):\n"
    "    pass\n"
    "\n\n"
    "# added to the class, after the others\n"
    "@config.override_method('A.added')\n"
    "@config.override_method('LlamaAttention.added')\n"
    "@torch.no_grad()\n"
    "def added(self):\n"
    "    return (1,\n"
    "            2)\n"
    "\n\n"
    "@config.replace_class('B')\n"
    "class NewB:\n"
    "    pass\n"
    "\n\n"
    "@config.replace_function('fn')\n"
    "def fn2():\n"
    "    return 2\n";

static pg_config *config;

static void load_config(void)
{
    setenv("PGCI_VERIFY_REPARSE", "1", 1);
    config_eval *ev;
    if (config_eval_new(&ev, NULL) < 0 ||
        config_eval_buffer(ev, "/fuzz/mod_patch_gen_config.py", config_src, sizeof(config_src) - 1,
                           NULL, &config) < 0) {
        fprintf(stderr, "fuzz_codegen: the fixed config does not evaluate: %s\n",
                pgci_error_last());
        abort();
    }
    config_eval_free(ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!config)
        load_config();
    strbuf src = STRBUF_INIT;
    codegen_read_upstream(&src, (const char *)data, size);
    py_tree t;
    if (py_parse(&t, src.buf ? src.buf : "", src.len, "<fuzz>") == 0) {
        const char *w1 = NULL, *w2 = NULL;
        CHECK(cgsyn_indent_error_line(&t, &w1) == cgsyn_indent_error_line_every_leaf(&t, &w2));
        CHECK(w1 == w2);
        py_tree_free(&t);
    }
    cg_result res;
    int r = codegen_generate(config, src.buf ? src.buf : "", src.len, "9.9.9", &res);
    if (r < 0) {
        const char *msg = pgci_error_last();
        CHECK(msg && *msg && !strchr(msg, '\n'));
    } else {
        CHECK(res.output.len > 0 && !strncmp(res.output.buf, "# ", 2));
        CHECK(memchr(src.buf ? src.buf : "", '\0', src.len) ||
              strlen(res.output.buf) == res.output.len);
    }
    cg_result_free(&res);
    strbuf_free(&src);
    return 0;
}
