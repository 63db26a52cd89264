/*
 * config_dump - the config evaluator's view of patch configs as JSON lines, for the
 * differential tests against the real patchgen (tests/oracle/config_eval.sh) and the
 * corpus test (tests/corpus/20-config-eval.sh). A test tool: never installed.
 *
 *   config_dump -C WORKSPACE [-c VAR] CONFIG...        (pyproject's [tool.patchgen])
 *   config_dump --root DIR --search-root REL --prefix P [-c VAR] CONFIG...
 *
 * One line per config: {"file": F, "config": {...}} or {"file": F, "error": MSG}.
 * Exit status: 0 when every config evaluated, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "patchgen/config_dump.h"
#include "patchgen/config_eval.h"
#include "workspace/workspace.h"

#include <jansson.h>

static void emit(const char *file, const char *key, json_t *value)
{
    json_t *j = json_object();
    json_object_set_new(j, "file", json_string(file));
    json_object_set_new(j, key, value);
    char *s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENSURE_ASCII);
    puts(s ? s : "{\"error\": \"unprintable\"}");
    free(s);
    json_decref(j);
}

int main(int argc, char **argv)
{
    const char *ws_dir = NULL, *var = NULL;
    workspace manual = {0};
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-C") && i + 1 < argc)
            ws_dir = argv[++i];
        else if (!strcmp(argv[i], "-c") && i + 1 < argc)
            var = argv[++i];
        else if (!strcmp(argv[i], "--root") && i + 1 < argc)
            manual.root = argv[++i];
        else if (!strcmp(argv[i], "--search-root") && i + 1 < argc)
            manual.search_root = argv[++i];
        else if (!strcmp(argv[i], "--prefix") && i + 1 < argc)
            manual.package_prefix = argv[++i];
        else {
            fprintf(stderr, "config_dump: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    workspace *ws = NULL;
    if (ws_dir && workspace_open(&ws, ws_dir) < 0) {
        fprintf(stderr, "config_dump: %s\n", pgci_error_last());
        return 2;
    }
    const workspace *use = ws ? ws : (manual.root ? &manual : NULL);
    config_eval *ev;
    config_eval_new(&ev, use);
    char *root = use ? realpath(use->root, NULL) : NULL;
    int rc = 0;
    for (; i < argc; i++) {
        pg_config *c;
        char *abs = realpath(argv[i], NULL);
        int r = config_eval_file(ev, abs ? abs : argv[i], var, &c);
        free(abs);
        if (r < 0) {
            emit(argv[i], "error", json_string(pgci_error_last()));
            rc = 1;
            continue;
        }
        strbuf sb = STRBUF_INIT;
        if (config_dump_json(&sb, c, root) < 0) {
            emit(argv[i], "error", json_string(pgci_error_last()));
            rc = 1;
        } else {
            emit(argv[i], "config", json_loads(sb.buf, 0, NULL));
        }
        strbuf_free(&sb);
        pg_config_free(c);
    }
    free(root);
    config_eval_free(ev);
    if (ws)
        workspace_free(ws);
    return rc;
}
