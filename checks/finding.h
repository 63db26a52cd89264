/*
 * finding.h - the one findings model every check emits and every report renders.
 *
 * A finding is {check, severity, config, path, line, col, title, detail, data}.
 * Checks append findings to a `findings` list; they never print. `data` is a
 * jansson object owned by the finding (structured facts for JSON/SARIF renderers:
 * the unified diff, the old and new signature, ...).
 */
#ifndef PGCI_CHECKS_FINDING_H
#define PGCI_CHECKS_FINDING_H

#include <jansson.h>
#include <stddef.h>

typedef enum severity { SEV_INFO = 0, SEV_WARNING = 1, SEV_ERROR = 2 } severity;

typedef struct finding {
    char *check; /* check id: "drift", "names", ... */
    severity sev;
    char *config;       /* config module name, or NULL when not tied to a config */
    char *path;         /* file the finding is about (workspace-relative when possible) */
    unsigned line, col; /* 1-based; 0 when not applicable */
    char *title;        /* one line */
    char *detail;       /* may be NULL; several lines allowed */
    json_t *data;       /* may be NULL; owned */
} finding;

typedef struct findings {
    finding **items;
    size_t len, cap;
} findings;

#define FINDINGS_INIT                                                                              \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/* Appends a finding; copies every string; takes ownership of data (may be NULL).
 * The title is printf-formatted. Returns the new finding for adding detail. */
finding *findings_add(findings *fs, const char *check, severity sev, const char *config,
                      const char *path, unsigned line, unsigned col, json_t *data,
                      const char *title_fmt, ...) __attribute__((format(printf, 9, 10)));

/* Frees one finding (one not, or no longer, in a findings list). */
void finding_free(finding *f);

/* Sets (replaces) a finding's detail text. */
void finding_set_detail(finding *f, const char *detail);

/* Stable order for output: config, path, line, col, check, title. */
void findings_sort(findings *fs);

/* Counts findings at or above a severity. */
size_t findings_count_at_least(const findings *fs, severity min);

const char *severity_name(severity s);
/* "error" | "warning" | "info" -> severity; -1 when unknown. */
int severity_parse(const char *s);

/* A JSON array of finding objects (new reference). */
json_t *findings_to_json(const findings *fs);

/* Appends the findings of such an array to out; -1 (out untouched) when arr is
 * not exactly that form. */
int findings_from_json(findings *out, const json_t *arr);

/* Moves every finding of src to the end of dst, in order; src is left empty. */
void findings_move(findings *dst, findings *src);

void findings_free(findings *fs);

#endif
