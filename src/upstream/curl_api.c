/* curl_api.c - see curl_api.h. */
#include "upstream/curl_api.h"

#include "core/lazylib.h"
#include "pgci_sonames.h" /* generated: scripts/sonames.sh */

static const char *const g_names[] = {CURL_API_FUNCTIONS(LAZYLIB_NAME)};
LAZYLIB_CHECK(curl_api, g_names);

static void global_init(void *table)
{
    ((curl_api *)table)->global_init(CURL_GLOBAL_DEFAULT);
}

static curl_api g_api;
static lazylib g_lib = {
    PGCI_SONAME_CURL, "to fetch over HTTP", "curl_", g_names, LAZYLIB_LEN(g_names),
    &g_api,           global_init,          0,       ""};

const curl_api *curl_api_get(void)
{
    return lazylib_load(&g_lib) < 0 ? NULL : &g_api;
}
