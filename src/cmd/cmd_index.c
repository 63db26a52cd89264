/*
 * pgci index - what upstream modules define, from one tree-sitter parse each.
 *
 * Sources: modules at a tag through the upstream layer (--tag T --module M, the
 * same sources and cache as pgci fetch), or local files (--file, --files-from), the
 * way the corpus test indexes a whole release in one process. One input prints a
 * readable outline (or its JSON with --json); several print one line each and a
 * total (JSON Lines with --json; only the total with --totals).
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/par.h"
#include "index/index.h"
#include "upstream/upstream.h"
#include "workspace/workspace.h"

static const char usage[] =
    "pgci index [--tag T] [--module M ...] [--source SPEC] [--json] [-C WORKSPACE]\n"
    "   or: pgci index --file PATH [--file PATH2 ...] [--files-from LIST] "
    "[--json | --totals]";
static const char summary[] =
    "Indexes upstream modules: imports, assignments, classes, functions, methods,\n"
    "parameters, decorators, bases, docstring Args, __init__ attributes and body\n"
    "fingerprints. Modules come from the upstream source at a tag (as pgci fetch)\n"
    "or from local files. Exit 2 when an input cannot be read or is not valid\n"
    "Python (with --keep-going, after indexing every other input).";

typedef struct totals {
    size_t files, bytes, errors, imports, classes, functions, methods;
} totals;

/* One input: a name for messages and (for files) a module name guessed from the
 * path: ".../transformers/models/llama/modeling_llama.py" gives
 * "transformers.models.llama.modeling_llama", anything else its stem. */
static char *module_name_from_path(const char *path)
{
    const char *start = path;
    for (const char *p = path; (p = strstr(p, "transformers/")) != NULL; p++)
        if (p == path || p[-1] == '/')
            start = p;
    if (start == path) {
        const char *slash = strrchr(path, '/');
        start = slash ? slash + 1 : path;
    }
    char *name = pgci_strdup(start);
    size_t n = strlen(name);
    if (n > 3 && !strcmp(name + n - 3, ".py"))
        name[n - 3] = '\0';
    for (char *c = name; *c; c++)
        if (*c == '/')
            *c = '.';
    return name;
}

static void print_params(FILE *o, const index_def *d)
{
    int star_done = 0;
    for (size_t i = 0; i < d->n_params; i++) {
        const index_param *p = &d->params[i];
        if (i)
            fputs(", ", o);
        if (p->kind == INDEX_PARAM_KEYWORD_ONLY && !star_done) {
            fputs("*, ", o);
            star_done = 1;
        }
        if (p->kind == INDEX_PARAM_VAR_POSITIONAL) {
            fputs("*", o);
            star_done = 1;
        }
        if (p->kind == INDEX_PARAM_VAR_KEYWORD)
            fputs("**", o);
        fputs(p->name, o);
        if (p->annotation)
            fprintf(o, ": %s", p->annotation);
        if (p->default_value)
            fprintf(o, p->annotation ? " = %s" : "=%s", p->default_value);
        if (p->kind == INDEX_PARAM_POSITIONAL_ONLY &&
            (i + 1 == d->n_params || d->params[i + 1].kind != INDEX_PARAM_POSITIONAL_ONLY))
            fputs(", /", o);
    }
}

static void print_def(FILE *o, const index_def *d, int depth)
{
    for (size_t i = 0; i < d->n_decorators; i++)
        fprintf(o, "%*s@%s\n", depth * 4, "", d->decorators[i]);
    if (d->kind == INDEX_CLASS) {
        fprintf(o, "%*sclass %s", depth * 4, "", d->name);
        if (d->n_bases) {
            fputs("(", o);
            for (size_t i = 0; i < d->n_bases; i++)
                fprintf(o, "%s%s", i ? ", " : "", d->bases[i]);
            fputs(")", o);
        }
        fprintf(o, "    # lines %u-%u", d->start_line, d->end_line);
        if (d->n_init_attrs) {
            fputs("; self.", o);
            for (size_t i = 0; i < d->n_init_attrs; i++)
                fprintf(o, "%s%s", i ? ", " : "", d->init_attrs[i]);
        }
        fputc('\n', o);
        for (size_t i = 0; i < d->n_members; i++)
            print_def(o, d->members[i], depth + 1);
        return;
    }
    fprintf(o, "%*s%sdef %s(", depth * 4, "", d->is_async ? "async " : "", d->name);
    print_params(o, d);
    fprintf(o, ")%s%s    # lines %u-%u, body %016llx\n", d->returns ? " -> " : "",
            d->returns ? d->returns : "", d->start_line, d->end_line,
            (unsigned long long)index_def_fingerprint(d));
}

static void print_outline(FILE *o, const index_module *m)
{
    fprintf(o, "%s (%s): %zu imports, %zu classes, %zu functions, %zu methods\n", m->name, m->path,
            m->n_imports, m->n_classes, m->n_functions, m->n_methods);
    for (size_t i = 0; i < m->n_imports; i++) {
        const index_import *im = &m->imports[i];
        fprintf(o, "  line %u: ", im->line);
        if (im->name)
            fprintf(o, "from %.*s%s import %s", im->level, "..........", im->module, im->name);
        else
            fprintf(o, "import %s", im->module);
        if (im->alias)
            fprintf(o, " as %s", im->alias);
        if (im->scope || im->in_try || im->in_if)
            fprintf(o, "    #%s%s%s%s", im->scope ? " in " : "", im->scope ? im->scope : "",
                    im->in_try ? " in try" : "", im->in_if ? " in if" : "");
        fputc('\n', o);
    }
    for (size_t i = 0; i < m->n_assigns; i++)
        fprintf(o, "  line %u: %s = %s\n", m->assigns[i].line, m->assigns[i].name,
                m->assigns[i].value ? m->assigns[i].value : "...");
    for (size_t i = 0; i < m->n_defs; i++)
        print_def(o, m->defs[i], 1);
}

typedef struct run {
    int json, totals_only, several;
} run;

static void totals_add(totals *t, const totals *u)
{
    t->files += u->files;
    t->bytes += u->bytes;
    t->errors += u->errors;
    t->imports += u->imports;
    t->classes += u->classes;
    t->functions += u->functions;
    t->methods += u->methods;
}

/* Indexes one source, counts it into *t and writes what the mode asks for to o. */
static int index_one(const run *r, totals *t, FILE *o, const char *src, size_t len,
                     const char *path, const char *module)
{
    index_module *m = NULL;
    int rc = index_module_from_source(&m, src, len, path, module);
    t->files++;
    t->bytes += len;
    if (rc < 0) {
        t->errors++;
        return rc;
    }
    t->imports += m->n_imports;
    t->classes += m->n_classes;
    t->functions += m->n_functions;
    t->methods += m->n_methods;
    if (r->json) {
        strbuf out = STRBUF_INIT;
        rc = index_module_to_json(&out, m, r->several ? 0 : 2);
        if (rc == 0)
            fwrite(out.buf, 1, out.len, o);
        strbuf_free(&out);
    } else if (!r->totals_only && r->several) {
        fprintf(o, "%s: %zu imports, %zu classes, %zu functions, %zu methods\n", path, m->n_imports,
                m->n_classes, m->n_functions, m->n_methods);
    } else if (!r->totals_only) {
        print_outline(o, m);
    }
    index_module_free(m);
    return rc;
}

static int read_list(strvec *files, const char *list)
{
    strbuf sb = STRBUF_INIT;
    int r;
    if (!strcmp(list, "-")) {
        char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
            strbuf_add(&sb, buf, n);
        r = ferror(stdin) ? pgci_error_set(PGCI_EIO, "--files-from -: cannot read stdin") : 0;
    } else {
        r = fs_read_file(&sb, list, 0);
    }
    if (r == 0) {
        char *save = NULL;
        for (char *line = strtok_r(sb.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            if (line[0])
                strvec_push(files, line);
    }
    strbuf_free(&sb);
    return r;
}

/* Local files are indexed by a pool of threads (tree-sitter parsers are per
 * thread, an index owns all its memory); each file's output is kept and printed in
 * the order given, so the bytes do not depend on --jobs. */
typedef struct file_job {
    const char *path;
    char *out;
    size_t out_len;
    char *err; /* NULL or the message */
    int rc;
    totals t;
} file_job;

typedef struct file_pool {
    const run *r;
    file_job *jobs;
    size_t n, done;
    pthread_mutex_t mu;
} file_pool;

static void index_file_job(const run *r, file_job *j)
{
    FILE *o = open_memstream(&j->out, &j->out_len);
    if (!o)
        abort(); /* out of memory, as everywhere else */
    strbuf sb = STRBUF_INIT;
    int rc = fs_read_file(&sb, j->path, 0);
    if (rc == 0) {
        char *module = module_name_from_path(j->path);
        rc = index_one(r, &j->t, o, sb.buf, sb.len, j->path, module);
        free(module);
    } else {
        j->t.files++;
        j->t.errors++;
    }
    strbuf_free(&sb);
    fclose(o);
    j->rc = rc;
    if (rc < 0)
        j->err = pgci_strdup(pgci_error_last());
}

static void file_item(void *arg, size_t worker, size_t i)
{
    (void)worker;
    file_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    progress_update("index", p->done, p->n, p->jobs[i].path);
    pthread_mutex_unlock(&p->mu);
    index_file_job(p->r, &p->jobs[i]);
    pthread_mutex_lock(&p->mu);
    p->done++;
    pthread_mutex_unlock(&p->mu);
}

static int index_files(const run *r, totals *t, const strvec *files, int jobs, int keep_going)
{
    file_pool p = {r, pgci_calloc(files->len ? files->len : 1, sizeof(file_job)), files->len, 0,
                   PTHREAD_MUTEX_INITIALIZER};
    for (size_t i = 0; i < files->len; i++)
        p.jobs[i].path = files->items[i];
    par_for(p.n, jobs, file_item, &p);
    progress_done();

    int first_err = 0;
    for (size_t i = 0; i < p.n; i++) {
        file_job *j = &p.jobs[i];
        if (first_err == 0 || keep_going) {
            fwrite(j->out, 1, j->out_len, stdout);
            totals_add(t, &j->t);
            if (j->rc < 0) {
                fprintf(stderr, "pgci: error: %s\n", j->err);
                if (!first_err)
                    first_err = j->rc;
            }
        }
        free(j->out);
        free(j->err);
    }
    free(p.jobs);
    pthread_mutex_destroy(&p.mu);
    return first_err;
}

static int index_modules(const run *r, totals *t, const char *tag, const strvec *modules,
                         const char *source, const common_opts *common, int keep_going)
{
    char cwd[PATH_MAX];
    upstream_opts uo = {
        .spec = source,
        .jobs = common->jobs,
        .base_dir = common->workspace ? common->workspace : getcwd(cwd, sizeof(cwd)),
    };
    upstream *u = NULL;
    int rc = upstream_open(&u, &uo);
    if (rc < 0)
        return rc;
    size_t n = modules->len;
    strbuf *results = pgci_calloc(n, sizeof(strbuf));
    char **errors = pgci_calloc(n, sizeof(char *));
    for (size_t i = 0; i < n; i++)
        strbuf_init(&results[i], 0);
    upstream_fetch_all(u, tag, modules, results, errors);
    int first_err = 0;
    for (size_t i = 0; i < n; i++) {
        int e = 0;
        if (errors[i]) {
            e = pgci_error_set(PGCI_ENOTFOUND, "%s", errors[i]);
            t->files++;
            t->errors++;
        } else if (first_err == 0 || keep_going) {
            strbuf path = STRBUF_INIT;
            upstream_module_path(&path, modules->items[i]);
            strbuf_addf(&path, "@%s", tag);
            e = index_one(r, t, stdout, results[i].buf, results[i].len, path.buf,
                          modules->items[i]);
            strbuf_free(&path);
        }
        if (e < 0 && (first_err == 0 || keep_going)) {
            fprintf(stderr, "pgci: error: %s\n", pgci_error_last());
            if (!first_err)
                first_err = e;
        }
        free(errors[i]);
        strbuf_free(&results[i]);
    }
    free(results);
    free(errors);
    upstream_free(u);
    return first_err;
}

/* Without --module, as pgci fetch: the source_module of every config in the
 * workspace (-C DIR, else the current directory), its [tool.pgci] upstream as the
 * default source and its transformers pin as the default tag. */
static int modules_from_workspace(workspace **ws, const common_opts *common, strvec *modules,
                                  const char **source, const char **tag, char **tag_owned)
{
    if (workspace_open(ws, common->workspace) < 0)
        return pgci_error_wrap(PGCI_EUSAGE, "index: no --module given and no workspace");
    int rc = workspace_source_modules(*ws, modules);
    if (rc < 0)
        return rc;
    if (!modules->len)
        return pgci_error_set(PGCI_EUSAGE,
                              "index: no config in the workspace at %s names a source_module "
                              "(give --module)",
                              (*ws)->root);
    if (!*source)
        *source = (*ws)->upstream;
    if (!*tag && (*ws)->pin) {
        *tag_owned = workspace_pin_tag(*ws);
        *tag = *tag_owned;
    }
    return 0;
}

int cmd_index(int argc, const char **argv)
{
    strvec modules = STRVEC_INIT, files = STRVEC_INIT, rest = STRVEC_INIT;
    const char *tag = NULL, *source = NULL, *files_from = NULL;
    char *tag_owned = NULL;
    workspace *ws = NULL;
    int json = 0, totals_only = 0, keep_going = 0;
    const opt table[] = {
        OPT_STR('t', "tag", &tag, "TAG",
                "the upstream tag to index (default with a workspace: its transformers pin)"),
        OPT_LIST('m', "module", &modules, "MODULE",
                 "a dotted module name (repeatable; default: the workspace's configs)"),
        OPT_STR(0, "source", &source, "SPEC",
                "https://...{tag}...{path}, git:PATH or dir:PATH (as pgci fetch)"),
        OPT_LIST(0, "file", &files, "PATH", "index a local file instead (repeatable)"),
        OPT_STR(0, "files-from", &files_from, "LIST",
                "index the files listed in LIST ('-': stdin)"),
        OPT_BOOL(0, "json", &json, "print the index as JSON (JSON Lines for several inputs)"),
        OPT_BOOL(0, "totals", &totals_only, "print only the total counts"),
        OPT_BOOL(0, "keep-going", &keep_going, "index every input even after an error"),
        OPT_END(),
    };
    common_opts common = {0};
    int code = EXIT_CLEAN;
    if (cmd_parse(argc, argv, table, &common, usage, summary, &rest, &code))
        goto out;
    int rc = 0;
    if (rest.len)
        rc = pgci_error_set(PGCI_EUSAGE, "index: unexpected argument '%s' (see pgci index --help)",
                            rest.items[0]);
    else if (files_from)
        rc = read_list(&files, files_from);
    if (rc == 0) {
        int by_file = files.len > 0 || files_from;
        if (by_file && (tag || modules.len))
            rc = pgci_error_set(PGCI_EUSAGE, "index: --file/--files-from and --tag/--module "
                                             "do not mix (see pgci index --help)");
        else if (!by_file && !modules.len)
            rc = modules_from_workspace(&ws, &common, &modules, &source, &tag, &tag_owned);
        if (rc == 0 && !by_file && !tag && ws)
            rc = workspace_no_tag_error(ws, "index: no --tag given and the workspace has no "
                                            "transformers pin (see pgci index --help)");
        else if (rc == 0 && !by_file && !tag)
            rc = pgci_error_set(PGCI_EUSAGE,
                                "index: no --tag given (or --file) (see pgci index --help)");
        else if (rc == 0 && json && totals_only)
            rc = pgci_error_set(PGCI_EUSAGE, "index: --json and --totals do not mix");
        else if (rc == 0 && tag && (rc = upstream_tag_check(tag)) == 0)
            for (size_t i = 0; i < modules.len && rc == 0; i++)
                rc = upstream_module_check(modules.items[i]);
    }
    if (rc < 0) {
        code = cmd_error();
        goto out;
    }
    run r = {json, totals_only, (files.len + modules.len) > 1};
    totals t = {0};
    rc = files.len ? index_files(&r, &t, &files, cmd_jobs(&common), keep_going)
                   : index_modules(&r, &t, tag, &modules, source, &common, keep_going);
    if (r.several && !json)
        printf("total: %zu files, %zu bytes, %zu errors, %zu imports, %zu classes, %zu functions, "
               "%zu methods\n",
               t.files, t.bytes, t.errors, t.imports, t.classes, t.functions, t.methods);
    code = rc < 0 || t.errors ? EXIT_ERROR : EXIT_CLEAN;
out:
    strvec_free(&modules);
    strvec_free(&files);
    strvec_free(&rest);
    free(tag_owned);
    workspace_free(ws);
    return code;
}
