/*
 * The verification object of run.json (docs/run-json.md): where it lives, what a
 * loaded one must look like for the renderers, and how shards merge.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "verify/verify.h"

json_t *verify_doc_get(json_t *run_root)
{
    json_t *v = json_object_get(run_root, "verification");
    return json_is_object(v) ? v : NULL;
}

void verify_doc_set(json_t *run_root, json_t *verification)
{
    json_object_set_new(run_root, "verification", verification);
}

static int want(const char *path, const char *where, json_t *o, const char *key, json_type type,
                int nullable)
{
    json_t *v = json_object_get(o, key);
    if (v && (json_typeof(v) == type || (nullable && json_is_null(v)) ||
              (type == JSON_REAL && json_is_integer(v))))
        return 0;
    return pgci_error_set(PGCI_EINVALID, "%s: verification%s: '%s' is %s", path, where, key,
                          v ? "of the wrong type" : "missing");
}

static int validate_suite(json_t *s, const char *path, size_t i)
{
    char where[48];
    snprintf(where, sizeof(where), " suite %zu", i);
    static const char *const counts[] = {"tests", "passed", "failed", "errors", "skipped"};
    int rc =
        json_is_object(s)
            ? 0
            : pgci_error_set(PGCI_EINVALID, "%s: verification suite %zu is not an object", path, i);
    if (rc == 0)
        rc = want(path, where, s, "name", JSON_STRING, 0);
    if (rc == 0)
        rc = want(path, where, s, "status", JSON_STRING, 0);
    if (rc == 0)
        rc = want(path, where, s, "reason", JSON_STRING, 1);
    if (rc == 0)
        rc = want(path, where, s, "cases", JSON_ARRAY, 0);
    for (size_t k = 0; rc == 0 && k < sizeof(counts) / sizeof(counts[0]); k++)
        rc = want(path, where, s, counts[k], JSON_INTEGER, 0);
    const char *st = rc == 0 ? json_string_value(json_object_get(s, "status")) : NULL;
    if (st && strcmp(st, "passed") && strcmp(st, "failed") && strcmp(st, "not-run"))
        rc = pgci_error_set(PGCI_EINVALID,
                            "%s: verification suite %zu: status '%s' is not passed, failed or "
                            "not-run",
                            path, i, st);
    size_t k;
    json_t *c;
    json_array_foreach(rc == 0 ? json_object_get(s, "cases") : NULL, k, c)
    {
        if (rc == 0 && (!json_is_object(c) || want(path, where, c, "name", JSON_STRING, 0) < 0 ||
                        want(path, where, c, "status", JSON_STRING, 0) < 0))
            rc = pgci_error_set(PGCI_EINVALID,
                                "%s: verification suite %zu: case %zu lacks a name or a status",
                                path, i, k);
    }
    return rc;
}

int verify_doc_validate(json_t *run_root, const char *path)
{
    json_t *v = json_object_get(run_root, "verification");
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_object(v))
        return pgci_error_set(PGCI_EINVALID, "%s: 'verification' is not an object", path);
    int rc = want(path, "", v, "suites", JSON_ARRAY, 0);
    size_t i;
    json_t *s;
    json_array_foreach(rc == 0 ? json_object_get(v, "suites") : NULL, i, s)
    {
        if (rc == 0)
            rc = validate_suite(s, path, i);
    }
    return rc;
}

static json_t *find_suite(json_t *suites, const char *name)
{
    size_t i;
    json_t *s;
    json_array_foreach(suites, i, s)
    {
        const char *n = json_string_value(json_object_get(s, "name"));
        if (n && !strcmp(n, name))
            return s;
    }
    return NULL;
}

/* verification.<key> of a run as a string, or "none". */
static const char *member(json_t *v, const char *key)
{
    const char *s = json_string_value(json_object_get(v, key));
    return s ? s : "none";
}

int verify_doc_check_parts(json_t *a_root, json_t *b_root, const char *a_name, const char *b_name,
                           int by_suite)
{
    json_t *a = verify_doc_get(a_root), *b = verify_doc_get(b_root);
    if (!a || !b)
        return 0;
    static const char *const keys[] = {"tag", "tree"};
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
        if (strcmp(member(a, keys[k]), member(b, keys[k])))
            return pgci_error_set(PGCI_EINVALID,
                                  "cannot merge %s and %s: their suites ran with different "
                                  "verification.%s (%s, %s)",
                                  a_name, b_name, keys[k], member(a, keys[k]), member(b, keys[k]));
    size_t i;
    json_t *s;
    json_array_foreach(by_suite ? json_object_get(b, "suites") : NULL, i, s)
    {
        const char *n = json_string_value(json_object_get(s, "name"));
        if (n && find_suite(json_object_get(a, "suites"), n))
            return pgci_error_set(PGCI_EINVALID,
                                  "cannot merge %s and %s: both ran suite %s (the same run twice, "
                                  "or overlapping runs)",
                                  a_name, b_name, n);
    }
    return 0;
}

static long long count(json_t *s, const char *key)
{
    return json_integer_value(json_object_get(s, key));
}

/* Whether two runs of one suite ended alike: status and counts. */
static int same_outcome(json_t *a, json_t *b)
{
    static const char *const keys[] = {"tests", "passed", "failed", "errors", "skipped"};
    if (strcmp(member(a, "status"), member(b, "status")))
        return 0;
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
        if (count(a, keys[k]) != count(b, keys[k]))
            return 0;
    return 1;
}

/* Which of two runs of a suite the merge keeps: a failure over a pass, a pass
 * over a run that did not happen. */
static int rank(json_t *s)
{
    const char *st = member(s, "status");
    return !strcmp(st, "failed") ? 2 : !strcmp(st, "passed") ? 1 : 0;
}

/* A survey's shards each ran every suite: two runs of one that ended otherwise
 * (a flaky suite) keep the worse, and its reason says what the other run did. */
static void merge_disagreeing(json_t *suites, size_t at, json_t *kept, json_t *other)
{
    json_t *worse = rank(other) > rank(kept) ? other : kept;
    json_t *better = worse == other ? kept : other;
    json_t *out = json_deep_copy(worse);
    const char *why = json_string_value(json_object_get(worse, "reason"));
    char *note = pgci_asprintf("%s%sthe shards' runs disagree: another run %s (%lld of %lld "
                               "passed, %lld failed, %lld errors)",
                               why ? why : "", why ? "; " : "", member(better, "status"),
                               count(better, "passed"), count(better, "tests"),
                               count(better, "failed"), count(better, "errors"));
    json_object_set_new(out, "reason", json_string(note));
    free(note);
    json_array_set_new(suites, at, out);
}

void verify_doc_merge(json_t *dst_root, json_t *src_root)
{
    json_t *src = verify_doc_get(src_root);
    if (!src)
        return;
    json_t *dst = verify_doc_get(dst_root);
    if (!dst) {
        verify_doc_set(dst_root, json_deep_copy(src));
        return;
    }
    json_t *ds = json_object_get(dst, "suites");
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(src, "suites"), i, s)
    {
        const char *n = json_string_value(json_object_get(s, "name"));
        json_t *have = n ? find_suite(ds, n) : NULL;
        if (n && !have)
            json_array_append(ds, s);
        else if (have && !same_outcome(have, s)) {
            size_t at = 0;
            while (json_array_get(ds, at) != have)
                at++;
            merge_disagreeing(ds, at, have, s);
        }
    }
}
