/* git_api.c - see git_api.h. */
#include "upstream/git_api.h"

#include "core/lazylib.h"
#include "pgci_sonames.h" /* generated: scripts/sonames.sh */

static const char *const g_names[] = {GIT_API_FUNCTIONS(LAZYLIB_NAME)};
LAZYLIB_CHECK(git_api, g_names);

static void init(void *table)
{
    ((git_api *)table)->libgit2_init();
}

static git_api g_api;
static lazylib g_lib = {PGCI_SONAME_GIT2,
                        "to read git: sources and check trees out",
                        "git_",
                        g_names,
                        LAZYLIB_LEN(g_names),
                        &g_api,
                        init,
                        0,
                        ""};

const git_api *git_api_get(void)
{
    return lazylib_load(&g_lib) < 0 ? NULL : &g_api;
}

const char *git_api_why(const git_api *G)
{
    const git_error *e = G->error_last();
    return e && e->message ? e->message : "unknown libgit2 error";
}
