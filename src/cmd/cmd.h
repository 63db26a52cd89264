/*
 * cmd.h - the subcommands. Each lives in src/cmd/cmd_<name>.c as
 * cmd_<name>(argc, argv) with argv[0] the command name, and returns the process
 * exit code: 0 clean, 1 findings at or above --fail-on, 2 usage or environment
 * error. Only code under src/cmd/ prints results and errors.
 */
#ifndef PGCI_CMD_CMD_H
#define PGCI_CMD_CMD_H

#include <jansson.h>

#include "checks/finding.h"
#include "core/opts.h"
#include "core/pgci_version.h"
#include "pipeline/run_doc.h"

enum { EXIT_CLEAN = 0, EXIT_FINDINGS = 1, EXIT_ERROR = 2 };

int cmd_fetch(int argc, const char **argv);
int cmd_index(int argc, const char **argv);
int cmd_list(int argc, const char **argv);
int cmd_regen(int argc, const char **argv);
int cmd_check(int argc, const char **argv);
int cmd_names(int argc, const char **argv);
int cmd_survey(int argc, const char **argv);
int cmd_logits(int argc, const char **argv);
int cmd_verify(int argc, const char **argv);
int cmd_report(int argc, const char **argv);
int cmd_run(int argc, const char **argv);
int cmd_patchgen(int argc, const char **argv);

/* Prints "pgci: error: <last error>" on stderr and returns EXIT_ERROR. */
int cmd_error(void);

/* Parses options with the common ones; on --help returns 1 with *exit_code = 0,
 * on a usage error prints it and sets *exit_code = 2. Returns 0 to go on. */
int cmd_parse(int argc, const char **argv, const opt *table, common_opts *common, const char *usage,
              const char *summary, strvec *rest, int *exit_code);

/* cmd_verify.c, shared with survey --verify: prints a verification object's
 * suites (and the configs that kept their old files); 1 when every suite passed
 * or did not run and is in allow_skip (may be NULL). */
void cmd_verify_print(json_t *verification, int color, int verbose);
int cmd_verify_passed(json_t *verification, const strvec *allow_skip);

/* Checks --fail-on and --format (text or json) for command `name`; on success
 * sets *min_severity and returns 0, else prints one line and returns -1. */
int cmd_output_opts(const char *name, const char *fail_on, const char *format, int *min_severity);

/* The shared end of a findings command (check, survey): writes the run record to
 * run_json when given, then returns `code` unchanged when it is EXIT_ERROR or the
 * record could not be written (EXIT_ERROR), EXIT_FINDINGS when a finding is at or
 * above min_severity, else `code`. */
int cmd_finish(run_doc *doc, const findings *fs, const char *run_json, int min_severity, int code);

/* For a run stopped by an error: prints it like cmd_error() and, when run_json is
 * given, still writes a run record carrying the error - `doc` with whatever ran
 * before the error, or a new record of `command` when doc is NULL - so that a
 * workflow's report and comment steps always have something to show. Returns
 * EXIT_ERROR. */
int cmd_error_run_json(run_doc *doc, const char *command, const char *run_json, int timestamp);

/* Prints a JSON value on stdout, indented, keys in order. */
void cmd_print_json(json_t *v);

/* The number of jobs to use: the --jobs value, else the number of online CPUs. */
int cmd_jobs(const common_opts *common);

#endif
