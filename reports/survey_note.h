/*
 * survey_note.h - the survey's Markdown as a maintainer's upgrade note: one
 * section per upstream change (run.json's `changes`, checks/changes.h), in the
 * order a maintainer works through them: what fails to regenerate, what is
 * silently dropped or bypassed, what breaks at run time, contract changes,
 * deprecations due by the new pin; notes folded at the end. Each section names
 * the upstream symbol, says what changed, which configs it hits and how, and the
 * action when one is mechanical; every finding behind it is in a folded list.
 */
#ifndef PGCI_REPORTS_SURVEY_NOTE_H
#define PGCI_REPORTS_SURVEY_NOTE_H

#include "reports/render.h"

/* Appends the change sections of a survey document to m (error sections are kept
 * in the PR comment). */
void survey_note_sections(md_doc *m, const run_doc *d);

/* Appends s to out as Markdown inline text: `code spans` kept as code, other
 * Markdown punctuation and HTML escaped, newlines folded to spaces. */
void survey_note_inline(strbuf *out, const char *s);

#endif
