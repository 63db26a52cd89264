/*
 * Fuzzes the survey's comparison of two upstream modules under a config's patches
 * (checks/signatures.c): parameters and their renames, decorators, bases and
 * attributes, the body comparison with what it forgives (renamed attributes,
 * renamed or dropped parameters written into A's text), returned values, names a
 * body reads, and what @auto_docstring leaves undocumented; and what the patch
 * bodies use (checks/callees.c): methods through self and their bases, module
 * functions, submodules, where a `**kwargs` keyword goes, and what upstream
 * writes in place of a name it dropped (checks/written_instead.c: another name B
 * binds); and the search for a
 * submodule's calls (directly or as a ModuleList's elements in a loop), and of a
 * module-level function's, passing a keyword by name
 * (checks/keyword_calls.c), which must find a call only where its text passes the
 * keyword.
 *
 * The input is two texts (fuzz.h: split at "\n#--\n"), the module at A and at B.
 * Each of A's first definitions is a patch target (a method override for a method,
 * a function replacement otherwise) whose replacement is A's first module-level
 * function. Beyond memory safety and termination it checks what the survey relies
 * on: each finding has a title, a kind and a target; a second comparison says the
 * same; and A compared with itself says nothing (a tag surveyed against itself).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/callees.h"
#include "checks/keyword_calls.h"
#include "checks/signatures.h"
#include "checks/written_instead.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_TARGETS = 6 };

static void collect(const index_def *d, const index_def **out, size_t *n)
{
    if (*n >= MAX_TARGETS)
        return;
    out[(*n)++] = d;
    for (size_t i = 0; i < d->n_members; i++)
        collect(d->members[i], out, n);
}

/* The findings of one comparison as text, each checked. */
static void compare(strbuf *out, pg_config *cfg, const index_module *a, const char *sa, size_t la,
                    const index_module *b, const char *sb, size_t lb)
{
    survey_pair p = {.config = "cfg",
                     .config_path = "cfg.py",
                     .cfg = cfg,
                     .a = a,
                     .b = b,
                     .tag_a = "1.0",
                     .tag_b = "2.0",
                     .src_a = sa,
                     .src_a_len = la,
                     .src_b = sb,
                     .src_b_len = lb};
    findings fs = FINDINGS_INIT;
    signatures_compare(&fs, &p);
    pgci_error_clear();
    check_callees(&fs, &p); /* what the patch bodies call and read, at both tags */
    pgci_error_clear();
    /* what upstream writes in place of a name it dropped is another name B binds */
    for (size_t i = 0; i < a->n_defs; i++) {
        const char *name = a->defs[i]->name;
        if (signatures_module_binds(b, name))
            continue;
        strbuf why = STRBUF_INIT;
        char *w = written_instead(&p, name, a->defs[i]->qualname, &why);
        if (w) {
            CHECK(strcmp(w, name) != 0);
            CHECK(signatures_module_binds(b, w));
            CHECK(why.len > 0);
        }
        free(w);
        strbuf_free(&why);
    }
    for (size_t i = 0; i < fs.len; i++) {
        const finding *f = fs.items[i];
        CHECK(f->title && f->title[0]);
        CHECK(json_string_value(json_object_get(f->data, "kind")));
        CHECK(json_string_value(json_object_get(f->data, "target")));
        strbuf_addf(out, "%d %s\n", (int)f->sev, f->title);
    }
    findings_free(&fs);
}

/* The arguments of a plain call `(a, b , c)` (no bracket, string, comment, `*` nor
 * `=` before its ')', nor a backslash): the non-blank pieces between commas; -1 for
 * any other call. The oracle of keyword_calls_positional on such calls. */
static long plain_args(const char *s, size_t n)
{
    long count = 0;
    int piece = 0;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (c == ')')
            return count + piece;
        if (strchr("([{]}\"'#*=\\", c) || c == '\0')
            return -1;
        if (c == ',') {
            count += piece;
            piece = 0;
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f') {
            piece = 1;
        }
    }
    return -1;
}

/* The calls of each class of A's instances in B (and in A's text as a config's
 * override of each class), passing `x` or `cache` by name: a call found names the
 * keyword, and the keyword is in the text. */
static void keyword_search(const index_module *a, const char *sa, size_t la, const index_module *b,
                           const char *sb, size_t lb)
{
    static const char *const kws[] = {"cache", "x"};
    for (size_t i = 0; i < a->n_defs; i++) {
        if (a->defs[i]->kind != INDEX_CLASS)
            continue;
        keyword_calls_text t = {a->defs[i]->name, "the config's", sa, la};
        strvec none = STRVEC_INIT;
        keyword_calls_ctx k = {kws, 2, &t, 1, &none, 0, 0};
        char *call;
        char *found =
            keyword_calls_find(b, sb, lb, a->defs[i]->name, i % 2 ? "forward" : "f", &k, &call);
        if (found) /* self.<attr>() or, for an element of a ModuleList, self.<attr>[i]() */
            CHECK((strstr(found, "`cache=`") || strstr(found, "`x=`")) && call &&
                  !strncmp(call, "self.", 5));
        else
            CHECK(!call);
        free(found);
        free(call);
    }
    /* the calls of each of A's functions, as a replaced function's */
    for (size_t i = 0; i < a->n_defs; i++) {
        if (a->defs[i]->kind != INDEX_FUNCTION)
            continue;
        keyword_calls_text t = {NULL, "the config's", sa, la};
        strvec none = STRVEC_INIT;
        /* every other function, calls passing more than i % 3 by position count too */
        keyword_calls_ctx k = {kws, 2, &t, 1, &none, (int)(i % 2), i % 3};
        char *call;
        char *found = keyword_calls_find_function(b, sb, lb, a->defs[i]->name, &k, &call);
        if (found) {
            size_t nl = strlen(a->defs[i]->name);
            CHECK((strstr(found, "`cache=`") || strstr(found, "`x=`") ||
                   (k.check_positional && strstr(found, " by position"))) &&
                  call && !strncmp(call, a->defs[i]->name, nl) && !strcmp(call + nl, "()"));
        } else {
            CHECK(!call);
        }
        free(found);
        free(call);
    }
    for (size_t i = 0; i < lb; i++) {
        if (sb[i] == '(' && keyword_calls_passes(sb + i, lb - i, "cache"))
            CHECK(memmem(sb + i, lb - i, "cache", 5) != NULL);
        if (sb[i] == '(') {
            long got = keyword_calls_positional(sb + i, lb - i), naive = plain_args(sb + i, lb - i);
            CHECK(got >= -1 && (naive < 0 || got == naive));
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data, *sb;
    size_t la, lb;
    fuzz_two_texts(s, size, &la, &sb, &lb);
    index_module *a = NULL, *b = NULL;
    if (index_module_from_source(&a, s, la, "a.py", "transformers.models.x.modeling_x") < 0 ||
        index_module_from_source(&b, sb, lb, "b.py", "transformers.models.x.modeling_x") < 0) {
        pgci_error_clear();
        if (a)
            index_module_free(a);
        return 0;
    }
    const index_def *targets[MAX_TARGETS], *fn = NULL;
    size_t n = 0;
    for (size_t i = 0; i < a->n_defs; i++) {
        collect(a->defs[i], targets, &n);
        if (!fn && a->defs[i]->kind == INDEX_FUNCTION)
            fn = a->defs[i];
    }
    pg_object o = {.name = fn ? fn->name : "f",
                   .module = "cfg",
                   .file = "/x/cfg.py",
                   .text = s,
                   .text_len = la,
                   .start_line = fn ? fn->start_line : 1,
                   .end_line = fn ? fn->end_line : 1};
    pg_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.source_module = "transformers.models.x.modeling_x";
    for (size_t i = 0; i < n; i++) {
        pg_patch patch = {0};
        patch.type = targets[i]->parent ? PG_METHOD_OVERRIDE : PG_FUNCTION_REPLACEMENT;
        patch.target = targets[i]->qualname;
        patch.replacement = fn ? &o : NULL;
        patch.reg_line = 1;
        VEC_PUSH(&cfg.patches, patch);
    }
    keyword_search(a, s, la, b, sb, lb);
    strbuf one = STRBUF_INIT, two = STRBUF_INIT, same = STRBUF_INIT;
    compare(&one, &cfg, a, s, la, b, sb, lb);
    compare(&two, &cfg, a, s, la, b, sb, lb);
    CHECK(one.len == two.len && !memcmp(one.buf, two.buf, one.len));
    compare(&same, &cfg, a, s, la, a, s, la);
    if (same.len) /* what A against itself said, for the report of the failure */
        fputs(same.buf, stderr);
    CHECK(same.len == 0);
    strbuf_free(&one);
    strbuf_free(&two);
    strbuf_free(&same);
    VEC_FREE(&cfg.patches);
    index_module_free(a);
    index_module_free(b);
    return 0;
}
