/*
 * Fuzzes the names check: the scope model (checks/scope.c) and the noqa reader
 * (checks/names.c) on arbitrary Python that tree-sitter accepts.
 *
 * Beyond memory safety (ASan, UBSan) and termination, it checks the contract of every
 * F821 and F811 finding: its line and column fall inside the input, and the reported
 * name is the text found there (ruff names a reference by its source text); every
 * finding is an error or, for F401, info; a second run gives the same findings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/names.h"
#include "core/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The byte offset of 1-based (line, character column), or -1 when outside. */
static long offset_of(const char *src, size_t len, unsigned line, unsigned col)
{
    size_t i = 0;
    for (unsigned l = 1; l < line; l++) {
        const char *nl = memchr(src + i, '\n', len - i);
        if (!nl)
            return -1;
        i = (size_t)(nl - src) + 1;
    }
    for (unsigned c = 1; c < col; c++) {
        if (i >= len || src[i] == '\n')
            return -1;
        i++;
        while (i < len && ((unsigned char)src[i] & 0xC0) == 0x80)
            i++;
    }
    return (long)i;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 64 * 1024)
        return 0;
    py_tree t;
    if (py_parse(&t, (const char *)data, size, "fuzz.py") < 0) {
        pgci_error_clear();
        return 0;
    }
    findings a = FINDINGS_INIT, b = FINDINGS_INIT;
    int r = check_names_tree(&a, &t, NULL, "fuzz.py", NULL);
    if (r < 0) {
        /* refused: not Python, or nested too deep; never a partial result */
        if ((r != PGCI_EINVALID && r != PGCI_ELIMIT) || a.len != 0 || !pgci_error_last()[0])
            abort();
        pgci_error_clear();
    } else {
        for (size_t i = 0; i < a.len; i++) {
            const finding *f = a.items[i];
            const char *code = json_string_value(json_object_get(f->data, "code"));
            const char *name = json_string_value(json_object_get(f->data, "name"));
            if (!code || !name || !name[0] || strcmp(f->check, "names"))
                abort();
            if (strcmp(code, "F401") ? f->sev != SEV_ERROR : f->sev != SEV_INFO)
                abort();
            if (!strcmp(code, "F401"))
                continue;
            long off = offset_of(t.src, t.len, f->line, f->col);
            size_t n = strlen(name);
            if (off < 0 || (size_t)off + n > t.len || memcmp(t.src + off, name, n))
                abort();
        }
        if (check_names_tree(&b, &t, NULL, "fuzz.py", NULL) != 0 || b.len != a.len)
            abort();
        for (size_t i = 0; i < a.len; i++)
            if (a.items[i]->line != b.items[i]->line || a.items[i]->col != b.items[i]->col ||
                strcmp(a.items[i]->title, b.items[i]->title))
                abort();
    }
    findings_free(&a);
    findings_free(&b);
    py_tree_free(&t);
    return 0;
}
