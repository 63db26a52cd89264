/*
 * protocol-import: every checked-in generated module imports.
 *
 * Some breakage only shows when Python executes a module: a decorator that
 * validates a signature while the class body runs, a name a patch body uses at
 * class level, an import the upstream bump removed. Where the workspace names its
 * Python environment ([tool.pgci] python = "python3" or ["uv", "run", "python"]),
 * each generated module is imported in its own subprocess (through proc.h, with
 * the workspace root and [tool.pgci.protocol.import] path on sys.path and a
 * timeout); a failure is a finding at the line of the generated file the
 * traceback points into. Several interpreters run at once ([tool.pgci.protocol.
 * import] jobs, default: the online CPUs, at most 8); the findings come in input
 * order. Without a Python command the check does not run and says why: a smoke
 * test that did not run is never reported as passed.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "checks/checks.h"
#include "checks/protocol.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/proc.h"

/* Imports argv[2] with argv[1] and argv[3:] first on sys.path; on failure prints
 * "frame FILE LINE" lines and one "error ..." line, exits 3. */
static const char smoke_py[] =
    "import importlib, sys, traceback\n"
    "sys.path[:0] = [sys.argv[1]] + sys.argv[3:]\n"
    "try:\n"
    "    importlib.import_module(sys.argv[2])\n"
    "except BaseException as e:\n"
    "    for f in traceback.extract_tb(e.__traceback__):\n"
    "        print('frame', f.lineno, f.filename)\n"
    "    msg = traceback.format_exception_only(type(e), e)[-1].strip().replace('\\n', ' ')\n"
    "    print('error', msg)\n"
    "    sys.exit(3)\n";

/* "demo.models.qwen3.qwen3_gpu_patch_gen_config" + "generated/patched_x.py" ->
 * "demo.models.qwen3.generated.patched_x" */
static char *module_of(const check_input *in)
{
    const char *dot = strrchr(in->module, '.');
    const char *base = strrchr(in->py_path, '/');
    base = base ? base + 1 : in->py_path;
    size_t n = strlen(base);
    if (n > 3 && !strcmp(base + n - 3, ".py"))
        n -= 3;
    strbuf m = STRBUF_INIT;
    if (dot)
        strbuf_add(&m, in->module, (size_t)(dot - in->module) + 1);
    strbuf_adds(&m, "generated.");
    strbuf_add(&m, base, n);
    return strbuf_detach(&m, NULL);
}

/* The last traceback frame inside the generated file: its line, else 0. */
static unsigned frame_line(const char *out, const char *py_path)
{
    unsigned line = 0;
    const char *p = out;
    while ((p = strstr(p, "frame ")) && (p == out || p[-1] == '\n')) {
        char *end;
        unsigned long l = strtoul(p + 6, &end, 10);
        const char *nl = strchr(end, '\n');
        size_t n = nl ? (size_t)(nl - end) : strlen(end);
        size_t k = strlen(py_path);
        if (n > k && end[0] == ' ' && !strncmp(end + n - k, py_path, k) && end[n - k - 1] == '/')
            line = (unsigned)l;
        p = nl ? nl + 1 : end + n;
    }
    return line;
}

/* One module to import and what became of it. */
typedef struct smoke_job {
    const check_input *in;
    char *mod;
    int rc;    /* proc_run's result */
    char *err; /* proc_run's message when rc < 0 */
    proc_result pr;
} smoke_job;

typedef struct smoke_pool {
    smoke_job *jobs;
    size_t n, next;
    pthread_mutex_t lock;
    const proto_settings *s;
    const strvec *paths;
    const char *root;
} smoke_pool;

static void smoke_one(const smoke_pool *pool, smoke_job *j)
{
    const proto_settings *s = pool->s;
    VEC(const char *) argv = VEC_INIT;
    for (size_t k = 0; k < s->python.len; k++)
        VEC_PUSH(&argv, s->python.items[k]);
    VEC_PUSH(&argv, "-c");
    VEC_PUSH(&argv, smoke_py);
    VEC_PUSH(&argv, pool->root);
    VEC_PUSH(&argv, j->mod);
    for (size_t k = 0; k < pool->paths->len; k++)
        VEC_PUSH(&argv, pool->paths->items[k]);
    VEC_PUSH(&argv, NULL);
    proc_opts po;
    memset(&po, 0, sizeof(po));
    po.argv = argv.items;
    po.cwd = pool->root;
    po.timeout_ms = s->import_timeout_s * 1000;
    po.max_output = 1 << 20;
    j->rc = proc_run(&po, &j->pr);
    if (j->rc < 0) {
        j->err = pgci_strdup(pgci_error_last());
        pgci_error_clear();
    }
    VEC_FREE(&argv);
}

static void *smoke_worker(void *arg)
{
    smoke_pool *pool = arg;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        size_t i = pool->next++;
        pthread_mutex_unlock(&pool->lock);
        if (i >= pool->n)
            return NULL;
        smoke_one(pool, &pool->jobs[i]);
    }
}

static int run(const check_ctx *ctx, findings *out, strbuf *why)
{
    if (!ctx->ws)
        return CHECK_RAN;
    proto_settings s;
    int r = proto_settings_read(&s, ctx->ws);
    if (r < 0 || proto_sev(&s, "import.smoke") == PROTO_OFF) {
        proto_settings_free(&s);
        return r < 0 ? r : CHECK_RAN;
    }
    if (s.python.len == 0) {
        strbuf_adds(why,
                    "no Python environment: set [tool.pgci] python (e.g. \"python3\") to import "
                    "the generated modules");
        proto_settings_free(&s);
        return CHECK_NOT_RUN;
    }
    strvec paths = STRVEC_INIT;
    for (size_t i = 0; i < s.python_path.len; i++) {
        char *p = proto_subst(s.python_path.items[i], "tag", ctx->tag ? ctx->tag : "");
        strbuf abs = STRBUF_INIT;
        if (p[0] == '/')
            strbuf_adds(&abs, p);
        else
            fs_join(&abs, ctx->ws->root, p);
        strvec_push(&paths, abs.buf);
        strbuf_free(&abs);
        free(p);
    }
    smoke_pool pool;
    memset(&pool, 0, sizeof(pool));
    pool.jobs = pgci_calloc(ctx->n_inputs ? ctx->n_inputs : 1, sizeof(smoke_job));
    pool.s = &s;
    pool.paths = &paths;
    pool.root = ctx->ws->root;
    pthread_mutex_init(&pool.lock, NULL);
    for (size_t i = 0; i < ctx->n_inputs; i++) {
        const check_input *in = &ctx->inputs[i];
        if (!in->checked_py || !in->py_path || !in->module)
            continue;
        pool.jobs[pool.n].in = in;
        pool.jobs[pool.n++].mod = module_of(in);
    }
    /* interpreters start slowly (torch: seconds): several at once */
    size_t nt = (size_t)(s.import_jobs > 0 ? s.import_jobs : 1);
    if (nt > pool.n)
        nt = pool.n;
    pthread_t *th = pgci_calloc(nt ? nt : 1, sizeof(*th));
    size_t started = 0;
    for (; started < nt; started++)
        if (pthread_create(&th[started], NULL, smoke_worker, &pool) != 0)
            break;
    if (started == 0)
        smoke_worker(&pool);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    pthread_mutex_destroy(&pool.lock);

    /* findings in input order, whatever order the imports finished in */
    int result = CHECK_RAN;
    for (size_t i = 0; i < pool.n; i++) {
        smoke_job *j = &pool.jobs[i];
        const check_input *in = j->in;
        const char *o = j->pr.out.buf ? j->pr.out.buf : "";
        if (j->rc < 0 && j->pr.timed_out) {
            proto_add(out, &s, "import.smoke", in->module, in->py_path, 0,
                      "importing %s did not finish within %d s", j->mod, s.import_timeout_s);
        } else if (j->rc < 0) {
            /* the interpreter itself cannot run: the smoke test cannot either */
            if (result == CHECK_RAN)
                strbuf_addf(why, "cannot run [tool.pgci] python: %s", j->err);
            result = CHECK_NOT_RUN;
        } else if (j->pr.status == 3) {
            const char *e = strstr(o, "\nerror ");
            e = e ? e + 7 : (pgci_starts_with(o, "error ") ? o + 6 : "");
            size_t n = strcspn(e, "\n");
            finding *f = proto_add(out, &s, "import.smoke", in->module, in->py_path,
                                   frame_line(o, in->py_path), "importing %s fails: %.*s", j->mod,
                                   (int)n, e);
            if (f)
                finding_set_detail(f, o);
        } else if (j->pr.status != 0) {
            if (result == CHECK_RAN)
                strbuf_addf(why,
                            "[tool.pgci] python exited with status %d before importing %s: %.200s",
                            j->pr.status, j->mod, j->pr.err.buf ? j->pr.err.buf : "");
            result = CHECK_NOT_RUN;
        }
        proc_result_free(&j->pr);
        free(j->err);
        free(j->mod);
    }
    free(pool.jobs);
    strvec_free(&paths);
    proto_settings_free(&s);
    return result;
}

const check_def check_protocol_import = {
    "protocol-import",
    "every generated module imports in the workspace's Python ([tool.pgci] python)",
    run,
};
