#include "py/py.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/fs.h"

/* One parser per thread: TSParser is not thread-safe, and creating one per parse
 * costs more than the parse of a small file. Freed at thread exit via a key. */
#include <pthread.h>

static pthread_key_t parser_key;
static pthread_once_t parser_once = PTHREAD_ONCE_INIT;

static void parser_destroy(void *p)
{
    ts_parser_delete(p);
}

static void parser_key_make(void)
{
    pthread_key_create(&parser_key, parser_destroy);
}

TSParser *py_thread_parser(void)
{
    pthread_once(&parser_once, parser_key_make);
    TSParser *p = pthread_getspecific(parser_key);
    if (!p) {
        p = ts_parser_new();
        ts_parser_set_language(p, tree_sitter_python());
        pthread_setspecific(parser_key, p);
    }
    return p;
}

int py_parse(py_tree *t, const char *src, size_t len, const char *path)
{
    memset(t, 0, sizeof(*t));
    if (len > UINT32_MAX / 2)
        return pgci_error_set(PGCI_ELIMIT, "%s: %zu bytes is too large to parse", path, len);
    t->src = pgci_malloc(len + 1);
    if (len) /* an empty text may come as NULL: memcpy wants a pointer even for 0 */
        memcpy(t->src, src, len);
    t->src[len] = '\0';
    t->len = len;
    t->path = pgci_strdup(path ? path : "<input>");
    t->tree = ts_parser_parse_string(py_thread_parser(), NULL, t->src, (uint32_t)len);
    if (!t->tree) {
        py_tree_free(t);
        return pgci_error_set(PGCI_ERROR, "%s: tree-sitter could not parse", path);
    }
    return 0;
}

int py_parse_file(py_tree *t, const char *path)
{
    strbuf sb = STRBUF_INIT;
    int r = fs_read_file(&sb, path, 0);
    if (r == 0)
        r = py_parse(t, sb.buf, sb.len, path);
    strbuf_free(&sb);
    return r;
}

void py_tree_free(py_tree *t)
{
    if (t->tree)
        ts_tree_delete(t->tree);
    free(t->src);
    free(t->path);
    memset(t, 0, sizeof(*t));
}

TSNode py_root(const py_tree *t)
{
    return ts_tree_root_node(t->tree);
}

static int find_error(TSNode n, TSNode *err)
{
    if (!ts_node_has_error(n))
        return 0;
    if (ts_node_is_missing(n) || !strcmp(ts_node_type(n), "ERROR")) {
        *err = n;
        return 1;
    }
    uint32_t c = ts_node_child_count(n);
    for (uint32_t i = 0; i < c; i++)
        if (find_error(ts_node_child(n, i), err))
            return 1;
    *err = n;
    return 1;
}

int py_first_error(const py_tree *t, TSNode *err)
{
    return find_error(py_root(t), err);
}

int py_check_syntax(const py_tree *t)
{
    TSNode e;
    if (!py_first_error(t, &e))
        return 0;
    size_t n;
    const char *s = py_text(t, e, &n);
    size_t show = 0;
    while (show < n && show < 40 && s[show] != '\n')
        show++;
    return pgci_error_set(PGCI_EINVALID, "%s:%u:%u: syntax error near '%.*s'", t->path, py_line(e),
                          py_col(e), (int)show, s);
}

const char *py_text(const py_tree *t, TSNode n, size_t *len)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    if (b > t->len)
        b = (uint32_t)t->len;
    if (a > b)
        a = b;
    *len = b - a;
    return t->src + a;
}

char *py_text_dup(const py_tree *t, TSNode n)
{
    size_t len;
    const char *s = py_text(t, n, &len);
    return pgci_strndup(s, len);
}

int py_text_eq(const py_tree *t, TSNode n, const char *s)
{
    size_t len;
    const char *p = py_text(t, n, &len);
    return strlen(s) == len && memcmp(p, s, len) == 0;
}

int py_is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

TSNode py_field(TSNode n, const char *field)
{
    return ts_node_child_by_field_name(n, field, (uint32_t)strlen(field));
}

int py_cursor_next(TSTreeCursor *c, int enter)
{
    if (enter && ts_tree_cursor_goto_first_child(c))
        return 1;
    while (!ts_tree_cursor_goto_next_sibling(c))
        if (!ts_tree_cursor_goto_parent(c))
            return 0;
    return 1;
}

unsigned py_line(TSNode n)
{
    return ts_node_start_point(n).row + 1;
}

unsigned py_col(TSNode n)
{
    return ts_node_start_point(n).column + 1;
}
