/*
 * run_doc.h - run.json: the one record of a pgci run that every report renders.
 *
 * A run document is a jansson object with a versioned schema (docs/run-json.md):
 * the tool and its version, the command, the inputs (workspace, tags, pin, ruff
 * version, SHA-256 of every input file), per-config results, the status of every
 * check (ran / not run and why), every finding, and timings per stage. Commands
 * build one with the run_doc_* calls below; `pgci report` loads one (validating
 * the schema) and hands it to the renderers in reports/.
 *
 * Determinism: keys are written sorted-free in insertion order, findings sorted,
 * and no timestamp unless asked (--timestamp or SOURCE_DATE_EPOCH), so the same
 * inputs give the same bytes.
 */
#ifndef PGCI_PIPELINE_RUN_DOC_H
#define PGCI_PIPELINE_RUN_DOC_H

#include <jansson.h>

#include "checks/finding.h"
#include "core/strbuf.h"

#define RUN_DOC_SCHEMA "pgci-run"
#define RUN_DOC_VERSION 1

typedef struct run_doc {
    json_t *root;
    int timings; /* record timings_ms: only with --timestamp (they differ run to run) */
} run_doc;

/* A new document for `command` ("check", "survey", "logits", "run"). When
 * with_timestamp is set, or SOURCE_DATE_EPOCH is in the environment, records the
 * time (SOURCE_DATE_EPOCH wins, for reproducible builds). */
void run_doc_init(run_doc *d, const char *command, int with_timestamp);
void run_doc_free(run_doc *d);

/* inputs.<key> = value (string). */
void run_doc_set_input(run_doc *d, const char *key, const char *value);
/* inputs.files[] += {path, sha256}, kept sorted by path; a path already there is
 * not added again. */
void run_doc_add_input_file(run_doc *d, const char *path, const char *sha256_hex);
/* Adds or replaces configs[module] = {module, path, status, message}; status is
 * "ok", "drift", "failed", "not-run". Returns the config object for extra fields. */
json_t *run_doc_set_config(run_doc *d, const char *module, const char *path, const char *status,
                           const char *message);
/* checks[id] = {id, status: "ran"|"not-run"|"failed", reason}. */
void run_doc_set_check(run_doc *d, const char *id, const char *status, const char *reason);
/* timings_ms[stage] += ms, when the document records time (--timestamp): timings
 * differ from run to run, and a run without --timestamp must be byte-identical to
 * the next one on the same inputs. */
void run_doc_add_timing(run_doc *d, const char *stage, double ms);
/* Copies the findings (sorted) into the document and updates the summary. */
void run_doc_set_findings(run_doc *d, const findings *fs);

/* Serialises (2-space indent, trailing newline) into out. */
void run_doc_dump(const run_doc *d, strbuf *out);
/* Writes atomically. */
int run_doc_write(const run_doc *d, const char *path);

/* Loads and validates a run.json: schema name and version, required members and
 * their types. Errors name the file and what is wrong. */
int run_doc_load(run_doc *d, const char *path);
/* Same from memory (path only names it in messages). */
int run_doc_parse(run_doc *d, const char *text, size_t len, const char *path);

/* Merges the parts of one run (shards, or runs over disjoint configs) into out:
 * configs (in the workspace's order), checks, findings (sorted) and input files
 * (sorted, each once) united, timings added, every part's error kept. Refuses
 * (PGCI_EINVALID) parts of another command, pgci version or inputs (the workspace
 * path aside), two parts that ran one config, and two hashes of one input file.
 * paths[s] names shards[s] in messages (paths may be NULL). Returns 1 when the
 * merged run failed on what no part could see (two configs of different shards
 * writing one generated file): its error, and pgci_error_last(), say so. */
int run_doc_merge(run_doc *out, const run_doc *shards, const char *const *paths, size_t n);

/* Accessors for renderers. */
const char *run_doc_command(const run_doc *d);
json_t *run_doc_findings(const run_doc *d);                   /* borrowed array */
json_t *run_doc_configs(const run_doc *d);                    /* borrowed array */
json_t *run_doc_checks(const run_doc *d);                     /* borrowed array */
const char *run_doc_input(const run_doc *d, const char *key); /* NULL when absent */

#endif
