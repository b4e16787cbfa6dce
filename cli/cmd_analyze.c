/* cli/cmd_analyze.c: `kinesift analyze FILE...`: where the time goes. A summary (kinesift
 * summarize) among the inputs prints the report it keeps, the bytes analyze prints for its trace
 * with the default options; an option that would change that report is refused for it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/insights.h"
#include "cli/options.h"
#include "cli/timings.h"
#include "kinesift/analysis.h"
#include "kinesift/insights.h"
#include "kinesift/ranks.h"
#include "kinesift/report.h"

const char ks_help_analyze[] =
    "usage: kinesift analyze FILE... [--format text|json|csv|folded] [--top N]\n"
    "                        [--sort self|incl|gpu|count]\n"
    "                        [--folded-metric cpu|gpu] [--python-frames]\n"
    "                        [--overlap spill|drop|truncate|clamp:NS] [--window SPEC]\n"
    "                        [--step-label REGEX] [--warmup N] [--gap-threshold DUR]\n"
    "                        [--data-label REGEX]\n"
    "                        [--smi FILE.csv --smi-tz TZ [--smi-offset DUR]\n"
    "                         [--smi-gpu UUID|INDEX]]\n"
    "                        [--min-impact PCT] [--all-diagnoses] [--peak TFLOPS/TBPS]\n"
    "                        [--threads N] [--strict] [--quiet] [--timings]\n"
    "\n"
    "Rebuild the nested timeline of every thread and GPU stream and report where the time goes:\n"
    "the window and its span, GPU busy/idle per device, the top operators by self time, the top\n"
    "labelled ranges (record_function) with CPU self/inclusive and GPU direct/subtree time, the top\n"
    "kernels, the GPU time per kind of work and ops grouped by shape against the roofline, the\n"
    "steps and what waits for what on each step's critical path, memory per device (from\n"
    "profile_memory=True's allocator events), the diagnoses, and the diagnostics (overlaps,\n"
    "unlinked events, recoveries).\n"
    "\n"
    "  --format text|json|csv|folded\n"
    "                          output (default text); JSON schema kinesift.analyze/1, see\n"
    "                          docs/schema-analyze.md; CSV has one row per table row, the\n"
    "                          \"section\" column naming the table (window, op, label, kernel,\n"
    "                          gpu, device, step, critical_path, gap, gap_cpu, gap_label,\n"
    "                          gap_longest, diagnosis, memory, memory_live, memory_op,\n"
    "                          memory_step, error;\n"
    "                          docs/analysis.md, \"CSV\"); folded:\n"
    "                          one 'frame;frame;leaf ns' line per call path of ops and labels, for\n"
    "                          flamegraph.pl, inferno and speedscope (docs/report.md)\n"
    "  --folded-metric cpu|gpu\n"
    "                          folded values: CPU self time (default; they add up to the ops'\n"
    "                          self time) or the GPU time launched under each path (a leaf per\n"
    "                          kernel; they add up to the kernels' total time)\n"
    "  --python-frames         folded: Python frames are frames (default: their time goes to the\n"
    "                          op around them)\n"
    "  --top N                 rows per table (default 15 for text, all for json and csv; 0 = all);\n"
    "                          text steps: the first, the slowest and the last, with a histogram\n"
    "                          line of every step's wall time\n"
    "  --sort KEY              order of operators and labels: self (default), incl, gpu, count\n"
    "  --peak TFLOPS/TBPS      the roofline's peak compute (dense TFLOP/s, every data type) and\n"
    "                          memory bandwidth (TB/s) for every device, instead of the peak table's\n"
    "                          (docs/analysis.md, \"Peaks and the roofline\"), for the shapes and\n"
    "                          the diagnoses alike: 989/3.35\n"
    "  --overlap POLICY        a slice that outlives its parent: spill (default, overflow lane),\n"
    "                          drop, truncate (cut at the parent's end), clamp:NS (cut when the\n"
    "                          excess is at most NS nanoseconds, or a DUR: clamp:2us; else spill);\n"
    "                          whatever the policy, each ns of a thread is one slice's self time\n"
    "                          (the main lane keeps what a spilled slice shares with it)\n"
    "  --window SPEC           restrict every figure to steps:A-B (or steps:N) or to a time range\n"
    "                          START:END of DURs relative to the first event (1.5ms:20ms; END may\n"
    "                          be empty), or `trace` (the whole trace). Default: the active steps\n"
    "                          (after warm-up), else the GPU span, else the CPU span without the\n"
    "                          profiler's own span; every share names it\n"
    "  --step-label REGEX      steps are the user annotations matching REGEX (default ProfilerStep#N);\n"
    "                          without steps the window is the GPU span\n"
    "  --warmup N              the first N steps are warm-up (default: leading outliers)\n"
    "  --gap-threshold DUR     GPU idle gaps reported when longer than this (default 10us);\n"
    "                          DUR, here and below: a number with a unit, ns, us, ms or s (5us,\n"
    "                          2ms); a bare number is microseconds, the trace's unit\n"
    "  --data-label REGEX      names that mean \"loading input\" (default: DataLoader, data_load,\n"
    "                          lecture, collate, __next__, ...; case-insensitive)\n"
    "  --smi FILE.csv          nvidia-smi --query-gpu=timestamp,index,uuid,name,utilization.gpu,\n"
    "                          memory.used,memory.total --format=csv samples, aligned on the trace\n"
    "  --smi-tz TZ             time zone of those timestamps (required with --smi): UTC, +HH:MM, or\n"
    "                          a zone of the tz database such as Europe/Paris (daylight saving\n"
    "                          applied)\n"
    "  --smi-offset DUR        add DUR to every sample time (clock skew), e.g. -1.5s\n"
    "  --smi-gpu UUID|INDEX    the GPU of the CSV to use (an index, UUID or PCI bus id). Without it\n"
    "                          a CSV of several GPUs is matched to the trace's device when certain\n"
    "                          (one device, deviceProperties listing as many GPUs as the CSV);\n"
    "                          otherwise analyze stops with the list: GPUs are never averaged\n"
    "  --min-impact PCT        diagnoses that could save less than PCT % of the active steps (else\n"
    "                          of the GPU span) are counted, not listed (default 1)\n"
    "  --all-diagnoses         list them too, marked below the floor\n"
    "  --threads N             threads for reading and for the analysis (default 0: one per core\n"
    "                          it may use, as its affinity and cgroup quota allow; small traces\n"
    "                          are analysed on one; 1: one); the output is the same whatever N\n"
    "  --strict                malformed input is an error instead of a counted recovery\n"
    "  --quiet                 no progress line and no warnings on stderr\n"
    "  --timings               after the output, the wall time of each phase on stderr (reading,\n"
    "                          parse, store, each analysis pass, writing) and the peak memory\n"
    "                          reached by its end (docs/performance.md)\n"
    "\n"
    "Definitions (docs/analysis.md): self = duration minus its direct children; inclusive = union\n"
    "of a name's intervals per thread (recursion counted once); GPU direct = work launched by the\n"
    "op's own runtime calls, subtree = by it or any descendant (unions; sums in the JSON too);\n"
    "GPU busy = union of kernel, memcpy and memset time per device. Missing GPU data is reported\n"
    "as not observed, never as zero. Another accelerator's device events (MTIA mtia_ccp_events,\n"
    "HPU, unknown categories placed on a device or stream) get span, busy (union of every event,\n"
    "waits included) and idle per device, said to be uninterpreted. Text tables shorten long\n"
    "names (docs/analysis.md, \"The text report\"); text diagnostics give times relative to the\n"
    "window start.\n"
    "\n"
    "Steps end when the GPU work they launched ends (TensorBoard's definition); each step's\n"
    "breakdown (kernel, memcpy, memset, communication, runtime, data loading, CPU, other) adds up to\n"
    "its wall time. Diagnoses are hypotheses with their evidence, the next check and what would\n"
    "refute them; where a built-in `kinesift validate` pair measures the same pattern, its command\n"
    "(CUDA traces; on ROCm, MTIA and others, the measurement to make by hand).\n"
    "Each states the step time it could save at most and they are ranked by it (docs/insights.md).\n"
    "\n"
    "A summary (kinesift summarize, *.kss.json[.gz]) among the inputs prints the report it keeps:\n"
    "the bytes analyze prints for its trace with the default options (text, json, csv); options\n"
    "that change the report, and --format folded, are refused for it (docs/scale-out.md).\n"
    "\n"
    "An input that cannot be read (a config.json among the traces of a directory, an empty or\n"
    "unreadable file) does not stop the others: each is listed after them (text), under \"errors\"\n"
    "(JSON) or as an \"error\" row (CSV), and the exit status is 2.\n"
    "\n"
    "Text fits the terminal: $COLUMNS, else the terminal's width, else 80 columns (output not\n"
    "to a terminal); tables aligned, long names shortened in the middle (whole in json and csv),\n"
    "a name with too little room beside its row on a line of its own, long lines wrapped.\n"
    "\n"
    "Exit status: 0 success, 2 usage or input error.\n";

typedef struct analyze_ctx {
    int format; /* enum ks_format: text, json, csv, folded */
    ks_folded_metric folded_metric;
    int python_frames;
    ks_cli_insight_opts io;
    ks_report_opts ro;
    ks_analyze_json *json;
    int first;
    const char *shaped; /* the long name of the last option given that changes the report (refused
                         * for summaries) */
    ks_cli_input_errors errors; /* text: the inputs not read, listed after the reports */
    ks_timings *timings;        /* --timings, else NULL */
} analyze_ctx;

/* an input that could not be read: listed after the others (text), under "errors" (JSON), as an
 * "error" row (CSV); folded output has no place for it (stderr and the exit status say it) */
static void on_error(void *ctx, const char *input, const char *message)
{
    analyze_ctx *c = ctx;
    if (c->format == KS_FORMAT_JSON)
        ks_analyze_json_error(c->json, input, message);
    else if (c->format == KS_FORMAT_CSV)
        ks_analyze_csv_error(stdout, input, message);
    else if (c->format == KS_FORMAT_TEXT)
        ks_cli_input_errors_add(&c->errors, input, message);
}

/* analysis, steps, window, gaps, telemetry and diagnoses of one trace, then the report */
static int report_trace(analyze_ctx *c, ks_trace *tr)
{
    ks_cli_insights r;
    ks_error err;
    if (ks_cli_insights_run(&c->io, tr, &r, &err) != KS_OK) {
        ks_cli_insights_error(&r, tr, &err);
        ks_cli_insights_free(&r);
        return KS_EXIT_USAGE;
    }
    int64_t t0 = ks_timings_start(c->timings);
    if (c->format == KS_FORMAT_JSON)
        ks_analyze_json_trace(c->json, r.in.a, &r.iv, &c->ro);
    else if (c->format == KS_FORMAT_CSV)
        ks_analyze_csv_trace(stdout, r.in.a, &r.iv, &c->ro);
    else if (c->format == KS_FORMAT_FOLDED)
        ks_analyze_folded(stdout, r.in.a, c->folded_metric, c->python_frames);
    else {
        if (!c->first)
            fputc('\n', stdout);
        ks_analyze_text(stdout, r.in.a, &r.iv, &c->ro);
    }
    c->first = 0;
    t0 = ks_timings_stop(c->timings, "writing", t0, 0);
    ks_cli_insights_free(&r);
    ks_timings_stop(c->timings, "free (analysis)", t0, 0);
    return 0;
}

static int on_trace(void *ctx, ks_trace *tr)
{
    analyze_ctx *c = ctx;
    ks_cli_warnings(tr, c->io.quiet);
    int rc = report_trace(c, tr);
    int64_t t0 = ks_timings_start(c->timings);
    ks_trace_free(tr);
    ks_timings_stop(c->timings, "free (store)", t0, 0);
    return rc;
}

/* 1, after a one-line error, when the summary's report is not the one asked for */
static int summary_refused(const analyze_ctx *c, const char *name, const ks_summary_report *rep)
{
    const char *want = c->io.run.steps.label_regex, *had = rep->step_label;
    if (c->format == KS_FORMAT_FOLDED || c->shaped) {
        ks_cli_fail("%s: a summary keeps the report of analyze's default options; %s%s needs the trace", name,
                    c->format == KS_FORMAT_FOLDED ? "" : "--", c->format == KS_FORMAT_FOLDED ? "--format folded" : c->shaped);
        return 1;
    }
    if ((want || had) && (!want || !had || strcmp(want, had))) {
        ks_cli_fail("%s: summarised with --step-label %s: analyze it with the same (or analyze the trace)", name,
                    had ? had : "ProfilerStep#N (the default)");
        return 1;
    }
    return 0;
}

static int on_summary(void *ctx, ks_stream *st)
{
    analyze_ctx *c = ctx;
    const char *name = ks_stream_name(st);
    ks_summary_report rep;
    ks_error err;
    if (ks_summary_report_stream(st, &rep, &err) != KS_OK) {
        ks_cli_error(NULL, &err);
        return KS_EXIT_USAGE;
    }
    if (summary_refused(c, name, &rep)) {
        ks_summary_report_free(&rep);
        return KS_EXIT_USAGE;
    }
    if (c->format == KS_FORMAT_JSON)
        ks_analyze_json_tree(c->json, rep.trace);
    else if (c->format == KS_FORMAT_CSV)
        ks_cli_put_escaped(stdout, rep.csv, 1); /* what the summary keeps is not trusted: no */
    else {                                      /* terminal codes (honest text has none) */
        if (!c->first)
            fputc('\n', stdout);
        /* laid out for this terminal first, then its terminal codes escaped */
        char *fit = NULL;
        size_t nfit = 0;
        FILE *m = open_memstream(&fit, &nfit);
        if (m) {
            ks_text_fit(m, rep.text, strlen(rep.text), c->ro.width);
            fclose(m);
        }
        ks_cli_put_escaped(stdout, fit ? fit : rep.text, 1);
        free(fit);
    }
    c->first = 0;
    ks_summary_report_free(&rep);
    return 0;
}

int ks_cmd_analyze(int argc, char **argv)
{
    static const char *const formats[] = {[KS_FORMAT_TEXT] = "text", [KS_FORMAT_JSON] = "json", [KS_FORMAT_CSV] = "csv",
                                          [KS_FORMAT_FOLDED] = "folded", NULL};
    static const char *const metrics[] = {"cpu", "gpu", NULL};
    static const char *const sorts[] = {"self", "incl", "gpu", "count", NULL};
    analyze_ctx c;
    memset(&c, 0, sizeof c);
    c.first = 1;
    ks_cli_insight_opts_init(&c.io);
    c.io.shaped = &c.shaped;
    ks_load_opts lo = {0};
    long top = -1;
    const char *peak = NULL;
    int metric = 0, sort = 0, first, timed = 0;
    int64_t start = ks_timings_now();
    ks_timings tm;
    ks_option tab[] = {
        KS_OPT_CHOICE("format", 'f', &c.format, formats, "format", "text, json, csv or folded"),
        KS_OPT_COUNT("top", 't', &top, "rows per table"),
        KS_OPT_CHOICE("sort", 's', &sort, sorts, "sort key", "order of operators and labels"),
        KS_OPT_CHOICE("folded-metric", 0, &metric, metrics, "folded metric", "folded values: cpu or gpu"),
        KS_OPT_FLAG("python-frames", 0, &c.python_frames, "folded: Python frames are frames"),
        KS_OPT_FLAG("timings", 0, &timed, "the wall time of each phase on stderr"),
        KS_OPT_STRING("peak", 0, &peak, "the roofline's peaks: TFLOPS/TBPS"),
        KS_OPT_TABLE(ks_cli_insight_table(&c.io, &lo, KS_CLI_ALL_INSIGHT_OPTS, 'o')),
        KS_OPT_END(),
    };
    tab[1].given = tab[2].given = &c.shaped;
    int rc = ks_opt_parse("analyze", tab, argc, argv, &first);
    if (rc)
        return rc == KS_OPT_LISTED ? 0 : rc;
    c.folded_metric = (ks_folded_metric)metric;
    c.ro.sort = (ks_sort_key)sort;
    c.ro.width = ks_cli_text_width();
    if (first >= argc)
        return ks_cli_usage("analyze", "no input file");
    if (ks_cli_insight_check(&c.io, "analyze") ||
        ks_cli_outputs_not_inputs("analyze", argv + first, (size_t)(argc - first), NULL, 0))
        return KS_EXIT_USAGE;
    c.ro.top = top >= 0 ? (size_t)top : (c.format == KS_FORMAT_TEXT ? 15 : 0);
    if (peak) {
        char *end;
        c.ro.peak_tflops = strtod(peak, &end);
        c.ro.peak_tbps = *end == '/' ? strtod(end + 1, &end) : 0;
        if (*end || !(c.ro.peak_tflops > 0) || !(c.ro.peak_tbps > 0) || c.ro.peak_tflops > 1e7 || c.ro.peak_tbps > 1e5)
            return ks_cli_usage("analyze", "--peak takes TFLOPS/TBPS, two positive numbers (989/3.35)");
        c.io.run.diagnose.peak_tflops = c.ro.peak_tflops; /* the diagnoses' roofline is the report's */
        c.io.run.diagnose.peak_tbps = c.ro.peak_tbps;
    }
    if (c.format == KS_FORMAT_JSON)
        c.json = ks_analyze_json_begin(stdout);
    else if (c.format == KS_FORMAT_CSV)
        ks_analyze_csv_header(stdout);
    lo.summary = on_summary;
    lo.on_error = on_error;
    if (timed) {
        ks_timings_init(&tm);
        c.timings = lo.timings = c.io.run.analysis.timings = &tm;
    }
    rc = ks_cli_load(argv + first, argc - first, &lo, on_trace, &c);
    if (!c.first) /* after the reports of the others; an input alone: its error line only */
        ks_cli_input_errors_text(stdout, &c.errors);
    ks_cli_input_errors_free(&c.errors);
    int64_t t0 = ks_timings_start(c.timings);
    if (c.format == KS_FORMAT_JSON && ks_analyze_json_end(c.json) != 0 && !rc)
        rc = ks_cli_write_failed("analyze");
    if (fflush(stdout) != 0 && !rc)
        rc = ks_cli_write_failed("analyze");
    if (timed) {
        ks_timings_stop(c.timings, "writing", t0, 0);
        ks_cli_timings_print(stderr, "analyze", &tm, ks_timings_now() - start);
    }
    return rc;
}
