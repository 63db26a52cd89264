/*
 * kgpu_load.c - the GPU path of kgpu.h: finds the CUDA plugin and loads it on
 * first use.
 *
 * Why a plugin: linking pgci against libcudart and cuBLAS made every process,
 * `pgci --version` included, pay for loading them (~0.1 s); only `pgci logits`
 * on a CUDA device needs them. So kernels/kgpu.cu is built into pgci-cuda.so
 * (kgpu_plugin.h) and dlopen()ed here the first time a kgpu_* function runs.
 *
 * Where it is looked for, first match wins:
 *   1. $PGCI_CUDA_PLUGIN, when set (used as is: a failure to load it is the answer);
 *   2. <directory of /proc/self/exe>/../lib/pgci/pgci-cuda.so (the installed layout);
 *   3. the build tree's plugin, PGCI_CUDA_PLUGIN_PATH, compiled in when nvcc existed.
 * In a build without nvcc (no PGCI_CUDA_PLUGIN_PATH) only 1 is consulted, and
 * without it the GPU path is reported as compiled out. Any failure (no file, not
 * a shared object, libcudart or the driver missing, no entry point, another ABI)
 * makes kgpu_probe() return 0 with the reason, so the GPU rows are skipped.
 * A loaded plugin stays loaded until exit (the CUDA runtime does not support
 * being unloaded).
 */
#include "kernels/kgpu.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "kernels/kgpu_plugin.h"
#include "kernels/reference.h"

static struct {
    pthread_once_t once;
    const kgpu_plugin *p; /* NULL when not loaded; why says why */
    char path[PATH_MAX + 64];
    char why[PATH_MAX + 512];
} g_plugin = {PTHREAD_ONCE_INIT, NULL, "", ""};

#define WHY(...) snprintf(g_plugin.why, sizeof(g_plugin.why), __VA_ARGS__)

/* Picks the file to load into g_plugin.path; 0 when none (why set). `from` names
 * where the path came from, for messages. */
static int plugin_find(const char **from)
{
    const char *env = getenv("PGCI_CUDA_PLUGIN");
    if (env && *env) {
        /* without a slash dlopen() would search the library path instead */
        snprintf(g_plugin.path, sizeof(g_plugin.path), "%s%s", strchr(env, '/') ? "" : "./", env);
        *from = " (PGCI_CUDA_PLUGIN)";
        return 1;
    }
#ifdef PGCI_CUDA_PLUGIN_PATH
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char installed[PATH_MAX + 64] = "(no /proc/self/exe)";
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        snprintf(installed, sizeof(installed), "%s/../lib/pgci/pgci-cuda.so", exe);
        if (access(installed, F_OK) == 0) {
            snprintf(g_plugin.path, sizeof(g_plugin.path), "%s", installed);
            *from = "";
            return 1;
        }
    }
    if (access(PGCI_CUDA_PLUGIN_PATH, F_OK) == 0) {
        snprintf(g_plugin.path, sizeof(g_plugin.path), "%s", PGCI_CUDA_PLUGIN_PATH);
        *from = "";
        return 1;
    }
    WHY("the CUDA plugin is missing: neither %s nor %s exists (build it with make, or set "
        "PGCI_CUDA_PLUGIN)",
        installed, PGCI_CUDA_PLUGIN_PATH);
    return 0;
#else
    *from = "";
    WHY("pgci was built without CUDA (no nvcc at build time)");
    return 0;
#endif
}

/* dlerror() text without a leading "<path>: ", which the message already names. */
static const char *dl_reason(const char *path)
{
    const char *e = dlerror();
    if (!e)
        return "unknown dynamic loader error";
    size_t n = strlen(path);
    if (strncmp(e, path, n) == 0 && e[n] == ':' && e[n + 1] == ' ')
        return e + n + 2;
    return e;
}

/* Refuses a table built against other struct layouts; 0 when it fits. */
static int plugin_check_sizes(const kgpu_plugin *p, const char *from)
{
    static const struct {
        const char *name;
        size_t off, here;
    } sz[] = {
        {"model", offsetof(kgpu_plugin, sizeof_model), sizeof(model)},
        {"model_layer", offsetof(kgpu_plugin, sizeof_model_layer), sizeof(model_layer)},
        {"model_tensor", offsetof(kgpu_plugin, sizeof_model_tensor), sizeof(model_tensor)},
        {"toy_config", offsetof(kgpu_plugin, sizeof_toy_config), sizeof(toy_config)},
        {"kfwd_out", offsetof(kgpu_plugin, sizeof_kfwd_out), sizeof(kfwd_out)},
        {"kgpu_bench_row", offsetof(kgpu_plugin, sizeof_bench_row), sizeof(kgpu_bench_row)},
    };
    if (p->table_size != sizeof(kgpu_plugin)) {
        WHY("CUDA plugin %s%s has an entry table of %u bytes, this pgci expects %zu: rebuild the "
            "plugin with this pgci",
            g_plugin.path, from, p->table_size, sizeof(kgpu_plugin));
        return -1;
    }
    for (size_t i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
        size_t there;
        memcpy(&there, (const char *)p + sz[i].off, sizeof(there));
        if (there != sz[i].here) {
            WHY("CUDA plugin %s%s was built against another layout of struct %s (%zu bytes "
                "there, %zu here): rebuild the plugin with this pgci",
                g_plugin.path, from, sz[i].name, there, sz[i].here);
            return -1;
        }
    }
    if (!p->probe || !p->forward || !p->bench) {
        WHY("CUDA plugin %s%s has an incomplete entry table", g_plugin.path, from);
        return -1;
    }
    return 0;
}

static void plugin_load(void)
{
    const char *from = "";
    if (!plugin_find(&from))
        return;
    void *h = dlopen(g_plugin.path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        WHY("cannot load the CUDA plugin %s%s: %s", g_plugin.path, from, dl_reason(g_plugin.path));
        return;
    }
    void *sym = dlsym(h, KGPU_PLUGIN_ENTRY);
    kgpu_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof(entry)); /* POSIX: dlsym's object pointer is a function's */
    if (!sym) {
        WHY("%s%s is not a pgci CUDA plugin: it has no %s() entry point", g_plugin.path, from,
            KGPU_PLUGIN_ENTRY);
        dlclose(h);
        return;
    }
    const kgpu_plugin *p = entry();
    if (!p) {
        WHY("CUDA plugin %s%s returned no entry table", g_plugin.path, from);
        dlclose(h);
        return;
    }
    if (p->abi != KGPU_PLUGIN_ABI) {
        WHY("CUDA plugin %s%s has ABI version %u, this pgci needs %u: rebuild the plugin with "
            "this pgci",
            g_plugin.path, from, p->abi, (unsigned)KGPU_PLUGIN_ABI);
        dlclose(h);
        return;
    }
    if (plugin_check_sizes(p, from) < 0) {
        dlclose(h);
        return;
    }
    g_plugin.p = p; /* the handle is kept open until exit */
}

/* The loaded plugin, or NULL with the reason in g_plugin.why. */
static const kgpu_plugin *plugin(void)
{
    pthread_once(&g_plugin.once, plugin_load);
    return g_plugin.p;
}

int kgpu_probe(char *why, size_t why_len, char *name, size_t name_len)
{
    if (name && name_len)
        name[0] = '\0';
    const kgpu_plugin *p = plugin();
    if (!p) {
        if (why && why_len)
            snprintf(why, why_len, "%s", g_plugin.why);
        return 0;
    }
    char local[256] = "";
    int ok = p->probe(why && why_len ? why : local, why && why_len ? why_len : sizeof(local), name,
                      name_len);
    return ok == 1;
}

int kgpu_forward(const model *m, const int *ids, int batch, int seq, int bf16, unsigned brk,
                 kfwd_out *out)
{
    const kgpu_plugin *p = plugin();
    if (!p)
        return pgci_error_set(PGCI_EUNSUPPORTED, "%s", g_plugin.why);
    size_t T = (size_t)batch * (size_t)seq;
    int *labels = malloc((T ? T : 1) * sizeof(int));
    if (!labels)
        return pgci_error_set(PGCI_ERROR, "out of memory for %zu labels", T);
    kref_labels(ids, batch, seq, labels);
    int rc = kfwd_out_alloc(out, &m->cfg, T);
    if (rc == 0) {
        char err[512] = "";
        if (p->forward(m, ids, labels, batch, seq, bf16, brk, out, err, sizeof(err)) != 0) {
            kfwd_out_free(out);
            rc = pgci_error_set(PGCI_EIO, "GPU forward pass of %s failed: %s", m->cfg.name,
                                err[0] ? err : "the CUDA plugin gave no reason");
        }
    }
    free(labels);
    return rc;
}

int kgpu_bench(kgpu_bench_row *rows, int max_rows, int *n_rows, double *peak_gbps)
{
    *n_rows = 0;
    *peak_gbps = 0;
    const kgpu_plugin *p = plugin();
    if (!p)
        return pgci_error_set(PGCI_EUNSUPPORTED, "%s", g_plugin.why);
    char err[512] = "";
    if (p->bench(rows, max_rows, n_rows, peak_gbps, err, sizeof(err)) != 0)
        return pgci_error_set(PGCI_EIO, "GPU benchmark failed: %s",
                              err[0] ? err : "the CUDA plugin gave no reason");
    return 0;
}
