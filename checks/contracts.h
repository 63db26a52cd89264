/*
 * contracts.h - the survey's contract checks: upstream facts a patch depends on
 * without naming them in its signature.
 *
 *  - deprecations: upstream code the patches override or call that warns of its
 *    removal (`@deprecate_kwarg(..., version=...)`, FutureWarning or
 *    DeprecationWarning, "will be removed in vX.Y"): a time-sensitive follow-up,
 *    a warning when the removal version is at or before tag B;
 *  - name-map-fields: a body reused through name_map that constructs an output
 *    dataclass (`...Output...(`): fields the renamed dataclass has upstream that
 *    the call does not pass and the original dataclass did not have (the
 *    dense-vs-MoE `router_logits` trap);
 *  - rope-compat: a fused rotary replacement that rotates the full head dimension,
 *    on a model whose configuration defaults to partial rotary
 *    (partial_rotary_factor < 1) or interleaved mrope.
 */
#ifndef PGCI_CHECKS_CONTRACTS_H
#define PGCI_CHECKS_CONTRACTS_H

#include "checks/signatures.h"

void check_deprecations(findings *out, const survey_pair *p);
void check_name_map_fields(findings *out, const survey_pair *p);
void check_rope_compat(findings *out, const survey_pair *p);

/* The free names of a patch body as the generated code reads them: patchgen
 * applies the patch's name_map to the body's text, names included, so a dense
 * body reused for a MoE model reads `Qwen3MoeOutput`, not `Qwen3Output`. Returns
 * loads itself when the patch has no name_map, else *own, the renamed names
 * (unique, in order); strvec_free(own) either way. */
const strvec *name_map_loads(const pg_patch *patch, const strvec *loads, strvec *own);

/* 1 when check_rope_compat reads the config's configuration module (at B, and at A
 * for the standing facts): the config replaces a rotary function or class. A
 * config that does not can say nothing there, so the survey fetches no
 * configuration module for it. */
int rope_compat_reads_configuration(const pg_config *cfg);

/* "1.2.0" from "... will be removed in v1.2 ..." or version="1.2.0"; NULL when
 * the text names no version. Caller frees. */
char *contracts_removal_version(const char *text, size_t len);

/* What the deprecation notice of definition `name` tells its callers to do
 * instead, from its text: on a line that names it before "deprecated"
 * ("`{cls}.get_window_index` is deprecated ..."; "The attribute is deprecated"
 * is about something else), the sentence starting "Use `" (or "use `", "Please
 * use `") after it in the same string ("Use `get_vision_window_index` from
 * `transformers.vision_utils` instead."), up to the string's end; NULL when the
 * text says no such thing. Caller frees. */
char *contracts_deprecation_advice(const char *text, size_t len, const char *name);

/* For a definition gone at B: when its text at A (src_a) announced its removal with
 * advice, appends "; upstream deprecated it at <tag_a>: \"<advice>\"" to title and
 * sets data["advice"]; nothing otherwise. d may be NULL. */
void contracts_note_advice(strbuf *title, json_t *data, const survey_pair *p, const index_def *d);

#endif
