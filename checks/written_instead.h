/*
 * written_instead.h - what upstream's own code writes where it wrote a name it no
 * longer defines.
 *
 * transformers 5.24.0 dropped `Qwen2VLModelOutputWithPast` from its model's module:
 * `Qwen2VLModel.forward` now ends `return MultimodalBaseModelOutputWithPast(`, and
 * `Qwen2VLForConditionalGeneration.forward` reads `outputs:
 * MultimodalBaseModelOutputWithPast = self.model(`. A patch body that still builds
 * the old class has its successor there, in the lines upstream changed, though no
 * definition of the new module resembles the old class (it is imported).
 */
#ifndef PGCI_CHECKS_WRITTEN_INSTEAD_H
#define PGCI_CHECKS_WRITTEN_INSTEAD_H

#include "checks/signatures.h"
#include "core/strbuf.h"

/* The name the functions and methods of the module at B write where the same
 * definitions at A wrote `name`: a line of such a definition at A that reads
 * `name` once, and that B's definition no longer has, against a line B's has and
 * A's has not that reads the same but for another name there. Of the names so
 * found that B's module binds: what the definition `prefer` (the patch's target;
 * NULL: none) builds in its place (`name(` became `M(`), else what it writes
 * there, else what upstream's definitions build, else write, in most of them
 * (the first found of a tie), malloc'ed; NULL when there are no sources or no
 * such line (Qwen3.5's `Qwen3_5Model.forward` at 5.24.0 annotates with
 * `BaseModelOutputWithPast` and builds `MultimodalBaseModelOutputWithPast`, where
 * `Qwen3_5TextModel.forward` builds `BaseModelOutputWithPast`). `why` gets what
 * was found: the name with one line of each place ("`f`: `return A(` → `return
 * B(`"), then the other names and their places. */
char *written_instead(const survey_pair *p, const char *name, const char *prefer, strbuf *why);

#endif
