/*
 * [tool.pgci.verify]: one table per suite. Everything is checked here, once, so
 * that running a suite never meets a bad value: the argument vector, that it
 * names {junit} (pgci reads results from the XML, never from the exit status
 * alone), a working directory that stays inside the tree, environment strings, a
 * positive timeout.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "verify/verify.h"

static int bad(const workspace *ws, const toml_value *v, const char *suite, const char *key,
               const char *want)
{
    return pgci_error_set(PGCI_EINVALID, "%s:%u: [tool.pgci.verify]%s%s%s%s must be %s",
                          ws->pyproject_name ? ws->pyproject_name : "pyproject.toml", v->line,
                          *suite ? " " : "", suite, key ? "." : "", key ? key : "", want);
}

static int valid_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *s))
            return 0;
    return 1;
}

static int read_argv(const workspace *ws, verify_suite *s, const toml_value *v)
{
    if (v->type != TOML_ARRAY || !v->items.len)
        return bad(ws, v, s->name, "argv", "a non-empty array of strings");
    int junit = 0;
    for (size_t i = 0; i < v->items.len; i++) {
        const toml_value *a = v->items.items[i];
        if (a->type != TOML_STRING)
            return bad(ws, a, s->name, "argv", "a non-empty array of strings");
        junit |= strstr(a->str, "{junit}") != NULL;
        strvec_push(&s->argv, a->str);
    }
    if (!s->argv.items[0][0])
        return bad(ws, v, s->name, "argv", "an array whose first string names a program");
    if (!junit)
        return bad(ws, v, s->name, "argv",
                   "an array naming {junit}, where the suite writes its JUnit XML (pytest: "
                   "\"--junitxml={junit}\")");
    return 0;
}

static int read_env(const workspace *ws, verify_suite *s, const toml_value *v)
{
    if (v->type != TOML_TABLE)
        return bad(ws, v, s->name, "env", "a table of NAME = \"value\"");
    for (size_t i = 0; i < v->entries.len; i++) {
        const char *k = v->entries.items[i].key;
        const toml_value *val = v->entries.items[i].value;
        if (!*k || strchr(k, '=') || val->type != TOML_STRING)
            return bad(ws, val, s->name, "env", "a table of NAME = \"value\" (NAME without '=')");
        strvec_push_owned(&s->env, pgci_asprintf("%s=%s", k, val->str));
    }
    return 0;
}

static int read_key(const workspace *ws, verify_suite *s, const char *key, const toml_value *v)
{
    if (!strcmp(key, "argv"))
        return read_argv(ws, s, v);
    if (!strcmp(key, "env"))
        return read_env(ws, s, v);
    if (!strcmp(key, "cwd")) {
        if (v->type != TOML_STRING)
            return bad(ws, v, s->name, key, "a directory relative to the workspace root");
        if (strcmp(v->str, ".") && fs_path_check(v->str, "cwd") < 0)
            return bad(ws, v, s->name, key, "a directory inside the workspace (no '..')");
        s->cwd = pgci_strdup(v->str);
        return 0;
    }
    if (!strcmp(key, "timeout")) {
        if (v->type != TOML_INTEGER || v->integer <= 0 || v->integer > 7 * 24 * 3600)
            return bad(ws, v, s->name, key, "a number of seconds (1 to 604800)");
        s->timeout_s = (int)v->integer;
        return 0;
    }
    if (!strcmp(key, "gpu")) {
        if (v->type != TOML_BOOL)
            return bad(ws, v, s->name, key, "true or false");
        s->gpu = v->boolean;
        return 0;
    }
    return pgci_error_set(PGCI_EINVALID,
                          "%s:%u: [tool.pgci.verify] %s has an unknown key '%s' (argv, cwd, env, "
                          "timeout, gpu)",
                          ws->pyproject_name ? ws->pyproject_name : "pyproject.toml", v->line,
                          s->name, key);
}

static int read_suite(const workspace *ws, verify_config *c, const char *name, const toml_value *t)
{
    if (!valid_name(name))
        return bad(ws, t, name, NULL, "a name of letters, digits, '_', '.' and '-'");
    if (t->type != TOML_TABLE)
        return bad(ws, t, name, NULL, "a table (argv = [...], cwd, env, timeout, gpu)");
    verify_suite s;
    memset(&s, 0, sizeof(s));
    s.name = pgci_strdup(name);
    s.timeout_s = VERIFY_DEFAULT_TIMEOUT_S;
    s.line = t->line;
    VEC_PUSH(&c->suites, s);
    verify_suite *sp = &c->suites.items[c->suites.len - 1];
    for (size_t i = 0; i < t->entries.len; i++) {
        int rc = read_key(ws, sp, t->entries.items[i].key, t->entries.items[i].value);
        if (rc < 0)
            return rc;
    }
    if (!sp->argv.len)
        return bad(ws, t, name, "argv", "set: the command that runs the suite");
    return 0;
}

static int read_python(const workspace *ws, verify_config *c)
{
    const toml_value *py = toml_get(ws->pgci, "python");
    if (!py)
        return 0;
    if (py->type == TOML_STRING && py->str[0]) {
        strvec_push(&c->python, py->str);
        return 0;
    }
    if (py->type == TOML_ARRAY && py->items.len) {
        for (size_t i = 0; i < py->items.len; i++) {
            const toml_value *a = py->items.items[i];
            if (a->type != TOML_STRING || !a->str[0])
                break;
            strvec_push(&c->python, a->str);
        }
        if (c->python.len == py->items.len)
            return 0;
    }
    return pgci_error_set(PGCI_EINVALID,
                          "%s:%u: [tool.pgci] python must be a command (a string or a non-empty "
                          "array of strings)",
                          ws->pyproject_name ? ws->pyproject_name : "pyproject.toml", py->line);
}

int verify_config_read(verify_config *out, const workspace *ws)
{
    memset(out, 0, sizeof(*out));
    if (!ws->pgci)
        return 0;
    int rc = read_python(ws, out);
    const toml_value *v = toml_get(ws->pgci, "verify");
    if (rc == 0 && v && v->type != TOML_TABLE)
        rc = bad(ws, v, "", NULL, "a table of suites");
    for (size_t i = 0; rc == 0 && v && i < v->entries.len; i++)
        rc = read_suite(ws, out, v->entries.items[i].key, v->entries.items[i].value);
    if (rc < 0)
        verify_config_free(out);
    return rc;
}

const verify_suite *verify_config_find(const verify_config *c, const char *name)
{
    for (size_t i = 0; i < c->suites.len; i++)
        if (!strcmp(c->suites.items[i].name, name))
            return &c->suites.items[i];
    return NULL;
}

void verify_config_free(verify_config *c)
{
    for (size_t i = 0; i < c->suites.len; i++) {
        verify_suite *s = &c->suites.items[i];
        free(s->name);
        free(s->cwd);
        strvec_free(&s->argv);
        strvec_free(&s->env);
    }
    VEC_FREE(&c->suites);
    strvec_free(&c->python);
    memset(c, 0, sizeof(*c));
}
