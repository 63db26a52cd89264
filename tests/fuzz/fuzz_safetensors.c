/* libFuzzer target: the safetensors reader (kernels/safetensors.c) on arbitrary
 * bytes. A parsed file must satisfy the reader's promises (every tensor inside the
 * data, sizes matching shapes), and every float tensor must convert without
 * reading outside the buffer (ASan watches). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A private copy of exactly `size` bytes, so a read past the end is caught. */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    st_file f;
    if (st_parse(&f, buf, size, "fuzz") == 0) {
        uint64_t total = 0;
        for (size_t i = 0; i < f.n; i++) {
            const st_tensor *t = &f.tensors[i];
            if (t->end > f.data_len || t->begin > t->end ||
                t->end - t->begin != t->numel * st_dtype_size(t->dtype))
                abort();
            total += t->end - t->begin;
            if (st_find(&f, t->name) == NULL)
                abort();
            if (t->dtype == ST_F32 || t->dtype == ST_BF16 || t->dtype == ST_F16 ||
                t->dtype == ST_F64) {
                float *out = malloc(t->numel ? t->numel * sizeof(float) : 1);
                if (out) {
                    if (st_read_f32(&f, t, out) != 0)
                        abort();
                    free(out);
                }
            }
        }
        if (total != f.data_len) /* tensors tile the data exactly */
            abort();
        st_close(&f);
    }
    free(buf);
    return 0;
}
