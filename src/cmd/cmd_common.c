#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "pipeline/run_shard.h"

int cmd_error(void)
{
    const char *m = pgci_error_last();
    fprintf(stderr, "pgci: error: %s\n", m[0] ? m : "unknown error");
    return EXIT_ERROR;
}

int cmd_parse(int argc, const char **argv, const opt *table, common_opts *common, const char *usage,
              const char *summary, strvec *rest, int *exit_code)
{
    int r = opts_parse(argc, argv, table, common, usage, summary, rest);
    if (r == 1) {
        *exit_code = EXIT_CLEAN;
        return 1;
    }
    if (r < 0) {
        *exit_code = cmd_error();
        return 1;
    }
    return 0;
}

int cmd_jobs(const common_opts *common)
{
    if (common && common->jobs > 0)
        return common->jobs;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int cmd_output_opts(const char *name, const char *fail_on, const char *format, int *min_severity)
{
    int min = severity_parse(fail_on);
    if (min < 0) {
        fprintf(stderr, "pgci: error: %s: --fail-on wants error, warning or info, not '%s'\n", name,
                fail_on);
        return -1;
    }
    if (strcmp(format, "text") && strcmp(format, "json")) {
        fprintf(stderr, "pgci: error: %s: --format wants text or json, not '%s'\n", name, format);
        return -1;
    }
    *min_severity = min;
    return 0;
}

int cmd_finish(run_doc *doc, const findings *fs, const char *run_json, int min_severity, int code)
{
    if (run_json && run_doc_write(doc, run_json) < 0)
        return cmd_error();
    if (code != EXIT_ERROR && findings_count_at_least(fs, (severity)min_severity) > 0)
        return EXIT_FINDINGS;
    return code;
}

int cmd_error_run_json(run_doc *doc, const char *command, const char *run_json, int timestamp)
{
    char *msg = pgci_strdup(pgci_error_last());
    int code = cmd_error();
    if (run_json) {
        run_doc fresh;
        if (!doc) {
            run_doc_init(&fresh, command, timestamp);
            doc = &fresh;
        }
        run_doc_set_error(doc, msg);
        if (run_doc_write(doc, run_json) < 0)
            cmd_error();
        if (doc == &fresh)
            run_doc_free(&fresh);
    }
    free(msg);
    return code;
}

void cmd_print_json(json_t *v)
{
    char *s = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    printf("%s\n", s);
    free(s);
}
