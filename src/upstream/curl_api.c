/* curl_api.c - see curl_api.h. */
#include "upstream/curl_api.h"

#include <pthread.h>

#include "core/lazylib.h"
#include "pgci_sonames.h" /* generated: scripts/sonames.sh */

static const char *const g_names[] = {
#define CURL_API_NAME(f) #f,
    CURL_API_FUNCTIONS(CURL_API_NAME)
#undef CURL_API_NAME
};

static curl_api g_api;
_Static_assert(sizeof(g_api) == sizeof(g_names) / sizeof(g_names[0]) * sizeof(void *),
               "curl_api is one function pointer per name");

static lazylib g_lib = {PGCI_SONAME_CURL,
                        "to fetch over HTTP",
                        "curl_",
                        g_names,
                        sizeof(g_names) / sizeof(g_names[0]),
                        &g_api,
                        0,
                        ""};

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void global_init(void)
{
    g_api.global_init(CURL_GLOBAL_DEFAULT);
}

const curl_api *curl_api_get(void)
{
    if (lazylib_load(&g_lib) < 0)
        return NULL;
    pthread_once(&g_once, global_init);
    return &g_api;
}
