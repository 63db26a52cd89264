/*
 * xml_api.h - libxml2's functions as the JUnit reader calls them: through a
 * table filled the first time a JUnit file is read (core/lazylib.h says why
 * libxml2 is not linked: it brings ICU and the C++ runtime with it). Each entry
 * has the type of libxml2's own declaration; the names drop the xml prefix.
 */
#ifndef PGCI_VERIFY_XML_API_H
#define PGCI_VERIFY_XML_API_H

#include <libxml/parser.h>
#include <libxml/tree.h>

#define XML_API_FUNCTIONS(X)                                                                       \
    X(InitParser)                                                                                  \
    X(NewParserCtxt)                                                                               \
    X(CtxtReadMemory)                                                                              \
    X(CtxtGetLastError)                                                                            \
    X(DocGetRootElement)                                                                           \
    X(GetProp)                                                                                     \
    X(NodeGetContent)                                                                              \
    X(FreeDoc)                                                                                     \
    X(FreeParserCtxt)

typedef struct xml_functions {
#define XML_API_FIELD(f) __typeof__(xml##f) *f;
    XML_API_FUNCTIONS(XML_API_FIELD)
#undef XML_API_FIELD
} xml_functions;

typedef struct xml_api {
    xml_functions fn;
    xmlFreeFunc dealloc; /* xmlFree: what releases the strings GetProp and NodeGetContent return */
} xml_api;

/* libxml2, loaded and initialised (xmlInitParser) once per process; NULL with
 * the error set (core/lazylib.h) when it cannot be loaded. */
const xml_api *xml_api_get(void);

#endif
