#include "kernels/safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fs.h"
#include "kernels/kmath.h"

static const char *const dtype_names[ST_N_DTYPES] = {"F32", "F16", "BF16", "F64", "I64", "I32"};
static const size_t dtype_sizes[ST_N_DTYPES] = {4, 2, 2, 8, 8, 4};

const char *st_dtype_name(st_dtype d)
{
    return (unsigned)d < ST_N_DTYPES ? dtype_names[d] : NULL;
}

size_t st_dtype_size(st_dtype d)
{
    return (unsigned)d < ST_N_DTYPES ? dtype_sizes[d] : 0;
}

static int dtype_parse(const char *s)
{
    for (int i = 0; i < ST_N_DTYPES; i++)
        if (!strcmp(s, dtype_names[i]))
            return i;
    return -1;
}

static void tensors_free(st_file *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->tensors[i].name);
    free(f->tensors);
    f->tensors = NULL;
    f->n = 0;
}

/* Reads one header entry into t, checking shape, dtype and byte count. */
static int parse_entry(st_tensor *t, const char *name, json_t *v, const char *what)
{
    if (!json_is_object(v))
        return pgci_error_set(PGCI_EINVALID, "%s: tensor '%s': header entry is not an object", what,
                              name);
    json_t *dt = json_object_get(v, "dtype");
    json_t *sh = json_object_get(v, "shape");
    json_t *off = json_object_get(v, "data_offsets");
    if (!json_is_string(dt) || !json_is_array(sh) || !json_is_array(off))
        return pgci_error_set(PGCI_EINVALID,
                              "%s: tensor '%s': needs string 'dtype', list 'shape' and list "
                              "'data_offsets'",
                              what, name);
    int d = dtype_parse(json_string_value(dt));
    if (d < 0)
        return pgci_error_set(PGCI_EUNSUPPORTED, "%s: tensor '%s': unsupported dtype '%s'", what,
                              name, json_string_value(dt));
    t->dtype = (st_dtype)d;
    if (json_array_size(sh) > ST_MAX_DIMS)
        return pgci_error_set(PGCI_EINVALID, "%s: tensor '%s': %zu dimensions (at most %d)", what,
                              name, json_array_size(sh), ST_MAX_DIMS);
    t->ndim = (int)json_array_size(sh);
    uint64_t numel = 1;
    for (int i = 0; i < t->ndim; i++) {
        json_t *x = json_array_get(sh, (size_t)i);
        if (!json_is_integer(x) || json_integer_value(x) < 0)
            return pgci_error_set(PGCI_EINVALID,
                                  "%s: tensor '%s': shape[%d] is not a non-negative integer", what,
                                  name, i);
        t->shape[i] = (uint64_t)json_integer_value(x);
        if (t->shape[i] && numel > UINT64_MAX / t->shape[i])
            return pgci_error_set(PGCI_EINVALID, "%s: tensor '%s': shape overflows", what, name);
        numel *= t->shape[i];
    }
    t->numel = numel;
    json_t *b = json_array_get(off, 0), *e = json_array_get(off, 1);
    if (json_array_size(off) != 2 || !json_is_integer(b) || !json_is_integer(e) ||
        json_integer_value(b) < 0 || json_integer_value(e) < 0)
        return pgci_error_set(PGCI_EINVALID,
                              "%s: tensor '%s': data_offsets must be two non-negative integers",
                              what, name);
    t->begin = (uint64_t)json_integer_value(b);
    t->end = (uint64_t)json_integer_value(e);
    if (t->end < t->begin)
        return pgci_error_set(PGCI_EINVALID,
                              "%s: tensor '%s': data_offsets [%llu, %llu] end "
                              "before they begin",
                              what, name, (unsigned long long)t->begin, (unsigned long long)t->end);
    uint64_t es = dtype_sizes[d];
    if (numel > UINT64_MAX / es || numel * es != t->end - t->begin)
        return pgci_error_set(PGCI_EINVALID,
                              "%s: tensor '%s': %llu bytes in data_offsets but shape and dtype %s "
                              "need %llu",
                              what, name, (unsigned long long)(t->end - t->begin), dtype_names[d],
                              numel > UINT64_MAX / es ? 0ull : (unsigned long long)(numel * es));
    t->name = pgci_strdup(name);
    return 0;
}

static int cmp_begin(const void *a, const void *b)
{
    const st_tensor *x = *(st_tensor *const *)a, *y = *(st_tensor *const *)b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Tensors must tile the data section exactly: sorted by offset, each one starts
 * where the previous one ended, and the last ends at the end of the file. */
static int check_tiling(const st_file *f, const char *what)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->tensors[i].end > f->data_len)
            return pgci_error_set(PGCI_EINVALID,
                                  "%s: tensor '%s': data_offsets end at %llu, past the end of the "
                                  "data (%zu bytes)",
                                  what, f->tensors[i].name, (unsigned long long)f->tensors[i].end,
                                  f->data_len);
    st_tensor **order = pgci_malloc((f->n ? f->n : 1) * sizeof(*order));
    for (size_t i = 0; i < f->n; i++)
        order[i] = &f->tensors[i];
    qsort(order, f->n, sizeof(*order), cmp_begin);
    uint64_t at = 0;
    int rc = 0;
    for (size_t i = 0; i < f->n && !rc; i++) {
        const st_tensor *t = order[i];
        if (t->begin < at)
            rc = pgci_error_set(PGCI_EINVALID,
                                "%s: tensor '%s' (bytes %llu..%llu) overlaps tensor '%s'", what,
                                t->name, (unsigned long long)t->begin, (unsigned long long)t->end,
                                order[i - 1]->name);
        else if (t->begin > at)
            rc = pgci_error_set(PGCI_EINVALID,
                                "%s: a gap of %llu unreferenced bytes before tensor '%s'", what,
                                (unsigned long long)(t->begin - at), t->name);
        at = t->end;
    }
    if (!rc && at != f->data_len)
        rc = pgci_error_set(PGCI_EINVALID,
                            "%s: %llu bytes after the last tensor are not referenced by the header",
                            what, (unsigned long long)(f->data_len - at));
    free(order);
    return rc;
}

int st_parse(st_file *f, const void *buf, size_t len, const char *what)
{
    memset(f, 0, sizeof(*f));
    const unsigned char *p = buf;
    if (len < 8)
        return pgci_error_set(PGCI_EINVALID,
                              "%s: truncated safetensors file (%zu bytes, the header length "
                              "alone takes 8)",
                              what, len);
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = hlen << 8 | p[i];
    if (hlen > len - 8)
        return pgci_error_set(PGCI_EINVALID,
                              "%s: truncated header: it claims %llu bytes but the file has %zu "
                              "after the length",
                              what, (unsigned long long)hlen, len - 8);
    if (hlen > ST_MAX_HEADER)
        return pgci_error_set(PGCI_ELIMIT, "%s: header of %llu bytes is over the %u-byte limit",
                              what, (unsigned long long)hlen, ST_MAX_HEADER);
    json_error_t jerr;
    json_t *root = json_loadb((const char *)p + 8, (size_t)hlen, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return pgci_error_set(PGCI_EINVALID, "%s: header is not valid JSON: %s (at byte %d)", what,
                              jerr.text, jerr.position);
    int rc = 0;
    if (!json_is_object(root)) {
        rc = pgci_error_set(PGCI_EINVALID, "%s: header is not a JSON object", what);
        goto out;
    }
    f->data = p + 8 + hlen;
    f->data_len = len - 8 - (size_t)hlen;
    f->tensors = pgci_calloc(json_object_size(root) + 1, sizeof(*f->tensors));
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        if (!strcmp(key, "__metadata__")) {
            const char *mk;
            json_t *mv;
            if (!json_is_object(v)) {
                rc = pgci_error_set(PGCI_EINVALID, "%s: __metadata__ is not an object", what);
                goto out;
            }
            json_object_foreach(v, mk, mv) if (!json_is_string(mv))
            {
                rc = pgci_error_set(PGCI_EINVALID, "%s: __metadata__ value '%s' is not a string",
                                    what, mk);
                goto out;
            }
            continue;
        }
        if ((rc = parse_entry(&f->tensors[f->n], key, v, what)) < 0)
            goto out;
        f->n++;
    }
    rc = check_tiling(f, what);
out:
    json_decref(root);
    if (rc < 0)
        tensors_free(f);
    return rc;
}

int st_open(st_file *f, const char *path)
{
    memset(f, 0, sizeof(*f));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pgci_error_set(PGCI_EIO, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return pgci_error_set(PGCI_EIO, "cannot read %s: not a regular file", path);
    }
    size_t len = (size_t)st.st_size;
    void *map = NULL;
    if (len > 0) {
        map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            int e = errno;
            close(fd);
            return pgci_error_set(PGCI_EIO, "cannot map %s: %s", path, strerror(e));
        }
    }
    close(fd);
    int rc = st_parse(f, map ? map : "", len, path);
    if (rc < 0) {
        if (map)
            munmap(map, len);
        return rc;
    }
    f->map = map;
    f->map_len = len;
    return 0;
}

const st_tensor *st_find(const st_file *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->tensors[i].name, name))
            return &f->tensors[i];
    return NULL;
}

static float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f)
        return kmath_f32_from_bits(sign | 0x7f800000u | (man << 13));
    if (exp == 0) { /* zero or subnormal: man * 2^-24 */
        float v = (float)man * 0x1p-24f;
        return sign ? -v : v;
    }
    return kmath_f32_from_bits(sign | ((exp + 112) << 23) | (man << 13));
}

int st_read_f32(const st_file *f, const st_tensor *t, float *out)
{
    const unsigned char *p = f->data + t->begin;
    for (uint64_t i = 0; i < t->numel; i++) {
        switch (t->dtype) {
        case ST_F32: {
            uint32_t u = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
                         (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
            out[i] = kmath_f32_from_bits(u);
            break;
        }
        case ST_BF16:
            out[i] = kmath_bf16_to_f32((uint16_t)(p[2 * i] | p[2 * i + 1] << 8));
            break;
        case ST_F16:
            out[i] = f16_to_f32((uint16_t)(p[2 * i] | p[2 * i + 1] << 8));
            break;
        case ST_F64: {
            uint64_t u = 0;
            for (int b = 7; b >= 0; b--)
                u = u << 8 | p[8 * i + (uint64_t)b];
            double d;
            memcpy(&d, &u, sizeof(d));
            out[i] = (float)d;
            break;
        }
        default:
            return pgci_error_set(PGCI_EINVALID, "tensor '%s' has dtype %s, not a float type",
                                  t->name, dtype_names[t->dtype]);
        }
    }
    return 0;
}

void st_close(st_file *f)
{
    tensors_free(f);
    if (f->map)
        munmap(f->map, f->map_len);
    memset(f, 0, sizeof(*f));
}

/* --- writing -------------------------------------------------------------------- */

void st_writer_add(st_writer *w, const char *name, st_dtype dtype, int ndim, const uint64_t *shape,
                   const void *data)
{
    if (w->len == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 32;
        w->items = pgci_realloc(w->items, w->cap * sizeof(*w->items));
    }
    st_entry *e = &w->items[w->len++];
    memset(e, 0, sizeof(*e));
    e->name = pgci_strdup(name);
    e->dtype = dtype;
    e->ndim = ndim;
    for (int i = 0; i < ndim && i < ST_MAX_DIMS; i++)
        e->shape[i] = shape[i];
    e->data = data;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp((*(st_entry *const *)a)->name, (*(st_entry *const *)b)->name);
}

static uint64_t entry_bytes(const st_entry *e)
{
    uint64_t n = st_dtype_size(e->dtype);
    for (int i = 0; i < e->ndim; i++)
        n *= e->shape[i];
    return n;
}

int st_writer_build(const st_writer *w, strbuf *out)
{
    st_entry **order = pgci_malloc((w->len ? w->len : 1) * sizeof(*order));
    for (size_t i = 0; i < w->len; i++)
        order[i] = &w->items[i];
    qsort(order, w->len, sizeof(*order), cmp_entry);
    for (size_t i = 1; i < w->len; i++)
        if (!strcmp(order[i]->name, order[i - 1]->name)) {
            int rc = pgci_error_set(PGCI_EINVALID, "safetensors: tensor '%s' added twice",
                                    order[i]->name);
            free(order);
            return rc;
        }
    /* The header is written by hand so the key order is the data order. */
    strbuf h = STRBUF_INIT;
    strbuf_adds(&h, "{\"__metadata__\":{\"format\":\"pt\"}");
    uint64_t at = 0;
    for (size_t i = 0; i < w->len; i++) {
        const st_entry *e = order[i];
        json_t *js = json_string(e->name);
        char *quoted = json_dumps(js, JSON_ENCODE_ANY);
        json_decref(js);
        strbuf_addf(&h, ",%s:{\"dtype\":\"%s\",\"shape\":[", quoted, st_dtype_name(e->dtype));
        free(quoted);
        for (int d = 0; d < e->ndim; d++)
            strbuf_addf(&h, "%s%llu", d ? "," : "", (unsigned long long)e->shape[d]);
        uint64_t n = entry_bytes(e);
        strbuf_addf(&h, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)at,
                    (unsigned long long)(at + n));
        at += n;
    }
    strbuf_addc(&h, '}');
    while (h.len % 8)
        strbuf_addc(&h, ' ');
    unsigned char len8[8];
    for (int i = 0; i < 8; i++)
        len8[i] = (unsigned char)((uint64_t)h.len >> (8 * i));
    strbuf_grow(out, 8 + h.len + (size_t)at);
    strbuf_add(out, len8, 8);
    strbuf_add(out, h.buf, h.len);
    for (size_t i = 0; i < w->len; i++)
        strbuf_add(out, order[i]->data, (size_t)entry_bytes(order[i]));
    strbuf_free(&h);
    free(order);
    return 0;
}

int st_writer_write(const st_writer *w, const char *path)
{
    strbuf buf = STRBUF_INIT;
    int rc = st_writer_build(w, &buf);
    if (!rc && (rc = fs_write_atomic(path, buf.buf, buf.len)) < 0)
        rc = pgci_error_wrap(rc, "cannot write safetensors file %s", path);
    strbuf_free(&buf);
    return rc;
}

void st_writer_free(st_writer *w)
{
    for (size_t i = 0; i < w->len; i++)
        free(w->items[i].name);
    free(w->items);
    w->items = NULL;
    w->len = w->cap = 0;
}
