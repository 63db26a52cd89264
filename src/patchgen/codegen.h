/*
 * codegen.h - the code generator: what patchgen's ModelingCodeGenerator.generate()
 * returns for an evaluated config and an upstream module, byte for byte
 * (PATCHGEN_SPEC.md §2-§3).
 *
 * The output is the *raw* generated text (no ruff, no final newline), exactly as
 * patchgen produces it before normalisation. Everything patchgen does silently -
 * a patch whose target does not exist, a top-level statement it drops, a
 * modify_init it lists but never applies, a later registration that replaces an
 * earlier one, a method an override adds - is recorded as a structured note for
 * the checks; nothing is printed.
 */
#ifndef PGCI_PATCHGEN_CODEGEN_H
#define PGCI_PATCHGEN_CODEGEN_H

#include <stddef.h>

#include "core/arena.h"
#include "core/strbuf.h"
#include "core/vec.h"
#include "patchgen/patch_spec.h"

typedef enum cg_note_kind {
    CG_NOTE_MISSING_TARGET,    /* the patch's target is not a top-level class/function upstream */
    CG_NOTE_SHADOWED,          /* a method override on a class that a class replacement replaces */
    CG_NOTE_SUPERSEDED,        /* a later registration for the same target replaced this patch */
    CG_NOTE_UNAPPLIED_INIT,    /* modify_init: listed in the header, never applied by patchgen */
    CG_NOTE_UNAPPLIED,         /* listed but not applied for another reason (detail says why) */
    CG_NOTE_METHOD_ADDED,      /* an override of a method the class does not define: added */
    CG_NOTE_DROPPED_STATEMENT, /* a top-level statement patchgen leaves out of the output */
    CG_NOTE_EXCLUDED_MISSING,  /* an exclude_from_output name that is not defined upstream */
} cg_note_kind;

typedef struct cg_note {
    cg_note_kind kind;
    long patch;         /* index into cfg->patches, -1 when not about a patch */
    const char *target; /* the patch target, the excluded name, or the statement's node type */
    unsigned line;      /* upstream line (dropped statement, class of an added method), or 0 */
    const char *detail; /* a short human-readable explanation */
} cg_note;

typedef struct cg_result {
    strbuf output; /* the raw generated module */
    VEC(cg_note) notes;
    /* patches with a target whose top-level name ("LlamaMLP" of "LlamaMLP.forward")
     * the upstream module defines as a class or function: none of them means the
     * upstream text is not the module the config patches */
    size_t targets_defined;
    arena mem; /* strings of the notes */
} cg_result;

/* Short stable name of a note kind ("missing-target", "dropped-statement", ...). */
const char *cg_note_kind_name(cg_note_kind k);

/* Generates the patched module for `cfg` from the upstream `source` (the module
 * text with "\n" line ends, as codegen_read_upstream() leaves it).
 * `transformers_version` fills "Based on: transformers==..." unless the config sets
 * its own. Errors (PGCI_EINVALID for an upstream syntax error, PGCI_ENOTFOUND for
 * a positioned helper whose target is not in the output) set the message; `out`
 * must be freed with cg_result_free() either way. */
int codegen_generate(const pg_config *cfg, const char *source, size_t len,
                     const char *transformers_version, cg_result *out);

/* codegen_generate() with the parses and class rewrites of other configs of the
 * same run shared through sh (see codegen_shared.h); the same bytes out. */
typedef struct cg_shared cg_shared;
int codegen_generate_shared(const pg_config *cfg, const char *source, size_t len,
                            const char *transformers_version, cg_shared *sh, cg_result *out);

void cg_result_free(cg_result *r);

/* Appends the upstream text as patchgen reads it (Path.read_text: "\r\n" and "\r"
 * become "\n"). Both the generator and the .diff work on this text. */
void codegen_read_upstream(strbuf *out, const char *raw, size_t len);

#endif
