/* Unit tests for checks/gate_ruff: the checked-in files normalised in one batch
 * on a thread beside the regeneration. Four check threads asking at once, before
 * anyone waited for the batch, all get ruff's own answer (a second join of the
 * batch thread hung the gate once); a source the batch did not see goes to ruff
 * alone; a file ruff cannot fix gives the per-file error. Needs the pinned ruff
 * (PGCI_RUFF, default build/deps/ruff). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/gate_ruff.h"
#include "core/error.h"
#include "core/fs.h"

/* ruff runs in the test's directory: its path must not be relative */
static char *ruff(void)
{
    const char *r = getenv("PGCI_RUFF") ? getenv("PGCI_RUFF") : "build/deps/ruff";
    char *abs = realpath(r, NULL);
    assert_non_null(abs);
    return abs;
}

typedef struct asker {
    gate_ruff *g;
    const char *name, *src;
    strbuf out;
    int rc;
} asker;

static void *ask(void *arg)
{
    asker *a = arg;
    a->rc = gate_ruff_normalize(a->g, a->name, a->src, strlen(a->src), &a->out);
    return NULL;
}

static void test_concurrent_askers(void **state)
{
    (void)state;
    strbuf dir = STRBUF_INIT, p = STRBUF_INIT;
    assert_int_equal(fs_mkdtemp(&dir, "pgci-test-gate-ruff"), 0);
    const char *srcs[] = {"import os\nx = ( 1 )\n", "y = 'a'\n", "z=[1,2]\n", "bad = nope\n"};
    const char *want[] = {"x = 1\n", "y = \"a\"\n", "z = [1, 2]\n", NULL};
    const char *rel[] = {"a/one.py", "b/two.py", "c/three.py", "d/four.py"};
    for (int i = 0; i < 4; i++) {
        strbuf_reset(&p);
        strbuf_addf(&p, "%s/%s", dir.buf, rel[i]);
        char *d = fs_dirname(p.buf);
        assert_int_equal(fs_mkdirs(d), 0);
        free(d);
        assert_int_equal(fs_write_atomic(p.buf, srcs[i], strlen(srcs[i])), 0);
    }
    normalize_opts o;
    memset(&o, 0, sizeof(o));
    char *r = ruff();
    o.ruff = r;
    o.isolated = 1;
    o.cwd = dir.buf;
    gate_ruff *g = gate_ruff_start(&o, dir.buf, rel, 4);
    pthread_t th[5];
    asker a[5];
    for (int i = 0; i < 5; i++) {
        memset(&a[i], 0, sizeof(a[i]));
        a[i].g = g;
        a[i].name = i < 4 ? rel[i] : "e/five.py";
        a[i].src = i < 4 ? srcs[i] : "w  =  2\n"; /* not in the batch: ruff alone */
        assert_int_equal(pthread_create(&th[i], NULL, ask, &a[i]), 0);
    }
    for (int i = 0; i < 5; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(a[i].rc, 0);
        assert_string_equal(a[i].out.buf, want[i]);
    }
    /* ruff check --fix cannot fix an undefined name: the per-file error */
    assert_true(a[3].rc < 0);
    assert_string_equal(a[4].out.buf, "w = 2\n");
    gate_ruff_free(g);
    free(r);
    for (int i = 0; i < 5; i++)
        strbuf_free(&a[i].out);
    fs_remove_tree(dir.buf);
    strbuf_free(&dir);
    strbuf_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_askers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
