/*
 * Fuzzes the TOML reader and everything the workspace reads from a parsed
 * pyproject: [tool.patchgen], [tool.pgci] (its verify suites too) and the transformers pin.
 *
 * Beyond memory safety (ASan, UBSan), it checks the reader's contract: on success
 * a tree whose every node has a line within the input; on failure no tree and a
 * one-line message that starts with "NAME:LINE: ". Errors from reading
 * [tool.patchgen] and [tool.pgci] are one line too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "workspace/toml.h"
#include "verify/verify.h"
#include "workspace/workspace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned max_line;

static void check_tree(const toml_value *v, int depth)
{
    if (v->line < 1 || v->line > max_line)
        abort();
    if (depth > 10000)
        abort();
    switch (v->type) {
    case TOML_STRING:
        if (!v->str)
            abort();
        break;
    case TOML_ARRAY:
        for (size_t i = 0; i < v->items.len; i++)
            check_tree(v->items.items[i], depth + 1);
        break;
    case TOML_TABLE:
        for (size_t i = 0; i < v->entries.len; i++) {
            /* every key is found again by lookup (first match wins, keys are unique) */
            if (toml_get(v, v->entries.items[i].key) != v->entries.items[i].value)
                abort();
            check_tree(v->entries.items[i].value, depth + 1);
        }
        break;
    default:
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    max_line = 1;
    for (size_t i = 0; i < size; i++)
        if (data[i] == '\n')
            max_line++;
    toml_value *doc = (toml_value *)1;
    pgci_error_clear();
    int r = toml_parse(&doc, (const char *)data, size, "fuzz.toml");
    if (r < 0) {
        if (doc != NULL)
            abort();
        const char *m = pgci_error_last();
        unsigned line = 0;
        if (sscanf(m, "fuzz.toml:%u: ", &line) != 1 || line < 1 || line > max_line)
            abort();
        if (strchr(m, '\n'))
            abort(); /* an error is one line */
        return 0;
    }
    check_tree(doc, 0);
    toml_get_path(doc, "tool.patchgen.search_root");

    workspace *ws = pgci_calloc(1, sizeof(*ws));
    ws->root = pgci_strdup("/ws");
    ws->pyproject_name = pgci_strdup("fuzz.toml");
    ws->doc = doc;
    pgci_error_clear();
    if (workspace_read_pyproject(ws, doc) < 0 &&
        (!pgci_error_last()[0] || strchr(pgci_error_last(), '\n')))
        abort(); /* an error without a message, or on several lines */
    /* [tool.pgci.verify]: the same contract, and no suite left behind on error */
    verify_config vc;
    pgci_error_clear();
    if (ws->pgci && verify_config_read(&vc, ws) < 0) {
        if (vc.suites.len || !pgci_error_last()[0] || strchr(pgci_error_last(), '\n'))
            abort();
    } else if (ws->pgci) {
        for (size_t i = 0; i < vc.suites.len; i++)
            if (!vc.suites.items[i].argv.len || vc.suites.items[i].timeout_s <= 0)
                abort();
        verify_config_free(&vc);
    }
    workspace_free(ws); /* frees doc too */
    return 0;
}
