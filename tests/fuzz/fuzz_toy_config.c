/* libFuzzer target: the toy config.json reader (kernels/toy.c) on arbitrary bytes.
 * An accepted config must satisfy what the kernels rely on (even head_dim, heads a
 * multiple of KV heads, top-k within the experts, sizes within limits). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "kernels/kmath.h"
#include "kernels/toy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    toy_config c;
    if (toy_config_parse(&c, (const char *)data, size, "fuzz/config.json") == 0) {
        if (c.head_dim % 2 || c.heads % c.kv_heads || c.vocab < 2 || c.hidden < 2 || c.layers < 1 ||
            c.head_dim > 1024 || !c.layer_is_moe)
            abort();
        if (c.family == TOY_QWEN3_MOE &&
            (c.top_k > c.num_experts || c.num_experts > KMATH_MAX_EXPERTS))
            abort();
        (void)toy_config_params(&c);
        toy_config_free(&c);
    }
    return 0;
}
