/*
 * cmd_names.c - `pgci names FILE...`: undefined names, redefinitions and unused
 * imports in any Python files, like `ruff check --select F821,F811` without ruff.
 * Files are checked in parallel (--jobs); the output is sorted, so it does not
 * depend on the number of jobs.
 */
#include <pthread.h>
#include <stdatomic.h>
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
    "applies them; `# noqa` comments are honoured. Exit 1 when an F821 or F811 is\n"
    "found, 2 when a file cannot be read or parsed (the other files are still checked).";

/* One file's result. */
typedef struct job {
    const char *path;
    findings fs;
    char *error; /* the error message when the file could not be checked */
} job;

typedef struct pool {
    job *jobs;
    size_t n;
    atomic_size_t next;
    const names_opts *o;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n)
            return NULL;
        job *j = &p->jobs[i];
        if (check_names_file(&j->fs, j->path, NULL, p->o) < 0)
            j->error = pgci_strdup(pgci_error_last());
    }
}

/* Checks every file with up to `jobs` threads. */
static void run_jobs(pool *p, int jobs)
{
    if (jobs > (int)p->n)
        jobs = (int)p->n;
    pthread_t *t = pgci_calloc((size_t)(jobs > 1 ? jobs : 1), sizeof(*t));
    int started = 0;
    if (jobs > 1) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 16u << 20); /* the walk recurses with the tree */
        for (; started < jobs; started++)
            if (pthread_create(&t[started], &attr, worker, p) != 0)
                break;
        pthread_attr_destroy(&attr);
    }
    if (started == 0)
        worker(p);
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    free(t);
}

static void print_text(const findings *fs)
{
    for (size_t i = 0; i < fs->len; i++) {
        const finding *f = fs->items[i];
        json_t *code = f->data ? json_object_get(f->data, "code") : NULL;
        printf("%s:%u:%u: %s %s\n", f->path, f->line, f->col, code ? json_string_value(code) : "",
               f->title);
    }
}

int cmd_names(int argc, const char **argv)
{
    const char *format = "text", *select = NULL, *python = NULL;
    int no_noqa = 0;
    opt table[] = {
        OPT_STR(0, "format", &format, "FMT", "text (path:line:col: CODE message) or json"),
        OPT_STR(0, "select", &select, "CODES", "codes to report: F821,F811,F401 (default all)"),
        OPT_STR(0, "python", &python, "3.X",
                "target Python for builtins (default 3.9, ruff's --isolated default)"),
        OPT_BOOL(0, "no-noqa", &no_noqa, "report what `# noqa` comments suppress too"),
        OPT_END(),
    };
    common_opts common = {0, 0, 0, NULL};
    strvec files = STRVEC_INIT;
    int code;
    if (cmd_parse(argc, argv, table, &common, usage, summary, &files, &code)) {
        strvec_free(&files);
        return code;
    }
    names_opts o = NAMES_OPTS_INIT;
    o.ignore_noqa = no_noqa;
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

    pool p = {pgci_calloc(files.len, sizeof(job)), files.len, 0, &o};
    for (size_t i = 0; i < files.len; i++)
        p.jobs[i].path = files.items[i];
    run_jobs(&p, cmd_jobs(&common));

    findings all = FINDINGS_INIT;
    int failed = 0;
    for (size_t i = 0; i < p.n; i++) {
        job *j = &p.jobs[i];
        if (j->error) {
            fprintf(stderr, "pgci: error: %s\n", j->error);
            failed = 1;
            free(j->error);
        }
        for (size_t k = 0; k < j->fs.len; k++) {
            if (all.len == all.cap) {
                all.cap = all.cap ? all.cap * 2 : 64;
                all.items = pgci_realloc(all.items, all.cap * sizeof(*all.items));
            }
            all.items[all.len++] = j->fs.items[k];
        }
        free(j->fs.items); /* the findings now belong to `all` */
    }
    free(p.jobs);
    findings_sort(&all);
    if (!strcmp(format, "json")) {
        json_t *j = findings_to_json(&all);
        char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        puts(s);
        free(s);
        json_decref(j);
    } else {
        print_text(&all);
    }
    int rc = failed                                     ? EXIT_ERROR
             : findings_count_at_least(&all, SEV_ERROR) ? EXIT_FINDINGS
                                                        : EXIT_CLEAN;
    findings_free(&all);
    strvec_free(&files);
    return rc;
}
