/*
 * JUnit XML through libxml2. Why no DTD: JUnit files have none, and a DTD is the
 * only way to declare entities, so refusing one closes the door on entity
 * expansion (a "billion laughs" file) before any text is read. libxml2 itself is
 * told never to fetch anything (XML_PARSE_NONET) and to keep its errors to itself
 * (they come back through the parser context as one message).
 */
#include "verify/junit.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "verify/xml_api.h"

#define JUNIT_MAX_NESTING 64

const char *junit_status_name(junit_status s)
{
    static const char *const names[] = {"passed", "failed", "error", "skipped"};
    return (unsigned)s < 4 ? names[s] : "?";
}

static int is_element(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

/* The first `max_lines` lines of s, at most JUNIT_TEXT_MAX bytes, never cutting a
 * UTF-8 sequence; trailing blank space dropped. NULL for NULL or blank text. */
static char *clip(const char *s, int max_lines)
{
    if (!s)
        return NULL;
    while (*s == '\n' || *s == '\r')
        s++;
    size_t n = 0;
    int lines = 0;
    while (s[n] && n < JUNIT_TEXT_MAX) {
        if (s[n] == '\n' && ++lines == max_lines)
            break;
        n++;
    }
    if (s[n] && n == JUNIT_TEXT_MAX)
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    while (n > 0 && strchr(" \t\r\n", s[n - 1]))
        n--;
    return n ? pgci_strndup(s, n) : NULL;
}

/* An attribute clipped to one line's worth of text, or NULL. */
static char *prop(const xml_api *X, const xmlNode *n, const char *name, int max_lines)
{
    xmlChar *v = X->fn.GetProp(n, (const xmlChar *)name);
    char *out = clip((const char *)v, max_lines);
    X->dealloc(v);
    return out;
}

static char *text_of(const xml_api *X, const xmlNode *n, int max_lines)
{
    xmlChar *v = X->fn.NodeGetContent(n);
    char *out = clip((const char *)v, max_lines);
    X->dealloc(v);
    return out;
}

static double seconds_of(const xml_api *X, const xmlNode *n)
{
    xmlChar *v = X->fn.GetProp(n, (const xmlChar *)"time");
    double t = 0;
    if (v) {
        char *end;
        t = strtod((const char *)v, &end);
        if (end == (char *)v || !isfinite(t) || t < 0)
            t = 0;
    }
    X->dealloc(v);
    return t;
}

static void read_case(const xml_api *X, junit_result *r, const xmlNode *n)
{
    junit_case c;
    memset(&c, 0, sizeof(c));
    c.classname = prop(X, n, "classname", 1);
    if (!c.classname)
        c.classname = pgci_strdup("");
    c.name = prop(X, n, "name", 1);
    if (!c.name)
        c.name = pgci_strdup("");
    c.seconds = seconds_of(X, n);
    c.status = JUNIT_PASSED;
    for (const xmlNode *k = n->children; k; k = k->next) {
        int failed = is_element(k, "failure"), error = is_element(k, "error");
        if (!failed && !error && !is_element(k, "skipped"))
            continue;
        c.status = failed ? JUNIT_FAILED : error ? JUNIT_ERROR : JUNIT_SKIPPED;
        c.message = prop(X, k, "message", JUNIT_TRACE_LINES);
        if (c.status == JUNIT_SKIPPED) {
            if (!c.message)
                c.message = text_of(X, k, 1);
        } else {
            c.trace = text_of(X, k, JUNIT_TRACE_LINES);
        }
        break;
    }
    r->counts[c.status]++;
    r->seconds += c.seconds;
    VEC_PUSH(&r->cases, c);
}

static int walk(const xml_api *X, junit_result *r, const xmlNode *suite, int depth,
                const char *name)
{
    if (depth > JUNIT_MAX_NESTING)
        return pgci_error_set(PGCI_ELIMIT, "%s:%d: <testsuite> nested more than %d deep", name,
                              suite->line, JUNIT_MAX_NESTING);
    for (const xmlNode *k = suite->children; k; k = k->next) {
        if (is_element(k, "testcase"))
            read_case(X, r, k);
        else if (is_element(k, "testsuite") && walk(X, r, k, depth + 1, name) < 0)
            return PGCI_ELIMIT;
    }
    return 0;
}

static int parse_error(const xml_api *X, xmlParserCtxtPtr ctxt, const char *name)
{
    const xmlError *e = X->fn.CtxtGetLastError(ctxt);
    if (!e || !e->message)
        return pgci_error_set(PGCI_EINVALID, "%s: malformed XML", name);
    char *m = clip(e->message, 1); /* one line, as every pgci error */
    int rc = pgci_error_set(PGCI_EINVALID, "%s:%d: malformed XML: %s", name, e->line,
                            m ? m : "unreadable");
    free(m);
    return rc;
}

int junit_parse(junit_result *out, const char *xml, size_t len, const char *name)
{
    memset(out, 0, sizeof(*out));
    if (len > INT_MAX)
        return pgci_error_set(PGCI_ELIMIT, "%s: %zu bytes is too large for a JUnit file", name,
                              len);
    const xml_api *X = xml_api_get();
    if (!X)
        return pgci_error_wrap(pgci_error_code(), "%s", name);
    xmlParserCtxtPtr ctxt = X->fn.NewParserCtxt();
    if (!ctxt)
        return pgci_error_set(PGCI_EIO, "%s: cannot start the XML parser", name);
    xmlDocPtr doc = X->fn.CtxtReadMemory(ctxt, xml, (int)len, name, NULL,
                                         XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    int rc = 0;
    if (!doc) {
        rc = parse_error(X, ctxt, name);
        goto done;
    }
    const xmlNode *root = X->fn.DocGetRootElement(doc);
    if (doc->intSubset || doc->extSubset) {
        rc = pgci_error_set(PGCI_EINVALID, "%s: has a <!DOCTYPE>; JUnit XML has none", name);
    } else if (!root || (!is_element(root, "testsuites") && !is_element(root, "testsuite"))) {
        rc = pgci_error_set(PGCI_EINVALID,
                            "%s: the root element is <%s>, not <testsuites> or <testsuite>", name,
                            root ? (const char *)root->name : "");
    } else {
        rc = walk(X, out, root, 0, name);
    }
    if (rc < 0)
        junit_result_free(out);
done:
    X->fn.FreeDoc(doc);
    X->fn.FreeParserCtxt(ctxt);
    return rc;
}

void junit_result_free(junit_result *r)
{
    for (size_t i = 0; i < r->cases.len; i++) {
        junit_case *c = &r->cases.items[i];
        free(c->classname);
        free(c->name);
        free(c->message);
        free(c->trace);
    }
    VEC_FREE(&r->cases);
    memset(r, 0, sizeof(*r));
}
