/* cli/cmd_gate.c: `kinesift gate --baseline B --candidate C`: fail CI on a regression. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "common/util.h"
#include "kinesift/analysis.h"
#include "kinesift/compare.h"
#include "kinesift/insights.h"
#include "kinesift/report.h"

const char ks_help_gate[] =
    "usage: kinesift gate --baseline B... --candidate C... [--budget FILE.json] [checks]\n"
    "                     [--json FILE] [--junit FILE] [--markdown FILE] [--github-summary]\n"
    "                     [--on-inconclusive warn|fail] [--allow-mismatch] [options]\n"
    "\n"
    "Compare candidate traces with baseline traces and exit non-zero on a regression. Each\n"
    "active step (warm-up and unfinished steps left out) is one sample, and each trace is one run\n"
    "(-b A -b B, or a directory of runs; per rank when the traces carry several ranks). The run\n"
    "is the unit (docs/statistics.md section 8): with 2 or more runs per side, Welch's t on the\n"
    "per-run medians; regression when its interval lies above 1 and the change exceeds the limit,\n"
    "improvement symmetrically, pass when the interval lies within 1 +/- limit, else inconclusive.\n"
    "With one run per side a change cannot be told from run-to-run variation: inconclusive\n"
    "unless a block-bootstrap interval lies beyond the limit plus 15 points. With several checks\n"
    "the p-values are Holm-adjusted and each interval is printed at its Holm-consistent level.\n"
    "A regression (improvement) whose interval reaches back across the limit says so.\n"
    "Results of `kinesift validate --format json` are accepted too (one result = one run).\n"
    "\n"
    "Inputs:\n"
    "  -b, --baseline PATH     baseline trace(s), directory or validate result (repeatable)\n"
    "  -c, --candidate PATH    candidate trace(s), directory or validate result (repeatable)\n"
    "\n"
    "Checks (a budget file and/or flags; without any, the default set: step_time, and the\n"
    "inclusive time of every label taking >= 5 % of the baseline's step time, each limited to\n"
    "the threshold):\n"
    "  --budget FILE.json      checks from a budget file (schema kinesift.budget/1, docs/diff-gate.md)\n"
    "  --step-time PCT         the step time may not grow more than PCT %\n"
    "  --label NAME=PCT        a label's (user_annotation) inclusive time per step\n"
    "  --gpu-label NAME=PCT    a gpu_user_annotation's time per step\n"
    "  --op NAME=PCT           an operator's inclusive time per step\n"
    "  --kernel-time NAME=PCT  a kernel's total GPU time per step\n"
    "  --gpu-idle-share PTS    the GPU idle share of a step may not grow more than PTS points\n"
    "  --kernel-launches PCT   kernels launched per step may not grow more than PCT % (0: at all)\n"
    "  --validate NAME=PCT     a validate metric WORKLOAD/VARIANT\n"
    "  --label-share PCT       default set: labels from this share of the step time (default 5)\n"
    "\n"
    "Decision:\n"
    "  --threshold PCT         default limit of growth checks (default 5, as docs/statistics.md)\n"
    "  --alpha A               significance level (default 0.05; Holm across checks)\n"
    "  --seed N                bootstrap seed (default 0x6b696e6573696674)\n"
    "  --runs-per-side-min N   fewer runs on a side make every check inconclusive (default 1)\n"
    "  --on-inconclusive M     fail (default: exit 3) or warn (exit 0 with a warning)\n"
    "  --allow-mismatch        compare captures whose settings or devices differ (else exit 2)\n"
    "\n"
    "Steps and names:\n"
    "  --warmup N              the first N steps of every trace are warm-up (default: detected),\n"
    "                          as in analyze\n"
    "  --skip-steps N          the same as --warmup N (its older name here)\n"
    "  --step-label REGEX      steps are the user annotations matching REGEX (default ProfilerStep#N)\n"
    "  --normalize-kernels     kernel names without template and argument lists (--kernel-time)\n"
    "  --overlap POLICY        partial overlaps: spill (default), drop, truncate, clamp:NS (ns, or\n"
    "                          a duration with a unit: clamp:2us)\n"
    "\n"
    "Output (text on standard output; files are written whole, then renamed into place; an input\n"
    "is never overwritten):\n"
    "  --json FILE             schema kinesift.gate/1 (docs/statistics.md section 4.2)\n"
    "  --junit FILE            JUnit XML: one test case per check; regression = failure,\n"
    "                          inconclusive = skipped, input error = error\n"
    "  --markdown FILE         a Markdown summary (GitHub step summary)\n"
    "  --github-summary        append that summary to the file named by $GITHUB_STEP_SUMMARY\n"
    "  --strict                malformed input is an error instead of a counted recovery\n"
    "  --quiet                 no progress line and no warnings on stderr\n"
    "\n"
    "Text fits the terminal ($COLUMNS, else its width, else 80 columns): tables aligned, a table\n"
    "too wide in blocks of columns, long names shortened in the middle, long lines wrapped.\n"
    "\n"
    "Exit status (precedence 2 > 1 > 3 > 0): 0 every check pass or improvement, 1 a regression,\n"
    "2 usage or input error (unreadable trace, settings mismatch, a check that cannot be\n"
    "evaluated), 3 inconclusive and no regression (0 with --on-inconclusive=warn).\n";

typedef struct gate_cli {
    ks_analysis_opts ao;
    ks_step_opts so;
    ks_profile_opts po;
    ks_load_opts lo;
    ks_budget budget;
    ks_gate_opts go;
    const char *budget_path;
    const char *json, *junit, *markdown;
    int github_summary;
    int inconclusive_fails;
    char **in[2];            /* paths given per side */
    size_t nin[2], capin[2];
    ks_profile *prof[2];     /* profiles per side */
    size_t nprof[2], capprof[2];
    int side;                /* the side being loaded */
    const char **ops, **kernels;
    size_t nops, nkernels;
} gate_cli;

/* ---- loading ------------------------------------------------------------------------------- */

static void add_profile(gate_cli *c, const ks_profile *p)
{
    KS_GROW(c->prof[c->side], c->capprof[c->side], c->nprof[c->side] + 1);
    c->prof[c->side][c->nprof[c->side]++] = *p;
}

static int on_trace(void *ctx, ks_trace *tr)
{
    gate_cli *c = ctx;
    ks_cli_warnings(tr, c->lo.quiet);
    ks_profile p;
    ks_error err;
    int rc = 0;
    ks_cli_phase ph;
    ks_cli_phase_begin(&ph, "analysing", tr->source);
    ks_insights_opts io;
    ks_insights_opts_init(&io);
    io.analysis = c->ao;
    io.steps = c->so;
    io.depth = KS_INSIGHTS_STEPS;
    io.whole_trace = 1; /* the profile reads every step, warm-up included (--warmup) */
    ks_insights r;
    int ok = ks_insights_run(tr, &io, &r, &err) == KS_OK && ks_profile_build(r.a, &r.steps, &c->po, &p, &err) == KS_OK;
    ks_cli_phase_end(&ph);
    if (!ok) {
        ks_cli_error(tr->source, &err);
        rc = KS_EXIT_USAGE;
    } else {
        add_profile(c, &p);
    }
    ks_insights_free(&r);
    ks_trace_free(tr);
    return rc;
}

/* One expanded path: a validate result, or traces (standard input is always a trace: it cannot
 * be read twice). Sets msg on failure. */
static int load_path(gate_cli *c, char *path, char *msg, size_t msglen)
{
    char *text = NULL;
    size_t len = 0;
    ks_error err;
    int r = strcmp(path, "-") ? ks_validate_result_read(path, &text, &len, &err) : 0;
    if (r < 0) {
        ks_cli_error(path, &err);
        ks_cli_error_text(path, &err, msg, msglen);
        return KS_EXIT_USAGE;
    }
    if (r == 1) {
        ks_profile p;
        int rc = ks_profile_from_validate(path, text, len, &p, &err);
        free(text);
        if (rc != KS_OK) {
            ks_cli_error(NULL, &err);
            ks_profile_free(&p);
            snprintf(msg, msglen, "%s", err.msg);
            return KS_EXIT_USAGE;
        }
        add_profile(c, &p);
        return 0;
    }
    int rc = ks_cli_load(&path, 1, &c->lo, on_trace, c);
    if (rc)
        snprintf(msg, msglen, "%s: unreadable or corrupt input (the message is on standard error)", path);
    return rc;
}

static int load_side(gate_cli *c, int side, char *msg, size_t msglen)
{
    char **list;
    size_t n;
    ks_error err;
    c->side = side;
    if (ks_inputs_expand(c->in[side], c->nin[side], &list, &n, &err) != KS_OK) {
        ks_cli_error(NULL, &err);
        snprintf(msg, msglen, "%s", err.msg);
        return KS_EXIT_USAGE;
    }
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = load_path(c, list[i], msg, msglen);
    if (!rc && !c->nprof[side]) {
        snprintf(msg, msglen, "no %s trace found in the inputs given", side ? "candidate" : "baseline");
        ks_cli_fail("gate: %s", msg);
        rc = KS_EXIT_USAGE;
    }
    ks_inputs_free(list, n);
    return rc;
}

/* ---- outputs ------------------------------------------------------------------------------- */

typedef int (*writer_fn)(FILE *out, const ks_gate *g, int inconclusive_fails);

static int junit_writer(FILE *out, const ks_gate *g, int inconclusive_fails)
{
    (void)inconclusive_fails;
    return ks_gate_junit(out, g);
}

static int write_file(const char *path, writer_fn fn, const ks_gate *g, int fails)
{
    ks_outfile *of;
    ks_error err;
    if (ks_outfile_open(&of, path, &err) != KS_OK) {
        ks_cli_error(NULL, &err);
        return -1;
    }
    if (fn(ks_outfile_stream(of), g, fails) != 0 && !ferror(ks_outfile_stream(of))) {
        ks_outfile_abort(of);
        ks_cli_fail("%s: cannot write", path);
        return -1;
    }
    /* a failed write: the commit names its cause and removes the temporary file */
    if (ks_outfile_commit(of, &err) != KS_OK) {
        ks_cli_error(NULL, &err);
        return -1;
    }
    return 0;
}

static int append_summary(const ks_gate *g, int fails)
{
    const char *path = getenv("GITHUB_STEP_SUMMARY");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (!f) {
        ks_cli_fail("%s: cannot append the summary: %s", path, strerror(errno));
        return -1;
    }
    int bad = ks_gate_markdown(f, g, fails) != 0;
    bad |= fclose(f) != 0;
    if (bad)
        ks_cli_fail("%s: cannot append the summary", path);
    return bad ? -1 : 0;
}

static int report(gate_cli *c, const ks_gate *g)
{
    int bad = 0;
    ks_gate_text(stdout, g, c->inconclusive_fails, ks_cli_text_width());
    if (fflush(stdout) != 0) {
        ks_cli_write_failed("gate");
        bad = 1;
    }
    if (c->json)
        bad |= write_file(c->json, ks_gate_json, g, c->inconclusive_fails) != 0;
    if (c->junit)
        bad |= write_file(c->junit, junit_writer, g, c->inconclusive_fails) != 0;
    if (c->markdown)
        bad |= write_file(c->markdown, ks_gate_markdown, g, c->inconclusive_fails) != 0;
    if (c->github_summary)
        bad |= append_summary(g, c->inconclusive_fails) != 0;
    int rc = ks_gate_exit(g, c->inconclusive_fails);
    if (!c->lo.quiet) {
        for (size_t i = 0; i < g->nwarnings; i++)
            ks_cli_fail("gate: warning: %s", g->warnings[i]);
        if (!c->inconclusive_fails && ks_gate_exit(g, 1) == 3)
            ks_cli_fail("gate: warning: inconclusive checks ignored (--on-inconclusive=warn)");
    }
    return bad ? KS_EXIT_USAGE : rc;
}

/* ---- options ------------------------------------------------------------------------------- */

static int parse_num(const char *s, double lo, double hi, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end == s || *end || errno || !(*v >= lo) || !(*v <= hi) ? -1 : 0;
}

/* path is an argv string (writable; the option table hands it as const) */
static void push_input(gate_cli *c, int side, const char *path)
{
    KS_PUSH(c->in[side], c->nin[side], c->capin[side], (char *)path);
}

/* 1 when out names one of the inputs of a side, as given or found in a directory given. */
static int is_input(gate_cli *c, int side, const char *out)
{
    for (size_t k = 0; k < c->nin[side]; k++)
        if (ks_same_file(out, c->in[side][k]) || !strcmp(out, c->in[side][k]))
            return 1;
    char **list;
    size_t n;
    ks_error err;
    if (ks_inputs_expand(c->in[side], c->nin[side], &list, &n, &err) != KS_OK)
        return 0; /* reported when the inputs are loaded */
    int hit = 0;
    for (size_t k = 0; k < n && !hit; k++)
        hit = ks_same_file(out, list[k]);
    ks_inputs_free(list, n);
    return hit;
}

/* Outputs must not name an input, the budget, or each other. */
static int check_outputs(gate_cli *c)
{
    const char *outs[3] = {c->json, c->junit, c->markdown};
    for (int i = 0; i < 3; i++) {
        if (!outs[i])
            continue;
        for (int s = 0; s < 2; s++)
            if (is_input(c, s, outs[i]))
                return ks_cli_usage("gate", "%s is an input: refusing to overwrite it", outs[i]);
        if (c->budget_path && (ks_same_file(outs[i], c->budget_path) || !strcmp(outs[i], c->budget_path)))
            return ks_cli_usage("gate", "%s is the budget: refusing to overwrite it", outs[i]);
        for (int j = 0; j < i; j++)
            if (outs[j] && (!strcmp(outs[i], outs[j]) || ks_same_file(outs[i], outs[j])))
                return ks_cli_usage("gate", "%s is named for two outputs", outs[i]);
    }
    return 0;
}

/* The ops and kernels the checks name: the profiles follow only those. */
static void followed_names(gate_cli *c)
{
    size_t capo = 0, capk = 0;
    for (size_t i = 0; i < c->budget.n; i++) {
        ks_check *k = &c->budget.v[i];
        if (k->metric == KS_METRIC_OP)
            KS_PUSH(c->ops, c->nops, capo, k->name);
        if (k->metric == KS_METRIC_KERNEL_TIME) {
            if (c->po.normalize_kernels) {
                char *n = ks_kernel_name_normalize(k->name);
                free(k->name);
                k->name = n;
            }
            KS_PUSH(c->kernels, c->nkernels, capk, k->name);
        }
    }
    c->po.ops = c->ops;
    c->po.nops = c->nops;
    c->po.kernels = c->kernels;
    c->po.nkernels = c->nkernels;
}

enum {
    OPT_BUDGET = 256, OPT_STEP_TIME, OPT_LABEL, OPT_GPU_LABEL, OPT_OP, OPT_KERNEL_TIME, OPT_GPU_IDLE,
    OPT_LAUNCHES, OPT_VALIDATE, OPT_LABEL_SHARE, OPT_THRESHOLD, OPT_ALPHA, OPT_SEED, OPT_ON_INCONCLUSIVE,
    OPT_ALLOW_MISMATCH, OPT_SKIP_STEPS, OPT_STEP_LABEL, OPT_NORMALIZE, OPT_OVERLAP, OPT_JSON, OPT_JUNIT,
    OPT_MARKDOWN, OPT_GITHUB, OPT_STRICT, OPT_QUIET, OPT_RUNS_MIN
};

static ks_metric flag_metric(int opt)
{
    switch (opt) {
    case OPT_STEP_TIME: return KS_METRIC_STEP_TIME;
    case OPT_LABEL: return KS_METRIC_LABEL;
    case OPT_GPU_LABEL: return KS_METRIC_GPU_LABEL;
    case OPT_OP: return KS_METRIC_OP;
    case OPT_KERNEL_TIME: return KS_METRIC_KERNEL_TIME;
    case OPT_GPU_IDLE: return KS_METRIC_GPU_IDLE;
    case OPT_LAUNCHES: return KS_METRIC_LAUNCHES;
    default: break;
    }
    return KS_METRIC_VALIDATE;
}

/* where the options go (the option table hands each one here with its key) */
typedef struct gate_args {
    gate_cli *c;
    ks_budget *flags;
    double *threshold;
} gate_args;

static int gate_opt(void *ctx, const char *cmd, int key, const char *arg)
{
    gate_args *g = ctx;
    gate_cli *c = g->c;
    ks_budget *flags = g->flags;
    double *threshold = g->threshold;
    static const char *const modes[] = {"warn", "fail", NULL};
    ks_error err;
    double v;
    switch (key) {
    case 'b': push_input(c, 0, arg); return 0;
    case 'c': push_input(c, 1, arg); return 0;
    case OPT_BUDGET: c->budget_path = arg; return 0;
    case OPT_STEP_TIME: case OPT_LABEL: case OPT_GPU_LABEL: case OPT_OP: case OPT_KERNEL_TIME:
    case OPT_GPU_IDLE: case OPT_LAUNCHES: case OPT_VALIDATE:
        if (ks_budget_add_arg(flags, flag_metric(key), arg, &err) != KS_OK)
            return ks_cli_usage(cmd, "%s", err.msg);
        return 0;
    case OPT_LABEL_SHARE:
        if (parse_num(arg, 0, 100, &v) != 0)
            return ks_cli_usage(cmd, "--label-share needs a percentage from 0 to 100, not '%s'", arg);
        c->go.label_share = v / 100;
        return 0;
    case OPT_THRESHOLD:
        if (parse_num(arg, 0, 1000, threshold) != 0)
            return ks_cli_usage(cmd, "--threshold needs a percentage from 0 to 1000, not '%s'", arg);
        return 0;
    case OPT_ALPHA:
        if (parse_num(arg, 0, 1, &v) != 0 || v <= 0 || v >= 1)
            return ks_cli_usage(cmd, "--alpha needs a number between 0 and 1, not '%s'", arg);
        c->go.params.alpha = v;
        return 0;
    case OPT_RUNS_MIN:
        if (parse_num(arg, 1, 1000, &v) != 0 || v != (double)(size_t)v)
            return ks_cli_usage(cmd, "--runs-per-side-min needs a whole number from 1 to 1000, not '%s'", arg);
        c->go.params.min_runs = (size_t)v;
        return 0;
    case OPT_SEED: {
        char *end;
        errno = 0;
        c->go.params.seed = strtoull(arg, &end, 0);
        if (end == arg || *end || errno || *arg == '-')
            return ks_cli_usage(cmd, "--seed needs an unsigned 64-bit number, not '%s'", arg);
        return 0;
    }
    case OPT_ON_INCONCLUSIVE: {
        int m = ks_cli_choice(arg, modes);
        if (m < 0)
            return ks_cli_usage(cmd, "--on-inconclusive is warn or fail, not '%s'", arg);
        c->inconclusive_fails = m;
        return 0;
    }
    case OPT_ALLOW_MISMATCH: c->go.allow_mismatch = 1; return 0;
    case OPT_SKIP_STEPS:
        if (parse_num(arg, 0, 1000000, &v) != 0 || v != (double)(long)v)
            return ks_cli_usage(cmd, "--warmup (--skip-steps) needs a number of steps >= 0, not '%s'", arg);
        c->so.warmup = (int)v;
        return 0;
    case OPT_STEP_LABEL:
        if (ks_cli_regex(cmd, "--step-label", arg))
            return KS_EXIT_USAGE;
        c->so.label_regex = arg;
        return 0;
    case OPT_NORMALIZE: c->po.normalize_kernels = 1; return 0;
    case OPT_OVERLAP:
        if (ks_overlap_parse(arg, &c->ao.overlap, &c->ao.clamp_ns) != 0)
            return ks_cli_usage(cmd, "unknown overlap policy '%s' (spill, drop, truncate, clamp:NS)", arg);
        return 0;
    case OPT_JSON: c->json = arg; return 0;
    case OPT_JUNIT: c->junit = arg; return 0;
    case OPT_MARKDOWN: c->markdown = arg; return 0;
    case OPT_GITHUB: c->github_summary = 1; return 0;
    case OPT_STRICT: c->lo.strict = 1; return 0;
    case OPT_QUIET: c->lo.quiet = 1; return 0;
    default: return ks_cli_usage(cmd, "bad option");
    }
}

static int parse_options(gate_cli *c, int argc, char **argv, ks_budget *flags, double *threshold)
{
    gate_args g = {c, flags, threshold};
#define ARG_(name, s, key, help) KS_OPT_CALL(name, s, gate_opt, &g, key, help)
#define FLAG_(name, key, help) KS_OPT_CALL_FLAG(name, 0, gate_opt, &g, key, help)
    ks_option tab[] = {
        ARG_("baseline", 'b', 'b', "a baseline trace, summary or results file"),
        ARG_("candidate", 'c', 'c', "a candidate trace, summary or results file"),
        ARG_("budget", 0, OPT_BUDGET, "the budget file"),
        ARG_("step-time", 0, OPT_STEP_TIME, "step time limit"),
        ARG_("label", 0, OPT_LABEL, "a label's time limit"),
        ARG_("gpu-label", 0, OPT_GPU_LABEL, "a GPU range's time limit"),
        ARG_("op", 0, OPT_OP, "an op's time limit"),
        ARG_("kernel-time", 0, OPT_KERNEL_TIME, "kernel time limit"),
        ARG_("gpu-idle-share", 0, OPT_GPU_IDLE, "GPU idle share limit"),
        ARG_("kernel-launches", 0, OPT_LAUNCHES, "kernel launch count limit"),
        ARG_("validate", 0, OPT_VALIDATE, "a validate result's limit"),
        ARG_("label-share", 0, OPT_LABEL_SHARE, "labels below this share are not compared"),
        ARG_("threshold", 0, OPT_THRESHOLD, "the default limit, percent"),
        ARG_("alpha", 0, OPT_ALPHA, "the family's error rate"),
        ARG_("seed", 0, OPT_SEED, "the bootstrap's seed"),
        ARG_("runs-per-side-min", 0, OPT_RUNS_MIN, "fewer runs per side are inconclusive"),
        ARG_("on-inconclusive", 0, OPT_ON_INCONCLUSIVE, "warn or fail"),
        FLAG_("allow-mismatch", OPT_ALLOW_MISMATCH, "compare traces of different settings"),
        ARG_("warmup", 0, OPT_SKIP_STEPS, "the first N steps are warm-up"),
        KS_OPT_ALIAS("skip-steps", "warmup"),
        ARG_("step-label", 0, OPT_STEP_LABEL, "steps are the annotations matching REGEX"),
        FLAG_("normalize-kernels", OPT_NORMALIZE, "kernel names normalised"),
        ARG_("overlap", 0, OPT_OVERLAP, "a slice that outlives its parent"),
        ARG_("json", 0, OPT_JSON, "the verdict as JSON in FILE"),
        ARG_("junit", 0, OPT_JUNIT, "the verdict as JUnit XML in FILE"),
        ARG_("markdown", 0, OPT_MARKDOWN, "the verdict as Markdown in FILE"),
        FLAG_("github-summary", OPT_GITHUB, "Markdown to $GITHUB_STEP_SUMMARY"),
        FLAG_("strict", OPT_STRICT, "malformed input is an error"),
        FLAG_("quiet", OPT_QUIET, "no progress line"),
        KS_OPT_END(),
    };
#undef ARG_
#undef FLAG_
    int first;
    int rc = ks_opt_parse("gate", tab, argc, argv, &first);
    if (rc)
        return rc;
    if (first < argc)
        return ks_cli_usage("gate", "unexpected argument '%s': inputs go with --baseline and --candidate",
                            argv[first]);
    if (!c->nin[0] || !c->nin[1])
        return ks_cli_usage("gate", "needs --baseline and --candidate");
    if (c->github_summary && !(getenv("GITHUB_STEP_SUMMARY") && *getenv("GITHUB_STEP_SUMMARY")))
        return ks_cli_usage("gate", "--github-summary needs GITHUB_STEP_SUMMARY in the environment");
    rc = check_outputs(c);
    if (rc)
        return rc;
    /* the same by inode through @LISTs, and standard output (>> onto an input) */
    char **ins = ks_xcalloc(c->nin[0] + c->nin[1] + 2, sizeof *ins);
    size_t nins = 0;
    for (int s = 0; s < 2; s++)
        for (size_t k = 0; k < c->nin[s]; k++)
            ins[nins++] = c->in[s][k];
    if (c->budget_path)
        ins[nins++] = (char *)c->budget_path;
    const char *outs[] = {c->json, c->junit, c->markdown};
    rc = ks_cli_outputs_not_inputs("gate", ins, nins, outs, 3);
    free(ins);
    return rc;
}

/* Budget file first, then the flags; --threshold overrides the budget's threshold_pct. */
static int build_budget(gate_cli *c, ks_budget *flags, double threshold)
{
    ks_error err;
    if (c->budget_path && ks_budget_load(c->budget_path, &c->budget, &err) != KS_OK) {
        ks_cli_error(c->budget_path, &err);
        return KS_EXIT_USAGE;
    }
    for (size_t i = 0; i < flags->n; i++) {
        const ks_check *k = &flags->v[i];
        if (ks_budget_add(&c->budget, k->metric, k->name, k->has_limit, k->limit, &err) != KS_OK)
            return ks_cli_usage("gate", "%s (in the budget and as a flag)", err.msg);
    }
    if (threshold >= 0) {
        c->budget.has_threshold = 1;
        c->budget.threshold_pct = threshold;
    }
    return 0;
}

static void cleanup(gate_cli *c)
{
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < c->nprof[s]; i++)
            ks_profile_free(&c->prof[s][i]);
        free(c->prof[s]);
        free(c->in[s]);
    }
    free(c->ops);
    free(c->kernels);
    ks_budget_free(&c->budget);
}

int ks_cmd_gate(int argc, char **argv)
{
    gate_cli c;
    memset(&c, 0, sizeof c);
    ks_analysis_opts_init(&c.ao);
    ks_step_opts_init(&c.so);
    ks_gate_opts_init(&c.go);
    c.inconclusive_fails = 1;
    ks_budget flags = {0};
    double threshold = -1;
    int rc = parse_options(&c, argc, argv, &flags, &threshold);
    if (!rc)
        rc = build_budget(&c, &flags, threshold);
    ks_budget_free(&flags);
    if (rc) {
        cleanup(&c);
        return rc == KS_OPT_LISTED ? 0 : rc;
    }
    followed_names(&c);
    ks_gate g;
    ks_error err;
    char msg[600] = "";
    memset(&g, 0, sizeof g);
    g.opts = c.go;
    rc = load_side(&c, 0, msg, sizeof msg);
    if (!rc)
        rc = load_side(&c, 1, msg, sizeof msg);
    if (rc) {
        ks_gate_set_error(&g, msg);
    } else if (ks_gate_run(c.prof[0], c.nprof[0], c.prof[1], c.nprof[1], &c.budget, &c.go, &g, &err) != KS_OK) {
        ks_cli_fail("gate: %s", err.msg);
    }
    rc = report(&c, &g);
    ks_gate_free(&g);
    cleanup(&c);
    return rc;
}
