/*
 * curl_api.h - libcurl's functions as pgci calls them: through a table filled
 * when the first transfer starts (core/lazylib.h says why it is not linked).
 *
 * Each entry has the type of libcurl's own declaration (curl/curl.h), so a call
 * is checked as a direct one would be; the names drop the curl_ prefix, which
 * also keeps clear of the type-checking macros curl.h puts over
 * curl_easy_setopt and curl_easy_getinfo.
 */
#ifndef PGCI_UPSTREAM_CURL_API_H
#define PGCI_UPSTREAM_CURL_API_H

#include <curl/curl.h>

#define CURL_API_FUNCTIONS(X)                                                                      \
    X(global_init)                                                                                 \
    X(easy_init)                                                                                   \
    X(easy_setopt)                                                                                 \
    X(easy_getinfo)                                                                                \
    X(easy_strerror)                                                                               \
    X(easy_cleanup)                                                                                \
    X(multi_init)                                                                                  \
    X(multi_setopt)                                                                                \
    X(multi_add_handle)                                                                            \
    X(multi_remove_handle)                                                                         \
    X(multi_perform)                                                                               \
    X(multi_poll)                                                                                  \
    X(multi_info_read)                                                                             \
    X(multi_cleanup)

typedef struct curl_api {
#define CURL_API_FIELD(f) __typeof__(curl_##f) *f;
    CURL_API_FUNCTIONS(CURL_API_FIELD)
#undef CURL_API_FIELD
} curl_api;

/* libcurl, loaded and globally initialised once per process; NULL with the
 * error set (core/lazylib.h) when it cannot be loaded. */
const curl_api *curl_api_get(void);

#endif
