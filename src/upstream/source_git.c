/*
 * The git source: a local clone read through libgit2, never a `git` process.
 *
 * A module is the blob at refs/tags/<tag>:src/<path> (the transformers repository
 * layout), else at refs/tags/<tag>:<path> (a repository laid out like
 * site-packages). The two failures people meet are told apart: a tag the clone
 * does not have (fetch it, or pass --git-fetch) and a path the tag does not have
 * (the module moved or was renamed upstream).
 */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/proc.h"
#include "core/version.h"
#include "upstream/git_api.h"
#include "upstream/source.h"

struct git_src {
    const git_api *api;
    git_repository *repo;
    char *path;
};

/* libgit2 1.5 (Debian 12) does not free the PCRE2 match data it creates while
 * matching refspecs in git_remote_fetch(); LeakSanitizer would fail every ASan run
 * that uses --git-fetch on a leak that is not ours. This hook is read only by ASan
 * builds and suppresses leaks allocated inside libpcre2, nothing else. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libpcre2-8.so\n";
}

typedef struct fetch_call {
    const git_api *api;
    git_remote *remote;
} fetch_call;

/* In the child process of proc_call: the fetch itself. */
static int fetch_in_child(void *arg, strbuf *why)
{
    fetch_call *c = arg;
    const git_api *G = c->api;
    char *refspec = "+refs/tags/*:refs/tags/*";
    git_strarray specs = {&refspec, 1};
    git_fetch_options fo;
    G->fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
    fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
    if (G->remote_fetch(c->remote, &specs, &fo, "pgci: fetch tags") < 0) {
        strbuf_adds(why, git_api_why(G));
        return -1;
    }
    return 0;
}

/* libgit2 1.5 has no timeout for a server that accepts the connection and never
 * answers (GIT_OPT_SET_SERVER_TIMEOUT came in 1.7), and its progress callbacks
 * fire only while data flows: the fetch runs in a child process that pgci kills
 * at the deadline. The child writes the refs and objects to disk; the repository
 * is opened again afterwards so that nothing cached before the fetch hides them. */
static int fetch_tags(git_src *g, long timeout_ms)
{
    const git_api *G = g->api;
    git_remote *remote = NULL;
    if (G->remote_lookup(&remote, g->repo, "origin") < 0)
        return pgci_error_set(PGCI_ENET, "cannot fetch tags into %s: no remote 'origin': %s",
                              g->path, git_api_why(G));
    const char *url = G->remote_url(remote) ? G->remote_url(remote) : "origin";
    fetch_call c = {G, remote};
    strbuf why = STRBUF_INIT;
    int r = proc_call(fetch_in_child, &c, timeout_ms, &why);
    if (r == PGCI_ELIMIT && timeout_ms % 1000 == 0)
        r = pgci_error_set(PGCI_ENET,
                           "cannot fetch tags from %s into %s: no answer within %ld s "
                           "(--timeout)",
                           url, g->path, timeout_ms / 1000);
    else if (r == PGCI_ELIMIT)
        r = pgci_error_set(PGCI_ENET,
                           "cannot fetch tags from %s into %s: no answer within %ld ms (--timeout)",
                           url, g->path, timeout_ms);
    else if (r < 0)
        r = pgci_error_set(PGCI_ENET, "cannot fetch tags from %s into %s: %s", url, g->path,
                           pgci_error_last());
    strbuf_free(&why);
    G->remote_free(remote);
    if (r < 0)
        return r;
    G->repository_free(g->repo);
    g->repo = NULL;
    if (G->repository_open_ext(&g->repo, g->path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
        return pgci_error_set(PGCI_EIO, "cannot open git repository %s after fetching: %s", g->path,
                              git_api_why(G));
    return 0;
}

int git_src_open(git_src **out, const char *repo_path, int want_fetch, long timeout_ms)
{
    const git_api *G = git_api_get();
    if (!G)
        return pgci_error_code();
    git_src *g = pgci_calloc(1, sizeof(*g));
    g->api = G;
    g->path = pgci_strdup(repo_path);
    if (G->repository_open_ext(&g->repo, repo_path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
        int r = pgci_error_set(PGCI_ENOTFOUND, "cannot open git repository %s: %s", repo_path,
                               git_api_why(G));
        git_src_free(g);
        return r;
    }
    if (want_fetch) {
        int r = fetch_tags(g, timeout_ms);
        if (r < 0) {
            git_src_free(g);
            return r;
        }
    }
    *out = g;
    return 0;
}

void git_src_free(git_src *g)
{
    if (!g)
        return;
    g->api->repository_free(g->repo);
    free(g->path);
    free(g);
}

/* The tree of the commit a tag points at (peeling annotated tags). */
static int tag_tree(git_src *g, const char *tag, git_tree **tree)
{
    const git_api *G = g->api;
    /* the ref first: "no such tag" and "a tag whose objects are gone or damaged"
     * need different advice */
    strbuf ref = STRBUF_INIT;
    strbuf_addf(&ref, "refs/tags/%s", tag);
    git_reference *rf = NULL;
    int r = G->reference_lookup(&rf, g->repo, ref.buf);
    if (r == GIT_ENOTFOUND) {
        strbuf_free(&ref);
        return pgci_error_set(PGCI_ENOTFOUND,
                              "no tag %s in the clone (fetch it, or use --git-fetch)", tag);
    }
    if (r < 0) {
        strbuf_free(&ref);
        return pgci_error_set(PGCI_EIO, "cannot read tag %s: %s", tag, git_api_why(G));
    }
    git_object *obj = NULL;
    r = G->reference_peel(&obj, rf, GIT_OBJECT_TREE);
    G->reference_free(rf);
    strbuf_free(&ref);
    if (r < 0)
        return pgci_error_set(PGCI_EIO,
                              "tag %s is there but its commit cannot be read (a corrupt or "
                              "shallow repository?): %s",
                              tag, git_api_why(G));
    *tree = (git_tree *)obj;
    return 0;
}

int git_src_read(git_src *g, const char *tag, const char *path, size_t max_bytes, strbuf *out,
                 strbuf *where)
{
    const git_api *G = g->api;
    strbuf_addf(where, "git repository %s (refs/tags/%s:src/%s)", g->path, tag, path);
    git_tree *tree = NULL;
    int r = tag_tree(g, tag, &tree);
    if (r < 0)
        return r;
    strbuf src_path = STRBUF_INIT;
    strbuf_addf(&src_path, "src/%s", path);
    git_tree_entry *entry = NULL;
    int gr = G->tree_entry_bypath(&entry, tree, src_path.buf);
    if (gr == GIT_ENOTFOUND)
        gr = G->tree_entry_bypath(&entry, tree, path);
    strbuf_free(&src_path);
    if (gr == GIT_ENOTFOUND) {
        r = pgci_error_set(PGCI_ENOTFOUND, "tag %s has neither src/%s nor %s", tag, path, path);
        goto out;
    }
    if (gr < 0) {
        r = pgci_error_set(PGCI_EIO, "cannot read the tree of tag %s: %s", tag, git_api_why(G));
        goto out;
    }
    if (G->tree_entry_type(entry) != GIT_OBJECT_BLOB) {
        r = pgci_error_set(PGCI_EINVALID, "%s at tag %s is not a file", path, tag);
        goto out;
    }
    /* a symlink's blob is its target's name ("impl.py"), which may even parse */
    if (G->tree_entry_filemode(entry) == GIT_FILEMODE_LINK) {
        r = pgci_error_set(PGCI_EINVALID, "%s is a symlink in the tree at %s", path, tag);
        goto out;
    }
    git_blob *blob = NULL;
    if (G->blob_lookup(&blob, g->repo, G->tree_entry_id(entry)) < 0) {
        r = pgci_error_set(PGCI_EIO, "cannot read the blob of %s at tag %s: %s", path, tag,
                           git_api_why(G));
        goto out;
    }
    git_object_size_t size = G->blob_rawsize(blob);
    if (size > max_bytes)
        r = pgci_error_set(PGCI_ELIMIT, "the file is over the %zu-byte size cap (%llu bytes)",
                           max_bytes, (unsigned long long)size);
    else
        strbuf_add(out, G->blob_rawcontent(blob), (size_t)size);
    G->blob_free(blob);
out:
    G->tree_entry_free(entry);
    G->tree_free(tree);
    return r;
}

int git_src_tags(git_src *g, strvec *out)
{
    const git_api *G = g->api;
    git_strarray tags = {0};
    if (G->tag_list(&tags, g->repo) < 0)
        return pgci_error_set(PGCI_EIO, "cannot list the tags of %s: %s", g->path, git_api_why(G));
    size_t start = out->len;
    for (size_t i = 0; i < tags.count; i++)
        strvec_push(out, tags.strings[i]);
    G->strarray_dispose(&tags);
    version_sort(out->items + start, out->len - start);
    return 0;
}

/* The tags a remote advertises (`git ls-remote --tags`), through libgit2's
 * transports, without a clone. Peeled entries ("v1.0^{}") are the same tag. */
int git_remote_tags(const char *url, strvec *out)
{
    const git_api *G = git_api_get();
    if (!G)
        return pgci_error_code();
    git_remote *remote = NULL;
    if (G->remote_create_detached(&remote, url) < 0)
        return pgci_error_set(PGCI_EUSAGE, "cannot list the tags of %s: %s", url, git_api_why(G));
    git_remote_callbacks cb;
    G->remote_init_callbacks(&cb, GIT_REMOTE_CALLBACKS_VERSION);
    int r = 0;
    if (G->remote_connect(remote, GIT_DIRECTION_FETCH, &cb, NULL, NULL) < 0) {
        r = pgci_error_set(PGCI_ENET, "cannot list the tags of %s: %s", url, git_api_why(G));
        G->remote_free(remote);
        return r;
    }
    const git_remote_head **heads = NULL;
    size_t n = 0;
    if (G->remote_ls(&heads, &n, remote) < 0) {
        r = pgci_error_set(PGCI_ENET, "cannot list the tags of %s: %s", url, git_api_why(G));
    } else {
        size_t start = out->len;
        static const char prefix[] = "refs/tags/";
        for (size_t i = 0; i < n; i++) {
            const char *name = heads[i]->name;
            if (strncmp(name, prefix, sizeof(prefix) - 1))
                continue;
            name += sizeof(prefix) - 1;
            size_t len = strlen(name);
            if (len >= 3 && !strcmp(name + len - 3, "^{}"))
                continue;
            strvec_push(out, name);
        }
        version_sort(out->items + start, out->len - start);
    }
    G->remote_disconnect(remote);
    G->remote_free(remote);
    return r;
}
