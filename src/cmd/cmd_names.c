/* Placeholder until this command lands; it refuses to pretend it ran. */
#include <stdio.h>

#include "cmd/cmd.h"

int cmd_names(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "pgci: error: 'names' is not built yet\n");
    return EXIT_ERROR;
}
