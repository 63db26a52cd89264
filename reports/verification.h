/*
 * verification.h - the workspace's own suites (run.json "verification", written
 * by pgci verify and pgci survey --verify) in the Markdown report: a line in the
 * summary (so the PR comment and the job summary carry the counts), the suites'
 * table with failures and skips in the Verification section, and the suites that
 * did not run among the follow-ups. SARIF and annotations do not show them: a
 * suite's failure has no file and line in the workspace.
 */
#ifndef PGCI_REPORTS_VERIFICATION_H
#define PGCI_REPORTS_VERIFICATION_H

#include "core/strbuf.h"
#include "pipeline/run_doc.h"

/* "Verification at v1.1.0: logits 33/34 passed; unit not run." (nothing when the
 * run has no verification). */
void report_verification_summary(strbuf *out, const run_doc *d);

/* The suites' table, failures (message and traceback) and skips. */
void report_verification_suites(strbuf *out, const run_doc *d);

/* One follow-up line per suite that did not run, and per config that kept its
 * old files in the scratch copy. */
void report_verification_followups(strbuf *out, const run_doc *d);

#endif
