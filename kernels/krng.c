#include "kernels/krng.h"

#include <math.h>

#include "kernels/kpar.h"

uint64_t krng_splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

uint64_t krng_key(uint64_t seed, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ull;
    }
    return krng_splitmix64(seed) ^ h;
}

static uint64_t word(uint64_t key, uint64_t i)
{
    return krng_splitmix64(key + i * 0x9E3779B97F4A7C15ull);
}

double krng_normal(uint64_t key, uint64_t i)
{
    double u1 = ((double)(word(key, 2 * i) >> 11) + 0.5) * 0x1p-53;
    double u2 = (double)(word(key, 2 * i + 1) >> 11) * 0x1p-53;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

uint64_t krng_below(uint64_t key, uint64_t i, uint64_t n)
{
    return word(key, i) % n;
}

struct fill_ctx {
    float *out;
    uint64_t key;
    double mean, std;
};

static void fill_range(void *vctx, size_t begin, size_t end)
{
    struct fill_ctx *c = vctx;
    for (size_t i = begin; i < end; i++)
        c->out[i] = (float)(c->mean + c->std * krng_normal(c->key, i));
}

void krng_fill_normal(float *out, size_t n, uint64_t key, double mean, double std)
{
    struct fill_ctx c = {out, key, mean, std};
    kpar_for(n, 64, fill_range, &c);
}
