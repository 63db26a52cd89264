/*
 * inherited.h - behaviour a generated class inherits that now depends on the
 * class's module. Patchgen's output lives outside `transformers.` (in the
 * workspace's package), so a base-class method upstream that starts telling
 * classes by their module (`cls.__module__.startswith("transformers.")`: custom
 * code, kernels, attention defaults) treats the generated classes differently from
 * upstream's own, though no patch touched anything.
 *
 * For each class a config patches or replaces whose bases reach a class of
 * transformers.modeling_utils (PreTrainedModel), every method of that base which
 * reads `__module__` together with "transformers" at B and did not at A: a
 * warning naming the base method (check "inherited", kind
 * "inherited-module-keyed"), one per config and method.
 */
#ifndef PGCI_CHECKS_INHERITED_H
#define PGCI_CHECKS_INHERITED_H

#include "checks/signatures.h"

void check_inherited(findings *out, const survey_pair *p);

/* The class of base_mod (transformers.modeling_utils) that gives cls of module m
 * its `method`, through cls's bases in m (Qwen2VLModel -> Qwen2VLPreTrainedModel ->
 * PreTrainedModel -> EmbeddingAccessMixin): malloc'ed qualname of the class that
 * defines it, or NULL when no external base does. */
char *inherited_from(const index_module *m, const index_module *base_mod, const char *cls,
                     const char *method);

#endif
