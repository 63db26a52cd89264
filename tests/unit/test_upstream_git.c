/* Unit tests for the git source: throwaway repositories built here through libgit2
 * (annotated and lightweight tags, a src/ layout and a root layout), then read
 * through the upstream interface: found blobs, the root fallback, a missing tag, a
 * missing path, non-Python content, corrupt repositories, tag order, fetching
 * new tags from a clone's origin, and a fetch from an origin that never answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <git2.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "upstream/upstream.h"

#define LLAMA "transformers.models.llama.modeling_llama"

typedef struct file {
    const char *path;
    const char *text;
    size_t len; /* 0: strlen(text) */
} file;

/* Commits exactly `files` (replacing the index) on HEAD and tags the commit. */
static void commit_and_tag(git_repository *repo, const file *files, size_t n, const char *tag,
                           int annotated)
{
    git_index *idx;
    assert_int_equal(git_repository_index(&idx, repo), 0);
    assert_int_equal(git_index_clear(idx), 0);
    for (size_t i = 0; i < n; i++) {
        git_index_entry e;
        memset(&e, 0, sizeof(e));
        e.mode = GIT_FILEMODE_BLOB;
        e.path = files[i].path;
        size_t len = files[i].len ? files[i].len : strlen(files[i].text);
        assert_int_equal(git_index_add_from_buffer(idx, &e, files[i].text, len), 0);
    }
    git_oid tree_id, commit_id, tag_id;
    assert_int_equal(git_index_write_tree(&tree_id, idx), 0);
    assert_int_equal(git_index_write(idx), 0);
    git_tree *tree;
    assert_int_equal(git_tree_lookup(&tree, repo, &tree_id), 0);
    git_signature *sig;
    assert_int_equal(git_signature_new(&sig, "pgci test", "test@example.org", 1700000000, 0), 0);
    git_commit *parent = NULL;
    git_oid head;
    int has_parent = git_reference_name_to_id(&head, repo, "HEAD") == 0;
    if (has_parent)
        assert_int_equal(git_commit_lookup(&parent, repo, &head), 0);
    const git_commit *parents[1] = {parent};
    assert_int_equal(git_commit_create(&commit_id, repo, "HEAD", sig, sig, NULL, tag, tree,
                                       has_parent ? 1 : 0, parents),
                     0);
    git_object *target;
    assert_int_equal(git_object_lookup(&target, repo, &commit_id, GIT_OBJECT_COMMIT), 0);
    if (annotated)
        assert_int_equal(git_tag_create(&tag_id, repo, tag, target, sig, "release", 0), 0);
    else
        assert_int_equal(git_tag_create_lightweight(&tag_id, repo, tag, target, 0), 0);
    git_object_free(target);
    git_commit_free(parent);
    git_signature_free(sig);
    git_tree_free(tree);
    git_index_free(idx);
}

typedef struct fixture {
    strbuf root;
    strbuf repo;
} fixture;

static int setup(void **state)
{
    git_libgit2_init();
    fixture *f = calloc(1, sizeof(*f));
    strbuf_init(&f->root, 0);
    strbuf_init(&f->repo, 0);
    assert_int_equal(fs_mkdtemp(&f->root, "pgci-git"), 0);
    strbuf_addf(&f->repo, "%s/origin", f->root.buf);
    git_repository *repo;
    assert_int_equal(git_repository_init(&repo, f->repo.buf, 0), 0);
    const file v1[] = {
        {"src/transformers/models/llama/modeling_llama.py", "A = 1\n", 0},
        {"README.md", "readme\n", 0},
    };
    commit_and_tag(repo, v1, 2, "v5.9.0", 1);
    const file v2[] = {
        {"src/transformers/models/llama/modeling_llama.py", "A = 2\n", 0},
        {"transformers/models/qwen/modeling_qwen.py", "Q = 1\n", 0},
        {"src/transformers/models/blob/modeling_blob.py", "x\0y\1", 4},
        {"src/transformers/models/page/modeling_page.py", "<html><body>hi</body></html>", 0},
    };
    commit_and_tag(repo, v2, 4, "v5.10.0", 0);
    const file v0[] = {{"src/transformers/models/llama/modeling_llama.py", "A = 0\n", 0}};
    commit_and_tag(repo, v0, 1, "v5.2.0", 1);
    git_repository_free(repo);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    fs_remove_tree(f->root.buf);
    strbuf_free(&f->root);
    strbuf_free(&f->repo);
    free(f);
    git_libgit2_shutdown();
    return 0;
}

static upstream *open_git(const char *path, int git_fetch)
{
    strbuf spec = STRBUF_INIT;
    strbuf_addf(&spec, "git:%s", path);
    upstream_opts o = {.spec = spec.buf, .git_fetch = git_fetch};
    upstream *u = NULL;
    int r = upstream_open(&u, &o);
    strbuf_free(&spec);
    return r == 0 ? u : NULL;
}

static void test_found_and_fallback(void **state)
{
    fixture *f = *state;
    upstream *u = open_git(f->repo.buf, 0);
    assert_non_null(u);
    strbuf out = STRBUF_INIT;
    assert_int_equal(upstream_fetch(u, "v5.9.0", LLAMA, &out), 0);
    assert_string_equal(out.buf, "A = 1\n");
    strbuf_reset(&out);
    assert_int_equal(upstream_fetch(u, "v5.10.0", LLAMA, &out), 0);
    assert_string_equal(out.buf, "A = 2\n");
    strbuf_reset(&out);
    /* no src/ at this path: the root layout */
    assert_int_equal(upstream_fetch(u, "v5.10.0", "transformers.models.qwen.modeling_qwen", &out),
                     0);
    assert_string_equal(out.buf, "Q = 1\n");
    strbuf_reset(&out);
    upstream_stats st;
    upstream_get_stats(u, &st);
    assert_int_equal(st.fetched, 3);
    assert_int_equal(st.requests, 0);
    upstream_free(u);
    strbuf_free(&out);
}

static void test_missing_tag_and_path(void **state)
{
    fixture *f = *state;
    upstream *u = open_git(f->repo.buf, 0);
    assert_non_null(u);
    strbuf out = STRBUF_INIT, want = STRBUF_INIT;
    assert_int_equal(upstream_fetch(u, "v9.9.9", LLAMA, &out), PGCI_ENOTFOUND);
    strbuf_addf(&want,
                "cannot fetch transformers@v9.9.9 src/transformers/models/llama/modeling_llama.py "
                "from git repository %s (refs/tags/v9.9.9:src/transformers/models/llama/"
                "modeling_llama.py): no tag v9.9.9 in the clone (fetch it, or use --git-fetch)",
                f->repo.buf);
    assert_string_equal(pgci_error_last(), want.buf);
    assert_int_equal(upstream_fetch(u, "v5.9.0", "transformers.models.qwen.modeling_qwen", &out),
                     PGCI_ENOTFOUND);
    assert_non_null(strstr(pgci_error_last(),
                           ": tag v5.9.0 has neither src/transformers/models/qwen/modeling_qwen.py "
                           "nor transformers/models/qwen/modeling_qwen.py"));
    /* a directory is not a module */
    assert_int_equal(upstream_fetch(u, "v5.9.0", "transformers.models", &out), PGCI_ENOTFOUND);
    assert_int_equal(out.len, 0);
    upstream_free(u);
    strbuf_free(&out);
    strbuf_free(&want);
}

static void test_not_python(void **state)
{
    fixture *f = *state;
    upstream *u = open_git(f->repo.buf, 0);
    strbuf out = STRBUF_INIT;
    assert_int_equal(upstream_fetch(u, "v5.10.0", "transformers.models.blob.modeling_blob", &out),
                     PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "modeling_blob.py is binary data"));
    assert_int_equal(upstream_fetch(u, "v5.10.0", "transformers.models.page.modeling_page", &out),
                     PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "modeling_page.py is an HTML page, not Python"));
    assert_int_equal(out.len, 0);
    upstream_free(u);
    strbuf_free(&out);
}

static void test_list_tags(void **state)
{
    fixture *f = *state;
    upstream *u = open_git(f->repo.buf, 0);
    strvec tags = STRVEC_INIT;
    assert_int_equal(upstream_list_tags(u, &tags), 0);
    assert_int_equal(tags.len, 3);
    assert_string_equal(tags.items[0], "v5.2.0");
    assert_string_equal(tags.items[1], "v5.9.0");
    assert_string_equal(tags.items[2], "v5.10.0");
    strvec_free(&tags);
    upstream_free(u);
}

/* The tags a remote advertises, without a clone: the annotated tags' peeled
 * "^{}" entries are not extra tags. */
static void test_remote_tags(void **state)
{
    fixture *f = *state;
    strbuf url = STRBUF_INIT;
    strbuf_addf(&url, "file://%s", f->repo.buf);
    strvec tags = STRVEC_INIT;
    assert_int_equal(upstream_remote_tags(url.buf, &tags), 0);
    assert_int_equal(tags.len, 3);
    assert_string_equal(tags.items[0], "v5.2.0");
    assert_string_equal(tags.items[1], "v5.9.0");
    assert_string_equal(tags.items[2], "v5.10.0");
    strvec_free(&tags);

    strbuf_reset(&url);
    strbuf_addf(&url, "file://%s/nothing-here", f->root.buf);
    assert_true(upstream_remote_tags(url.buf, &tags) < 0);
    assert_non_null(strstr(pgci_error_last(), "nothing-here"));
    assert_int_equal(tags.len, 0);
    pgci_error_clear();
    strbuf_free(&url);
}

static void expect_repo(const char *tmpl, const char *want)
{
    char *got = upstream_repo_url(tmpl);
    if (!want) {
        if (got)
            fail_msg("%s: expected no repository, got %s", tmpl, got);
        return;
    }
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_repo_url(void **state)
{
    (void)state;
    expect_repo("https://github.com/huggingface/transformers/raw/{tag}/src/{path}",
                "https://github.com/huggingface/transformers.git");
    expect_repo("https://raw.githubusercontent.com/huggingface/transformers/{tag}/src/{path}",
                "https://github.com/huggingface/transformers.git");
    expect_repo("https://gitlab.example.org/ml/transformers/-/raw/{tag}/src/{path}",
                "https://gitlab.example.org/ml/transformers.git");
    expect_repo("https://mirror.example.org/pkgs/{tag}/{path}", NULL);
    expect_repo("https://raw.githubusercontent.com/huggingface/{tag}/{path}", NULL);
    expect_repo("https://example.org/raw/{tag}/{path}", NULL);
    expect_repo("https://github.com/huggingface/transformers/raw/main/src/{path}", NULL);
    /* a placeholder before the tag's segment: no fixed repository (found by
     * fuzz_versions) */
    expect_repo("https://raw.g{tag}.example.com/o/r/-/raw/{tag}/{path}", NULL);
    expect_repo("https://{path}.example.com/o/r/raw/{tag}/x", NULL);
    expect_repo("https://raw.githubusercontent.com/{tag}/{path}", NULL);
}

static void test_corrupt(void **state)
{
    fixture *f = *state;
    /* a .git whose HEAD and config are garbage: not a repository */
    strbuf bad = STRBUF_INIT, p = STRBUF_INIT;
    strbuf_addf(&bad, "%s/broken", f->root.buf);
    strbuf_addf(&p, "%s/.git/objects", bad.buf);
    assert_int_equal(fs_mkdirs(p.buf), 0);
    strbuf_reset(&p);
    strbuf_addf(&p, "%s/.git/HEAD", bad.buf);
    assert_int_equal(fs_write_atomic(p.buf, "garbage", 7), 0);
    assert_null(open_git(bad.buf, 0));
    assert_true(pgci_starts_with(pgci_error_last(), "cannot open git repository"));

    /* a clone whose blob object is damaged: found tag, unreadable file */
    git_repository *repo;
    strbuf copy = STRBUF_INIT;
    strbuf_addf(&copy, "%s/damaged", f->root.buf);
    git_clone_options co;
    git_clone_options_init(&co, GIT_CLONE_OPTIONS_VERSION);
    co.bare = 1;
    co.local = GIT_CLONE_NO_LOCAL; /* loose objects we can damage, not hard links */
    assert_int_equal(git_clone(&repo, f->repo.buf, copy.buf, &co), 0);
    git_repository_free(repo);
    /* a fresh clone has its objects in a pack: damage the pack and its index */
    strvec packs = STRVEC_INIT;
    strbuf_reset(&p);
    strbuf_addf(&p, "%s/objects/pack", copy.buf);
    assert_int_equal(fs_list_dir(&packs, p.buf), 0);
    assert_true(packs.len > 0);
    for (size_t i = 0; i < packs.len; i++) {
        strbuf q = STRBUF_INIT;
        strbuf_addf(&q, "%s/%s", p.buf, packs.items[i]);
        assert_int_equal(fs_write_atomic(q.buf, "PACK\0\0\0\2garbage", 15), 0);
        strbuf_free(&q);
    }
    strvec_free(&packs);
    upstream *u = open_git(copy.buf, 0);
    strbuf out = STRBUF_INIT;
    int r = u ? upstream_fetch(u, "v5.9.0", LLAMA, &out) : pgci_error_code();
    assert_true(r < 0);
    assert_int_equal(out.len, 0);
    assert_non_null(strstr(pgci_error_last(), copy.buf));
    assert_non_null(strstr(pgci_error_last(), "tag v5.9.0 is there but its commit cannot be read"));
    upstream_free(u);
    strbuf_free(&out);
    strbuf_free(&copy);
    strbuf_free(&bad);
    strbuf_free(&p);
}

static void test_git_fetch_tags(void **state)
{
    fixture *f = *state;
    strbuf clone_path = STRBUF_INIT;
    strbuf_addf(&clone_path, "%s/clone", f->root.buf);
    git_repository *clone;
    assert_int_equal(git_clone(&clone, f->repo.buf, clone_path.buf, NULL), 0);
    git_repository_free(clone);
    /* upstream tags a new release after the clone was made */
    git_repository *origin;
    assert_int_equal(git_repository_open(&origin, f->repo.buf), 0);
    const file v3[] = {{"src/transformers/models/llama/modeling_llama.py", "A = 3\n", 0}};
    commit_and_tag(origin, v3, 1, "v6.0.0", 1);
    git_repository_free(origin);

    upstream *u = open_git(clone_path.buf, 0);
    strbuf out = STRBUF_INIT;
    assert_int_equal(upstream_fetch(u, "v6.0.0", LLAMA, &out), PGCI_ENOTFOUND);
    assert_non_null(strstr(pgci_error_last(), "use --git-fetch"));
    upstream_free(u);
    u = open_git(clone_path.buf, 1);
    assert_non_null(u);
    assert_int_equal(upstream_fetch(u, "v6.0.0", LLAMA, &out), 0);
    assert_string_equal(out.buf, "A = 3\n");
    strvec tags = STRVEC_INIT;
    assert_int_equal(upstream_list_tags(u, &tags), 0);
    assert_string_equal(tags.items[tags.len - 1], "v6.0.0");
    strvec_free(&tags);
    upstream_free(u);

    /* a repository without an origin cannot fetch, and says so */
    assert_null(open_git(f->repo.buf, 1));
    assert_non_null(strstr(pgci_error_last(), "no remote 'origin'"));
    strbuf_free(&out);
    strbuf_free(&clone_path);
}

/* A socket listening on 127.0.0.1 that never accepts: the kernel completes the
 * TCP handshake, the request goes into its buffer, and no byte ever comes back. */
static int silent_listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, len), 0);
    assert_int_equal(listen(fd, 8), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static void test_git_fetch_silent_origin(void **state)
{
    fixture *f = *state;
    strbuf clone_path = STRBUF_INIT, url = STRBUF_INIT;
    strbuf_addf(&clone_path, "%s/silent-clone", f->root.buf);
    git_repository *clone;
    assert_int_equal(git_clone(&clone, f->repo.buf, clone_path.buf, NULL), 0);
    int port = 0, fd = silent_listener(&port);
    strbuf_addf(&url, "http://127.0.0.1:%d/repo.git", port);
    assert_int_equal(git_remote_set_url(clone, "origin", url.buf), 0);
    git_repository_free(clone);

    /* libgit2 1.5 has no timeout of its own: without pgci's, this waits forever
     * (the alarm ends the test as a failure instead) */
    alarm(30);
    strbuf spec = STRBUF_INIT;
    strbuf_addf(&spec, "git:%s", clone_path.buf);
    upstream_opts o = {.spec = spec.buf, .git_fetch = 1, .total_timeout_ms = 1000};
    upstream *u = NULL;
    assert_int_equal(upstream_open(&u, &o), PGCI_ENET);
    alarm(0);
    assert_null(u);
    strbuf want = STRBUF_INIT;
    strbuf_addf(&want, "cannot fetch tags from %s into %s: no answer within 1 s (--timeout)",
                url.buf, clone_path.buf);
    assert_string_equal(pgci_error_last(), want.buf);
    close(fd);
    strbuf_free(&want);
    strbuf_free(&spec);
    strbuf_free(&url);
    strbuf_free(&clone_path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_found_and_fallback),
        cmocka_unit_test(test_missing_tag_and_path),
        cmocka_unit_test(test_not_python),
        cmocka_unit_test(test_list_tags),
        cmocka_unit_test(test_remote_tags),
        cmocka_unit_test(test_repo_url),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_git_fetch_tags),
        cmocka_unit_test(test_git_fetch_silent_origin),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
