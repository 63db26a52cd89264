/*
 * What code scanning shows for each pgci rule: a short description (the check's
 * own one-line summary when it is a gate check) and help text saying what the
 * finding means and what to do about it.
 */
#include <string.h>

#include "checks/check.h"
#include "reports/sarif_rules.h"

static const struct {
    const char *id, *summary, *help;
} rules[] = {
    {"regen", "the config could not be regenerated",
     "pgci could not evaluate the config or generate its module (an unsupported construct, a "
     "target file outside the tree, ruff refusing the output). Fix the config at the line the "
     "message names; patchgen would fail on it too."},
    {"drift", NULL,
     "The checked-in generated file is not what the config regenerates to at the pinned "
     "upstream tag. Run `patchgen <module>` (or `pgci check --fix`) and commit the result; "
     "never edit generated files by hand."},
    {"ruff-equivalence", NULL,
     "The checked-in file is not what ruff makes of the regeneration (byte mode), or not the "
     "regenerated code up to formatting (structural mode, --no-ruff): it was edited or "
     "formatted by hand. Regenerate it."},
    {"diff-consistency", NULL,
     "The .diff next to the generated file is not the diff of upstream against the checked-in "
     ".py: it went stale after a hand edit. Regenerate both with `patchgen <module> --diff`."},
    {"names", NULL,
     "A name the generated code uses is bound nowhere (F821), or bound twice (F811). Usually a "
     "patch body still writes a name upstream stopped importing: import it in the config "
     "(add_import) or stop using it."},
    {"targets", NULL,
     "A patch whose target is not upstream is dropped by patchgen without a word; a near miss "
     "(did you mean ...?) is most likely a typo, and the method meant stays unpatched. Fix the "
     "target in the config, or confirm the method is added on purpose."},
    {"signatures", "targets whose upstream contract changed between two tags",
     "Upstream changed a patched target's signature, decorators, bases or body between the "
     "pinned tag and the new one. Review the override against the new upstream code."},
    {"auto-docstring", "overrides whose docstring lacks new Args",
     "An override of an @auto_docstring method has parameters its docstring does not list."},
    {"name-map-fields", "reused bodies missing dataclass fields",
     "A body reused through name_map builds an output dataclass without fields the renamed "
     "dataclass has (the dense-vs-MoE router_logits trap)."},
    {"rope-compat", "fused rotary on partial or interleaved rotary",
     "A fused full-head rotary replacement on a model with partial rotary or interleaved mrope "
     "computes different values."},
    {"deprecations", "upstream code the patches touch that will be removed",
     "Upstream warns that code the patches depend on goes away at or before the target pin."},
    {"logits", "kernel-vs-reference logits on toy models",
     "A kernel's logits differ from the reference beyond tolerance on a toy model."},
};

const char *sarif_rule_summary(const char *id)
{
    const check_entry *e = check_find(id);
    if (e && e->def->summary)
        return e->def->summary;
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
        if (!strcmp(rules[i].id, id) && rules[i].summary)
            return rules[i].summary;
    return NULL;
}

const char *sarif_rule_help(const char *id)
{
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
        if (!strcmp(rules[i].id, id))
            return rules[i].help;
    if (!strncmp(id, "protocol-", 9))
        return "The workspace's modeling protocol (docs/protocol.md): how generated classes are "
               "registered, which files are retired, how patches are commented, that GPU/NPU "
               "siblings agree, that tests enumerate the model, that generated modules import. "
               "[tool.pgci.protocol] can change a rule's severity or turn it off.";
    return NULL;
}
