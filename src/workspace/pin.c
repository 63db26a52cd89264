/*
 * The transformers pin: "transformers==X.Y.Z" in a dependency array.
 *
 * Workspaces pin transformers in different places: [project] dependencies, an
 * extra in optional-dependencies, a PEP 735 [dependency-groups] group (VeOmni's
 * "transformers-stable"), or a tool's list such as [tool.uv] constraint-dependencies.
 * Rather than enumerate them, every array under a key whose name contains
 * "dependencies" or "dependency-groups" is searched; comments never count (VeOmni's
 * pyproject mentions "pip install transformers==5.9.0" in one). Each string is read
 * as a PEP 508 requirement; only an exact "==" version is a pin.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/strbuf.h"
#include "workspace/workspace.h"

typedef struct pin_search {
    const char *name; /* for messages */
    char *pin;
    char *where;
    int err;
} pin_search;

static int is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* The version of "transformers[extras] == X ; marker", or NULL when the requirement
 * is not an exact pin of transformers. */
static char *requirement_pin(const char *req)
{
    const char *s = req;
    while (is_space(*s))
        s++;
    /* PEP 503 normalised name: compare case-insensitively; "transformers" has no
     * '-', '_' or '.' to fold. */
    const char *name = "transformers";
    size_t n = strlen(name);
    if (strncasecmp(s, name, n) != 0)
        return NULL;
    s += n;
    char c = *s;
    if (!(is_space(c) || c == '[' || c == '=' || c == '<' || c == '>' || c == '!' || c == '~' ||
          c == ';' || c == '(' || c == '@' || c == '\0'))
        return NULL; /* transformers-stream-generator, transformers_foo, ... */
    while (is_space(*s))
        s++;
    if (*s == '[') {
        const char *e = strchr(s, ']');
        if (!e)
            return NULL;
        s = e + 1;
    }
    while (is_space(*s))
        s++;
    if (*s == '(')
        s++;
    /* A comma-separated list of specifiers; the "==" one (not "===", not "==X.*") */
    while (*s && *s != ';' && *s != ')') {
        while (is_space(*s) || *s == ',')
            s++;
        if (!strncmp(s, "==", 2) && s[2] != '=') {
            s += 2;
            while (is_space(*s))
                s++;
            const char *v = s;
            while (*s && !is_space(*s) && *s != ',' && *s != ';' && *s != ')')
                s++;
            if (s == v || memchr(v, '*', (size_t)(s - v)))
                return NULL;
            return pgci_strndup(v, (size_t)(s - v));
        }
        while (*s && *s != ',' && *s != ';' && *s != ')')
            s++;
    }
    return NULL;
}

static int key_is_dependency_list(const char *key)
{
    return strstr(key, "dependencies") || strstr(key, "dependency-groups");
}

static void visit(pin_search *ps, const toml_value *v, strbuf *path, int in_deps)
{
    if (ps->err)
        return;
    if (v->type == TOML_TABLE) {
        for (size_t i = 0; i < v->entries.len; i++) {
            size_t keep = path->len;
            if (path->len)
                strbuf_addc(path, '.');
            strbuf_adds(path, v->entries.items[i].key);
            visit(ps, v->entries.items[i].value, path,
                  in_deps || key_is_dependency_list(v->entries.items[i].key));
            strbuf_setlen(path, keep);
        }
    } else if (v->type == TOML_ARRAY) {
        for (size_t i = 0; i < v->items.len; i++)
            visit(ps, v->items.items[i], path, in_deps);
    } else if (v->type == TOML_STRING && in_deps) {
        char *pin = requirement_pin(v->str);
        if (!pin)
            return;
        if (!ps->pin) {
            ps->pin = pin;
            ps->where = pgci_asprintf("%s (line %u)", path->buf, v->line);
        } else if (strcmp(ps->pin, pin) != 0) {
            char *msg = pgci_asprintf("transformers==%s conflicts with transformers==%s in %s; "
                                      "pgci needs one pin (or pass --tag)",
                                      pin, ps->pin, ps->where);
            for (char *c = msg; *c; c++) /* the versions are quoted from the file */
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                    *c = '?';
            ps->err = pgci_error_set(PGCI_EINVALID, "%s:%u: %s", ps->name, v->line, msg);
            free(msg);
            free(pin);
        } else {
            free(pin);
        }
    }
}

int workspace_find_pin(const toml_value *doc, const char *name, char **pin, char **where)
{
    pin_search ps = {name ? name : "pyproject.toml", NULL, NULL, 0};
    strbuf path = STRBUF_INIT;
    visit(&ps, doc, &path, 0);
    strbuf_free(&path);
    if (ps.err) {
        free(ps.pin);
        free(ps.where);
        return ps.err;
    }
    *pin = ps.pin;
    if (where)
        *where = ps.where;
    else
        free(ps.where);
    return 0;
}

char *workspace_pin_tag(const workspace *ws)
{
    if (!ws->pin)
        return NULL;
    return pgci_asprintf("%s%s", ws->pin[0] == 'v' ? "" : "v", ws->pin);
}

int workspace_no_tag_error(const workspace *ws, const char *fmt, ...)
{
    if (ws->pin_conflict)
        return pgci_error_set(PGCI_EINVALID, "%s", ws->pin_conflict);
    strbuf msg = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&msg, fmt, ap);
    va_end(ap);
    int r = pgci_error_set(PGCI_EUSAGE, "%s", msg.buf);
    strbuf_free(&msg);
    return r;
}
