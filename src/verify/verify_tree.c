/*
 * The scratch tree for `pgci verify --tag T`: the suites must run against the
 * files regenerated at T, and the workspace itself must not change (a maintainer
 * runs this on their own checkout; the nightly runs it on the default branch).
 *
 * Why a checkout and not a `git worktree add`: a linked worktree writes into the
 * repository (.git/worktrees, a branch or a detached HEAD entry), and the
 * workspace must be left byte for byte as it was. libgit2 checks the HEAD tree out
 * into a target directory without touching the index, then the working tree's
 * own changes (modified and untracked, not ignored files) are copied over it, so
 * the copy is what `git status` would call the tree, without build outputs and
 * virtual environments. The whole repository is copied, not only the workspace's
 * directory: a suite may use files beside it (a shared conftest, test data, the
 * demo's ../upstream). Outside a repository the workspace is copied as it is,
 * and then libgit2 is not needed: on a machine without it (pgci opens it on first
 * use, core/lazylib.h), a workspace with no `.git` in its directory or any above
 * is copied all the same; one inside a repository still needs it, and says so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "patchgen/regen.h"
#include "upstream/git_api.h"
#include "verify/verify.h"

static int copy_file(const char *src, const char *dst)
{
    struct stat st;
    if (lstat(src, &st) < 0)
        return pgci_error_set(PGCI_EIO, "cannot read %s: %s", src, strerror(errno));
    char *dir = fs_dirname(dst);
    int rc = fs_mkdirs(dir);
    free(dir);
    if (rc < 0)
        return rc;
    if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t n = readlink(src, target, sizeof(target) - 1);
        if (n < 0)
            return pgci_error_set(PGCI_EIO, "cannot read the link %s: %s", src, strerror(errno));
        target[n] = 0;
        unlink(dst);
        if (symlink(target, dst) < 0)
            return pgci_error_set(PGCI_EIO, "cannot create the link %s: %s", dst, strerror(errno));
        return 0;
    }
    strbuf data = STRBUF_INIT;
    rc = fs_read_file(&data, src, 0);
    if (rc == 0)
        rc = fs_write_atomic(dst, data.buf, data.len);
    if (rc == 0 && chmod(dst, st.st_mode & 07777) < 0)
        rc = pgci_error_set(PGCI_EIO, "cannot set the mode of %s: %s", dst, strerror(errno));
    strbuf_free(&data);
    return rc;
}

/* cp -a of a directory without a repository: files, directories, links. */
static int copy_tree(const char *src, const char *dst, int depth)
{
    if (depth > 64)
        return pgci_error_set(PGCI_ELIMIT, "%s: directories nested more than 64 deep", src);
    strvec names = STRVEC_INIT;
    int rc = fs_mkdirs(dst) < 0 ? PGCI_EIO : fs_list_dir(&names, src);
    strbuf s = STRBUF_INIT, d = STRBUF_INIT;
    for (size_t i = 0; rc == 0 && i < names.len; i++) {
        strbuf_reset(&s);
        strbuf_reset(&d);
        fs_join(&s, src, names.items[i]);
        fs_join(&d, dst, names.items[i]);
        struct stat st;
        if (lstat(s.buf, &st) < 0)
            continue; /* gone meanwhile */
        if (S_ISDIR(st.st_mode))
            rc = copy_tree(s.buf, d.buf, depth + 1);
        else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
            rc = copy_file(s.buf, d.buf);
    }
    strbuf_free(&s);
    strbuf_free(&d);
    strvec_free(&names);
    return rc;
}

static int git_fail(const git_api *G, const char *what)
{
    return pgci_error_set(PGCI_EIO, "%s: %s", what, git_api_why(G));
}

/* The working tree's changes (modified, added, untracked; deleted) over the
 * checkout in dst. */
static int overlay_status(const git_api *G, git_repository *repo, const char *workdir,
                          const char *dst)
{
    git_status_options so;
    G->status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
    so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
    git_status_list *list = NULL;
    if (G->status_list_new(&list, repo, &so) < 0)
        return git_fail(G, "cannot read the working tree's status");
    int rc = 0;
    strbuf s = STRBUF_INIT, d = STRBUF_INIT;
    for (size_t i = 0; rc == 0 && i < G->status_list_entrycount(list); i++) {
        const git_status_entry *e = G->status_byindex(list, i);
        const git_diff_delta *dd = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
        if (!dd || (e->status & GIT_STATUS_IGNORED))
            continue;
        const char *path = dd->new_file.path ? dd->new_file.path : dd->old_file.path;
        strbuf_reset(&s);
        strbuf_reset(&d);
        fs_join(&s, workdir, path);
        fs_join(&d, dst, path);
        struct stat st;
        if (lstat(s.buf, &st) < 0)
            unlink(d.buf); /* deleted in the working tree */
        else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
            rc = copy_file(s.buf, d.buf);
    }
    strbuf_free(&s);
    strbuf_free(&d);
    G->status_list_free(list);
    return rc;
}

/* HEAD's tree checked out into dst, plus the working tree's changes. */
static int git_copy(const git_api *G, git_repository *repo, const char *dst)
{
    git_object *head = NULL;
    if (G->revparse_single(&head, repo, "HEAD^{tree}") < 0)
        return git_fail(G, "cannot read HEAD");
    git_checkout_options co;
    G->checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
    co.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DONT_UPDATE_INDEX;
    co.target_directory = dst;
    int rc = G->checkout_tree(repo, head, &co) < 0 ? git_fail(G, "cannot check out HEAD") : 0;
    G->object_free(head);
    if (rc == 0)
        rc = overlay_status(G, repo, G->repository_workdir(repo), dst);
    return rc;
}

/* Whether dir or a directory above it has a `.git` (a directory, or the file of a
 * linked worktree or submodule): where libgit2's discovery could find a
 * repository, so a plain copy would not be what it does. */
static int maybe_in_repository(const char *dir)
{
    char *d = realpath(dir, NULL);
    if (!d)
        return 1; /* cannot tell: as if it were */
    int found = 0;
    strbuf p = STRBUF_INIT;
    for (;;) {
        strbuf_reset(&p);
        fs_join(&p, d, ".git");
        struct stat st;
        if (lstat(p.buf, &st) == 0) {
            found = 1;
            break;
        }
        char *slash = strrchr(d, '/');
        if (!slash || !strcmp(d, "/"))
            break;
        slash[slash == d] = '\0'; /* "/a" goes to "/", "/a/b" to "/a" */
    }
    strbuf_free(&p);
    free(d);
    return found;
}

/* The workspace copied as it is into t->dir/workspace. */
static int plain_copy(verify_tree *t, const workspace *ws)
{
    strbuf r = STRBUF_INIT;
    fs_join(&r, t->dir, "workspace");
    t->root = strbuf_detach(&r, NULL);
    t->how = pgci_strdup("copy");
    return copy_tree(ws->root, t->root, 0);
}

/* Copies the workspace into t->dir; t->root is the workspace root in it. */
static int make_copy(verify_tree *t, const workspace *ws)
{
    const git_api *G = git_api_get();
    if (!G) {
        if (maybe_in_repository(ws->root))
            return pgci_error_code(); /* libgit2's message: what, and why */
        pgci_error_clear();
        return plain_copy(t, ws);
    }
    git_repository *repo = NULL;
    int rc;
    if (G->repository_open_ext(&repo, ws->root, 0, NULL) == 0 && !G->repository_is_bare(repo)) {
        char *wd = realpath(G->repository_workdir(repo), NULL);
        char *root = realpath(ws->root, NULL);
        size_t n = wd ? strlen(wd) : 0;
        const char *rel = wd && root && !strncmp(root, wd, n) ? root + n : NULL;
        rel = rel && *rel == '/' ? rel + 1 : rel;
        if (!rel) {
            rc = pgci_error_set(PGCI_EIO, "cannot place %s inside its repository", ws->root);
        } else {
            strbuf r = STRBUF_INIT;
            fs_join(&r, t->dir, *rel ? rel : ".");
            t->root = strbuf_detach(&r, NULL);
            t->how = pgci_strdup("git");
            rc = git_copy(G, repo, t->dir);
        }
        free(wd);
        free(root);
    } else {
        rc = plain_copy(t, ws);
    }
    G->repository_free(repo);
    return rc;
}

static json_t *regen_entry(const char *config, const char *status, const char *message)
{
    json_t *o = json_object();
    json_object_set_new(o, "config", json_string(config));
    json_object_set_new(o, "status", json_string(status));
    json_object_set_new(o, "message", message ? json_string(message) : json_null());
    return o;
}

/* Writes one regenerated config into the copy: the .py, and the .diff when the
 * tree checks one in. A config that failed keeps its old files. */
static int write_output(verify_tree *t, const ws_config *c, const regen_output *r)
{
    if (r->status < 0) {
        /* the first line: ruff's whole listing is in pgci check and survey */
        const char *m = r->error ? r->error : "regeneration failed";
        char *line = pgci_strndup(m, strcspn(m, "\n"));
        t->n_failed++;
        json_array_append_new(t->regen, regen_entry(c->module, "failed", line));
        free(line);
        return 0;
    }
    strbuf py = STRBUF_INIT, df = STRBUF_INIT, old = STRBUF_INIT;
    int rc = fs_join_under(&py, t->root, r->py_path, "target_file");
    if (rc == 0)
        rc = fs_join_under(&df, t->root, r->diff_path, "target_file");
    int same = 0;
    if (rc == 0 && fs_is_file(py.buf) && fs_read_file(&old, py.buf, 0) == 0)
        same = old.len == r->py.len && !memcmp(old.buf, r->py.buf, old.len);
    if (rc == 0 && !same) {
        char *dir = fs_dirname(py.buf);
        rc = fs_mkdirs(dir);
        free(dir);
        if (rc == 0)
            rc = fs_write_atomic(py.buf, r->py.buf, r->py.len);
    }
    if (rc == 0 && fs_is_file(df.buf))
        rc = fs_write_atomic(df.buf, r->diff.buf, r->diff.len);
    if (rc == 0)
        json_array_append_new(t->regen,
                              regen_entry(c->module, same ? "unchanged" : "written", NULL));
    strbuf_free(&py);
    strbuf_free(&df);
    strbuf_free(&old);
    return rc;
}

static int regen_into(verify_tree *t, const workspace *ws, const verify_tree_opts *o)
{
    upstream *up = NULL;
    upstream_opts uo;
    memset(&uo, 0, sizeof(uo));
    /* a relative --source is the workspace's, as for check, regen and survey (ws is
     * the workspace itself, not the scratch copy) */
    uo.spec = o->source ? o->source : ws->upstream;
    uo.base_dir = ws->root;
    if (upstream_open(&up, &uo) < 0)
        return pgci_error_wrap(PGCI_EIO, "cannot regenerate at %s", o->tag);
    size_t n = ws->configs.len;
    const ws_config **cs = pgci_calloc(n ? n : 1, sizeof(*cs));
    for (size_t i = 0; i < n; i++)
        cs[i] = &ws->configs.items[i];
    regen_batch_opts bo;
    memset(&bo, 0, sizeof(bo));
    bo.base.tag = o->tag;
    bo.base.no_ruff = o->no_ruff;
    bo.base.ruff.ruff = o->ruff ? o->ruff : ws->ruff;
    bo.base.ruff.extra_ignore = &ws->ruff_extra_ignore;
    bo.base.ruff.isolated = ws->ruff_isolated;
    bo.base.ruff.cwd = ws->root;
    bo.var_name = o->var_name;
    bo.jobs = o->jobs;
    bo.up = up;
    regen_output *outs = pgci_calloc(n ? n : 1, sizeof(*outs));
    regen_workspace(ws, cs, n, &bo, outs);
    pgci_error_clear();
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (rc == 0)
            rc = write_output(t, cs[i], &outs[i]);
        regen_output_free(&outs[i]);
    }
    free(outs);
    free(cs);
    upstream_free(up);
    return rc;
}

int verify_tree_build(verify_tree *t, const workspace *ws, const verify_tree_opts *o)
{
    memset(t, 0, sizeof(*t));
    t->regen = json_array();
    strbuf dir = STRBUF_INIT;
    int rc = fs_mkdtemp(&dir, "pgci-verify");
    t->dir = strbuf_detach(&dir, NULL);
    if (rc == 0)
        rc = make_copy(t, ws);
    if (rc < 0)
        pgci_error_wrap(rc, "cannot copy the workspace %s for verification", ws->root);
    else
        rc = regen_into(t, ws, o);
    if (rc < 0)
        verify_tree_free(t);
    return rc;
}

void verify_tree_free(verify_tree *t)
{
    if (t->dir && *t->dir)
        fs_remove_tree(t->dir);
    free(t->dir);
    free(t->root);
    free(t->how);
    json_decref(t->regen);
    memset(t, 0, sizeof(*t));
}
