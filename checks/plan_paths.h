/*
 * plan_paths.h - the expert-parallel plan a patch body hands VeOmni. An override
 * (`Qwen3OmniMoeForConditionalGeneration.get_parallel_plan`) imports a function
 * from a module of the workspace (`from ..parallel_plan import get_parallel_plan`)
 * that builds dicts keyed by parameter paths, "thinker.model.layers.*.mlp.experts.
 * gate_up_proj" -> Shard(0). VeOmni's ParallelPlan.apply matches every key against
 * the model's named_parameters() (`*` a regex `.*`) and replicates each parameter
 * no key matches: when upstream moves the modules, the plan silently stops
 * applying (the experts are no longer sharded, no error). transformers 5.22.2 made
 * the Qwen3-Omni thinker's `self.model` a `Qwen3OmniMoeThinkerModel` holding the
 * layers under `language_model.layers`.
 *
 * Each dotted string key of the plan function's dicts is resolved segment by
 * segment from the class that owns the override, through what `__init__` assigns
 * (`self.x = Cls(...)`, `Cls._from_config(...)`, `nn.ModuleList([Cls(...) for
 * ...])` for a `*` or index segment, `nn.Parameter(...)` or a registered
 * parameter for the last), as the generated module runs it: the config's
 * `__init__` overrides and replaced classes first, then upstream's class and its
 * bases in the model's module. At A a branch of an `if`/`else` that assigns known
 * classes counts as a way through; at B the break must be certain: every step
 * before it one assignment of a known class, the class and its bases all read
 * (nn.Module, PreTrainedModel, GenerationMixin, GradientCheckpointingLayer hold
 * no submodules), no `self.<name>` set anywhere else in them nor by a config
 * override of theirs, no setattr/add_module/register_*. A break past the key's
 * first `*` (a `*` may span several segments) counts only when the prefix before
 * the `*` is certain and every parameter path under it is read and none matches
 * the key as ParallelPlan.apply matches (plan_params.h). A torch leaf module's
 * parameters (nn.Linear's weight, its bias unless bias=False) are the ones its
 * constructor call certainly gives it at A, and the ones it may give at B. A key
 * that resolves at A to a parameter and certainly not at B is a
 * `plan-key-unmatched` error (check callees) at the key's line of the workspace
 * file, naming the segment that broke (or, past a `*` where the way branches, the
 * rest of the key) and the path where a bounded search finds the same parameter
 * at B. Anything else (a conditional expression, AutoModel, a factory, a class of
 * another module) leaves the key unjudged.
 */
#ifndef PGCI_CHECKS_PLAN_PATHS_H
#define PGCI_CHECKS_PLAN_PATHS_H

#include "checks/signatures.h"

void plan_paths_compare(findings *out, const survey_pair *p);

#endif
