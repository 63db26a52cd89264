/* Placeholder until this command lands; it refuses to pretend it ran. */
#include <stdio.h>

#include "cmd/cmd.h"

int cmd_regen(int argc, const char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "pgci: error: 'regen' is not built yet\n");
    return EXIT_ERROR;
}
