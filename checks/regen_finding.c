#include "checks/regen_finding.h"

#include <string.h>

#include "core/strbuf.h"

void regen_finding(findings *out, const char *config, const char *path, const char *what,
                   const char *message)
{
    const char *nl = strchr(message, '\n');
    int first = nl ? (int)(nl - message) : (int)strlen(message);
    finding *f = findings_add(out, "regen", SEV_ERROR, config, path, 0, 0, NULL, "%s: %.*s", what,
                              first, message);
    if (nl && nl[1])
        finding_set_detail(f, nl + 1);
}
