/*
 * verify.h - the workspace's own verification suites: [tool.pgci.verify].
 *
 * pgci's `logits` command proves pgci's kernels; what a maintainer needs after a
 * pin bump is that *their* patched models still agree with upstream. Workspaces
 * such as VeOmni already have that suite (bitwise logits of each patched model
 * against HuggingFace); pgci runs it, with the right generated files, and reads
 * its JUnit XML into run.json:
 *
 *     [tool.pgci.verify]
 *     logits = { argv = ["{python}", "-m", "pytest", "tests/models/test_x.py",
 *                        "--junitxml={junit}"], gpu = true, timeout = 3600 }
 *
 * A suite is an argument vector (never a shell) with the placeholders {junit}
 * (the XML file pgci reads afterwards) and {python} (--python, else
 * [tool.pgci] python), a working directory relative to the tree it runs in, extra
 * environment, a timeout, and whether it needs a GPU. Its outcome is "passed",
 * "failed" or "not-run" with the reason: crashed, timed out (its process group is
 * killed), wrote no XML, wrote malformed XML, listed no test case, needs a GPU on a
 * machine without one. A suite that did not run is never counted as passed.
 *
 * Implemented in verify_config.c (reading the table), verify_run.c (running one
 * suite), verify_tree.c (the scratch copy regenerated at another tag) and
 * junit.c (the XML). docs/verify.md describes it all.
 */
#ifndef PGCI_VERIFY_VERIFY_H
#define PGCI_VERIFY_VERIFY_H

#include <jansson.h>

#include "core/vec.h"
#include "verify/junit.h"
#include "workspace/workspace.h"

#define VERIFY_DEFAULT_TIMEOUT_S 3600

typedef struct verify_suite {
    char *name;
    strvec argv; /* as written, placeholders unexpanded */
    char *cwd;   /* relative to the tree; NULL: its root */
    strvec env;  /* "NAME=VALUE", placeholders unexpanded */
    int timeout_s;
    int gpu;
    unsigned line; /* in pyproject.toml */
} verify_suite;

typedef struct verify_config {
    VEC(verify_suite) suites; /* in definition order */
    strvec python;            /* [tool.pgci] python; empty when unset */
} verify_config;

/* Reads [tool.pgci.verify] (and [tool.pgci] python) of ws. No table: no suites.
 * Errors read "pyproject.toml:LINE: [tool.pgci.verify] ...". */
int verify_config_read(verify_config *out, const workspace *ws);
void verify_config_free(verify_config *c);

/* The suite named `name`, or NULL. */
const verify_suite *verify_config_find(const verify_config *c, const char *name);

typedef struct verify_run_opts {
    const char *root;    /* the tree the suites run in (the workspace, or its scratch copy) */
    const char *ws_root; /* the workspace itself: a relative python path is resolved there */
    const char *python;  /* --python; NULL: [tool.pgci] python */
    const char *out_dir; /* where the {junit} files go (a fresh temporary directory) */
    int gpu;             /* 1: a GPU is there; 0: gpu suites are not run */
    int quiet;           /* 1: the suites' output is not echoed on stderr */
} verify_run_opts;

/* Runs one suite and returns its result as a run.json suite object
 * (docs/run-json.md): name, argv as run, status, reason, exit_status, counts and
 * cases. Never fails for the suite's sake (a suite that cannot start is "not-run"
 * with the reason); only a bad configuration ({python} with no python) is an
 * error. */
int verify_run_suite(json_t **out, const verify_config *c, const verify_suite *s,
                     const verify_run_opts *o);

/* 1 when this machine shows a GPU to its processes: an NVIDIA device node or
 * driver entry, unless CUDA_VISIBLE_DEVICES hides them all ("" or "-1"). */
int verify_have_gpu(void);

/* The scratch tree for --tag: a copy of the workspace (its committed tree and
 * working-tree changes through libgit2 when it is in a repository, a plain copy
 * otherwise) with every config regenerated against `tag` written into it. */
typedef struct verify_tree_opts {
    const char *tag;
    const char *source; /* upstream spec; NULL: the workspace's */
    const char *ruff;   /* NULL: [tool.pgci] ruff, else ruff */
    int no_ruff;
    const char *var_name;
    int jobs;
} verify_tree_opts;

typedef struct verify_tree {
    char *dir;       /* the temporary directory holding the copy */
    char *root;      /* the workspace root inside it */
    char *how;       /* "git" or "copy" */
    json_t *regen;   /* [{config, status: "written"|"unchanged"|"failed", message}] */
    size_t n_failed; /* configs that kept their old files */
} verify_tree;

int verify_tree_build(verify_tree *t, const workspace *ws, const verify_tree_opts *o);
/* Removes the copy and frees t. */
void verify_tree_free(verify_tree *t);

typedef struct verify_opts {
    const strvec *only; /* suite names; NULL or empty: every suite */
    const char *tag;    /* NULL: the checked-in tree, as it is */
    const char *python; /* --python; NULL: [tool.pgci] python */
    int gpu;            /* -1: detect (verify_have_gpu), 0: none, 1: there */
    int keep;           /* 1: leave the scratch copy (its path is in the result) */
    verify_tree_opts tree;
} verify_opts;

/* Reads [tool.pgci.verify], builds the scratch copy when o->tag is set, runs the
 * selected suites in order and returns the run.json verification object: tag,
 * tree ("checked-in" or "scratch"), python, regen (per config, with a tag) and
 * suites. Errors: a bad table, an unknown suite, no suites at all, a copy that
 * cannot be made. */
int verify_workspace(json_t **out, const workspace *ws, const verify_opts *o);

/* run.json: the verification object of a document (NULL when none), and setting
 * it (the document takes the reference). */
json_t *verify_doc_get(json_t *run_root);
void verify_doc_set(json_t *run_root, json_t *verification);

/* Checks the verification object of a loaded run.json (when there is one): the
 * types renderers rely on. `path` names the file in messages. */
int verify_doc_validate(json_t *run_root, const char *path);

/* Refuses (PGCI_EINVALID, one line naming a_name and b_name) two runs whose
 * verifications are not parts of one: suites run at another tag or on another tree
 * (checked-in, scratch) and, with by_suite (pgci verify runs, split by suite), a
 * suite that both ran. 0 when either has no verification. */
int verify_doc_check_parts(json_t *a_root, json_t *b_root, const char *a_name, const char *b_name,
                           int by_suite);

/* Adds src's verification suites to dst's, for pgci report --merge. A suite
 * already in dst stays when src's run of it ended alike; when not (a survey's
 * shards each run every suite, and one is flaky), the worse run stays (failed over
 * passed over not-run), its reason saying what the other did. */
void verify_doc_merge(json_t *dst_root, json_t *src_root);

#endif
