/*
 * ruff_verdicts - the yes/no verdicts of a batch (normalize_ruff_batch with
 * verdict_only and no words, as the survey asks them at tag A), for the corpus
 * test tests/corpus/56-ruff-verdicts.sh, which holds them against `ruff check
 * --fix` run on each file alone. A test tool: never installed.
 *
 *   ruff_verdicts RUFF CWD EXTRA_IGNORE|- ISOLATED(0|1) FILE...
 *
 * Prints "accepted FILE" or "refused FILE" per file, then "settled by one lint: N
 * of M" (the files normalize_prelint() is certain of, linted where they are).
 * Exit status: 0, or 2 when the batch failed otherwise than by refusals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "patchgen/normalize.h"
#include "patchgen/normalize_internal.h"

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: ruff_verdicts RUFF CWD EXTRA_IGNORE|- ISOLATED FILE...\n");
        return 2;
    }
    strvec extra = STRVEC_INIT, files = STRVEC_INIT;
    for (char *p = strcmp(argv[3], "-") ? argv[3] : NULL, *c; p; p = c ? c + 1 : NULL) {
        if ((c = strchr(p, ',')))
            *c = '\0';
        strvec_push(&extra, p);
    }
    normalize_opts o = {0};
    o.ruff = argv[1];
    o.cwd = argv[2];
    o.extra_ignore = &extra;
    o.isolated = atoi(argv[4]);
    o.jobs = 2;
    o.verdict_only = 1;
    size_t n = (size_t)(argc - 5);
    normalize_item *items = calloc(n, sizeof(*items));
    strbuf *texts = calloc(n, sizeof(*texts));
    size_t *todo = calloc(n, sizeof(*todo));
    for (size_t i = 0; i < n; i++) {
        const char *path = argv[5 + i], *slash = strrchr(path, '/');
        strbuf_init(&texts[i], 0);
        if (fs_read_file(&texts[i], path, 0) < 0) {
            fprintf(stderr, "ruff_verdicts: %s\n", pgci_error_last());
            return 2;
        }
        items[i].file_name = slash ? slash + 1 : path;
        items[i].src = texts[i].buf;
        items[i].len = texts[i].len;
        todo[i] = i;
        strvec_push(&files, path);
    }
    int rc = 0;
    if (normalize_ruff_batch(&o, items, n) < 0)
        pgci_error_clear();
    for (size_t i = 0; i < n; i++) {
        if (items[i].status < 0 && !items[i].refused) {
            fprintf(stderr, "ruff_verdicts: %s: %s\n", argv[5 + i], items[i].error);
            rc = 2;
        }
        printf("%s %s\n", items[i].status == 0 ? "accepted" : "refused", argv[5 + i]);
    }
    unsigned char *sure = calloc(n, 1);
    size_t settled = 0;
    if (normalize_prelint(&o, &files, items, todo, sure) < 0) {
        fprintf(stderr, "ruff_verdicts: the lint: %s\n", pgci_error_last());
        rc = 2;
    }
    for (size_t i = 0; i < n; i++)
        settled += sure[i];
    printf("settled by one lint: %zu of %zu\n", settled, n);
    for (size_t i = 0; i < n; i++) {
        strbuf_free(&items[i].out);
        free(items[i].error);
        strbuf_free(&texts[i]);
    }
    free(sure);
    free(todo);
    free(texts);
    free(items);
    strvec_free(&files);
    strvec_free(&extra);
    return rc;
}
