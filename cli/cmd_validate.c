/* cli/cmd_validate.c: `kinesift validate`: confirm a gain by rerunning a workload without the
 * profiler, timed with CUDA events (built-in pairs, plugins) or by the commands themselves
 * (--baseline-cmd/--candidate-cmd). Parsing and output only; the work is in validate/. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "common/limits.h"
#include "kinesift/report.h"
#include "kinesift/validate.h"

const char ks_help_validate[] =
    "usage: kinesift validate [WORKLOAD...] [--PARAM N]... [options]\n"
    "       kinesift validate --workload LIB.so [--param KEY=VALUE]... [options]\n"
    "       kinesift validate --baseline-cmd CMD --candidate-cmd CMD [options]\n"
    "       kinesift validate --list\n"
    "\n"
    "Rerun a workload without the profiler, baseline and candidate interleaved in seeded\n"
    "random blocks, and say whether the candidate is faster, slower, the same (no-change) or\n"
    "undecided (inconclusive), or computes something else (different-results), with every raw\n"
    "value and its dispersion. GPU workloads are timed with CUDA events; without a usable GPU\n"
    "validate prints the cause and exits 77, with no numbers.\n"
    "\n"
    "The decision is gate's (docs/statistics.md section 8): the interleaved block is the run\n"
    "(one sample of every arm per block; with commands, one run of each command), Welch's t on\n"
    "the logs of the per-block medians; slower when the interval lies above 1 and the change\n"
    "exceeds the threshold, faster symmetrically, no-change when the interval lies within\n"
    "1 +/- threshold, else inconclusive; with a single block (one run per command) only a\n"
    "change beyond the threshold plus 15 points is decided. A verdict whose interval reaches\n"
    "back across the threshold says so.\n"
    "\n"
    "Built-in pairs (with no WORKLOAD and no --workload, all four run):\n"
    "  constant-upload  [--bytes N] [--uploads U]    per-step vs hoisted\n"
    "  small-kernels    [--kernels L] [--elements E] launches vs fused vs graph\n"
    "  pageable-copy    [--bytes N] [--copies C]     pageable vs pinned\n"
    "  sync-per-op      [--ops L] [--elements E]     sync-each vs sync-once\n"
    "  (sizes accept k, M, G suffixes: binary multiples; see --list for the defaults)\n"
    "\n"
    "Workloads:\n"
    "  --workload LIB.so      a plugin (ABI: kinesift/workload.h)\n"
    "  --param KEY=VALUE      a plugin parameter (repeatable)\n"
    "  --variants A,B[,C]     the arms by variant name, the first is the baseline\n"
    "                         (default: every variant; an A/A check: --variants X,X)\n"
    "  --baseline-cmd CMD     commands run with sh -c, which time themselves and print one\n"
    "  --candidate-cmd CMD    line 'kinesift-sample <ms>' per iteration (no GPU needed here)\n"
    "  --runs N               commands: at least N runs of each (default 3)\n"
    "  --max-runs N           commands: at most N runs of each (default 100)\n"
    "  --check-rtol X         commands: tolerance of 'kinesift-check <number>' lines (0)\n"
    "\n"
    "Protocol:\n"
    "  --samples N            target kept samples per arm (default 30, 10 to 1000)\n"
    "  --timeout S            per-arm time budget in seconds (default 15)\n"
    "  --warmup-runs N        warm-up runs per arm after the discarded first (default 3)\n"
    "  --warmup-ms MS         and at least MS of warm-up (default 100)\n"
    "  --batch K              executions per timed sample (default: automatic, so that a\n"
    "                         sample lasts >= 1 ms when one execution is < 20 us)\n"
    "  --hot                  no L2 flush before samples (default: cold, flushed)\n"
    "  --flush-l2             flush L2 before every sample (the default)\n"
    "  --device N             CUDA device (default 0)\n"
    "  --seed N               interleaving and bootstrap seed (default 0x6b696e6573696674)\n"
    "\n"
    "Decision and output:\n"
    "  --threshold PCT        smallest change that counts (default 2 %)\n"
    "  --alpha A              significance level (default 0.05; Holm across candidates)\n"
    "  --expect faster        confirming a claimed gain: no-change also exits 1\n"
    "  --format text|json     output format (default text); JSON schema kinesift.validate/1,\n"
    "                         see docs/validate.md (read by kinesift gate)\n"
    "  --output FILE          write the report to FILE instead of standard output\n"
    "  --raw FILE.csv         every raw sample (kept, first, warm-up, throttled) as CSV\n"
    "  --list                 list the built-in pairs, their parameters and defaults\n"
    "\n"
    "kinesift never changes clocks, power limits or any device setting; it measures the GPU\n"
    "as found and reports throttling (SM clock, NVML clock-event reasons when available).\n"
    "\n"
    "Exit status: 0 faster or no-change, 1 slower or different-results (or no-change with\n"
    "--expect faster), 2 usage, input or command error, 3 inconclusive, 77 no usable GPU.\n";

enum {
    OPT_WORKLOAD = 256, OPT_PARAM, OPT_VARIANTS, OPT_BCMD, OPT_CCMD, OPT_RUNS, OPT_MAXRUNS,
    OPT_RTOL, OPT_SAMPLES, OPT_TIMEOUT, OPT_WRUNS, OPT_WMS, OPT_BATCH, OPT_HOT, OPT_FLUSH,
    OPT_DEVICE, OPT_SEED, OPT_THRESHOLD, OPT_ALPHA, OPT_EXPECT, OPT_FORMAT, OPT_OUTPUT, OPT_RAW,
    OPT_LIST, OPT_BUILTIN = 1000 /* + index into builtin_opts */
};

/* Every built-in parameter name, once (several pairs share "bytes" and "elements"). */
static const char *const builtin_opts[] = {"bytes", "uploads", "kernels", "elements", "copies",
                                           "ops"};
#define NBUILTIN_OPTS (sizeof builtin_opts / sizeof builtin_opts[0])

typedef struct vargs {
    ks_vopts o;
    ks_compare_params p;
    const char *plugin;
    const char **params;   /* --param */
    int nparams;
    const char *variants;
    const char *cmd[2];
    const char *builtin_val[NBUILTIN_OPTS];
    const char **names;    /* positional workload names */
    int nnames;
    int json, list, expect_faster;
    const char *output, *raw;
} vargs;

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (end == s || *end || errno || *s == '-' || x < lo || x > hi)
        return -1;
    *v = (uint32_t)x;
    return 0;
}

static int parse_double(const char *s, double lo, double hi, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno || !(x >= lo && x <= hi))
        return -1;
    if (*end == '%' && end[1] == '\0')
        end++;
    if (*end)
        return -1;
    *v = x;
    return 0;
}

/* one option of the table (its key is opt) */
static int set_option(void *ctx, const char *cmd, int opt, const char *arg)
{
    vargs *a = ctx;
    (void)cmd;
    uint32_t u;
    double d;
    switch (opt) {
    case OPT_WORKLOAD: a->plugin = arg; return 0;
    case OPT_PARAM:
        if (!strchr(arg, '='))
            return ks_cli_usage("validate", "--param wants KEY=VALUE, not '%s'", arg);
        a->params = realloc(a->params, (size_t)(a->nparams + 1) * sizeof *a->params);
        if (!a->params)
            return ks_cli_usage("validate", "out of memory");
        a->params[a->nparams++] = arg;
        return 0;
    case OPT_VARIANTS: a->variants = arg; return 0;
    case OPT_BCMD: a->cmd[0] = arg; return 0;
    case OPT_CCMD: a->cmd[1] = arg; return 0;
    case OPT_HOT: a->o.hot = 1; return 0;
    case OPT_FLUSH: a->o.hot = 0; return 0;
    case OPT_LIST: a->list = 1; return 0;
    case OPT_OUTPUT: a->output = arg; return 0;
    case OPT_RAW: a->raw = arg; return 0;
    case OPT_RUNS:
        if (parse_u32(arg, 1, 10000, &a->o.min_runs))
            return ks_cli_usage("validate", "--runs wants 1 to 10000, not '%s'", arg);
        if (a->o.max_runs < a->o.min_runs)
            a->o.max_runs = a->o.min_runs;
        return 0;
    case OPT_MAXRUNS:
        if (parse_u32(arg, 1, 10000, &a->o.max_runs))
            return ks_cli_usage("validate", "--max-runs wants 1 to 10000, not '%s'", arg);
        return 0;
    case OPT_RTOL:
        if (parse_double(arg, 0, 1, &a->o.check_rtol))
            return ks_cli_usage("validate", "--check-rtol wants 0 to 1, not '%s'", arg);
        return 0;
    case OPT_SAMPLES:
        if (parse_u32(arg, 10, 1000, &a->o.samples))
            return ks_cli_usage("validate", "--samples wants 10 to 1000, not '%s'", arg);
        return 0;
    case OPT_TIMEOUT:
        if (parse_double(arg, 0.001, 86400, &d))
            return ks_cli_usage("validate", "--timeout wants seconds (0.001 to 86400), not "
                                            "'%s'", arg);
        a->o.timeout_ns = llround(d * 1e9);
        return 0;
    case OPT_WRUNS:
        if (parse_u32(arg, 0, 100000, &a->o.warmup_runs))
            return ks_cli_usage("validate", "--warmup-runs wants 0 to 100000, not '%s'", arg);
        return 0;
    case OPT_WMS:
        if (parse_double(arg, 0, 60000, &d))
            return ks_cli_usage("validate", "--warmup-ms wants 0 to 60000, not '%s'", arg);
        a->o.warmup_ns = llround(d * 1e6);
        return 0;
    case OPT_BATCH:
        if (parse_u32(arg, 1, 1000000, &a->o.batch))
            return ks_cli_usage("validate", "--batch wants 1 to 1000000, not '%s'", arg);
        return 0;
    case OPT_DEVICE:
        if (parse_u32(arg, 0, 1024, &u))
            return ks_cli_usage("validate", "--device wants a device index, not '%s'", arg);
        a->o.device = (int)u;
        return 0;
    case OPT_SEED: {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(arg, &end, 0);
        if (end == arg || *end || errno || *arg == '-' || x > (unsigned long long)INT64_MAX)
            return ks_cli_usage("validate", "--seed wants an integer from 0 to 2^63-1 "
                                            "(decimal or 0x hex), not '%s'", arg);
        a->o.seed = a->p.seed = x;
        return 0;
    }
    case OPT_THRESHOLD:
        if (parse_double(arg, 0.001, 99, &d))
            return ks_cli_usage("validate", "--threshold wants a percentage (0.001 to 99), "
                                            "not '%s'", arg);
        a->p.threshold = d / 100;
        return 0;
    case OPT_ALPHA:
        if (parse_double(arg, 1e-12, 0.5, &a->p.alpha))
            return ks_cli_usage("validate", "--alpha wants a level in (0, 0.5], not '%s'", arg);
        return 0;
    case OPT_EXPECT:
        if (strcmp(arg, "faster") != 0)
            return ks_cli_usage("validate", "--expect takes 'faster', not '%s'", arg);
        a->expect_faster = 1;
        return 0;
    case OPT_FORMAT: {
        static const char *const formats[] = {"text", "json", NULL};
        int k = ks_cli_choice(arg, formats);
        if (k < 0)
            return ks_cli_usage("validate", "unknown format '%s' (text or json)", arg);
        a->json = k == 1;
        return 0;
    }
    default:
        if (opt >= OPT_BUILTIN && opt < OPT_BUILTIN + (int)NBUILTIN_OPTS) {
            a->builtin_val[opt - OPT_BUILTIN] = arg;
            return 0;
        }
        return ks_cli_usage("validate", "bad option");
    }
}

/* 0, KS_OPT_LISTED after --list-options, or an exit status after a usage error */
static int parse_args(int argc, char **argv, vargs *a)
{
#define ARG_(name, key, help) KS_OPT_CALL(name, 0, set_option, a, key, help)
#define FLAG_(name, key, help) KS_OPT_CALL_FLAG(name, 0, set_option, a, key, help)
    const ks_option fixed[] = {
        ARG_("workload", OPT_WORKLOAD, "a plugin (.so) or a built-in pair"),
        ARG_("param", OPT_PARAM, "KEY=VALUE for the plugin"),
        ARG_("variants", OPT_VARIANTS, "the arms, baseline first"),
        ARG_("baseline-cmd", OPT_BCMD, "an external command, the baseline"),
        ARG_("candidate-cmd", OPT_CCMD, "an external command, the candidate"),
        ARG_("runs", OPT_RUNS, "interleaved blocks"),
        ARG_("max-runs", OPT_MAXRUNS, "most blocks when adaptive"),
        ARG_("check-rtol", OPT_RTOL, "relative tolerance of the output check"),
        ARG_("samples", OPT_SAMPLES, "samples per arm and block"),
        ARG_("timeout", OPT_TIMEOUT, "per command"),
        ARG_("warmup-runs", OPT_WRUNS, "untimed runs first"),
        ARG_("warmup-ms", OPT_WMS, "untimed time first"),
        ARG_("batch", OPT_BATCH, "steps per timed sample"),
        FLAG_("hot", OPT_HOT, "keep the caches warm"),
        FLAG_("flush-l2", OPT_FLUSH, "flush L2 before each sample"),
        ARG_("device", OPT_DEVICE, "the CUDA device"),
        ARG_("seed", OPT_SEED, "the bootstrap's seed"),
        ARG_("threshold", OPT_THRESHOLD, "the limit, percent"),
        ARG_("alpha", OPT_ALPHA, "the error rate"),
        ARG_("expect", OPT_EXPECT, "the verdict expected"),
        ARG_("format", OPT_FORMAT, "text or json"),
        ARG_("output", OPT_OUTPUT, "the result JSON in FILE"),
        ARG_("raw", OPT_RAW, "the raw samples in FILE"),
        FLAG_("list", OPT_LIST, "list the built-in pairs"),
    };
#undef ARG_
#undef FLAG_
    enum { NFIXED = sizeof fixed / sizeof fixed[0] };
    ks_option tab[NFIXED + NBUILTIN_OPTS + 1];
    memcpy(tab, fixed, sizeof fixed);
    for (size_t i = 0; i < NBUILTIN_OPTS; i++)
        tab[NFIXED + i] = (ks_option)KS_OPT_CALL(builtin_opts[i], 0, set_option, a, OPT_BUILTIN + (int)i,
                                                  "a built-in pair's parameter");
    tab[NFIXED + NBUILTIN_OPTS] = (ks_option)KS_OPT_END();
    int first;
    int rc = ks_opt_parse("validate", tab, argc, argv, &first);
    if (rc)
        return rc;
    a->names = (const char **)argv + first;
    a->nnames = argc - first;
    return 0;
}

/* ---- modes ------------------------------------------------------------------------------- */

/* the list, fitted to the terminal (long lines wrapped under their text) */
static int list_builtins(void)
{
    uint32_t n;
    const ks_builtin *b = ks_builtins(&n);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out) {
        ks_cli_fail("validate: out of memory");
        return KS_EXIT_USAGE;
    }
    fprintf(out, "Built-in workload pairs%s:\n", ks_cuda_built() ? "" : " (this build has no CUDA "
                                                                      "support: listed only)");
    for (uint32_t i = 0; i < n; i++) {
        fprintf(out, "\n%s: %s\n  confirms: %s\n  variants:", b[i].name, b[i].summary, b[i].diagnosis);
        for (uint32_t v = 0; v < b[i].nvariants; v++)
            fprintf(out, " %s%s", b[i].variants[v], v == 0 ? " (baseline)" : "");
        fprintf(out, "\n");
        for (uint32_t j = 0; j < b[i].nparams; j++)
            fprintf(out, "  --%-9s %s (default %lld)\n", b[i].params[j].name, b[i].params[j].help,
                    (long long)b[i].params[j].def);
    }
    fclose(out);
    ks_text_fit(stdout, text, len, ks_cli_text_width());
    free(text);
    return KS_EXIT_OK;
}

/* Map --variants to variant indices of a workload; default: every variant. */
static int pick_arms(const char *wname, const char *const *variants, uint32_t nvariants,
                     const char *spec, uint32_t *arms, uint32_t *narms)
{
    if (!spec) {
        if (nvariants > KS_LIMIT_VALIDATE_ARMS)
            return ks_cli_usage("validate", "%s has %u variants: pick at most %d with --variants",
                                wname, nvariants, KS_LIMIT_VALIDATE_ARMS);
        for (uint32_t v = 0; v < nvariants; v++)
            arms[v] = v;
        *narms = nvariants;
        return 0;
    }
    *narms = 0;
    const char *p = spec;
    while (*p) {
        size_t len = strcspn(p, ",");
        uint32_t v = 0;
        while (v < nvariants && (strlen(variants[v]) != len || strncmp(variants[v], p, len)))
            v++;
        if (v == nvariants)
            return ks_cli_usage("validate", "%s has no variant '%.*s'", wname, (int)len, p);
        if (*narms >= KS_LIMIT_VALIDATE_ARMS)
            return ks_cli_usage("validate", "--variants: at most %d arms", KS_LIMIT_VALIDATE_ARMS);
        arms[(*narms)++] = v;
        p += len + (p[len] == ',');
    }
    if (*narms < 2)
        return ks_cli_usage("validate", "--variants wants at least two (baseline first)");
    return 0;
}

/* The "key=value" parameters of built-in b from the options given. */
static int builtin_params(const vargs *a, const ks_builtin *b, char (*buf)[96],
                          const char **params, int *n)
{
    *n = 0;
    for (uint32_t j = 0; j < b->nparams; j++)
        for (size_t i = 0; i < NBUILTIN_OPTS; i++)
            if (a->builtin_val[i] && !strcmp(builtin_opts[i], b->params[j].name)) {
                snprintf(buf[*n], 96, "%s=%s", builtin_opts[i], a->builtin_val[i]);
                params[*n] = buf[*n];
                (*n)++;
            }
    int64_t values[KS_LIMIT_VALIDATE_PARAMS];
    char err[256];
    if (ks_builtin_params(b->name, *n, params, values, err, sizeof err) != 0)
        return ks_cli_usage("validate", "%s", err);
    /* report every parameter with its value, defaults included */
    *n = 0;
    for (uint32_t j = 0; j < b->nparams; j++) {
        snprintf(buf[j], 96, "%s=%lld", b->params[j].name, (long long)values[j]);
        params[(*n)++] = buf[j];
    }
    return 0;
}

/* Check the mode and the options that go with it, before anything runs. */
static int check_mode(const vargs *a, const ks_builtin **sel, uint32_t *nsel)
{
    int cmds = a->cmd[0] || a->cmd[1];
    if (cmds && (!a->cmd[0] || !a->cmd[1]))
        return ks_cli_usage("validate", "--baseline-cmd and --candidate-cmd go together");
    if ((cmds || a->plugin) && a->nnames)
        return ks_cli_usage("validate", "a built-in workload name (%s) cannot be combined with "
                                        "%s", a->names[0], cmds ? "commands" : "--workload");
    if (cmds && a->plugin)
        return ks_cli_usage("validate", "--workload cannot be combined with commands");
    if (a->nparams && !a->plugin)
        return ks_cli_usage("validate", "--param applies to --workload plugins (built-ins take "
                                        "--bytes, --kernels, ...)");
    *nsel = 0;
    if (cmds || a->plugin) {
        for (size_t i = 0; i < NBUILTIN_OPTS; i++)
            if (a->builtin_val[i])
                return ks_cli_usage("validate", "--%s applies to built-in workloads only",
                                    builtin_opts[i]);
        if (cmds && a->variants)
            return ks_cli_usage("validate", "--variants does not apply to commands");
        return 0;
    }
    uint32_t n;
    const ks_builtin *all = ks_builtins(&n);
    if (a->nnames == 0) {
        if (n > KS_LIMIT_VALIDATE_WORKLOADS)
            return ks_cli_usage("validate", "at most %d workloads in one run: name them",
                                KS_LIMIT_VALIDATE_WORKLOADS);
        for (uint32_t i = 0; i < n; i++)
            sel[(*nsel)++] = &all[i];
    } else {
        for (int i = 0; i < a->nnames; i++) {
            const ks_builtin *b = ks_builtin_find(a->names[i]);
            if (!b)
                return ks_cli_usage("validate", "no built-in workload '%s' (see --list)",
                                    a->names[i]);
            if (*nsel >= KS_LIMIT_VALIDATE_WORKLOADS)
                return ks_cli_usage("validate", "at most %d workloads in one run",
                                    KS_LIMIT_VALIDATE_WORKLOADS);
            sel[(*nsel)++] = b;
        }
    }
    if (a->variants && *nsel != 1)
        return ks_cli_usage("validate", "--variants needs exactly one workload");
    for (size_t i = 0; i < NBUILTIN_OPTS; i++) {
        if (!a->builtin_val[i])
            continue;
        int used = 0;
        for (uint32_t s = 0; s < *nsel; s++)
            for (uint32_t j = 0; j < sel[s]->nparams; j++)
                used |= !strcmp(sel[s]->params[j].name, builtin_opts[i]);
        if (!used)
            return ks_cli_usage("validate", "--%s does not apply to %s", builtin_opts[i],
                                *nsel == 1 ? sel[0]->name : "the workloads named");
    }
    return 0;
}

/* ---- output ------------------------------------------------------------------------------- */

static FILE *open_output(const char *path)
{
    if (!path)
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        ks_cli_fail("validate: %s: %s", path, strerror(errno));
    return f;
}

static int close_output(FILE *f, const char *path)
{
    int bad = ferror(f) || fflush(f) != 0;
    if (f != stdout)
        bad |= fclose(f) != 0;
    if (bad) {
        ks_cli_fail("validate: cannot write %s", path ? path : "the output");
        return -1;
    }
    return 0;
}

/* The run produced no result: one line on stderr, and the JSON status when asked. */
static int no_result(const vargs *a, const char *status, const char *reason, int code)
{
    ks_cli_fail("validate: %s", reason);
    if (a->json) {
        FILE *f = open_output(a->output);
        if (f) {
            ks_vreport_json_status(f, status, reason, code);
            close_output(f, a->output);
        }
    }
    return code;
}

static int write_report(const vargs *a, ks_vreport *r)
{
    int code = ks_vreport_exit_code(r);
    FILE *f = open_output(a->output);
    if (!f)
        return KS_EXIT_USAGE;
    if (a->json)
        ks_vreport_json(f, r);
    else
        ks_vreport_text(f, r);
    if (close_output(f, a->output))
        return KS_EXIT_USAGE;
    if (a->raw) {
        FILE *c = open_output(a->raw);
        if (!c)
            return KS_EXIT_USAGE;
        ks_vreport_csv(c, r);
        if (close_output(c, a->raw))
            return KS_EXIT_USAGE;
    }
    return code;
}

/* ---- the command ------------------------------------------------------------------------- */

static int run_gpu(const vargs *a, ks_vreport *r, const ks_builtin *const *sel, uint32_t nsel,
                   const ks_plugin *plugin)
{
    ks_error err;
    int usage;
    uint32_t arms[KS_LIMIT_VALIDATE_ARMS], narms;
    if (plugin && pick_arms(plugin->w->name, plugin->w->variants, plugin->w->nvariants,
                            a->variants, arms, &narms))
        return KS_EXIT_USAGE;
    if (ks_cuda_probe(a->o.device, &r->device, &usage, &err) != KS_OK)
        return usage ? no_result(a, "error", err.msg, KS_EXIT_USAGE)
                     : no_result(a, "unavailable", err.msg, KS_EXIT_SKIP);
    r->has_device = 1;
    if (plugin) {
        char src[600];
        snprintf(src, sizeof src, "plugin:%s", a->plugin);
        if (ks_validate_workload(r, plugin->w, src, a->nparams, a->params, arms, narms, &err))
            return no_result(a, "error", err.msg, KS_EXIT_USAGE);
        return write_report(a, r);
    }
    for (uint32_t i = 0; i < nsel; i++) {
        char buf[KS_LIMIT_VALIDATE_PARAMS][96];
        const char *params[KS_LIMIT_VALIDATE_PARAMS];
        int np;
        if (builtin_params(a, sel[i], buf, params, &np) ||
            pick_arms(sel[i]->name, sel[i]->variants, sel[i]->nvariants, a->variants, arms,
                      &narms))
            return KS_EXIT_USAGE;
        const ks_workload *table = ks_builtin_table(sel[i]);
        if (!table)
            return no_result(a, "unavailable", "built without CUDA support", KS_EXIT_SKIP);
        if (ks_validate_workload(r, table, "builtin", np, params, arms, narms, &err))
            return no_result(a, "error", err.msg, KS_EXIT_USAGE);
    }
    return write_report(a, r);
}

/* Every usage error before anything runs: values of the built-ins' parameters, variants. */
static int precheck_builtins(const vargs *a, const ks_builtin *const *sel, uint32_t nsel)
{
    for (uint32_t i = 0; i < nsel; i++) {
        char buf[KS_LIMIT_VALIDATE_PARAMS][96];
        const char *params[KS_LIMIT_VALIDATE_PARAMS];
        int np;
        uint32_t arms[KS_LIMIT_VALIDATE_ARMS], narms;
        if (builtin_params(a, sel[i], buf, params, &np) ||
            pick_arms(sel[i]->name, sel[i]->variants, sel[i]->nvariants, a->variants, arms,
                      &narms))
            return KS_EXIT_USAGE;
    }
    return 0;
}

int ks_cmd_validate(int argc, char **argv)
{
    vargs a;
    memset(&a, 0, sizeof a);
    ks_vopts_init(&a.o);
    ks_compare_params_validate(&a.p);
    int rc = parse_args(argc, argv, &a);
    if (rc || a.list) {
        free(a.params);
        return rc == KS_OPT_LISTED ? 0 : rc ? rc : list_builtins();
    }
    const ks_builtin *sel[KS_LIMIT_VALIDATE_WORKLOADS];
    uint32_t nsel = 0;
    if ((rc = check_mode(&a, sel, &nsel)) || (rc = precheck_builtins(&a, sel, nsel))) {
        free(a.params);
        return rc;
    }
    ks_vreport r;
    ks_vreport_init(&r, &a.o, &a.p, a.cmd[0] ? "command" : "cuda-events");
    r.expect_faster = a.expect_faster;
    ks_error err;
    if (a.cmd[0]) {
        rc = ks_validate_commands(&r, a.cmd, 2, &err) == KS_OK
                 ? write_report(&a, &r)
                 : no_result(&a, "error", err.msg, KS_EXIT_USAGE);
    } else if (a.plugin) {
        ks_plugin plugin;
        if (ks_plugin_open(a.plugin, &plugin, &err) != KS_OK) {
            char msg[700];
            snprintf(msg, sizeof msg, "%s: %s", a.plugin, err.msg);
            rc = no_result(&a, "error", msg, KS_EXIT_USAGE);
        } else {
            rc = run_gpu(&a, &r, sel, 0, &plugin);
            ks_plugin_close(&plugin);
        }
    } else {
        rc = run_gpu(&a, &r, sel, nsel, NULL);
    }
    ks_vreport_free(&r);
    free(a.params);
    return rc;
}
