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

const char *py_next_ts_blank(const char *p, const char *end, unsigned *cp)
{
    static const struct {
        const char *bytes;
        unsigned cp;
    } blanks[] = {
        {"\v", 0x0B}, {"\xef\xbb\xbf", 0xFEFF}, {"\xe2\x81\xa0", 0x2060}, {"\xe2\x80\x8b", 0x200B}};
    const char *first = NULL;
    for (size_t k = 0; k < sizeof(blanks) / sizeof(blanks[0]); k++) {
        size_t n = strlen(blanks[k].bytes);
        const char *stop = first ? first : end;
        for (const char *q = p; q < stop && (q = memchr(q, blanks[k].bytes[0], (size_t)(stop - q)));
             q++)
            if ((size_t)(end - q) >= n && !memcmp(q, blanks[k].bytes, n)) {
                first = q;
                if (cp)
                    *cp = blanks[k].cp;
                break;
            }
    }
    return first;
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

/* The grammar's symbol names by public symbol, made once: py_is asks for a
 * node's type at most nodes the walks visit, and ts_node_type goes through two
 * calls into the runtime per node where the table is one lookup. */
static struct {
    pthread_once_t once;
    const char **name;
    uint32_t n;
} symbols = {PTHREAD_ONCE_INIT, NULL, 0};

static void symbols_init(void)
{
    const TSLanguage *l = tree_sitter_python();
    uint32_t n = ts_language_symbol_count(l);
    symbols.name = pgci_calloc(n ? n : 1, sizeof(*symbols.name));
    for (uint32_t i = 0; i < n; i++)
        symbols.name[i] = ts_language_symbol_name(l, (TSSymbol)i);
    symbols.n = n;
}

int py_is(TSNode n, const char *type)
{
    if (ts_node_is_null(n))
        return 0;
    pthread_once(&symbols.once, symbols_init);
    TSSymbol sym = ts_node_symbol(n);
    /* every tree here is the Python grammar's (py_thread_parser) */
    const char *name = sym < symbols.n ? symbols.name[sym] : ts_node_type(n);
    return name && name[0] == type[0] && strcmp(name, type) == 0;
}

/* The grammar's field ids by name, by the name's length. tree-sitter's own lookup
 * (ts_node_child_by_field_name) compares the name with every field's name in turn,
 * and the walks ask for a field at most of the nodes they visit: that lookup was a
 * seventh of the instructions of a survey's checks. */
#define FIELD_MAXLEN 32
#define FIELD_SAME_LEN 8
static struct {
    pthread_once_t once;
    int ok; /* every name fits the table */
    TSFieldId id[FIELD_MAXLEN][FIELD_SAME_LEN];
    unsigned char n[FIELD_MAXLEN];
} fields = {PTHREAD_ONCE_INIT, 0, {{0}}, {0}};

static void fields_init(void)
{
    const TSLanguage *l = tree_sitter_python();
    uint32_t count = ts_language_field_count(l);
    fields.ok = 1;
    for (uint32_t i = 1; i <= count; i++) {
        const char *name = ts_language_field_name_for_id(l, (TSFieldId)i);
        size_t len = name ? strlen(name) : 0;
        if (!len || len >= FIELD_MAXLEN || fields.n[len] == FIELD_SAME_LEN) {
            fields.ok = 0;
            return;
        }
        fields.id[len][fields.n[len]++] = (TSFieldId)i;
    }
}

TSNode py_field(TSNode n, const char *field)
{
    pthread_once(&fields.once, fields_init);
    size_t len = strlen(field);
    if (!fields.ok)
        return ts_node_child_by_field_name(n, field, (uint32_t)len);
    if (len && len < FIELD_MAXLEN) {
        if (ts_node_is_null(n))
            return n;
        const TSLanguage *l = ts_tree_language(n.tree);
        if (l != tree_sitter_python())
            return ts_node_child_by_field_name(n, field, (uint32_t)len);
        for (unsigned k = 0; k < fields.n[len]; k++) {
            TSFieldId id = fields.id[len][k];
            if (!memcmp(ts_language_field_name_for_id(l, id), field, len))
                return ts_node_child_by_field_id(n, id);
        }
    }
    TSNode null = {0};
    return null; /* no such field: tree-sitter's lookup gives id 0, a null node */
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
