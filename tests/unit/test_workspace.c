/* Unit tests for src/workspace: pyproject reading, the pin, discovery order and
 * module names, path safety, source_module literals, and the demo workspace. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "core/strbuf.h"
#include "workspace/workspace.h"
#include "tmp_pkg.h"

/* --- helpers --------------------------------------------------------------------- */

static char *tmpdir(void)
{
    strbuf sb = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&sb, "pgci-ws-test"), 0);
    return strbuf_detach(&sb, NULL);
}

/* Writes root/rel (creating directories). */
static const char *PATCHGEN = "[tool.patchgen]\n"
                              "search_root = \"pkg/models\"\n"
                              "package_prefix = \"pkg.models\"\n";

/* Reads a pyproject from a string into a fresh workspace rooted at /ws. */
static int read_pp(const char *src, workspace *ws, toml_value **doc)
{
    memset(ws, 0, sizeof(*ws));
    ws->root = pgci_strdup("/ws");
    ws->pyproject_name = pgci_strdup("pyproject.toml");
    int r = toml_parse(doc, src, strlen(src), "pyproject.toml");
    if (r < 0)
        return r;
    return workspace_read_pyproject(ws, *doc);
}

/* Frees what read_pp made (the workspace itself lives on the stack). */
static void clear_pp(workspace *ws, toml_value *doc)
{
    workspace *heap = pgci_calloc(1, sizeof(*heap));
    *heap = *ws;
    heap->doc = doc;
    workspace_free(heap);
}

static char *pin_of(const char *src)
{
    toml_value *doc = NULL;
    assert_int_equal(toml_parse(&doc, src, strlen(src), "pyproject.toml"), 0);
    char *pin = NULL, *where = NULL;
    int r = workspace_find_pin(doc, "pyproject.toml", &pin, &where);
    toml_free(doc);
    free(where);
    if (r < 0)
        fail_msg("pin error: %s", pgci_error_last());
    return pin;
}

/* --- pyproject ------------------------------------------------------------------- */

static void test_read_pyproject(void **state)
{
    (void)state;
    workspace ws;
    toml_value *doc = NULL;
    const char *src = "[project]\n"
                      "dependencies = [\"transformers==5.9.0\"]\n"
                      "[tool.patchgen]\n"
                      "search_root = \"veomni/models/transformers\"\n"
                      "package_prefix = \"veomni.models.transformers\"\n"
                      "ruff_extra_ignore = [\"E501\", \"F401\"]\n"
                      "ruff_isolated = true\n"
                      "[tool.pgci]\n"
                      "upstream = \"dir:../up/{tag}\"\n"
                      "ruff = \"/opt/ruff\"\n"
                      "ruff_version = \"0.13.2\"\n"
                      "[tool.pgci.checks.names]\n"
                      "severity = \"warning\"\n";
    assert_int_equal(read_pp(src, &ws, &doc), 0);
    assert_string_equal(ws.search_root, "veomni/models/transformers");
    assert_string_equal(ws.package_prefix, "veomni.models.transformers");
    assert_int_equal(ws.ruff_extra_ignore.len, 2);
    assert_string_equal(ws.ruff_extra_ignore.items[1], "F401");
    assert_int_equal(ws.ruff_isolated, 1);
    assert_string_equal(ws.pin, "5.9.0");
    assert_string_equal(ws.pin_where, "project.dependencies (line 2)");
    assert_string_equal(ws.upstream_raw, "dir:../up/{tag}");
    assert_string_equal(ws.upstream, "dir:/ws/../up/{tag}");
    assert_string_equal(ws.ruff, "/opt/ruff");
    assert_string_equal(ws.ruff_version, "0.13.2");
    /* later checks read their own settings from the [tool.pgci] table */
    assert_non_null(ws.pgci);
    assert_string_equal(toml_str(toml_get_path(ws.pgci, "checks.names.severity")), "warning");
    clear_pp(&ws, doc);

    /* defaults, and sources that are not relative paths stay as written */
    assert_int_equal(read_pp("[tool.patchgen]\nsearch_root = \"m\"\npackage_prefix = \"m\"\n"
                             "[tool.pgci]\nupstream = \"git:/src/transformers\"\n",
                             &ws, &doc),
                     0);
    assert_int_equal(ws.ruff_isolated, 0);
    assert_int_equal(ws.ruff_extra_ignore.len, 0);
    assert_null(ws.pin);
    assert_null(ws.ruff);
    assert_string_equal(ws.upstream, "git:/src/transformers");
    clear_pp(&ws, doc);
    assert_int_equal(read_pp("[tool.patchgen]\nsearch_root = \"m\"\npackage_prefix = \"m\"\n"
                             "[tool.pgci]\nupstream = \"https://h/{tag}/src/{path}\"\n",
                             &ws, &doc),
                     0);
    assert_string_equal(ws.upstream, "https://h/{tag}/src/{path}");
    assert_null(toml_get(ws.pgci, "ruff"));
    clear_pp(&ws, doc);
    assert_int_equal(read_pp(PATCHGEN, &ws, &doc), 0);
    assert_null(ws.pgci);
    assert_null(ws.upstream);
    clear_pp(&ws, doc);
}

static void expect_pp_error(const char *src, const char *msg)
{
    workspace ws;
    toml_value *doc = NULL;
    pgci_error_clear();
    int r = read_pp(src, &ws, &doc);
    if (r >= 0)
        fail_msg("expected an error for:\n%s", src);
    if (strcmp(pgci_error_last(), msg) != 0)
        fail_msg("message\n  '%s'\nexpected\n  '%s'", pgci_error_last(), msg);
    clear_pp(&ws, doc);
}

static void test_pyproject_errors(void **state)
{
    (void)state;
    expect_pp_error("[project]\nname = \"x\"\n",
                    "pyproject.toml: no [tool.patchgen] table; add one with search_root and "
                    "package_prefix (see docs/workspace.md)");
    expect_pp_error("[tool]\npatchgen = 1\n", "pyproject.toml:2: tool.patchgen must be a table, "
                                              "not integer");
    expect_pp_error("\n[tool.patchgen]\nsearch_root = \"m\"\n",
                    "pyproject.toml:2: [tool.patchgen] is missing required key 'package_prefix'; "
                    "both search_root and package_prefix are required");
    expect_pp_error("[tool.patchgen]\npackage_prefix = \"m\"\n",
                    "pyproject.toml:1: [tool.patchgen] is missing required key 'search_root'; "
                    "both search_root and package_prefix are required");
    expect_pp_error("[tool.patchgen]\nsearch_root = 3\npackage_prefix = \"m\"\n",
                    "pyproject.toml:2: [tool.patchgen] search_root must be a string, not an "
                    "integer");
    expect_pp_error("[tool.patchgen]\nsearch_root = \"../elsewhere\"\npackage_prefix = \"m\"\n",
                    "pyproject.toml:2: [tool.patchgen] search_root '../elsewhere' escapes its "
                    "root with '..'");
    expect_pp_error("[tool.patchgen]\nsearch_root = \"a/../../b\"\npackage_prefix = \"m\"\n",
                    "pyproject.toml:2: [tool.patchgen] search_root 'a/../../b' escapes its root "
                    "with '..'");
    expect_pp_error("[tool.patchgen]\nsearch_root = \"/etc\"\npackage_prefix = \"m\"\n",
                    "pyproject.toml:2: [tool.patchgen] search_root '/etc' is absolute; it must "
                    "stay inside its root");
    expect_pp_error("[tool.patchgen]\nsearch_root = \"m\"\npackage_prefix = \"demo.models.\"\n",
                    "pyproject.toml:3: [tool.patchgen] package_prefix 'demo.models.' ends with "
                    "'.'; patchgen joins it and the path with '.', so write 'demo.models'");
    expect_pp_error("[tool.patchgen]\nsearch_root = \"m\"\npackage_prefix = \"\"\n",
                    "pyproject.toml:3: [tool.patchgen] package_prefix is empty; it must be the "
                    "dotted package of search_root, e.g. \"veomni.models.transformers\"");
    expect_pp_error("[tool.patchgen]\nsearch_root = \"m\"\npackage_prefix = \"a..b\"\n",
                    "pyproject.toml:3: [tool.patchgen] package_prefix 'a..b' has an empty part");
    expect_pp_error("[tool.patchgen]\nsearch_root = \"m\"\npackage_prefix = \"a/b\"\n",
                    "pyproject.toml:3: [tool.patchgen] package_prefix 'a/b' is not a dotted "
                    "Python name (character '/')");
    expect_pp_error("[tool.patchgen]\nsearch_root = \"m\"\npackage_prefix = \"m\"\n"
                    "ruff_extra_ignore = \"E501\"\n",
                    "pyproject.toml:4: [tool.patchgen] ruff_extra_ignore must be an array of "
                    "strings");
    expect_pp_error("[tool.patchgen]\nsearch_root = \"m\"\npackage_prefix = \"m\"\n"
                    "ruff_extra_ignore = [\"E501\",\n 7]\n",
                    "pyproject.toml:5: [tool.patchgen] ruff_extra_ignore[1] must be a string, "
                    "not integer");
    expect_pp_error("[tool.patchgen]\nsearch_root = \"/m\\n\"\npackage_prefix = \"a\"\n",
                    "pyproject.toml:2: [tool.patchgen] search_root contains a control character "
                    "(0x0a)");
    expect_pp_error("[tool.patchgen]\nsearch_root = \"m\"\npackage_prefix = \"a\\nb\"\n",
                    "pyproject.toml:3: [tool.patchgen] package_prefix 'a?b' is not a dotted "
                    "Python name (character '?')");
    expect_pp_error("[tool.patchgen]\nsearch_root = \"m\"\npackage_prefix = \"m\"\n"
                    "ruff_isolated = \"yes\"\n",
                    "pyproject.toml:4: [tool.patchgen] ruff_isolated must be true or false");
    expect_pp_error("[tool.patchgen]\nsearch_root = \"m\"\npackage_prefix = \"m\"\n"
                    "[tool.pgci]\nupstream = [\"x\"]\n",
                    "pyproject.toml:5: [tool.pgci] upstream must be a string, not an array");
    expect_pp_error("[tool.patchgen]\nsearch_root = \"m\"\npackage_prefix = \"m\"\n"
                    "[tool.pgci]\nupstream = ''\n",
                    "pyproject.toml:5: [tool.pgci] upstream is empty");
}

/* --- the pin --------------------------------------------------------------------- */

static void test_pin(void **state)
{
    (void)state;
    char *p;
    /* [project] dependencies, with extras and spaces */
    p = pin_of("[project]\ndependencies = [\"numpy\", \"transformers[torch] == 5.9.0\"]\n");
    assert_string_equal(p, "5.9.0");
    free(p);
    /* an extra in optional-dependencies, with a marker */
    p = pin_of("[project.optional-dependencies]\n"
               "gpu = [\"torch\", \"transformers==4.57.1; python_version >= '3.10'\"]\n");
    assert_string_equal(p, "4.57.1");
    free(p);
    /* a PEP 735 dependency group, VeOmni-style, below a comment that mentions a pin */
    p = pin_of("# pip users: pip install transformers==9.9.9 yourself\n"
               "[dependency-groups]\n"
               "transformers-stable = [\n  \"transformers==5.9.0\"\n]\n"
               "dev = [{include-group = \"transformers-stable\"}, \"pytest\"]\n");
    assert_string_equal(p, "5.9.0");
    free(p);
    /* a tool's list, several specifiers, case-insensitive name */
    p = pin_of("[tool.uv]\nconstraint-dependencies = [\"Transformers>=5,==5.16.1,<6\"]\n");
    assert_string_equal(p, "5.16.1");
    free(p);
    /* the same pin twice is fine */
    p = pin_of("[project]\ndependencies = [\"transformers==5.9.0\"]\n"
               "[dependency-groups]\nx = [\"transformers == 5.9.0\"]\n");
    assert_string_equal(p, "5.9.0");
    free(p);
    /* not pins: ranges, wildcards, arbitrary equality, other packages, other keys */
    const char *none[] = {
        "[project]\ndependencies = [\"transformers>=5.9.0\"]\n",
        "[project]\ndependencies = [\"transformers==5.*\"]\n",
        "[project]\ndependencies = [\"transformers===5.9.0\"]\n",
        "[project]\ndependencies = [\"transformers-stream-generator==0.0.5\"]\n",
        "[project]\ndependencies = [\"transformers_foo==1.0\"]\n",
        "[project]\ndependencies = [\"sentence-transformers==3.0.0\"]\n",
        "[project]\nkeywords = [\"transformers==5.9.0\"]\n",
        "[project]\ndependencies = [\"transformers @ https://x/t.whl\"]\n",
    };
    for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
        p = pin_of(none[i]);
        if (p)
            fail_msg("found pin %s in:\n%s", p, none[i]);
    }
    /* two different pins: an error naming both */
    const char *two = "[project]\ndependencies = [\"transformers==5.9.0\"]\n"
                      "[dependency-groups]\nnext = [\n\"transformers==5.16.1\"]\n";
    toml_value *doc = NULL;
    assert_int_equal(toml_parse(&doc, two, strlen(two), "pyproject.toml"), 0);
    char *pin = NULL;
    assert_int_equal(workspace_find_pin(doc, "pyproject.toml", &pin, NULL), PGCI_EINVALID);
    assert_null(pin);
    assert_string_equal(pgci_error_last(),
                        "pyproject.toml:5: transformers==5.16.1 conflicts with transformers==5.9.0 "
                        "in project.dependencies (line 2); pgci needs one pin (or pass --tag)");
    toml_free(doc);
}

/* A workspace with two pins opens; the conflict is the error of a command that needs
 * the pin and was given no --tag (it used to stop every command, --tag or not). */
static void test_pin_conflict_is_the_no_tag_error(void **state)
{
    (void)state;
    workspace ws;
    toml_value *doc = NULL;
    char *src = pgci_asprintf("%s[project]\ndependencies = [\"transformers==5.9.0\"]\n"
                              "[dependency-groups]\nlegacy = [\"transformers==4.57.3\"]\n",
                              PATCHGEN);
    assert_int_equal(read_pp(src, &ws, &doc), 0);
    assert_null(ws.pin);
    assert_null(workspace_pin_tag(&ws));
    const char *want = "pyproject.toml:7: transformers==4.57.3 conflicts with transformers==5.9.0 "
                       "in project.dependencies (line 5); pgci needs one pin (or pass --tag)";
    assert_string_equal(ws.pin_conflict, want);
    assert_int_equal(workspace_no_tag_error(&ws, "%s pins no transformers version", "x"),
                     PGCI_EINVALID);
    assert_string_equal(pgci_error_last(), want);
    clear_pp(&ws, doc);
    /* no pin at all: the caller's message */
    assert_int_equal(read_pp(PATCHGEN, &ws, &doc), 0);
    assert_int_equal(workspace_no_tag_error(&ws, "%s pins no transformers version", "x"),
                     PGCI_EUSAGE);
    assert_string_equal(pgci_error_last(), "x pins no transformers version");
    clear_pp(&ws, doc);
    free(src);
}

/* The one pin -> tag every command uses: pgci check, survey, regen, patchgen and
 * run wrote "v" + pin, so a pin written "==v5.9.0" became the tag "vv5.9.0" there
 * while pgci fetch and index read "v5.9.0". */
static void test_pin_tag(void **state)
{
    (void)state;
    workspace ws;
    memset(&ws, 0, sizeof(ws));
    assert_null(workspace_pin_tag(&ws));
    char *t;
    ws.pin = (char *)"5.9.0";
    t = workspace_pin_tag(&ws);
    assert_string_equal(t, "v5.9.0");
    free(t);
    ws.pin = (char *)"v5.9.0";
    t = workspace_pin_tag(&ws);
    assert_string_equal(t, "v5.9.0");
    free(t);
}

/* --- discovery ------------------------------------------------------------------- */

static void test_discovery_order(void **state)
{
    (void)state;
    char *root = tmpdir();
    tmp_put(root, "pyproject.toml", PATCHGEN);
    const char *files[] = {
        "pkg/models/a/x_patch_gen_config.py",
        "pkg/models/a-b/y_patch_gen_config.py",
        "pkg/models/a/b/z_patch_gen_config.py",
        "pkg/models/a/b_patch_gen_config.py",
        "pkg/models/top_patch_gen_config.py",
        "pkg/models/.hidden/h_patch_gen_config.py",
        "pkg/models/Upper/u_patch_gen_config.py",
        "pkg/models/_private_patch_gen_config.py", /* skipped: leading '_' */
        "pkg/models/a/_x_patch_gen_config.py",     /* skipped */
        "pkg/models/a/patch_gen_config.py",        /* no '_' before the suffix */
        "pkg/models/a/x_patch_gen_config.pyc",     /* not .py */
        "pkg/models/a/notes.py",
        "pkg/other/o_patch_gen_config.py", /* outside search_root */
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        tmp_put(root, files[i], "x = 1\n");
    /* a directory named like a config is not a config */
    strbuf d = STRBUF_INIT;
    fs_join(&d, root, "pkg/models/dir_patch_gen_config.py");
    assert_int_equal(fs_mkdirs(d.buf), 0);
    strbuf_free(&d);

    workspace *ws = NULL;
    if (workspace_open(&ws, root) < 0)
        fail_msg("%s", pgci_error_last());
    /* Python: sorted(Path("pkg/models").rglob("*_patch_gen_config.py")) compares by
     * parts: ".hidden" < "Upper" < "a" < "a-b" < "top..." and "a/b" < "a/b_..." */
    const char *want[] = {
        "pkg/models/.hidden/h_patch_gen_config.py", "pkg/models/Upper/u_patch_gen_config.py",
        "pkg/models/a/b/z_patch_gen_config.py",     "pkg/models/a/b_patch_gen_config.py",
        "pkg/models/a/x_patch_gen_config.py",       "pkg/models/a-b/y_patch_gen_config.py",
        "pkg/models/top_patch_gen_config.py",
    };
    size_t nwant = sizeof(want) / sizeof(want[0]);
    assert_int_equal(ws->configs.len, nwant);
    for (size_t i = 0; i < nwant; i++)
        assert_string_equal(ws->configs.items[i].path, want[i]);
    const ws_config *c = &ws->configs.items[2];
    assert_string_equal(c->module, "pkg.models.a.b.z_patch_gen_config");
    assert_string_equal(c->name, "z_patch_gen_config");
    assert_string_equal(c->dir, "pkg/models/a/b");
    strbuf abs = STRBUF_INIT;
    fs_join(&abs, ws->root, want[2]);
    assert_string_equal(c->abs_path, abs.buf);
    strbuf_free(&abs);
    assert_string_equal(ws->configs.items[0].module, "pkg.models..hidden.h_patch_gen_config");
    assert_string_equal(ws->configs.items[6].module, "pkg.models.top_patch_gen_config");
    /* lookups by module, path, stem and file name */
    assert_ptr_equal(workspace_find_config(ws, "pkg.models.a.x_patch_gen_config"),
                     &ws->configs.items[4]);
    assert_ptr_equal(workspace_find_config(ws, "pkg/models/a/x_patch_gen_config.py"),
                     &ws->configs.items[4]);
    assert_ptr_equal(workspace_find_config(ws, "./pkg/models/a/x_patch_gen_config.py"),
                     &ws->configs.items[4]);
    assert_ptr_equal(workspace_find_config(ws, "y_patch_gen_config"), &ws->configs.items[5]);
    assert_ptr_equal(workspace_find_config(ws, "y_patch_gen_config.py"), &ws->configs.items[5]);
    assert_null(workspace_find_config(ws, "nope"));
    workspace_free(ws);

    /* search_root "." and "./pkg/models/" spellings */
    tmp_put(root, "pyproject.toml",
            "[tool.patchgen]\nsearch_root = \"./pkg/models/\"\n"
            "package_prefix = \"pkg.models\"\n");
    assert_int_equal(workspace_open(&ws, root), 0);
    assert_int_equal(ws->configs.len, nwant);
    assert_string_equal(ws->configs.items[2].path, want[2]);
    workspace_free(ws);
    tmp_put(root, "pyproject.toml",
            "[tool.patchgen]\nsearch_root = \".\"\npackage_prefix = \"r\"\n");
    assert_int_equal(workspace_open(&ws, root), 0);
    assert_int_equal(ws->configs.len, nwant + 1); /* pkg/other too */
    assert_string_equal(ws->configs.items[0].module, "r.pkg.models..hidden.h_patch_gen_config");
    assert_string_equal(ws->configs.items[nwant].path, "pkg/other/o_patch_gen_config.py");
    workspace_free(ws);
    fs_remove_tree(root);
    free(root);
}

static void test_open_walks_up_and_errors(void **state)
{
    (void)state;
    char *root = tmpdir();
    tmp_put(root, "pyproject.toml", PATCHGEN);
    tmp_put(root, "pkg/models/m/m_patch_gen_config.py", "x = 1\n");
    /* a pyproject without [tool.patchgen] in a subdirectory is passed over */
    tmp_put(root, "pkg/pyproject.toml", "[project]\nname = \"inner\"\n");
    strbuf sub = STRBUF_INIT;
    fs_join(&sub, root, "pkg/models/m");
    workspace *ws = NULL;
    if (workspace_open(&ws, sub.buf) < 0)
        fail_msg("%s", pgci_error_last());
    char real[4096];
    assert_non_null(realpath(root, real));
    assert_string_equal(ws->root, real);
    assert_int_equal(ws->configs.len, 1);
    assert_string_equal(ws->configs.items[0].module, "pkg.models.m.m_patch_gen_config");
    workspace_free(ws);
    strbuf_free(&sub);

    /* a syntax error names the file and line */
    tmp_put(root, "pyproject.toml", "[tool.patchgen]\nsearch_root = \"pkg/models\n");
    assert_int_equal(workspace_open(&ws, root), PGCI_EINVALID);
    assert_null(ws);
    strbuf want = STRBUF_INIT;
    strbuf_addf(&want, "%s/pyproject.toml:2: newline in a single-line string", root);
    assert_string_equal(pgci_error_last(), want.buf);
    strbuf_free(&want);

    /* a search_root that does not exist */
    tmp_put(root, "pyproject.toml",
            "[tool.patchgen]\nsearch_root = \"missing\"\n"
            "package_prefix = \"x\"\n");
    assert_int_equal(workspace_open(&ws, root), PGCI_ENOTFOUND);
    assert_non_null(strstr(pgci_error_last(), "search_root 'missing' is not a directory under"));

    /* not a directory */
    strbuf f = STRBUF_INIT;
    fs_join(&f, root, "pyproject.toml");
    assert_int_equal(workspace_open(&ws, f.buf), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "not a directory"));
    strbuf_free(&f);
    fs_remove_tree(root);
    free(root);

    /* no pyproject.toml anywhere up to / (in a fresh temp dir) */
    assert_int_equal(workspace_open(&ws, "/proc/self"), PGCI_ENOTFOUND);
    assert_non_null(strstr(pgci_error_last(), "no pyproject.toml in /proc/self or above it"));
}

static void test_path_safety(void **state)
{
    (void)state;
    char *outside = tmpdir();
    tmp_put(outside, "evil/e_patch_gen_config.py", "x = 1\n");
    tmp_put(outside, "e2_patch_gen_config.py", "x = 1\n");
    char *root = tmpdir();
    tmp_put(root, "pyproject.toml", PATCHGEN);
    tmp_put(root, "pkg/models/ok/ok_patch_gen_config.py", "x = 1\n");
    strbuf link = STRBUF_INIT, target = STRBUF_INIT;

    /* a symlinked directory inside search_root is not entered (as rglob) */
    fs_join(&link, root, "pkg/models/linked");
    fs_join(&target, outside, "evil");
    assert_int_equal(symlink(target.buf, link.buf), 0);
    workspace *ws = NULL;
    if (workspace_open(&ws, root) < 0)
        fail_msg("%s", pgci_error_last());
    assert_int_equal(ws->configs.len, 1);
    assert_string_equal(ws->configs.items[0].path, "pkg/models/ok/ok_patch_gen_config.py");
    workspace_free(ws);

    /* a symlinked config file pointing outside the workspace is refused */
    strbuf_reset(&link);
    strbuf_reset(&target);
    fs_join(&link, root, "pkg/models/ok/e2_patch_gen_config.py");
    fs_join(&target, outside, "e2_patch_gen_config.py");
    assert_int_equal(symlink(target.buf, link.buf), 0);
    assert_int_equal(workspace_open(&ws, root), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "patch config 'pkg/models/ok/e2_patch_gen_config.py'"
                                              " resolves to"));
    assert_non_null(strstr(pgci_error_last(), "outside"));
    unlink(link.buf);

    /* a search_root that is a symlink out of the workspace is refused */
    tmp_put(root, "pyproject.toml",
            "[tool.patchgen]\nsearch_root = \"out\"\npackage_prefix = \"o\"\n");
    strbuf_reset(&link);
    fs_join(&link, root, "out");
    assert_int_equal(symlink(outside, link.buf), 0);
    assert_int_equal(workspace_open(&ws, root), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "[tool.patchgen] search_root 'out' resolves to"));

    /* and '..' never reaches the filesystem */
    tmp_put(root, "pyproject.toml",
            "[tool.patchgen]\nsearch_root = \"pkg/../..\"\n"
            "package_prefix = \"o\"\n");
    assert_int_equal(workspace_open(&ws, root), PGCI_EINVALID);
    assert_non_null(strstr(pgci_error_last(), "pyproject.toml:2: [tool.patchgen] search_root "
                                              "'pkg/../..' escapes its root with '..'"));
    strbuf_free(&link);
    strbuf_free(&target);
    fs_remove_tree(root);
    fs_remove_tree(outside);
    free(root);
    free(outside);
}

/* --- source modules and the demo workspace -------------------------------------- */

static void test_source_modules(void **state)
{
    (void)state;
    char *root = tmpdir();
    tmp_put(root, "pyproject.toml", PATCHGEN);
    tmp_put(
        root, "pkg/models/a/a_patch_gen_config.py",
        "from veomni.patchgen.patch_spec import PatchConfig\n"
        "config = PatchConfig(\n"
        "    source_module='transformers.models.b.modeling_b',\n"
        "    target_file=\"patched.py\",\n"
        ")\n"
        "other = patch_spec.PatchConfig(source_module=\"transformers.models.\" 'a.modeling_a')\n"
        "not_a_config = Other(source_module=\"ignored\")\n");
    tmp_put(root, "pkg/models/b/b_patch_gen_config.py",
            "def make():\n"
            "    return PatchConfig(source_module=\"transformers.models.b.modeling_b\")\n");
    workspace *ws = NULL;
    assert_int_equal(workspace_open(&ws, root), 0);
    strvec mods = STRVEC_INIT;
    if (workspace_source_modules(ws, &mods) < 0)
        fail_msg("%s", pgci_error_last());
    assert_int_equal(mods.len, 2);
    assert_string_equal(mods.items[0], "transformers.models.a.modeling_a");
    assert_string_equal(mods.items[1], "transformers.models.b.modeling_b");
    strvec_free(&mods);

    /* a computed source_module is refused with its position */
    tmp_put(root, "pkg/models/b/b_patch_gen_config.py",
            "\nconfig = PatchConfig(source_module=PREFIX + \"b\")\n");
    assert_int_equal(workspace_source_modules(ws, &mods), PGCI_EUNSUPPORTED);
    assert_string_equal(pgci_error_last(), "pkg/models/b/b_patch_gen_config.py:2:36: "
                                           "source_module must be a string literal, not "
                                           "binary_operator");
    /* an f-string with a field has no constant value */
    tmp_put(root, "pkg/models/b/b_patch_gen_config.py",
            "config = PatchConfig(source_module=f\"transformers.{name}\")\n");
    assert_true(workspace_source_modules(ws, &mods) < 0);
    assert_non_null(strstr(pgci_error_last(), "pkg/models/b/b_patch_gen_config.py:1:"));
    /* and a config that is not Python */
    tmp_put(root, "pkg/models/b/b_patch_gen_config.py", "config = PatchConfig(\n");
    assert_true(workspace_source_modules(ws, &mods) < 0);
    assert_non_null(strstr(pgci_error_last(), "pkg/models/b/b_patch_gen_config.py:"));
    assert_int_equal(mods.len, 0);
    workspace_free(ws);
    fs_remove_tree(root);
    free(root);
}

static void test_demo_workspace(void **state)
{
    (void)state;
    workspace *ws = NULL;
    if (workspace_open(&ws, "fixtures/workspace") < 0)
        fail_msg("%s", pgci_error_last());
    assert_string_equal(ws->pin, "1.0.0");
    assert_string_equal(ws->search_root, "demo/models");
    assert_string_equal(ws->package_prefix, "demo.models");
    assert_string_equal(ws->upstream_raw, "dir:../upstream/{tag}");
    strbuf up = STRBUF_INIT;
    strbuf_addf(&up, "dir:%s/../upstream/{tag}", ws->root);
    assert_string_equal(ws->upstream, up.buf);
    strbuf_free(&up);
    assert_null(ws->ruff);
    const char *want[] = {
        "demo.models.llama.llama_gpu_patch_gen_config",
        "demo.models.qwen3.qwen3_gpu_patch_gen_config",
        "demo.models.qwen3.qwen3_npu_patch_gen_config",
        "demo.models.qwen3_moe.qwen3_moe_gpu_patch_gen_config",
    };
    assert_int_equal(ws->configs.len, 4);
    for (size_t i = 0; i < 4; i++)
        assert_string_equal(ws->configs.items[i].module, want[i]);
    strvec mods = STRVEC_INIT;
    assert_int_equal(workspace_source_modules(ws, &mods), 0);
    assert_int_equal(mods.len, 3);
    assert_string_equal(mods.items[0], "transformers.models.llama.modeling_llama");
    assert_string_equal(mods.items[1], "transformers.models.qwen3.modeling_qwen3");
    assert_string_equal(mods.items[2], "transformers.models.qwen3_moe.modeling_qwen3_moe");
    /* every module exists in both fixture tags */
    for (size_t i = 0; i < mods.len; i++) {
        for (int tag = 0; tag < 2; tag++) {
            strbuf p = STRBUF_INIT;
            strbuf_addf(&p, "fixtures/upstream/%s/", tag ? "v1.1.0" : "v1.0.0");
            for (const char *c = mods.items[i]; *c; c++)
                strbuf_addc(&p, *c == '.' ? '/' : *c);
            strbuf_adds(&p, ".py");
            if (!fs_is_file(p.buf))
                fail_msg("missing %s", p.buf);
            strbuf_free(&p);
        }
    }
    strvec_free(&mods);
    workspace_free(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_pyproject),
        cmocka_unit_test(test_pyproject_errors),
        cmocka_unit_test(test_pin),
        cmocka_unit_test(test_pin_tag),
        cmocka_unit_test(test_pin_conflict_is_the_no_tag_error),
        cmocka_unit_test(test_discovery_order),
        cmocka_unit_test(test_open_walks_up_and_errors),
        cmocka_unit_test(test_path_safety),
        cmocka_unit_test(test_source_modules),
        cmocka_unit_test(test_demo_workspace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
