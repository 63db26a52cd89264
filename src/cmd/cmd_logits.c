/*
 * cmd_logits.c - `pgci logits`: kernel-vs-reference logits on toy models.
 *
 * Runs checks/logits.c on the toy configs given with --toy (default: every
 * directory of fixtures/toy_config that holds a config.json), prints a table (or
 * JSON) and exits 1 when a comparison failed. A GPU comparison that cannot run
 * (no device, or pgci built without CUDA) is printed as "skipped", never "pass".
 * `--bench` times the memory-bound CUDA kernels instead.
 *
 * PGCI_TEST_BREAK_KERNEL=rmsnorm,... selects deliberately wrong kernel variants
 * (kernels/kbreak.h), so tests can prove that the check catches a broken kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/logits.h"
#include "cmd/cmd.h"
#include "core/error.h"
#include "core/fs.h"
#include "core/log.h"
#include "core/sha256.h"
#include "kernels/kgpu.h"
#include "kernels/toy.h"
#include "kernels/twin.h"
#include "pipeline/run_doc.h"

static const char usage_line[] =
    "pgci logits [--toy DIR ...] [--family F] [--dtype fp32|bf16] [--device auto|cpu|cuda]\n"
    "            [--seq N] [--batch B] [--seed S] [--weights FILE] [--export-weights FILE]\n"
    "            [--dump FILE] [--format text|json] [--fail-on error|warning|info]\n"
    "            [--run-json FILE] [--bench]";

/* The default toys: fixtures/toy_config/<name>/config.json under the current
 * directory (the repository), in name order. */
static int default_toys(strvec *toys)
{
    const char *dir = "fixtures/toy_config";
    strvec names = STRVEC_INIT;
    if (!fs_is_dir(dir) || fs_list_dir(&names, dir) < 0) {
        strvec_free(&names);
        return pgci_error_set(PGCI_EUSAGE, "no --toy given and no %s directory here", dir);
    }
    for (size_t i = 0; i < names.len; i++) {
        char *p = pgci_asprintf("%s/%s/config.json", dir, names.items[i]);
        if (fs_is_file(p))
            strvec_push(toys, p);
        free(p);
    }
    strvec_free(&names);
    return 0;
}

static void print_table(const logits_report *rep)
{
    static const char *const st[] = {"pass", "FAIL", "skipped"};
    printf("%-18s %-10s %-5s %-5s %-8s %-9s %-9s %-9s %-10s %-6s %-9s %9s %9s\n", "toy", "family",
           "dtype", "dev", "status", "max_abs", "max_rel", "rel_l2", "cosine", "layer", "loss_rel",
           "ref_ms", "dev_ms");
    size_t n[3] = {0, 0, 0};
    for (size_t i = 0; i < rep->len; i++) {
        const logits_row *r = &rep->rows[i];
        n[r->status]++;
        printf("%-18s %-10s %-5s %-5s %-8s ", r->toy, r->family, r->bf16 ? "bf16" : "fp32",
               r->device, st[r->status]);
        if (r->status == LOGITS_SKIP) {
            printf("(%s)\n", r->reason);
            continue;
        }
        char layer[16] = "-";
        if (r->first_bad_layer >= 0 && r->first_bad_layer < r->layers)
            snprintf(layer, sizeof(layer), "%d", r->first_bad_layer);
        else if (r->first_bad_layer >= 0)
            snprintf(layer, sizeof(layer), "logits");
        printf("%-9.2e %-9.2e %-9.2e %-10.7f %-6s %-9.2e %9.1f %9.1f\n", r->logits.max_abs,
               r->logits.max_rel, r->logits.rel_l2, r->logits.cosine, layer, r->loss_rel, r->ms_ref,
               r->ms);
        if (r->status == LOGITS_FAIL)
            printf("    %s\n", r->reason);
    }
    const kcmp_tol *f = kcmp_tolerance(0), *b = kcmp_tolerance(1);
    printf("\n%zu passed, %zu failed, %zu skipped", n[LOGITS_PASS], n[LOGITS_FAIL], n[LOGITS_SKIP]);
    if (rep->device_name[0])
        printf(" (GPU: %s)", rep->device_name);
    printf("\ntolerances: fp32 max_rel <= %.2g, rel_l2 <= %.2g, cosine >= %.6f, loss_rel <= %.2g;"
           " bf16 max_rel <= %.2g, rel_l2 <= %.2g, cosine >= %.4f, loss_rel <= %.2g\n",
           f->max_rel, f->rel_l2, f->min_cos, f->loss_rel, b->max_rel, b->rel_l2, b->min_cos,
           b->loss_rel);
}

/* The run record for `pgci report`: one config entry per toy, the check's
 * status, every finding, the inputs and their hashes. */
static int write_run_json(const char *path, const logits_opts *o, const logits_report *rep,
                          const findings *fs)
{
    run_doc d;
    run_doc_init(&d, "logits", 0);
    char buf[64];
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)o->seed);
    run_doc_set_input(&d, "seed", buf);
    snprintf(buf, sizeof(buf), "%d", o->batch);
    run_doc_set_input(&d, "batch", buf);
    snprintf(buf, sizeof(buf), "%d", o->seq);
    run_doc_set_input(&d, "seq", buf);
    run_doc_set_input(&d, "dtypes", o->fp32 && o->bf16 ? "fp32,bf16" : o->fp32 ? "fp32" : "bf16");
    run_doc_set_input(&d, "gpu", rep->device_name[0] ? rep->device_name : "none");
    for (size_t i = 0; i < o->n_toys; i++) {
        char hex[SHA256_HEX_LEN + 1];
        char *p = fs_is_dir(o->toys[i]) ? pgci_asprintf("%s/config.json", o->toys[i])
                                        : pgci_strdup(o->toys[i]);
        if (sha256_file_hex(p, hex) == 0)
            run_doc_add_input_file(&d, p, hex);
        free(p);
    }
    if (o->weights) {
        char hex[SHA256_HEX_LEN + 1];
        if (sha256_file_hex(o->weights, hex) == 0)
            run_doc_add_input_file(&d, o->weights, hex);
    }
    size_t skipped = 0;
    for (size_t i = 0; i < rep->len; i++) {
        const logits_row *r = &rep->rows[i];
        /* a toy is failed if any of its rows failed, not-run if one was skipped */
        const char *st = "ok";
        for (size_t k = 0; k < rep->len; k++) {
            if (strcmp(rep->rows[k].toy, r->toy))
                continue;
            if (rep->rows[k].status == LOGITS_FAIL)
                st = "failed";
            else if (rep->rows[k].status == LOGITS_SKIP && strcmp(st, "failed"))
                st = "not-run";
        }
        run_doc_set_config(&d, r->toy, r->path, st, NULL);
        run_doc_add_timing(&d, "reference", r->ms_ref);
        run_doc_add_timing(&d, r->device, r->ms);
        skipped += r->status == LOGITS_SKIP;
    }
    if (skipped)
        run_doc_set_check(&d, "logits", "ran", "some GPU comparisons were skipped (no device)");
    else
        run_doc_set_check(&d, "logits", "ran", NULL);
    run_doc_set_findings(&d, fs);
    int rc = run_doc_write(&d, path);
    run_doc_free(&d);
    return rc;
}

static int run_bench(int json)
{
    kgpu_bench_row rows[16];
    int n = 0;
    double peak = 0;
    char why[1024], name[128];
    if (!kgpu_probe(why, sizeof(why), name, sizeof(name))) {
        fprintf(stderr, "pgci: error: --bench needs a CUDA device: %s\n", why);
        return EXIT_ERROR;
    }
    if (kgpu_bench(rows, 16, &n, &peak) < 0)
        return cmd_error();
    if (json) {
        json_t *a = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(
                a, json_pack("{s:s,s:s,s:f,s:f,s:f,s:f}", "kernel", rows[i].kernel, "shape",
                             rows[i].shape, "bytes", rows[i].bytes, "ms", rows[i].ms, "gbps",
                             rows[i].gbps, "peak_fraction", peak > 0 ? rows[i].gbps / peak : 0.0));
        json_t *o = json_pack("{s:s,s:f,s:o}", "device", name, "peak_gbps", peak, "kernels", a);
        char *s = json_dumps(o, JSON_INDENT(2));
        puts(s);
        free(s);
        json_decref(o);
        return EXIT_CLEAN;
    }
    printf("kernel bandwidth on %s (peak %.0f GB/s)\n", name, peak);
    printf("%-16s %-28s %10s %10s %10s %7s\n", "kernel", "shape", "MB", "ms", "GB/s", "% peak");
    for (int i = 0; i < n; i++)
        printf("%-16s %-28s %10.1f %10.4f %10.1f %6.1f%%\n", rows[i].kernel, rows[i].shape,
               rows[i].bytes / 1e6, rows[i].ms, rows[i].gbps,
               peak > 0 ? 100.0 * rows[i].gbps / peak : 0.0);
    return EXIT_CLEAN;
}

/* --dtype (repeatable; none: both) and --device into o. */
static int parse_dtypes_device(logits_opts *o, const strvec *dtypes, const char *device)
{
    for (size_t i = 0; i < dtypes->len; i++) {
        if (!strcmp(dtypes->items[i], "fp32"))
            o->fp32 = 1;
        else if (!strcmp(dtypes->items[i], "bf16"))
            o->bf16 = 1;
        else
            return pgci_error_set(PGCI_EUSAGE, "unknown --dtype '%s' (fp32, bf16)",
                                  dtypes->items[i]);
    }
    if (!dtypes->len)
        o->fp32 = o->bf16 = 1;
    if (!strcmp(device, "auto"))
        o->device = LOGITS_DEVICE_AUTO;
    else if (!strcmp(device, "cpu"))
        o->device = LOGITS_DEVICE_CPU;
    else if (!strcmp(device, "cuda"))
        o->device = LOGITS_DEVICE_CUDA;
    else
        return pgci_error_set(PGCI_EUSAGE, "unknown --device '%s' (auto, cpu, cuda)", device);
    return 0;
}

static void print_json(const logits_report *rep, const findings *fs)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < rep->len; i++)
        json_array_append_new(rows, logits_row_json(&rep->rows[i]));
    json_t *out = json_pack("{s:s,s:i,s:s?,s:o,s:o}", "check", "logits", "version", 1, "gpu",
                            rep->device_name[0] ? rep->device_name : NULL, "rows", rows, "findings",
                            findings_to_json(fs));
    char *s = json_dumps(out, JSON_INDENT(2));
    puts(s);
    free(s);
    json_decref(out);
}

int cmd_logits(int argc, const char **argv)
{
    strvec toys = STRVEC_INIT, dtypes = STRVEC_INIT, rest = STRVEC_INIT;
    const char *family = NULL, *device = "auto", *format = "text", *fail_on = "error";
    const char *weights = NULL, *export_path = NULL, *dump = NULL, *run_json = NULL;
    int seq = 16, batch = 2, seed = 0, bench = 0;
    const opt table[] = {
        OPT_LIST(0, "toy", &toys, "DIR", "a toy config.json or its directory (repeatable)"),
        OPT_STR(0, "family", &family, "F", "only toys of family llama|qwen2|qwen3|qwen3_moe"),
        OPT_LIST(0, "dtype", &dtypes, "T", "fp32 and/or bf16 (default: both)"),
        OPT_STR(0, "device", &device, "D", "auto (cpu + cuda when present) | cpu | cuda"),
        OPT_INT(0, "seq", &seq, "N", "tokens per sequence (default 16)"),
        OPT_INT(0, "batch", &batch, "B", "sequences (default 2)"),
        OPT_INT(0, "seed", &seed, "S", "seed of the weights and input ids (default 0)"),
        OPT_STR(0, "weights", &weights, "FILE", "load weights from safetensors (one toy)"),
        OPT_STR(0, "export-weights", &export_path, "FILE", "write the weights as safetensors"),
        OPT_STR(0, "dump", &dump, "FILE", "write input ids and reference logits as safetensors"),
        OPT_STR(0, "format", &format, "F", "text | json"),
        OPT_STR(0, "fail-on", &fail_on, "SEV", "exit 1 on findings at or above (default error)"),
        OPT_STR(0, "run-json", &run_json, "FILE", "write the run record (see pgci report)"),
        OPT_BOOL(0, "bench", &bench, "time the CUDA kernels' memory bandwidth"),
        OPT_END(),
    };
    common_opts common = {0};
    int code = EXIT_CLEAN;
    if (cmd_parse(argc, argv, table, &common, usage_line,
                  "Compare the kernels (host twins; CUDA when a GPU is present) with the "
                  "reference forward pass on toy models.",
                  &rest, &code))
        goto done;
    log_set_level(common.quiet ? LOG_QUIET : common.verbose ? LOG_VERBOSE : LOG_NORMAL);
    int json = !strcmp(format, "json");
    int min_sev = severity_parse(fail_on);
    logits_opts o = {0};
    o.family = -1;
    o.batch = batch;
    o.seq = seq;
    o.seed = (uint64_t)(unsigned)seed;
    o.weights = weights;
    o.export_path = export_path;
    o.dump_path = dump;
    if (rest.len || (!json && strcmp(format, "text")) || min_sev < 0 || seed < 0) {
        pgci_error_set(PGCI_EUSAGE, "%s",
                       rest.len      ? "unexpected argument (see --help)"
                       : min_sev < 0 ? "--fail-on takes error, warning or info"
                       : seed < 0    ? "--seed must be non-negative"
                                     : "--format takes text or json");
        code = cmd_error();
        goto done;
    }
    if (bench) {
        code = run_bench(json);
        goto done;
    }
    if (family && (o.family = toy_family_parse(family)) < 0) {
        pgci_error_set(PGCI_EUSAGE, "unknown --family '%s' (llama, qwen2, qwen3, qwen3_moe)",
                       family);
        code = cmd_error();
        goto done;
    }
    if (parse_dtypes_device(&o, &dtypes, device) < 0) {
        code = cmd_error();
        goto done;
    }
    const char *brk = getenv("PGCI_TEST_BREAK_KERNEL");
    if (brk && kbreak_parse(brk, &o.brk) < 0) {
        code = cmd_error();
        goto done;
    }
    if (o.brk)
        log_warn("PGCI_TEST_BREAK_KERNEL=%s: running deliberately wrong kernels", brk);
    if (!toys.len && default_toys(&toys) < 0) {
        code = cmd_error();
        goto done;
    }
    o.toys = (const char *const *)toys.items;
    o.n_toys = toys.len;

    logits_report rep = {0};
    findings fs = FINDINGS_INIT;
    if (check_logits(&o, &rep, &fs) < 0) {
        code = cmd_error();
    } else {
        if (json)
            print_json(&rep, &fs);
        else
            print_table(&rep);
        code = findings_count_at_least(&fs, (severity)min_sev) ? EXIT_FINDINGS : EXIT_CLEAN;
        if (run_json && write_run_json(run_json, &o, &rep, &fs) < 0)
            code = cmd_error();
    }
    logits_report_free(&rep);
    findings_free(&fs);
done:
    strvec_free(&toys);
    strvec_free(&dtypes);
    strvec_free(&rest);
    return code;
}
