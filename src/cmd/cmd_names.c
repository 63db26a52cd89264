/*
 * cmd_names.c - `pgci names FILE...`: undefined names, redefinitions and unused
 * imports in any Python files, like `ruff check --select F821,F811` without ruff.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/names.h"
#include "cmd/cmd.h"
#include "core/error.h"

static const char *usage = "pgci names [options] FILE...";
static const char *summary =
    "Report undefined names (F821), redefinitions of unused names (F811) and unused\n"
    "imports (F401, info) in Python files, with pyflakes' scoping rules as ruff 0.13.2\n"
    "applies them. Exit 1 when an F821 or F811 is found, 2 when a file cannot be read\n"
    "or parsed.";

static void print_text(const findings *fs)
{
    for (size_t i = 0; i < fs->len; i++) {
        const finding *f = fs->items[i];
        json_t *code = f->data ? json_object_get(f->data, "code") : NULL;
        printf("%s:%u:%u: %s %s\n", f->path, f->line, f->col,
               code ? json_string_value(code) : "", f->title);
    }
}

int cmd_names(int argc, const char **argv)
{
    const char *format = "text", *select = NULL, *python = NULL;
    opt table[] = {
        OPT_STR(0, "format", &format, "FMT", "text (path:line:col: CODE message) or json"),
        OPT_STR(0, "select", &select, "CODES", "codes to report: F821,F811,F401 (default all)"),
        OPT_STR(0, "python", &python, "3.X",
                "target Python for builtins (default 3.9, ruff's --isolated default)"),
        OPT_END(),
    };
    strvec files = STRVEC_INIT;
    int code;
    if (cmd_parse(argc, argv, table, NULL, usage, summary, &files, &code)) {
        strvec_free(&files);
        return code;
    }
    names_opts o = NAMES_OPTS_INIT;
    int r = 0;
    if (strcmp(format, "text") && strcmp(format, "json"))
        r = pgci_error_set(PGCI_EUSAGE, "--format must be text or json, not '%s'", format);
    else if (select)
        r = names_select_parse(select, &o.select);
    if (r == 0 && python)
        r = names_python_parse(python, &o.py_minor);
    if (r == 0 && files.len == 0)
        r = pgci_error_set(PGCI_EUSAGE, "no files given (usage: %s)", usage);
    if (r < 0) {
        strvec_free(&files);
        return cmd_error();
    }
    findings fs = FINDINGS_INIT;
    int failed = 0;
    for (size_t i = 0; i < files.len; i++) {
        if (check_names_file(&fs, files.items[i], NULL, &o) < 0) {
            cmd_error();
            failed = 1;
        }
    }
    findings_sort(&fs);
    if (!strcmp(format, "json")) {
        json_t *j = findings_to_json(&fs);
        char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        puts(s);
        free(s);
        json_decref(j);
    } else {
        print_text(&fs);
    }
    int rc = failed ? EXIT_ERROR
                    : findings_count_at_least(&fs, SEV_ERROR) ? EXIT_FINDINGS : EXIT_CLEAN;
    findings_free(&fs);
    strvec_free(&files);
    return rc;
}
