/* xml_api.c - see xml_api.h. */
#include "verify/xml_api.h"

#include <pthread.h>

#include "core/lazylib.h"
#include "pgci_sonames.h" /* generated: scripts/sonames.sh */

#define PURPOSE "to read JUnit XML"

static const char *const g_names[] = {
#define XML_API_NAME(f) #f,
    XML_API_FUNCTIONS(XML_API_NAME)
#undef XML_API_NAME
};

static xml_api g_api;
_Static_assert(sizeof(g_api.fn) == sizeof(g_names) / sizeof(g_names[0]) * sizeof(void *),
               "xml_functions is one function pointer per name");

static lazylib g_lib = {
    PGCI_SONAME_XML2, PURPOSE, "xml", g_names, sizeof(g_names) / sizeof(g_names[0]),
    &g_api.fn,        0,       ""};

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
static lazylib g_free_lib = {PGCI_SONAME_XML2, PURPOSE, "", g_free_names, 1, &g_free, 0, ""};

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void init_once(void)
{
    g_api.fn.InitParser();
    g_api.dealloc = FREE_FUNCTION;
}

const xml_api *xml_api_get(void)
{
    if (lazylib_load(&g_lib) < 0 || lazylib_load(&g_free_lib) < 0)
        return NULL;
    pthread_once(&g_once, init_once);
    return &g_api;
}
