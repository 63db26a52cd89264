/*
 * junit.h - JUnit XML, as pytest (--junitxml), ctest, go-junit-report and most
 * test runners write it, read with libxml2 into one list of test cases.
 *
 * The root is <testsuites> or <testsuite>; <testsuite> may nest; every <testcase>
 * under them is one case. A case's outcome is its first <failure>, <error> or
 * <skipped> child, else passed. The text of a failure (pytest: the traceback) is
 * kept to its first JUNIT_TRACE_LINES lines. The parser never loads a DTD, never
 * touches the network and never expands external entities.
 */
#ifndef PGCI_VERIFY_JUNIT_H
#define PGCI_VERIFY_JUNIT_H

#include <stddef.h>

#include "core/vec.h"

#define JUNIT_TRACE_LINES 20
#define JUNIT_TEXT_MAX 4096

typedef enum junit_status {
    JUNIT_PASSED,
    JUNIT_FAILED,
    JUNIT_ERROR,
    JUNIT_SKIPPED,
} junit_status;

typedef struct junit_case {
    char *classname; /* "" when absent */
    char *name;
    junit_status status;
    char *message; /* failure/error message attribute, skip reason; NULL when none */
    char *trace;   /* first lines of the failure/error text; NULL when none */
    double seconds;
} junit_case;

typedef struct junit_result {
    VEC(junit_case) cases;
    size_t counts[4]; /* by junit_status */
    double seconds;   /* sum of the cases' times */
} junit_result;

/* Parses xml[0..len). `name` prefixes messages ("logits.xml:3: ..."). On error
 * out is empty and the message says what is wrong and where. */
int junit_parse(junit_result *out, const char *xml, size_t len, const char *name);

void junit_result_free(junit_result *r);

/* "passed", "failed", "error", "skipped". */
const char *junit_status_name(junit_status s);

#endif
