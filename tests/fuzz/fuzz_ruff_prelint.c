/*
 * fuzz_ruff_prelint - libFuzzer target for src/patchgen/normalize_prelint: the
 * reading of a ruff lint's JSON report against the files' source, which says
 * which files the fix loop is certain to leave clean.
 *
 * The input is two texts (fuzz_two_texts): the report, then the source of both
 * files of the batch, /t/0/m0.py and /t/1/m1.py. The target aborts when an
 * invariant breaks:
 *  - the result is 0 or negative, and a negative one settles no file;
 *  - reading is deterministic: a second reading of the same input gives the same;
 *  - on a report it reads, a file no diagnostic names is settled, and a file
 *    with a diagnostic whose code is none of F401, F811, I001, W291, W292 and
 *    W293, or whose fix is not safe where the code needs one, is not.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/vec.h"
#include "patchgen/normalize_internal.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 1 when the report's diagnostic d may be settled: a known code with a safe fix,
 * or F811 (settled also without one, by the F401 it names). */
static int may_settle(const json_t *d)
{
    static const char *const codes[] = {"F401", "I001", "W291", "W292", "W293"};
    const char *code = json_string_value(json_object_get(d, "code"));
    const char *a = json_string_value(json_object_get(json_object_get(d, "fix"), "applicability"));
    if (code && !strcmp(code, "F811"))
        return 1;
    for (size_t i = 0; code && i < sizeof(codes) / sizeof(*codes); i++)
        if (!strcmp(code, codes[i]))
            return a && !strcmp(a, "safe");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t rlen, slen;
    const char *src;
    fuzz_two_texts((const char *)data, size, &rlen, &src, &slen);
    strvec files = STRVEC_INIT;
    strvec_push(&files, "/t/0/m0.py");
    strvec_push(&files, "/t/1/m1.py");
    normalize_item items[2];
    memset(items, 0, sizeof(items));
    for (int k = 0; k < 2; k++) {
        items[k].src = src;
        items[k].len = slen;
    }
    size_t todo[2] = {0, 1};
    unsigned char sure[2] = {7, 7}, again[2] = {7, 7};
    int r = normalize_prelint_judge((const char *)data, rlen, &files, items, todo, sure);
    int r2 = normalize_prelint_judge((const char *)data, rlen, &files, items, todo, again);
    pgci_error_clear();
    CHECK(r == r2 && sure[0] == again[0] && sure[1] == again[1]);
    CHECK(r <= 0);
    CHECK(sure[0] <= 1 && sure[1] <= 1);
    if (r < 0)
        CHECK(!sure[0] && !sure[1]);
    json_t *rep = r == 0 ? json_loadb((const char *)data, rlen, 0, NULL) : NULL;
    for (int k = 0; k < 2 && rep; k++) {
        int named = 0, unsettleable = 0;
        for (size_t i = 0; i < json_array_size(rep); i++) {
            const json_t *d = json_array_get(rep, i);
            const char *f = json_string_value(json_object_get(d, "filename"));
            if (f && !strcmp(f, files.items[k])) {
                named = 1;
                unsettleable |= !may_settle(d);
            }
        }
        if (!named)
            CHECK(sure[k] == 1);
        if (unsettleable)
            CHECK(sure[k] == 0);
    }
    json_decref(rep);
    strvec_free(&files);
    return 0;
}
