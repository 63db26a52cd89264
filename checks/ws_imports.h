/*
 * ws_imports.h - the imports a generated module runs through the workspace's own
 * modules. A config's `add_import`s and post-import blocks put imports of modules
 * of the workspace (`from veomni.utils.model_outputs import ...`) into the
 * generated module; importing it runs those modules, their packages' `__init__`s
 * and what they import in turn, and an import there of a name a transformers
 * module no longer binds raises ImportError: the whole model is dead while no
 * patch body changed. transformers 5.24.0 removed five `*CausalLMOutputWithPast`
 * classes from the models' modules, which veomni 0.1.12's
 * `veomni/utils/model_outputs.py` imports at its top level.
 *
 * What is followed: the modules the generated module imports through the config
 * (an import ruff's fix keeps: a name the config's bodies or blocks use, or a
 * block's import marked `noqa`), then, module by module, the imports each runs
 * at its top level unguarded (not in a function, a class, an `if` or a `try`),
 * with the packages above each module and a submodule a `from package import
 * name` loads, as Python imports them. Each module is read once a run, from its
 * top-level statements without a parse (py/pytop.h; a file that cannot be read
 * that way is parsed).
 *
 * What is judged, precision first: `from transformers.<module> import NAME` at
 * such a top level, where the survey reads the module at both tags (see
 * ws_imports_modules) and it binds NAME at A (a top-level def, class, assignment
 * or import, as signatures_module_binds() reads it) and not at B, with nothing
 * that could bind it otherwise (a star import, a module `__getattr__`,
 * `sys.modules[...]` or `globals()`). Left unjudged: `from transformers import
 * NAME` (a lazy module, each release its own), a module gone or turned into a
 * package, an import in a function (it runs when called, not at import), under
 * `if` or `try` (an `except ImportError` falls back). When an import the
 * generated module runs fails at A already, nothing is the bump's for that config.
 */
#ifndef PGCI_CHECKS_WS_IMPORTS_H
#define PGCI_CHECKS_WS_IMPORTS_H

#include "checks/signatures.h"

/* Appends to fetch (unique) the transformers modules the survey reads at both tags
 * to judge p's config's workspace imports: a model's modeling module
 * (`transformers.models.<m>.modeling_<...>`, the kind the survey reads for each
 * config) they import names from, and any other they import from that `read`
 * holds (the modules the survey reads for its other checks: reading more would
 * cost the cold survey 5 %). Only p->cfg, p->a and p->bodies are read. */
void ws_imports_modules(strvec *fetch, const survey_pair *p, const strvec *read);

/* A `ws-import-removed` error (check callees) for each import of a workspace
 * module the generated module runs that binds at A and raises ImportError at B,
 * at the workspace file's line; the modules are p's pair's (its own module,
 * modeling_utils, p->ext, p->ws_ext). */
void ws_imports_compare(findings *out, const survey_pair *p);

#endif
