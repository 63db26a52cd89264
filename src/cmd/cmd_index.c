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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/log.h"
#include "index/index.h"
#include "upstream/upstream.h"

static const char usage[] =
    "pgci index --tag T --module M [--module M2 ...] [--source SPEC] [--json]\n"
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

static void print_params(const index_def *d)
{
    int star_done = 0;
    for (size_t i = 0; i < d->n_params; i++) {
        const index_param *p = &d->params[i];
        if (i)
            fputs(", ", stdout);
        if (p->kind == INDEX_PARAM_KEYWORD_ONLY && !star_done) {
            fputs("*, ", stdout);
            star_done = 1;
        }
        if (p->kind == INDEX_PARAM_VAR_POSITIONAL) {
            fputs("*", stdout);
            star_done = 1;
        }
        if (p->kind == INDEX_PARAM_VAR_KEYWORD)
            fputs("**", stdout);
        fputs(p->name, stdout);
        if (p->annotation)
            printf(": %s", p->annotation);
        if (p->default_value)
            printf(p->annotation ? " = %s" : "=%s", p->default_value);
        if (p->kind == INDEX_PARAM_POSITIONAL_ONLY &&
            (i + 1 == d->n_params || d->params[i + 1].kind != INDEX_PARAM_POSITIONAL_ONLY))
            fputs(", /", stdout);
    }
}

static void print_def(const index_def *d, int depth)
{
    for (size_t i = 0; i < d->n_decorators; i++)
        printf("%*s@%s\n", depth * 4, "", d->decorators[i]);
    if (d->kind == INDEX_CLASS) {
        printf("%*sclass %s", depth * 4, "", d->name);
        if (d->n_bases) {
            fputs("(", stdout);
            for (size_t i = 0; i < d->n_bases; i++)
                printf("%s%s", i ? ", " : "", d->bases[i]);
            fputs(")", stdout);
        }
        printf("    # lines %u-%u", d->start_line, d->end_line);
        if (d->n_init_attrs) {
            fputs("; self.", stdout);
            for (size_t i = 0; i < d->n_init_attrs; i++)
                printf("%s%s", i ? ", " : "", d->init_attrs[i]);
        }
        putchar('\n');
        for (size_t i = 0; i < d->n_members; i++)
            print_def(d->members[i], depth + 1);
        return;
    }
    printf("%*s%sdef %s(", depth * 4, "", d->is_async ? "async " : "", d->name);
    print_params(d);
    printf(")%s%s    # lines %u-%u, body %016llx\n", d->returns ? " -> " : "",
           d->returns ? d->returns : "", d->start_line, d->end_line,
           (unsigned long long)d->fingerprint);
}

static void print_outline(const index_module *m)
{
    printf("%s (%s): %zu imports, %zu classes, %zu functions, %zu methods\n", m->name, m->path,
           m->n_imports, m->n_classes, m->n_functions, m->n_methods);
    for (size_t i = 0; i < m->n_imports; i++) {
        const index_import *im = &m->imports[i];
        printf("  line %u: ", im->line);
        if (im->name)
            printf("from %.*s%s import %s", im->level, "..........", im->module, im->name);
        else
            printf("import %s", im->module);
        if (im->alias)
            printf(" as %s", im->alias);
        if (im->scope || im->in_try || im->in_if)
            printf("    # %s%s%s%s", im->scope ? "in " : "", im->scope ? im->scope : "",
                   im->in_try ? " try" : "", im->in_if ? " if" : "");
        putchar('\n');
    }
    for (size_t i = 0; i < m->n_assigns; i++)
        printf("  line %u: %s = %s\n", m->assigns[i].line, m->assigns[i].name,
               m->assigns[i].value ? m->assigns[i].value : "...");
    for (size_t i = 0; i < m->n_defs; i++)
        print_def(m->defs[i], 1);
}

typedef struct run {
    int json, totals_only, several;
    totals t;
} run;

/* Indexes one source and prints what the mode asks for. */
static int index_one(run *r, const char *src, size_t len, const char *path, const char *module)
{
    index_module *m = NULL;
    int rc = index_module_from_source(&m, src, len, path, module);
    r->t.files++;
    r->t.bytes += len;
    if (rc < 0) {
        r->t.errors++;
        return rc;
    }
    r->t.imports += m->n_imports;
    r->t.classes += m->n_classes;
    r->t.functions += m->n_functions;
    r->t.methods += m->n_methods;
    if (r->json) {
        strbuf out = STRBUF_INIT;
        rc = index_module_to_json(&out, m, r->several ? 0 : 2);
        if (rc == 0)
            fwrite(out.buf, 1, out.len, stdout);
        strbuf_free(&out);
    } else if (!r->totals_only && r->several) {
        printf("%s: %zu imports, %zu classes, %zu functions, %zu methods\n", path, m->n_imports,
               m->n_classes, m->n_functions, m->n_methods);
    } else if (!r->totals_only) {
        print_outline(m);
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

static int index_files(run *r, const strvec *files, int keep_going)
{
    int first_err = 0;
    for (size_t i = 0; i < files->len; i++) {
        const char *path = files->items[i];
        progress_update("index", i, files->len, path);
        strbuf sb = STRBUF_INIT;
        int rc = fs_read_file(&sb, path, 0);
        char *module = module_name_from_path(path);
        if (rc == 0)
            rc = index_one(r, sb.buf, sb.len, path, module);
        else
            r->t.files++, r->t.errors++;
        free(module);
        strbuf_free(&sb);
        if (rc < 0) {
            progress_done();
            fprintf(stderr, "pgci: error: %s\n", pgci_error_last());
            if (!first_err)
                first_err = rc;
            if (!keep_going)
                break;
        }
    }
    progress_done();
    return first_err;
}

static int index_modules(run *r, const char *tag, const strvec *modules, const char *source,
                         const common_opts *common, int keep_going)
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
            r->t.files++, r->t.errors++;
        } else if (first_err == 0 || keep_going) {
            strbuf path = STRBUF_INIT;
            upstream_module_path(&path, modules->items[i]);
            strbuf_addf(&path, "@%s", tag);
            e = index_one(r, results[i].buf, results[i].len, path.buf, modules->items[i]);
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

int cmd_index(int argc, const char **argv)
{
    strvec modules = STRVEC_INIT, files = STRVEC_INIT, rest = STRVEC_INIT;
    const char *tag = NULL, *source = NULL, *files_from = NULL;
    int json = 0, totals_only = 0, keep_going = 0;
    const opt table[] = {
        OPT_STR('t', "tag", &tag, "TAG", "the upstream tag to index"),
        OPT_LIST('m', "module", &modules, "MODULE", "a dotted module name (repeatable)"),
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
        else if (!by_file && (!tag || !modules.len))
            rc = pgci_error_set(PGCI_EUSAGE, "index: %s (see pgci index --help)",
                                !tag ? "no --tag given (or --file)" : "no --module given");
        else if (json && totals_only)
            rc = pgci_error_set(PGCI_EUSAGE, "index: --json and --totals do not mix");
        else if (tag && (rc = upstream_tag_check(tag)) == 0)
            for (size_t i = 0; i < modules.len && rc == 0; i++)
                rc = upstream_module_check(modules.items[i]);
    }
    if (rc < 0) {
        code = cmd_error();
        goto out;
    }
    run r = {json, totals_only, (files.len + modules.len) > 1, {0}};
    rc = files.len ? index_files(&r, &files, keep_going)
                   : index_modules(&r, tag, &modules, source, &common, keep_going);
    if (r.several && !json)
        printf("total: %zu files, %zu bytes, %zu errors, %zu imports, %zu classes, %zu functions, "
               "%zu methods\n",
               r.t.files, r.t.bytes, r.t.errors, r.t.imports, r.t.classes, r.t.functions,
               r.t.methods);
    code = rc < 0 || r.t.errors ? EXIT_ERROR : EXIT_CLEAN;
out:
    strvec_free(&modules);
    strvec_free(&files);
    strvec_free(&rest);
    return code;
}
