/*
 * verify_workspace(): the whole of `pgci verify` below the command line, shared
 * with `pgci survey --verify`: read the suites, make the tree they run in, run
 * them one after the other (suites share the machine's GPU), collect results.
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"
#include "verify/verify.h"

typedef VEC(const verify_suite *) suite_list;

static int select_suites(const verify_config *c, const strvec *names, suite_list *out)
{
    if (!c->suites.len)
        return pgci_error_set(PGCI_ENOTFOUND,
                              "no [tool.pgci.verify] suites in the workspace's pyproject.toml "
                              "(see docs/verify.md)");
    for (size_t i = 0; (!names || !names->len) && i < c->suites.len; i++)
        VEC_PUSH(out, &c->suites.items[i]);
    for (size_t i = 0; names && i < names->len; i++) {
        const verify_suite *s = verify_config_find(c, names->items[i]);
        if (!s) {
            strbuf known = STRBUF_INIT;
            for (size_t k = 0; k < c->suites.len; k++)
                strbuf_addf(&known, "%s%s", k ? ", " : "", c->suites.items[k].name);
            pgci_error_set(PGCI_EUSAGE, "no suite '%s' in [tool.pgci.verify] (known: %s)",
                           names->items[i], known.buf);
            strbuf_free(&known);
            return PGCI_EUSAGE;
        }
        VEC_PUSH(out, s);
    }
    return 0;
}

static json_t *header(const workspace *ws, const verify_opts *o, const verify_config *c)
{
    json_t *v = json_object();
    char *pin_tag = workspace_pin_tag(ws);
    const char *tag = o->tag ? o->tag : pin_tag;
    json_object_set_new(v, "tag", tag ? json_string(tag) : json_null());
    json_object_set_new(v, "tree", json_string(o->tag ? "scratch" : "checked-in"));
    strbuf py = STRBUF_INIT;
    if (o->python)
        strbuf_adds(&py, o->python);
    for (size_t i = 0; !o->python && i < c->python.len; i++)
        strbuf_addf(&py, "%s%s", i ? " " : "", c->python.items[i]);
    json_object_set_new(v, "python", py.len ? json_string(py.buf) : json_null());
    strbuf_free(&py);
    free(pin_tag);
    return v;
}

static int run_all(json_t *v, const verify_config *c, const suite_list *sel, const char *root,
                   const workspace *ws, const verify_opts *o)
{
    strbuf junit = STRBUF_INIT;
    int rc = fs_mkdtemp(&junit, "pgci-junit");
    verify_run_opts ro;
    memset(&ro, 0, sizeof(ro));
    ro.root = root;
    ro.ws_root = ws->root;
    ro.python = o->python;
    ro.out_dir = junit.buf;
    ro.gpu = o->gpu < 0 ? verify_have_gpu() : o->gpu;
    json_object_set_new(v, "gpu", json_boolean(ro.gpu));
    json_t *suites = json_array();
    json_object_set_new(v, "suites", suites);
    for (size_t i = 0; rc == 0 && i < sel->len; i++) {
        json_t *s = NULL;
        rc = verify_run_suite(&s, c, sel->items[i], &ro);
        if (s)
            json_array_append_new(suites, s);
    }
    if (junit.len)
        fs_remove_tree(junit.buf);
    strbuf_free(&junit);
    return rc;
}

int verify_workspace(json_t **out, const workspace *ws, const verify_opts *o)
{
    *out = NULL;
    verify_config c;
    if (verify_config_read(&c, ws) < 0)
        return PGCI_EINVALID;
    suite_list sel = VEC_INIT;
    int rc = select_suites(&c, o->only, &sel);
    json_t *v = rc == 0 ? header(ws, o, &c) : NULL;
    verify_tree t;
    memset(&t, 0, sizeof(t));
    if (rc == 0 && o->tag) {
        verify_tree_opts to = o->tree;
        to.tag = o->tag;
        rc = verify_tree_build(&t, ws, &to);
        if (rc == 0) {
            json_object_set_new(v, "copy", json_string(t.how));
            json_object_set(v, "regen", t.regen);
            if (o->keep)
                json_object_set_new(v, "scratch", json_string(t.root));
        }
    }
    if (rc == 0)
        rc = run_all(v, &c, &sel, o->tag ? t.root : ws->root, ws, o);
    if (o->keep && t.dir) {
        free(t.dir); /* the caller asked to keep it: verify_tree_free removes t.dir */
        t.dir = NULL;
    }
    if (t.regen)
        verify_tree_free(&t);
    if (rc < 0)
        json_decref(v);
    else
        *out = v;
    VEC_FREE(&sel);
    verify_config_free(&c);
    return rc;
}
