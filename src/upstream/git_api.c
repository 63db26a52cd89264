/* git_api.c - see git_api.h. */
#include "upstream/git_api.h"

#include <pthread.h>

#include "core/lazylib.h"
#include "pgci_sonames.h" /* generated: scripts/sonames.sh */

static const char *const g_names[] = {
#define GIT_API_NAME(f) #f,
    GIT_API_FUNCTIONS(GIT_API_NAME)
#undef GIT_API_NAME
};

static git_api g_api;
_Static_assert(sizeof(g_api) == sizeof(g_names) / sizeof(g_names[0]) * sizeof(void *),
               "git_api is one function pointer per name");

static lazylib g_lib = {PGCI_SONAME_GIT2,
                        "to read git: sources and check trees out",
                        "git_",
                        g_names,
                        sizeof(g_names) / sizeof(g_names[0]),
                        &g_api,
                        0,
                        ""};

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void init_once(void)
{
    g_api.libgit2_init();
}

const git_api *git_api_get(void)
{
    if (lazylib_load(&g_lib) < 0)
        return NULL;
    pthread_once(&g_once, init_once);
    return &g_api;
}

const char *git_api_why(const git_api *G)
{
    const git_error *e = G->error_last();
    return e && e->message ? e->message : "unknown libgit2 error";
}
