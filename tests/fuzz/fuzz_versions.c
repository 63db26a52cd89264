/*
 * fuzz_versions - libFuzzer target for the small parsers of version strings and
 * URL templates: version_cmp() (tags), contracts_removal_version() and
 * contracts_deprecation_advice() (deprecation messages) and upstream_repo_url()
 * (the git repository behind an https template).
 *
 * The input is up to three lines, a, b and c. Aborts when an invariant breaks:
 *  - version_cmp is a total preorder: cmp(a, a) == 0, sign(cmp(a, b)) ==
 *    -sign(cmp(b, a)), and a <= b <= c implies a <= c;
 *  - version_sort orders a, b, c oldest first by version_cmp, and the same
 *    whatever order they come in (its ties are broken, so the order is total);
 *  - a removal version read from the whole input starts with a digit, holds only
 *    digits and dots (a trailing ".x" or ".*" aside), does not end with a dot, and
 *    occurs in the input;
 *  - the advice for the input's first word is a one-line piece of the input that
 *    starts "Use `", "use `" or "Please use `" and does not end in a space;
 *  - a repository from a template ends in ".git", has no "{tag}", and is either
 *    the template's own prefix or, for raw.githubusercontent.com, a github.com URL.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/contracts.h"
#include "core/version.h"
#include "upstream/upstream.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sign(int x)
{
    return (x > 0) - (x < 0);
}

static void check_removal(const char *text, size_t len)
{
    char *v = contracts_removal_version(text, len);
    if (!v)
        return;
    size_t n = strlen(v);
    CHECK(n > 0 && v[0] >= '0' && v[0] <= '9');
    size_t body = n;
    if (n >= 2 && v[n - 2] == '.' && (v[n - 1] == 'x' || v[n - 1] == '*'))
        body = n - 2;
    for (size_t i = 0; i < body; i++)
        CHECK((v[i] >= '0' && v[i] <= '9') || v[i] == '.');
    CHECK(v[body - 1] != '.');
    CHECK(memmem(text, len, v, n) != NULL);
    CHECK(version_cmp(v, v) == 0);
    free(v);
}

/* What a deprecation notice says to do instead, for the name of the input's first
 * line: a piece of the input, one line, starting with the advice's words and a
 * backquote, never ending in a space. */
static void check_advice(const char *text, size_t len, const char *name)
{
    char *a = contracts_deprecation_advice(text, len, name);
    if (!a)
        return;
    size_t n = strlen(a);
    CHECK(n > 6 && memmem(text, len, a, n) != NULL);
    CHECK(!memchr(a, '\n', n) && a[n - 1] != ' ');
    CHECK(!strncmp(a, "Use `", 5) || !strncmp(a, "use `", 5) || !strncmp(a, "Please use `", 12));
    free(a);
}

static void check_repo(const char *tmpl)
{
    char *r = upstream_repo_url(tmpl);
    if (!r)
        return;
    size_t n = strlen(r);
    CHECK(n > 4 && !strcmp(r + n - 4, ".git"));
    CHECK(!strstr(r, "{tag}"));
    static const char gh_raw[] = "https://raw.githubusercontent.com/";
    if (!strncmp(tmpl, gh_raw, sizeof(gh_raw) - 1))
        CHECK(!strncmp(r, "https://github.com/", 19));
    else
        CHECK(!strncmp(r, tmpl, n - 4));
    free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    memcpy(buf, data, size);
    buf[size] = '\0';
    check_removal(buf, size);
    /* the advice for a name: the input's first word (the notice's own text follows) */
    char name[33];
    size_t nl = 0;
    while (nl < size && nl < 32 && buf[nl] && !strchr(" \n`.", buf[nl]))
        nl++;
    memcpy(name, buf, nl);
    name[nl] = '\0';
    check_advice(buf, size, name);
    /* the C-string views: a, b, c are the first three lines (NUL ends them early) */
    char *line[3] = {buf, "", ""};
    for (int k = 1; k < 3; k++) {
        char *nl = strchr(line[k - 1], '\n');
        if (!nl)
            break;
        *nl = '\0';
        line[k] = nl + 1;
    }
    const char *a = line[0], *b = line[1], *c = line[2];
    CHECK(version_cmp(a, a) == 0);
    CHECK(sign(version_cmp(a, b)) == -sign(version_cmp(b, a)));
    if (version_cmp(a, b) <= 0 && version_cmp(b, c) <= 0)
        CHECK(version_cmp(a, c) <= 0);
    char *fwd[3] = {line[0], line[1], line[2]}, *rev[3] = {line[2], line[1], line[0]};
    version_sort(fwd, 3);
    version_sort(rev, 3);
    for (int k = 0; k < 3; k++)
        CHECK(!strcmp(fwd[k], rev[k]) && (k == 0 || version_cmp(fwd[k - 1], fwd[k]) <= 0));
    check_repo(a);
    free(buf);
    return 0;
}
