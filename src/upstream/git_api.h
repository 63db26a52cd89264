/*
 * git_api.h - libgit2's functions as pgci calls them: through a table filled
 * the first time a git: source is opened or verify checks a tree out
 * (core/lazylib.h says why libgit2 is not linked). Each entry has the type of
 * libgit2's own declaration (git2.h); the names drop the git_ prefix.
 */
#ifndef PGCI_UPSTREAM_GIT_API_H
#define PGCI_UPSTREAM_GIT_API_H

#include <git2.h>

#define GIT_API_FUNCTIONS(X)                                                                       \
    X(libgit2_init)                                                                                \
    X(error_last)                                                                                  \
    X(repository_open_ext)                                                                         \
    X(repository_free)                                                                             \
    X(repository_is_bare)                                                                          \
    X(repository_workdir)                                                                          \
    X(remote_lookup)                                                                               \
    X(remote_create_detached)                                                                      \
    X(remote_init_callbacks)                                                                       \
    X(remote_connect)                                                                              \
    X(remote_ls)                                                                                   \
    X(remote_disconnect)                                                                           \
    X(remote_fetch)                                                                                \
    X(remote_url)                                                                                  \
    X(remote_free)                                                                                 \
    X(fetch_options_init)                                                                          \
    X(reference_lookup)                                                                            \
    X(reference_peel)                                                                              \
    X(reference_free)                                                                              \
    X(tree_entry_bypath)                                                                           \
    X(tree_entry_type)                                                                             \
    X(tree_entry_filemode)                                                                         \
    X(tree_entry_id)                                                                               \
    X(tree_entry_free)                                                                             \
    X(tree_free)                                                                                   \
    X(blob_lookup)                                                                                 \
    X(blob_rawsize)                                                                                \
    X(blob_rawcontent)                                                                             \
    X(blob_free)                                                                                   \
    X(object_free)                                                                                 \
    X(object_peel)                                                                                 \
    X(diff_options_init)                                                                           \
    X(diff_tree_to_workdir_with_index)                                                             \
    X(diff_foreach)                                                                                \
    X(diff_free)                                                                                   \
    X(tag_list)                                                                                    \
    X(strarray_dispose)                                                                            \
    X(revparse_single)                                                                             \
    X(checkout_options_init)                                                                       \
    X(checkout_tree)                                                                               \
    X(status_options_init)                                                                         \
    X(status_list_new)                                                                             \
    X(status_list_entrycount)                                                                      \
    X(status_byindex)                                                                              \
    X(status_list_free)

typedef struct git_api {
#define GIT_API_FIELD(f) __typeof__(git_##f) *f;
    GIT_API_FUNCTIONS(GIT_API_FIELD)
#undef GIT_API_FIELD
} git_api;

/* libgit2, loaded and initialised (git_libgit2_init) once per process; NULL with
 * the error set (core/lazylib.h) when it cannot be loaded. */
const git_api *git_api_get(void);

/* The message of libgit2's last error on this thread, or a generic one. */
const char *git_api_why(const git_api *G);

#endif
