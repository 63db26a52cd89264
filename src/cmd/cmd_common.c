#include <stdio.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/error.h"

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
