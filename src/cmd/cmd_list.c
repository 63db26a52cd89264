/*
 * pgci list - the workspace's patch configs, like `patchgen --list`.
 *
 * Text: one module name per line, in patchgen's order, nothing else on stdout, so
 * that `pgci list | xargs -n1 ...` works. JSON: the same configs with their paths.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "workspace/workspace.h"

static int print_json(const workspace *ws)
{
    json_t *root = json_object();
    json_object_set_new(root, "search_root", json_string(ws->search_root));
    json_object_set_new(root, "package_prefix", json_string(ws->package_prefix));
    json_object_set_new(root, "pin", ws->pin ? json_string(ws->pin) : json_null());
    json_t *arr = json_array();
    for (size_t i = 0; i < ws->configs.len; i++) {
        const ws_config *c = &ws->configs.items[i];
        json_t *o = json_object();
        json_object_set_new(o, "module", json_string(c->module));
        json_object_set_new(o, "name", json_string(c->name));
        json_object_set_new(o, "path", json_string(c->path));
        json_object_set_new(o, "dir", json_string(c->dir));
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "configs", arr);
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!s) {
        pgci_error_set(PGCI_ERROR, "cannot encode the config list as JSON");
        return cmd_error();
    }
    printf("%s\n", s);
    free(s);
    return EXIT_CLEAN;
}

int cmd_list(int argc, const char **argv)
{
    const char *format = "text";
    common_opts common = {0};
    const opt table[] = {
        OPT_STR(0, "format", &format, "FMT", "output format: text (module names) or json"),
        OPT_END(),
    };
    strvec rest = STRVEC_INIT;
    int code;
    if (cmd_parse(argc, argv, table, &common, "pgci list [-C DIR] [--format text|json]",
                  "List the workspace's *_patch_gen_config.py modules, as patchgen --list "
                  "finds them.",
                  &rest, &code)) {
        strvec_free(&rest);
        return code;
    }
    if (rest.len) {
        pgci_error_set(PGCI_EUSAGE, "list takes no arguments (got '%s')", rest.items[0]);
        strvec_free(&rest);
        return cmd_error();
    }
    strvec_free(&rest);
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0) {
        pgci_error_set(PGCI_EUSAGE, "unknown --format '%s' (text or json)", format);
        return cmd_error();
    }
    workspace *ws = NULL;
    if (workspace_open(&ws, common.workspace) < 0)
        return cmd_error();
    int rc = EXIT_CLEAN;
    if (!strcmp(format, "json")) {
        rc = print_json(ws);
    } else {
        for (size_t i = 0; i < ws->configs.len; i++)
            printf("%s\n", ws->configs.items[i].module);
    }
    workspace_free(ws);
    if (fflush(stdout) != 0) {
        pgci_error_set(PGCI_EIO, "cannot write to stdout");
        return cmd_error();
    }
    return rc;
}
