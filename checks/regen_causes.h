/*
 * regen_causes.h - why a regeneration failed, as keys two releases can be
 * compared by.
 *
 * A config that fails against both tags of a survey is "standing": its failure
 * is not the bump's. Unless the bump added a cause: veomni 0.1.12's Qwen3.5
 * configs fail at 5.20.2 on ruff's `F811 Redefinition of unused
 * `causal_conv1d_fn``, and at 5.22.2 on the same for `causal_conv1d_update`,
 * which 5.22.2 added upstream beside the config's own; at 5.24.0 the code
 * generator stops before ruff, the anchor of an `add_helper_after` gone. Each is
 * what the maintainer bumping to that release meets next, and "standing" hid it.
 *
 * A failure's keys: each ruff diagnostic's first line ("F811 Redefinition of
 * unused `causal_conv1d_fn` from line #": numbers outside backquotes are '#', a
 * line moved by the bump is the same cause), or, for the code generator's
 * failure, its message less the config's path, one key per target a "positioned
 * helper target(s) not found" message lists.
 */
#ifndef PGCI_CHECKS_REGEN_CAUSES_H
#define PGCI_CHECKS_REGEN_CAUSES_H

#include "core/vec.h"

typedef enum regen_stage {
    REGEN_STAGE_CODEGEN = 0, /* the code generator (or the config's evaluation) stopped */
    REGEN_STAGE_RUFF = 1,    /* ruff's check of the generated file failed */
} regen_stage;

typedef struct regen_causes {
    strvec keys;
    strvec heads; /* each key's text as the message has it (its numbers kept) */
    regen_stage stage;
    int cut; /* ruff's output was cut short and the diagnostics past the cut are
                not all listed after it (normalize.h): causes there are unknown */
} regen_causes;

/* Reads a regeneration's error message (regen_output.error) into c. */
void regen_causes_read(regen_causes *c, const char *error);

void regen_causes_free(regen_causes *c);

/* The causes of b that a does not have, into fresh (keys of b, in b's order),
 * when that can be told: 1, or 0 when a's message cannot say (ruff's check
 * never ran at a, its code generator having stopped first, while b's failure is
 * ruff's; or a's ruff output was cut). fresh is empty when b adds nothing. */
int regen_causes_new(const regen_causes *a, const regen_causes *b, strvec *fresh);

/* A cause short, for a title: a ruff diagnostic's rule and the first name it
 * quotes ("F811 `causal_conv1d_fn`"), else the text as it is (malloc'ed). */
char *regen_cause_short(const char *head);

/* The causes of c, read from a message whose first line is line[0..n), less the
 * one that line names (a ruff failure's first diagnostic), each short, into out:
 * what a title made of the first line leaves unsaid. Nothing for the code
 * generator's failure, whose one line says all. */
void regen_causes_others(const regen_causes *c, const char *line, size_t n, strvec *out);

#endif
