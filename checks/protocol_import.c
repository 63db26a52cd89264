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
 * import] jobs, default: the online CPUs, at most 8; check_each_input), and the
 * findings come in input order. Without a Python command the check is not
 * configured (an opt-in smoke test: listed, never failing the gate); with one that
 * cannot start, it did not run and says why, never reported as passed.
 */
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

/* What every import shares; why[i] is set when input i could not be imported for
 * a reason that is not the module's (the interpreter cannot run). */
typedef struct smoke_ctx {
    const proto_settings *s;
    const strvec *paths;
    const char *root;
    char **why;
} smoke_ctx;

/* Imports one generated module in its own interpreter (a worker thread of
 * check_each_input: interpreters start slowly, torch takes seconds). */
static int smoke_one(const check_ctx *ctx, const check_input *in, void *arg, findings *out)
{
    const smoke_ctx *sc = arg;
    const proto_settings *s = sc->s;
    if (!in->checked_py || !in->py_path || !in->module)
        return 0;
    char **why = &sc->why[in - ctx->inputs];
    char *mod = module_of(in);
    VEC(const char *) argv = VEC_INIT;
    for (size_t k = 0; k < s->python.len; k++)
        VEC_PUSH(&argv, s->python.items[k]);
    VEC_PUSH(&argv, "-c");
    VEC_PUSH(&argv, smoke_py);
    VEC_PUSH(&argv, sc->root);
    VEC_PUSH(&argv, mod);
    for (size_t k = 0; k < sc->paths->len; k++)
        VEC_PUSH(&argv, sc->paths->items[k]);
    VEC_PUSH(&argv, NULL);
    proc_opts po;
    memset(&po, 0, sizeof(po));
    po.argv = argv.items;
    po.cwd = sc->root;
    po.timeout_ms = s->import_timeout_s * 1000;
    po.max_output = 1 << 20;
    proc_result pr;
    memset(&pr, 0, sizeof(pr));
    int rc = proc_run(&po, &pr);
    VEC_FREE(&argv);

    const char *o = pr.out.buf ? pr.out.buf : "";
    if (rc < 0 && pr.timed_out) {
        proto_add(out, s, "import.smoke", in->module, in->py_path, 0,
                  "importing %s did not finish within %d s", mod, s->import_timeout_s);
    } else if (rc < 0) {
        /* the interpreter itself cannot run: the smoke test cannot either */
        *why = pgci_asprintf("cannot run [tool.pgci] python: %s", pgci_error_last());
    } else if (pr.status == 3) {
        const char *e = strstr(o, "\nerror ");
        e = e ? e + 7 : (pgci_starts_with(o, "error ") ? o + 6 : "");
        size_t n = strcspn(e, "\n");
        finding *f =
            proto_add(out, s, "import.smoke", in->module, in->py_path, frame_line(o, in->py_path),
                      "importing %s fails: %.*s", mod, (int)n, e);
        if (f)
            finding_set_detail(f, o);
    } else if (pr.status != 0) {
        *why = pgci_asprintf("[tool.pgci] python exited with status %d before importing %s: %.200s",
                             pr.status, mod, pr.err.buf ? pr.err.buf : "");
    }
    pgci_error_clear();
    proc_result_free(&pr);
    free(mod);
    return 0;
}

static int run_import(const check_ctx *ctx, proto_settings *s, findings *out, strbuf *why)
{
    if (proto_sev(s, "import.smoke") == PROTO_OFF)
        return CHECK_RAN;
    if (s->python.len == 0) {
        strbuf_adds(why,
                    "no Python environment: set [tool.pgci] python (e.g. \"python3\") to import "
                    "the generated modules");
        return CHECK_NOT_CONFIGURED;
    }
    strvec paths = STRVEC_INIT;
    for (size_t i = 0; i < s->python_path.len; i++) {
        char *p = proto_subst(s->python_path.items[i], "tag", ctx->tag ? ctx->tag : "");
        strbuf abs = STRBUF_INIT;
        if (p[0] == '/')
            strbuf_adds(&abs, p);
        else
            fs_join(&abs, ctx->ws->root, p);
        strvec_push(&paths, abs.buf);
        strbuf_free(&abs);
        free(p);
    }
    smoke_ctx sc = {s, &paths, ctx->ws->root,
                    pgci_calloc(ctx->n_inputs ? ctx->n_inputs : 1, sizeof(char *))};
    /* several interpreters at once, as many as [tool.pgci.protocol.import] jobs */
    check_ctx sub = *ctx;
    sub.jobs = s->import_jobs > 0 ? s->import_jobs : 1;
    int r = check_each_input(&sub, smoke_one, &sc, out);
    int result = r < 0 ? r : CHECK_RAN;
    /* the first input (in order) that could not be imported says why */
    for (size_t i = 0; i < ctx->n_inputs; i++) {
        if (sc.why[i] && result == CHECK_RAN) {
            strbuf_adds(why, sc.why[i]);
            result = CHECK_NOT_RUN;
        }
        free(sc.why[i]);
    }
    free(sc.why);
    strvec_free(&paths);
    return result;
}

static int run(const check_ctx *ctx, findings *out, strbuf *why)
{
    return proto_run(ctx, out, why, run_import);
}

const check_def check_protocol_import = {
    .id = "protocol-import",
    .summary = "every generated module imports in the workspace's Python ([tool.pgci] python)",
    .run = run};
