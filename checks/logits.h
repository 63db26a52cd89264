/*
 * logits.h - the `logits` check: kernel forward passes against the reference.
 *
 * For every toy config and dtype it builds the model (seeded or from a
 * safetensors file), runs the double-precision reference (kernels/reference.h),
 * then the host twins of the kernels (device cpu) and the CUDA kernels (device
 * cuda, when a GPU is there), and compares the logits, the hidden state after
 * every layer and the fused cross-entropy loss. Each comparison becomes one row of
 * the report and one finding: error when it fails, info when it passes, warning
 * when it could not run (a skipped comparison is never reported as passed).
 */
#ifndef PGCI_CHECKS_LOGITS_H
#define PGCI_CHECKS_LOGITS_H

#include <stddef.h>
#include <stdint.h>

#include "checks/finding.h"
#include "kernels/compare.h"

enum { LOGITS_DEVICE_AUTO, LOGITS_DEVICE_CPU, LOGITS_DEVICE_CUDA };
enum { LOGITS_PASS, LOGITS_FAIL, LOGITS_SKIP };

typedef struct logits_opts {
    const char *const *toys; /* config.json files or directories holding one */
    size_t n_toys;
    int family;     /* a toy_family, or -1 for all */
    int fp32, bf16; /* dtypes to run */
    int device;     /* LOGITS_DEVICE_* */
    int batch, seq;
    uint64_t seed;
    const char *weights;     /* safetensors to load instead of seeding (one toy) */
    const char *export_path; /* write the weights here (one toy) */
    const char *dump_path;   /* write input ids and reference logits here (one toy) */
    unsigned brk;            /* KBREAK_* mask: deliberately wrong kernels */
} logits_opts;

typedef struct logits_row {
    char *toy, *family, *path;
    int bf16;
    const char *device; /* "cpu" | "cuda" */
    int status;         /* LOGITS_* */
    char *reason;       /* why it failed or was skipped; NULL when it passed */
    kcmp_stats logits;
    int first_bad_layer; /* -1: none; L: only the logits */
    int layers;
    double worst_layer_rel;
    double loss_ref, loss, loss_rel;
    double ms_ref, ms;
} logits_row;

typedef struct logits_report {
    logits_row *rows;
    size_t len, cap;
    char device_name[128]; /* the GPU used, "" when none */
} logits_report;

/* Runs the check; appends rows and findings. Fails (negative) only when it cannot
 * run at all: unreadable or unsupported config, bad weights file, bad options. */
int check_logits(const logits_opts *opts, logits_report *rep, findings *fs);

void logits_report_free(logits_report *rep);

/* A JSON object for one row (new reference). */
json_t *logits_row_json(const logits_row *r);

#endif
