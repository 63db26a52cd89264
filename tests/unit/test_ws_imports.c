/* A module of the workspace that the generated module imports runs its own imports
 * when the generated module is imported (checks/ws_imports.h): a name it imports
 * from a transformers module that B no longer binds raises ImportError there,
 * while no patch body changed. transformers 5.24.0 removed five
 * `*CausalLMOutputWithPast` classes veomni 0.1.12's `veomni/utils/model_outputs.py`
 * imports; the survey said nothing. The workspace and the modules here are small
 * ones written by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/changes.h"
#include "checks/survey_compare.h"
#include "checks/survey_trees.h"
#include "checks/ws_imports.h"
#include "core/error.h"
#include "core/fs.h"
#include "index/index.h"
#include "py/parse_set.h"

#include "survey_case.h"
#include "survey_twice.h"
#include "tmp_pkg.h"

#define MODEL "transformers.models.toy.modeling_toy"
#define OTHER "transformers.models.other.modeling_other"

/* The model's module: B drops `ToyOutput`, keeps `Moved` as an import (it moved to
 * modeling_outputs and is re-exported), drops `Guarded`, `Later` and `Lazy`. */
static const char model_a[] = "from ...modeling_outputs import BaseOutput\n"
                              "class ToyOutput(BaseOutput):\n"
                              "    pass\n"
                              "class Moved:\n"
                              "    pass\n"
                              "Guarded = 1\n"
                              "Later = 2\n"
                              "Lazy = 3\n"
                              "class ToyForCausalLM:\n"
                              "    def forward(self, x):\n"
                              "        return x\n";
static const char model_b[] = "from ...modeling_outputs import BaseOutput, Moved\n"
                              "class ToyForCausalLM:\n"
                              "    def forward(self, x):\n"
                              "        return x\n";
/* another model's module: `OtherOutput` gone at B */
static const char other_a[] = "class OtherOutput:\n"
                              "    pass\n"
                              "class Kept:\n"
                              "    pass\n";
static const char other_b[] = "class Kept:\n"
                              "    pass\n";

/* pkg/outputs.py: the workspace's module; every import that does not run at
 * import time unguarded is left alone */
static const char outputs_py[] =
    "\"\"\"Outputs.\n"
    "\n"
    "from transformers.models.toy.modeling_toy import InADocstring\n"
    "\"\"\"\n"
    "from typing import TYPE_CHECKING\n"
    "from transformers.models.toy.modeling_toy import (  # the model's\n"
    "    ToyOutput,\n"
    "    Moved as MovedHere,\n"
    ")\n"
    "from transformers.models.other.modeling_other import Kept, \\\n"
    "    OtherOutput\n"
    "from transformers import Lazy\n"
    "try:\n"
    "    from transformers.models.toy.modeling_toy import Guarded\n"
    "except ImportError:\n"
    "    Guarded = None\n"
    "if TYPE_CHECKING:\n"
    "    from transformers.models.toy.modeling_toy import Guarded\n"
    "def later():\n"
    "    from transformers.models.toy.modeling_toy import Later\n"
    "    return Later\n"
    "class AuxMixin:\n"
    "    pass\n";

typedef struct wcase {
    const char *outputs; /* pkg/outputs.py (NULL: outputs_py) */
    const char *init;    /* pkg/__init__.py (NULL: empty) */
    const char *extra;   /* pkg/extra.py, when set */
    const char *model_a; /* NULL: model_a */
    const char *add;     /* the module the config's add_import names (NULL: pkg.outputs) */
    const char *name;    /* and the name (NULL: AuxMixin) */
    const char *block;   /* a post-import block instead of the add_import */
    const char *body;    /* the override's body (NULL: one that uses AuxMixin) */
    int details;         /* each finding's detail after it */
} wcase;

/* A ws-import-removed finding, with its detail when the case asks. */
static void import_line(strbuf *out, const finding *f, const void *arg)
{
    const wcase *wc = arg;
    const char *kind = json_string_value(json_object_get(f->data, "kind"));
    if (!kind || strcmp(kind, "ws-import-removed"))
        return;
    strbuf_addf(out, "%s %s:%u: %s\n", severity_name(f->sev), f->path, f->line, f->title);
    if (wc->details)
        strbuf_adds(out, f->detail ? f->detail : "(no detail)\n");
}

static const char body_aux[] = "def forward(self, x):\n"
                               "    return AuxMixin(x)\n";

static char *write_ws(const wcase *wc)
{
    char *root = tmp_pkg_new("pgci-ws-imports-");
    const char *files[] = {"outputs.py", "__init__.py", "extra.py"};
    const char *texts[] = {wc->outputs ? wc->outputs : outputs_py, wc->init ? wc->init : "",
                           wc->extra};
    for (int i = 0; i < 3; i++)
        if (texts[i])
            tmp_pkg_put(root, files[i], texts[i]);
    return root;
}

/* "severity path:line: title" of each ws-import-removed finding of the survey of
 * the case's config, the same with the run's memos as without. */
static char *survey_case(const wcase *wc)
{
    char *root = write_ws(wc);
    const char *ma = wc->model_a ? wc->model_a : model_a;
    index_module *a = index_named(ma, MODEL), *b = index_named(model_b, MODEL);
    index_module *oa = index_named(other_a, OTHER), *ob = index_named(other_b, OTHER);
    survey_ext ws_ext[1] = {
        {OTHER, oa, ob, other_a, other_b, strlen(other_a), strlen(other_b)},
    };
    char *cfg_file = pgci_asprintf("%s/pkg/cfg.py", root);
    pg_config cfg;
    config_of(&cfg, MODEL, cfg_file, "pkg.cfg");
    const char *names[] = {wc->name ? wc->name : "AuxMixin"};
    pg_import im = {.module = wc->add ? wc->add : "pkg.outputs",
                    .names = names,
                    .names_len = 1,
                    .is_from_import = 1};
    if (wc->block)
        VEC_PUSH(&cfg.post_import_blocks, wc->block);
    else
        VEC_PUSH(&cfg.additional_imports, im);
    pg_object body = body_of("forward", "pkg.cfg", cfg_file, wc->body ? wc->body : body_aux);
    override_with(&cfg, "ToyForCausalLM.forward", &body);
    survey_pair sp = pair_of(&cfg, "pkg/cfg.py", a, ma, b, model_b);
    sp.ws_ext = ws_ext;
    sp.n_ws_ext = 1;
    char *got = survey_twice(&sp, import_line, wc);
    VEC_FREE(&cfg.patches);
    VEC_FREE(&cfg.additional_imports);
    VEC_FREE(&cfg.post_import_blocks);
    index_module_free(a);
    index_module_free(b);
    index_module_free(oa);
    index_module_free(ob);
    free(cfg_file);
    tmp_pkg_rm(root);
    return got;
}

static void expect(const wcase *wc, const char *want)
{
    char *got = survey_case(wc);
    if (strcmp(got, want))
        fprintf(stderr, "--- got\n%s--- want\n%s", got, want);
    assert_string_equal(got, want);
    free(got);
}

static const char want_removed[] =
    "error pkg/outputs.py:7: `pkg/outputs.py` line 7 imports `ToyOutput` from "
    "`" MODEL "`, which no longer has it at v2.0: importing the generated module raises "
    "ImportError\n"
    "error pkg/outputs.py:11: `pkg/outputs.py` line 11 imports `OtherOutput` from "
    "`" OTHER "`, which no longer has it at v2.0: importing the generated module raises "
    "ImportError\n";

/* The two names B no longer binds, each at its own line (a parenthesised import, a
 * backslash continuation), from the model's module and another model's; `Moved`,
 * which B re-exports by an import, is still bound; the import in a `try`, under
 * `if TYPE_CHECKING:`, in a function, of the lazy top-level `transformers` and in
 * the docstring are not judged. Before, nothing was said. */
static void test_removed_name(void **state)
{
    (void)state;
    wcase wc = {.details = 1};
    char *got = survey_case(&wc);
    static const char detail[] = "v1.0: `" MODEL "` binds `ToyOutput`; v2.0: it does not.\n"
                                 "the generated module imports it so:\n"
                                 "  the config's `add_import` imports `pkg.outputs` "
                                 "(pkg/outputs.py)\n";
    if (!strstr(got, detail))
        fprintf(stderr, "--- got\n%s", got);
    assert_non_null(strstr(got, detail));
    free(got);
    wcase plain = {0};
    expect(&plain, want_removed);
}

/* An import the generated module runs that fails at A already (A lacks `Absent`):
 * the generated module did not import at A either, so nothing is the bump's. */
static void test_fails_at_a(void **state)
{
    (void)state;
    static const char outputs[] = "from transformers.models.toy.modeling_toy import Absent\n"
                                  "from transformers.models.toy.modeling_toy import ToyOutput\n"
                                  "class AuxMixin:\n"
                                  "    pass\n";
    wcase wc = {.outputs = outputs};
    expect(&wc, "");
}

/* ruff's fix drops an import of the config's that nothing uses: the generated
 * module does not import the workspace's module, nothing breaks */
static void test_unused_import(void **state)
{
    (void)state;
    static const char body[] = "def forward(self, x):\n"
                               "    return x\n";
    wcase wc = {.body = body};
    expect(&wc, "");
}

/* Followed through the package's `__init__` (which Python runs first) and the
 * module it imports relatively; the step that imports each module in the detail. */
static void test_through_package(void **state)
{
    (void)state;
    static const char outputs[] = "class AuxMixin:\n"
                                  "    pass\n";
    static const char init[] = "from .extra import helper  # noqa\n";
    static const char extra[] = "import os\n"
                                "from transformers.models.other.modeling_other import "
                                "OtherOutput as O\n"
                                "def helper():\n"
                                "    return O\n";
    wcase wc = {.outputs = outputs, .init = init, .extra = extra, .details = 1};
    expect(&wc, "error pkg/extra.py:2: `pkg/extra.py` line 2 imports `OtherOutput` from "
                "`" OTHER "`, which no longer has it at v2.0: importing the generated module "
                "raises ImportError\n"
                "v1.0: `" OTHER "` binds `OtherOutput`; v2.0: it does not.\n"
                "the generated module imports it so:\n"
                "  the config's `add_import` imports `pkg.outputs`, and Python runs its package "
                "`pkg` first (pkg/__init__.py)\n"
                "  `pkg/__init__.py` line 1 imports `pkg.extra` (pkg/extra.py)\n");
}

/* `from pkg import extra` loads the submodule the package's `__init__` does not
 * bind; a post-import block's import, kept by its `noqa` though nothing uses it */
static void test_submodule_from_block(void **state)
{
    (void)state;
    static const char extra[] = "from transformers.models.toy.modeling_toy import ToyOutput\n";
    static const char block[] = "\n    from pkg import extra  # noqa: F401\n";
    static const char body[] = "def forward(self, x):\n"
                               "    return x\n";
    wcase wc = {.extra = extra, .block = block, .body = body, .details = 1};
    expect(&wc, "error pkg/extra.py:1: `pkg/extra.py` line 1 imports `ToyOutput` from `" MODEL
                "`, which no longer has it at v2.0: importing the generated module raises "
                "ImportError\n"
                "v1.0: `" MODEL "` binds `ToyOutput`; v2.0: it does not.\n"
                "the generated module imports it so:\n"
                "  a post-import block of the config imports `pkg.extra` (`from pkg import "
                "extra`) (pkg/extra.py)\n");
    /* a package that binds the name itself: the submodule is not loaded */
    static const char init[] = "extra = None\n";
    wcase bound = {.extra = extra, .block = block, .body = body, .init = init};
    expect(&bound, "");
    /* one that names it only in its docstring and in a function's body binds
     * nothing of that name at its top level: loaded (veomni/ops/__init__.py's
     * `from . import kernels`, whose functions import `.kernels.attention`) */
    static const char init_names[] = "\"\"\"The extra helpers.\"\"\"\n"
                                     "@decorated(\n"
                                     "    1,\n"
                                     ")\n"
                                     "def helper():\n"
                                     "    from .extra import thing\n"
                                     "    return extra\n";
    wcase named = {.extra = extra, .block = block, .body = body, .init = init_names};
    char *got = survey_case(&named);
    assert_non_null(strstr(got, "error pkg/extra.py:1: "));
    free(got);
}

/* A file the token scan declines (statements joined by a semicolon) is parsed:
 * the same imports, the one under `if` left alone. */
static void test_parsed_when_not_split(void **state)
{
    (void)state;
    static const char outputs[] = "import os; import sys\n"
                                  "from transformers.models.toy.modeling_toy import ToyOutput\n"
                                  "if os.environ.get(\"X\"):\n"
                                  "    from transformers.models.toy.modeling_toy import Later\n"
                                  "class AuxMixin:\n"
                                  "    pass\n";
    wcase wc = {.outputs = outputs};
    expect(&wc, "error pkg/outputs.py:2: `pkg/outputs.py` line 2 imports `ToyOutput` from `" MODEL
                "`, which no longer has it at v2.0: importing the generated module raises "
                "ImportError\n");
}

/* What the survey reads for it: the models' modules the workspace's modules import
 * names from, and others only where the survey reads them anyway. */
static void test_modules(void **state)
{
    (void)state;
    static const char outputs[] = "from transformers.models.toy.modeling_toy import A\n"
                                  "from transformers.models.other.modeling_other import B\n"
                                  "from transformers.cache_utils import C\n"
                                  "from transformers.masking_utils import D\n"
                                  "from transformers import E\n"
                                  "import transformers.models.toy.modeling_x as x\n"
                                  "class AuxMixin:\n"
                                  "    pass\n";
    wcase wc = {.outputs = outputs};
    char *root = write_ws(&wc);
    char *cfg_file = pgci_asprintf("%s/pkg/cfg.py", root);
    pg_config cfg;
    config_of(&cfg, MODEL, cfg_file, "pkg.cfg");
    const char *names[] = {"AuxMixin"};
    pg_import im = {.module = "pkg.outputs", .names = names, .names_len = 1, .is_from_import = 1};
    VEC_PUSH(&cfg.additional_imports, im);
    pg_object body = body_of("forward", "pkg.cfg", cfg_file, body_aux);
    override_with(&cfg, "ToyForCausalLM.forward", &body);
    index_module *a = index_named(model_a, MODEL);
    survey_pair sp = {.config = "cfg", .cfg = &cfg, .a = a, .b = a};
    strvec read = STRVEC_INIT, mods = STRVEC_INIT;
    strvec_push(&read, "transformers.masking_utils");
    ws_imports_modules(&mods, &sp, &read);
    assert_int_equal(mods.len, 3);
    assert_string_equal(mods.items[0], MODEL);
    assert_string_equal(mods.items[1], OTHER);
    assert_string_equal(mods.items[2], "transformers.masking_utils");
    strvec_free(&read);
    strvec_free(&mods);
    VEC_FREE(&cfg.patches);
    VEC_FREE(&cfg.additional_imports);
    index_module_free(a);
    free(cfg_file);
    tmp_pkg_rm(root);
}

/* A finding of config cfg: `name` gone from `module`, imported at file:line. */
static void add_removed(json_t *fs, const char *cfg, const char *name, const char *module,
                        const char *file, int line)
{
    json_t *f = json_object();
    json_object_set_new(f, "check", json_string("callees"));
    json_object_set_new(f, "severity", json_string("error"));
    json_object_set_new(f, "config", json_string(cfg));
    json_object_set_new(f, "title", json_string("t"));
    json_object_set_new(f, "data",
                        json_pack("{s:s, s:s, s:s, s:s, s:i}", "kind", "ws-import-removed",
                                  "target", name, "module", module, "file", file, "line", line));
    json_array_append_new(fs, f);
}

/* The configs' findings of one name gone from one module are one change, with the
 * file and line in its action. */
static void test_changes_title(void **state)
{
    (void)state;
    json_t *fs = json_array();
    for (int i = 0; i < 2; i++)
        add_removed(fs, i ? "c.a" : "c.b", "ToyOutput", MODEL, "pkg/outputs.py", 7);
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 1);
    json_t *c = json_array_get(cs, 0);
    assert_string_equal(json_string_value(json_object_get(c, "how")), "breaks-at-run-time");
    assert_int_equal(json_array_size(json_object_get(c, "configs")), 2);
    assert_string_equal(json_string_value(json_object_get(c, "title")),
                        "the workspace's `pkg/outputs.py` imports `ToyOutput` from `" MODEL
                        "`, which no longer has it: the generated modules that import that file "
                        "fail at import");
    assert_string_equal(json_string_value(json_object_get(c, "action")),
                        "import it from where it moved, or drop it (`pkg/outputs.py` line 7)");
    json_decref(cs);
    json_decref(fs);
}

/* The names gone that one workspace file imports are one change, one edit of that
 * file (veomni's model_outputs.py: five classes 5.24.0 removed from five modules
 * were five sections of the note); another file importing one of them is a change
 * of its own, whose action names its own file and line. */
static void test_changes_by_file(void **state)
{
    (void)state;
    json_t *fs = json_array();
    for (int i = 0; i < 2; i++) {
        const char *cfg = i ? "c.a" : "c.b";
        add_removed(fs, cfg, "ToyOutput", MODEL, "pkg/outputs.py", 7);
        add_removed(fs, cfg, "OtherOutput", OTHER, "pkg/outputs.py", 8);
    }
    add_removed(fs, "c.a", "ToyOutput", MODEL, "pkg/legacy.py", 3);
    json_t *cs = changes_group(fs);
    assert_int_equal(json_array_size(cs), 2);
    json_t *c = json_array_get(cs, 0);
    assert_int_equal(json_array_size(json_object_get(c, "configs")), 2);
    assert_int_equal(json_integer_value(json_object_get(c, "findings")), 4);
    assert_string_equal(json_string_value(json_object_get(c, "title")),
                        "the workspace's `pkg/outputs.py` imports names upstream's modules no "
                        "longer have: `ToyOutput` from `" MODEL "` (line 7) and `OtherOutput` "
                        "from `" OTHER "` (line 8); the generated modules that import that file "
                        "fail at import");
    assert_string_equal(json_string_value(json_object_get(c, "action")),
                        "import each from where it moved, or drop it (`pkg/outputs.py`)");
    c = json_array_get(cs, 1);
    assert_int_equal(json_array_size(json_object_get(c, "configs")), 1);
    assert_string_equal(json_string_value(json_object_get(c, "action")),
                        "import it from where it moved, or drop it (`pkg/legacy.py` line 3)");
    json_decref(cs);
    json_decref(fs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_removed_name),
        cmocka_unit_test(test_fails_at_a),
        cmocka_unit_test(test_unused_import),
        cmocka_unit_test(test_through_package),
        cmocka_unit_test(test_submodule_from_block),
        cmocka_unit_test(test_parsed_when_not_split),
        cmocka_unit_test(test_modules),
        cmocka_unit_test(test_changes_title),
        cmocka_unit_test(test_changes_by_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
