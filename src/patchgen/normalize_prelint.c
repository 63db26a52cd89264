/*
 * normalize_prelint.c - ruff's yes/no verdict on a batch, without its fix loop
 * where the fixes' outcome is certain.
 *
 * A verdict without words (the survey asking whether the configs that fail at
 * tag B fail at tag A too) needs only "does `ruff check --fix` leave a
 * violation?". The fix loop lints a file again after each round of fixes: three
 * lints for a generated module (its unused imports go, then their block is
 * sorted, then a clean lint), three times the cost of one. One lint that fixes
 * nothing (`--no-fix --output-format json`) settles most files:
 *
 *  - no diagnostic: the fix loop has nothing to do. Accepted.
 *  - every diagnostic one that its own safe fix removes, of a rule whose fix
 *    cannot leave a violation behind: an unused import (F401: the binding goes,
 *    and nothing reads it), an unsorted import block (I001), trailing whitespace
 *    (W291, W293), the missing final newline (W292), and an import that
 *    redefines an unused import of the same name (F811 with a fix: the second
 *    import goes, and what read it reads the first). Or a redefinition of an
 *    unused name without a fix (F811) whose shadowed binding is an import that a
 *    safe F401 fix of the same lint removes: once that binding is gone nothing is
 *    redefined (a redefinition of another unused binding is reported against
 *    that one's line, which this rule does not accept unless it goes too).
 *    Accepted. ruff applies every safe fix in some round (overlapping ones in the
 *    next), and reports as not fixable (`"fix": null`) a rule the project marks
 *    unfixable, so the rule follows the project's settings.
 *  - anything else (a rule without a fix, an unsafe fix, a syntax error, a
 *    message this reading does not know): the fix loop decides, on those files
 *    only, and its JSON report names the files it leaves a violation in.
 *
 * tests/corpus/57-ruff-prelint.sh holds these verdicts equal to the fix loop's
 * on every config of two VeOmni releases regenerated at eleven transformers
 * tags; tests/unit/test_gate_ruff.c on each rule above and its near misses.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/error.h"
#include "patchgen/normalize_internal.h"

/* Runs ruff (`which`: NORMALIZE_LINT_JSON or NORMALIZE_CHECK_JSON) over files:
 * its report in out when it exited 0 or 1. */
static int run_json(const normalize_opts *o, int which, const strvec *files, strbuf *out)
{
    int r = normalize_run_many(o, which, files, out, NULL);
    return r < 0 ? r : 0;
}

/* The report (a JSON array of diagnostics, each naming one of files) into
 * *report, and the index in files of each diagnostic's file into *at (freed by
 * the caller with free and json_decref). */
static int load_report(const char *text, size_t len, const strvec *files, json_t **report,
                       long **at)
{
    json_error_t je;
    *report = json_loadb(text, len, 0, &je);
    *at = NULL;
    if (!json_is_array(*report)) {
        json_decref(*report);
        *report = NULL;
        return pgci_error_set(PGCI_EINVALID, "ruff's JSON report: %s", je.text);
    }
    size_t n = json_array_size(*report);
    *at = pgci_calloc(n ? n : 1, sizeof(**at));
    for (size_t i = 0; i < n; i++) {
        const char *f = json_string_value(json_object_get(json_array_get(*report, i), "filename"));
        if (((*at)[i] = f ? strvec_find(files, f) : -1) < 0)
            return pgci_error_set(PGCI_EINVALID,
                                  "ruff's JSON report names a file it was not given");
    }
    return 0;
}

static long row_of(const json_t *d)
{
    return (long)json_integer_value(json_object_get(json_object_get(d, "location"), "row"));
}

static int has_safe_fix(const json_t *d)
{
    const char *a = json_string_value(json_object_get(json_object_get(d, "fix"), "applicability"));
    return a && !strcmp(a, "safe");
}

/* The text between the first two backticks of s, copied into out (bounded);
 * the rest of s after the closing one in *after. 0, or -1 when there is none. */
static int backticked(const char *s, char *out, size_t cap, const char **after)
{
    const char *a = s ? strchr(s, '`') : NULL;
    const char *b = a ? strchr(a + 1, '`') : NULL;
    if (!b || (size_t)(b - a - 1) >= cap || b == a + 1)
        return -1;
    memcpy(out, a + 1, (size_t)(b - a - 1));
    out[b - a - 1] = '\0';
    *after = b + 1;
    return 0;
}

/* The line `row` (1-based) of src, its start in *line and length returned; 0 when
 * there is none. */
static size_t line_at(const char *src, size_t len, long row, const char **line)
{
    const char *p = src, *end = src + len;
    for (long r = 1; r < row && p < end; r++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    if (row < 1 || p >= end)
        return 0;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *line = p;
    return (size_t)((nl ? nl : end) - p);
}

static int ident_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The length of the identifier at s[0..n), 0 when none starts there. */
static size_t ident_len(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && ident_char(s[i]))
        i++;
    return i && !(s[0] >= '0' && s[0] <= '9') ? i : 0;
}

/* 1 when line[0..i) ends with the keyword `as` and blanks. */
static int after_as(const char *line, size_t i)
{
    size_t j = i;
    while (j > 0 && (line[j - 1] == ' ' || line[j - 1] == '\t'))
        j--;
    return j < i && j >= 3 && !memcmp(line + j - 2, "as", 2) &&
           (line[j - 3] == ' ' || line[j - 3] == '\t');
}

/* 1 when the unused import an F401 diagnostic reports binds `name`, read in the
 * file's source at its location: the alias of `a.b as x` (where ruff points),
 * else `a.b.c` (the message's name, or its last part in a `from` import), which
 * binds its first part. */
static int f401_binds(const json_t *d, const char *name, const char *src, size_t len)
{
    char full[512];
    const char *rest;
    const char *msg = json_string_value(json_object_get(d, "message"));
    if (backticked(msg, full, sizeof(full), &rest) < 0 || strncmp(rest, " imported but unused", 20))
        return 0;
    const char *line = NULL;
    size_t n = line_at(src, len, row_of(d), &line);
    long col = (long)json_integer_value(json_object_get(json_object_get(d, "location"), "column"));
    if (col < 1 || (size_t)col > n)
        return 0;
    size_t i = (size_t)col - 1, start = i, first = ident_len(line + i, n - i), k;
    if (!first)
        return 0;
    if (after_as(line, start))
        return first == strlen(name) && !memcmp(line + start, name, first);
    for (k = first; k; k = i < n && line[i] == '.' ? ident_len(line + i + 1, n - i - 1) : 0)
        i += (i > start ? 1 : 0) + k;
    size_t tlen = i - start, flen = strlen(full);
    /* the text imported: the message's name, or (a `from` import) its last part */
    if (!(tlen == flen || (tlen < flen && full[flen - tlen - 1] == '.')) ||
        memcmp(line + start, full + flen - tlen, tlen))
        return 0;
    while (i < n && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i + 2 < n && !memcmp(line + i, "as", 2) && (line[i + 2] == ' ' || line[i + 2] == '\t'))
        return 0; /* an alias ruff did not point at: not a form this reading knows */
    return first == strlen(name) && !memcmp(line + start, name, first);
}

/* 1 when an F811 diagnostic ("Redefinition of unused `X` from line N") redefines
 * an import that a safe F401 fix among diags (the file's) removes. */
static int f811_resolved(const json_t *d, const json_t *const *diags, size_t n, const char *src,
                         size_t len)
{
    char name[256];
    const char *rest;
    const char *msg = json_string_value(json_object_get(d, "message"));
    if (!msg || strncmp(msg, "Redefinition of unused `", 24) ||
        backticked(msg, name, sizeof(name), &rest) < 0 || strncmp(rest, " from line ", 11))
        return 0;
    char *end;
    long row = strtol(rest + 11, &end, 10);
    if (end == rest + 11 || *end || row < 1)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const char *code = json_string_value(json_object_get(diags[i], "code"));
        if (code && !strcmp(code, "F401") && row_of(diags[i]) == row && has_safe_fix(diags[i]) &&
            f401_binds(diags[i], name, src, len))
            return 1;
    }
    return 0;
}

/* 1 when the fix loop is certain to leave a file with these diagnostics clean. */
static int certain(const json_t *const *diags, size_t n, const char *src, size_t len)
{
    static const char *const removed[] = {"F401", "F811", "I001", "W291", "W292", "W293"};
    for (size_t i = 0; i < n; i++) {
        const char *code = json_string_value(json_object_get(diags[i], "code"));
        int ok = 0;
        for (size_t k = 0; code && k < sizeof(removed) / sizeof(*removed) && !ok; k++)
            ok = !strcmp(code, removed[k]) && has_safe_fix(diags[i]);
        if (!ok && !(code && !strcmp(code, "F811") && f811_resolved(diags[i], diags, n, src, len)))
            return 0;
    }
    return 1;
}

int normalize_prelint_judge(const char *report, size_t len, const strvec *files,
                            const normalize_item *items, const size_t *todo, unsigned char *sure)
{
    json_t *rep;
    long *at;
    memset(sure, 0, files->len);
    int r = load_report(report, len, files, &rep, &at);
    size_t n = json_array_size(rep);
    const json_t **diags = pgci_calloc(n ? n : 1, sizeof(*diags));
    for (size_t k = 0; k < files->len && r == 0; k++) {
        size_t m = 0; /* file k's diagnostics, in the report's order */
        for (size_t i = 0; i < n; i++)
            if (at[i] == (long)k)
                diags[m++] = json_array_get(rep, i);
        const normalize_item *it = &items[todo[k]];
        sure[k] = (unsigned char)certain(diags, m, it->src, it->len);
    }
    free(diags);
    free(at);
    json_decref(rep);
    return r;
}

int normalize_prelint(const normalize_opts *o, const strvec *files, const normalize_item *items,
                      const size_t *todo, unsigned char *sure)
{
    strbuf out = STRBUF_INIT;
    if (!files->len)
        return 0;
    memset(sure, 0, files->len);
    int r = run_json(o, NORMALIZE_LINT_JSON, files, &out);
    if (r == 0)
        r = normalize_prelint_judge(out.buf, out.len, files, items, todo, sure);
    strbuf_free(&out);
    return r;
}

int normalize_fix_verdicts(const normalize_opts *o, const strvec *files, unsigned char *refused)
{
    strbuf out = STRBUF_INIT;
    json_t *rep = NULL;
    long *at = NULL;
    memset(refused, 0, files->len);
    if (!files->len)
        return 0;
    int r = run_json(o, NORMALIZE_CHECK_JSON, files, &out);
    if (r == 0)
        r = load_report(out.buf, out.len, files, &rep, &at);
    for (size_t i = 0; r == 0 && i < json_array_size(rep); i++)
        refused[at[i]] = 1;
    free(at);
    json_decref(rep);
    strbuf_free(&out);
    return r;
}
