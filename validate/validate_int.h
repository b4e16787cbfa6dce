/* validate/validate_int.h: what validate/ shares beyond kinesift/validate.h. Internal: for the
 * library's validate/ sources, the CUDA library (libkinesift-cuda), the kinesift command and the
 * tests; nothing here is exported by libkinesift.so.
 *
 * The CUDA part of validate (validate/cuda_*.c and validate/cuda/ *.cu, with the static CUDA
 * runtime) is its own static library, libkinesift-cuda, so that libkinesift.so carries no CUDA
 * runtime. The library reaches it only through the table below, installed by ks_cuda_enable()
 * (validate/cuda_wl.h) before any validation; with no table installed (the shared library, a
 * build without CUDA, a program that does not link libkinesift-cuda) every GPU workload is
 * refused with "built without CUDA support" (validate/nocuda.c). Not thread-safe: install once,
 * before other threads use validate. */
#ifndef KS_VALIDATE_INT_H
#define KS_VALIDATE_INT_H

#include "kinesift/validate.h"

#ifdef __cplusplus
extern "C" { /* validate/cuda/ *.cu include this (through validate/cuda_wl.h) */
#endif

typedef struct ks_cuda_ops {
    /* ks_cuda_probe and ks_cuda_measure of kinesift/validate.h */
    int (*probe)(int device, ks_cuda_info *info, int *usage, ks_error *err);
    int (*measure)(const ks_vopts *o, const ks_cuda_info *dev, const ks_workload *w,
                   int nparams, const char *const *params, const uint32_t *arms, uint32_t narms,
                   ks_vrun *out, ks_vcheck *check, int64_t *flush_bytes, ks_error *err);
    /* the table of the built-in pair with this registry name (validate/builtin.c); NULL when
     * there is none */
    const ks_workload *(*builtin)(const char *name);
} ks_cuda_ops;

/* Install the CUDA backend (NULL: none, the refusal). */
void ks_cuda_install(const ks_cuda_ops *ops);
/* The installed backend, or NULL. */
const ks_cuda_ops *ks_cuda_ops_installed(void);

/* ---- the parts of a validation (what the validate/ sources share) ---------------------------------- */

/* Append a sample to the run (protocol.c). */
void ks_vrun_push(ks_vrun *r, const ks_vsample *s);
/* Run the protocol over `narms` arms. Returns KS_OK or KS_ERR (a backend error, in err). */
int ks_protocol_run(const ks_vopts *o, uint32_t narms, const ks_vbackend *b, ks_vrun *out,
                    ks_error *err);

/* Parse one output line: 1 when it is a `kinesift-sample <ms>` line (ns set), 0 when it is
 * another line, -1 when it starts with kinesift-sample but the value is malformed. The value
 * is a decimal number of milliseconds (digits, optional fraction, optional exponent),
 * converted exactly and rounded to the nearest ns. */
int ks_extcmd_parse_sample(const char *line, int64_t *ns);
/* 1 and *value (malloc'ed, trimmed) for a `kinesift-check <value>` line; else 0. */
int ks_extcmd_parse_check(const char *line, char **value);

/* Run the commands (sh -c) interleaved in seeded random blocks of one invocation each, until
 * every arm has `samples` kept samples (first sample of each invocation discarded, then the
 * warm-up rule per invocation) and at least min_runs invocations. Fills out (run numbers set)
 * and, when check is not NULL, the comparison of their kinesift-check lines (check[1] for the
 * candidate). Returns KS_OK, or KS_ERR when a command fails or prints a malformed sample. */
int ks_extcmd_run(const ks_vopts *o, const char *const *cmds, uint32_t narms, ks_vrun *out,
                  ks_vcheck *check, ks_error *err);
/* (ks_builtin_params, the parameters of a built-in pair, is public: kinesift/validate.h) */
/* Read the device with this PCI bus id (or index 0 when NULL). Never changes anything. */
void ks_nvml_read(const char *pci_bus_id, ks_nvml_snapshot *s);
/* Names of the set bits of a clock-event reason mask, comma separated, into buf. */
void ks_nvml_reasons(uint64_t mask, char *buf, size_t n);

/* Measure a workload with CUDA events: setup, output check, protocol, teardown. The arms are
 * variant indices of w (arm 0 the baseline). KS_OK or KS_ERR (a CUDA or workload error). */
int ks_cuda_measure(const ks_vopts *o, const ks_cuda_info *dev, const ks_workload *w,
                    int nparams, const char *const *params, const uint32_t *arms,
                    uint32_t narms, ks_vrun *out, ks_vcheck *check, int64_t *flush_bytes,
                    ks_error *err);

/* Add a workload (its arrays are taken over and freed with the report); returns it. */
ks_vworkload *ks_vreport_add(ks_vreport *r, const char *name, const char *source,
                             uint32_t narms, const char *const *arms, int nparams,
                             const char *const *params);
/* Compute the comparisons of w from its run and check (Holm across its candidates). */
void ks_vworkload_compare(ks_vworkload *w, const ks_compare_params *p);

#ifdef __cplusplus
}
#endif
/* ---- when a measurement stops (stop.c) ---------------------------------------------------- */
/* What the arms (or commands) reached after a block: counts of arms at the target, quiet
 * (relative stdev under --stdrel; 0 where the rule does not apply), at the time
 * budget, at the sample cap, at the run cap, and the fewest kept samples of any arm. who names an
 * arm in the sentences ("arm", "command"); min_runs, when not 0, is said with the target;
 * cap_taken says the cap also counts taken samples (twice the cap). */
typedef struct ks_vstop_tally {
    uint32_t narms, done, quiet, timeout, capped, maxruns, least;
    uint32_t min_runs;
    int cap_taken;
    const char *who;
} ks_vstop_tally;
/* 1 when the tally stops the measurement, with out->stop and out->stop_detail set. */
int ks_vstop_decide(const ks_vopts *o, const ks_vstop_tally *t, ks_vrun *out);

#endif
