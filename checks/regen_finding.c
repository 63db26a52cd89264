#include "checks/regen_finding.h"

#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

/* "path:LINE:COL: rest" -> line, col and rest, when the message starts with the
 * config's own path (the evaluator's errors do): the finding then points there. */
static const char *located(const char *message, const char *path, unsigned *line, unsigned *col)
{
    size_t n = path ? strlen(path) : 0;
    if (!n || strncmp(message, path, n) || message[n] != ':')
        return message;
    char *end;
    unsigned long l = strtoul(message + n + 1, &end, 10);
    if (end == message + n + 1 || *end != ':')
        return message;
    unsigned long c = strtoul(end + 1, &end, 10);
    if (*end != ':' || end[1] != ' ')
        return message;
    *line = (unsigned)l;
    *col = (unsigned)c;
    return end + 2;
}

void regen_finding(findings *out, const char *config, const char *path, const char *what,
                   const char *message)
{
    unsigned line = 0, col = 0;
    message = located(message, path, &line, &col);
    const char *nl = strchr(message, '\n');
    int first = nl ? (int)(nl - message) : (int)strlen(message);
    finding *f = findings_add(out, "regen", SEV_ERROR, config, path, line, col, NULL, "%s: %.*s",
                              what, first, message);
    if (nl && nl[1])
        finding_set_detail(f, nl + 1);
}
