/* xml_api.c - see xml_api.h. */
#include "verify/xml_api.h"

#include "core/lazylib.h"
#include "pgci_sonames.h" /* generated: scripts/sonames.sh */

#define PURPOSE "to read JUnit XML"

/* xmlFree is not a function: a variable holding the deallocator or, in a
 * libxml2 built for threads, a macro over __xmlFree(), which says where the
 * calling thread's is kept. */
#ifdef LIBXML_THREAD_ALLOC_ENABLED
static struct {
    __typeof__(__xmlFree) *where;
} g_free;
static const char *const g_free_names[] = {"__xmlFree"};
#define FREE_FUNCTION (*g_free.where())
#else
static struct {
    xmlFreeFunc *where; /* the variable's address, as dlsym gives it */
} g_free;
static const char *const g_free_names[] = {"xmlFree"};
#define FREE_FUNCTION (*g_free.where)
#endif
static lazylib g_free_lib = {PGCI_SONAME_XML2, PURPOSE, "", g_free_names, 1, &g_free, NULL, 0, ""};

static const char *const g_names[] = {XML_API_FUNCTIONS(LAZYLIB_NAME)};
LAZYLIB_CHECK(xml_functions, g_names);

static xml_api g_api;

/* after g_free_lib (xml_api_get loads it first) */
static void init(void *table)
{
    ((xml_functions *)table)->InitParser();
    g_api.dealloc = FREE_FUNCTION;
}

static lazylib g_lib = {PGCI_SONAME_XML2, PURPOSE, "xml", g_names, LAZYLIB_LEN(g_names),
                        &g_api.fn,        init,    0,     ""};

const xml_api *xml_api_get(void)
{
    if (lazylib_load(&g_free_lib) < 0 || lazylib_load(&g_lib) < 0)
        return NULL;
    return &g_api;
}
