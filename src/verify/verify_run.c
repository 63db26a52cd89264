/*
 * Running one suite. Why "not-run" is so strict: a suite that crashed, timed out
 * or wrote no readable XML has told us nothing about the models, and the worst a
 * verification report can do is show green for a suite that never finished. So
 * only a JUnit file that parses and lists at least one case makes a suite "ran";
 * everything else is "not-run" with the reason, and never counts as passed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/proc.h"
#include "verify/verify.h"

#define VERIFY_MAX_OUTPUT (4u << 20)
#define VERIFY_TAIL_LINES 30

int verify_have_gpu(void)
{
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    if (vis && (!*vis || !strcmp(vis, "-1")))
        return 0;
    if (access("/dev/nvidia0", F_OK) == 0)
        return 1;
    strvec gpus = STRVEC_INIT;
    int have = fs_list_dir(&gpus, "/proc/driver/nvidia/gpus") == 0 && gpus.len > 0;
    strvec_free(&gpus);
    pgci_error_clear();
    return have;
}

/* One argument with {junit} and {python} replaced; "{python}" alone is spliced
 * by the caller. */
static int expand(strbuf *out, const char *arg, const char *junit, const strvec *py,
                  const char *suite)
{
    strbuf_reset(out);
    for (const char *p = arg; *p;) {
        if (!strncmp(p, "{junit}", 7)) {
            strbuf_adds(out, junit);
            p += 7;
        } else if (!strncmp(p, "{python}", 8)) {
            if (py->len != 1)
                return pgci_error_set(PGCI_EUSAGE,
                                      py->len ? "suite '%s': {python} inside '%s' needs a python "
                                                "of one word, and [tool.pgci] python has several"
                                              : "suite '%s' uses {python} in '%s' but neither "
                                                "--python nor [tool.pgci] python is set",
                                      suite, arg);
            strbuf_adds(out, py->items[0]);
            p += 8;
        } else {
            strbuf_addc(out, *p++);
        }
    }
    return 0;
}

static int expand_argv(strvec *out, const verify_suite *s, const char *junit, const strvec *py)
{
    strbuf sb = STRBUF_INIT;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < s->argv.len; i++) {
        if (!strcmp(s->argv.items[i], "{python}") && py->len) {
            for (size_t k = 0; k < py->len; k++)
                strvec_push(out, py->items[k]);
        } else if ((rc = expand(&sb, s->argv.items[i], junit, py, s->name)) == 0) {
            strvec_push(out, sb.buf);
        }
    }
    for (size_t i = 0; rc == 0 && i < s->env.len; i++)
        if ((rc = expand(&sb, s->env.items[i], junit, py, s->name)) == 0)
            strvec_push(out + 1, sb.buf);
    strbuf_free(&sb);
    return rc;
}

/* --python, else [tool.pgci] python; made absolute so it works in any cwd: a
 * relative --python is the user's (from where pgci runs), a relative [tool.pgci]
 * python with a '/' the workspace's (".venv/bin/python"). */
static void python_argv(strvec *out, const verify_config *c, const verify_run_opts *o)
{
    if (o->python) {
        /* joined, not realpath(): a venv's python is a symlink whose own path is
         * what makes it the venv's */
        char cwd[4096];
        strbuf abs = STRBUF_INIT;
        if (strchr(o->python, '/') && o->python[0] != '/' && getcwd(cwd, sizeof(cwd)))
            fs_join(&abs, cwd, o->python);
        strvec_push(out, abs.len ? abs.buf : o->python);
        strbuf_free(&abs);
    } else {
        for (size_t i = 0; i < c->python.len; i++)
            strvec_push(out, c->python.items[i]);
    }
    if (out->len && !o->python && strchr(out->items[0], '/') && out->items[0][0] != '/') {
        strbuf abs = STRBUF_INIT;
        fs_join(&abs, o->ws_root, out->items[0]);
        free(out->items[0]);
        out->items[0] = strbuf_detach(&abs, NULL);
    }
}

/* The last lines of the suite's output, for a suite that did not pass. */
static json_t *tail_of(const proc_result *res)
{
    strbuf all = STRBUF_INIT;
    strbuf_add(&all, res->out.buf, res->out.len);
    if (all.len && res->err.len && all.buf[all.len - 1] != '\n')
        strbuf_addc(&all, '\n');
    strbuf_add(&all, res->err.buf, res->err.len);
    strbuf_rtrim(&all);
    size_t start = all.len;
    for (int lines = 0; start > 0 && lines < VERIFY_TAIL_LINES; start--)
        if (all.buf[start - 1] == '\n')
            lines++;
    if (start && all.buf[start] == '\n')
        start++;
    json_t *t = all.len ? json_stringn(all.buf + start, all.len - start) : json_null();
    if (!t) {
        /* the suite's bytes are not UTF-8 (or hold a NUL): keep the JSON valid */
        for (size_t i = start; i < all.len; i++)
            if ((unsigned char)all.buf[i] >= 0x80 || !all.buf[i])
                all.buf[i] = '?';
        t = json_stringn(all.buf + start, all.len - start);
    }
    strbuf_free(&all);
    return t ? t : json_null();
}

static json_t *case_json(const junit_case *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "classname", json_string(c->classname));
    json_object_set_new(o, "name", json_string(c->name));
    json_object_set_new(o, "status", json_string(junit_status_name(c->status)));
    json_object_set_new(o, "message", c->message ? json_string(c->message) : json_null());
    json_object_set_new(o, "trace", c->trace ? json_string(c->trace) : json_null());
    json_object_set_new(o, "seconds", json_real(c->seconds));
    return o;
}

static void set_counts(json_t *o, const junit_result *j)
{
    json_object_set_new(o, "tests", json_integer((json_int_t)j->cases.len));
    json_object_set_new(o, "passed", json_integer((json_int_t)j->counts[JUNIT_PASSED]));
    json_object_set_new(o, "failed", json_integer((json_int_t)j->counts[JUNIT_FAILED]));
    json_object_set_new(o, "errors", json_integer((json_int_t)j->counts[JUNIT_ERROR]));
    json_object_set_new(o, "skipped", json_integer((json_int_t)j->counts[JUNIT_SKIPPED]));
    json_object_set_new(o, "seconds", json_real(j->seconds));
    json_t *cases = json_array();
    for (size_t i = 0; i < j->cases.len; i++)
        json_array_append_new(cases, case_json(&j->cases.items[i]));
    json_object_set_new(o, "cases", cases);
}

static json_t *suite_json(const verify_suite *s, const strvec *argv, const char *status,
                          const char *reason)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(s->name));
    json_object_set_new(o, "status", json_string(status));
    json_object_set_new(o, "reason", reason ? json_string(reason) : json_null());
    json_object_set_new(o, "gpu", json_boolean(s->gpu));
    json_t *a = json_array();
    for (size_t i = 0; argv && i < argv->len; i++)
        json_array_append_new(a, json_string(argv->items[i]));
    json_object_set_new(o, "argv", a);
    json_object_set_new(o, "cwd", json_string(s->cwd ? s->cwd : "."));
    json_object_set_new(o, "exit_status", json_null());
    junit_result none;
    memset(&none, 0, sizeof(none));
    set_counts(o, &none);
    json_object_set_new(o, "output_tail", json_null());
    return o;
}

static json_t *not_run(json_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static json_t *not_run(json_t *o, const char *fmt, ...)
{
    strbuf why = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&why, fmt, ap);
    va_end(ap);
    json_object_set_new(o, "status", json_string("not-run"));
    json_object_set_new(o, "reason", json_string(why.buf));
    strbuf_free(&why);
    return o;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The outcome once the process is done: from its JUnit file, or why there is none. */
static void judge(json_t *o, int rc, const proc_result *res, const char *junit, int timeout_s)
{
    if (res->timed_out) {
        not_run(o, "timed out after %d s; its process group was killed", timeout_s);
        return;
    }
    if (res->signal) {
        not_run(o, "crashed: killed by signal %d (%s)", res->signal, strsignal(res->signal));
        return;
    }
    if (rc < 0) {
        not_run(o, "could not start: %s", pgci_error_last());
        return;
    }
    json_object_set_new(o, "exit_status", json_integer(res->status));
    if (!fs_is_file(junit)) {
        not_run(o, "exited with status %d without writing its JUnit XML", res->status);
        return;
    }
    strbuf xml = STRBUF_INIT;
    junit_result j;
    memset(&j, 0, sizeof(j));
    if (fs_read_file(&xml, junit, 64u << 20) < 0 ||
        junit_parse(&j, xml.buf, xml.len, base_name(junit)) < 0)
        not_run(o, "its JUnit XML is unreadable: %s (exit status %d)", pgci_error_last(),
                res->status);
    else if (!j.cases.len)
        not_run(o, "its JUnit XML lists no test case (exit status %d)", res->status);
    else {
        set_counts(o, &j);
        size_t bad = j.counts[JUNIT_FAILED] + j.counts[JUNIT_ERROR];
        json_object_set_new(o, "status", json_string(bad || res->status ? "failed" : "passed"));
        if (!bad && res->status)
            json_object_set_new(
                o, "reason",
                json_sprintf("exited with status %d although no case failed", res->status));
    }
    junit_result_free(&j);
    strbuf_free(&xml);
}

/* A NULL in the slot past the end, for proc_run (the vector still owns its items). */
static void null_terminate(strvec *v)
{
    VEC_RESERVE(v, 1);
    v->items[v->len] = NULL;
}

static void expanded_free(strvec *ex)
{
    strvec_free(&ex[0]);
    strvec_free(&ex[1]);
}

int verify_run_suite(json_t **out, const verify_config *c, const verify_suite *s,
                     const verify_run_opts *o)
{
    *out = NULL;
    strvec py = STRVEC_INIT, ex[2] = {STRVEC_INIT, STRVEC_INIT};
    strbuf junit = STRBUF_INIT, cwd = STRBUF_INIT;
    strbuf_addf(&junit, "%s/%s.xml", o->out_dir, s->name);
    python_argv(&py, c, o);
    int rc = expand_argv(ex, s, junit.buf, &py);
    strvec_free(&py);
    if (rc < 0) {
        expanded_free(ex);
        strbuf_free(&junit);
        return rc;
    }
    json_t *res_json = suite_json(s, &ex[0], "not-run", NULL);
    fs_join(&cwd, o->root, s->cwd ? s->cwd : ".");
    if (s->gpu && !o->gpu) {
        not_run(res_json, "needs a GPU and this machine shows none");
    } else if (!fs_is_dir(cwd.buf)) {
        not_run(res_json, "its working directory %s does not exist", s->cwd ? s->cwd : ".");
    } else {
        null_terminate(&ex[0]);
        null_terminate(&ex[1]);
        proc_opts po;
        memset(&po, 0, sizeof(po));
        po.argv = (const char *const *)ex[0].items;
        po.cwd = cwd.buf;
        po.env = (const char *const *)ex[1].items;
        po.timeout_ms = s->timeout_s * 1000;
        po.max_output = VERIFY_MAX_OUTPUT;
        unlink(junit.buf);
        proc_result res;
        int prc = proc_run(&po, &res);
        judge(res_json, prc, &res, junit.buf, s->timeout_s);
        if (strcmp(json_string_value(json_object_get(res_json, "status")), "passed"))
            json_object_set_new(res_json, "output_tail", tail_of(&res));
        proc_result_free(&res);
        pgci_error_clear();
    }
    expanded_free(ex);
    strbuf_free(&junit);
    strbuf_free(&cwd);
    *out = res_json;
    return 0;
}
