/* cli/cmd_stats.c: `kinesift stats FILE...`: what each trace contains. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/timings.h"
#include "kinesift/report.h"

const char ks_help_stats[] =
    "usage: kinesift stats [--format text|json] [--strict] [--threads N] [--quiet] [--timings]\n"
    "                      FILE...\n"
    "\n"
    "Read traces and print, per trace: source, bytes read, events by phase and by category,\n"
    "tracks with their names, time span, ProfilerStep count, rank / world size / devices, and\n"
    "every diagnostic (repairs, skipped events, truncation) with its byte, line and column.\n"
    "\n"
    "FILE is a trace (.json, compressed with gzip/zstd/xz/bzip2, detected by content), a tar or\n"
    "zip of traces (one trace per member), a directory (its trace files, recursively), or '-'\n"
    "for standard input.\n"
    "\n"
    "  --format text|json  output format (default text); JSON schema kinesift.stats/1,\n"
    "                      see docs/schema-stats.md\n"
    "  --strict            malformed strings, skipped events and truncation are errors\n"
    "  --threads N         parser threads for a large input (default 0: one per core, at most\n"
    "                      4; 1: one); the result is the same whatever N\n"
    "  --quiet             no progress line on a terminal\n"
    "  --timings           after the output, the wall time of each phase on stderr (reading,\n"
    "                      parse, store, writing) and the peak memory reached by its end\n"
    "                      (docs/performance.md)\n"
    "\n"
    "An input that cannot be read (not a trace, empty, unreadable) does not stop the others: each\n"
    "is listed after them (JSON: \"errors\") and the exit status is 2.\n"
    "\n"
    "Text fits the terminal ($COLUMNS, else its width, else 80 columns): tables aligned, a table\n"
    "too wide in blocks of columns, long names shortened in the middle, long lines wrapped.\n"
    "\n"
    "Exit status: 0 success, 2 usage or input error.\n";

typedef struct stats_ctx {
    int json;
    ks_stats_json *w;
    ks_cli_input_errors errors;
    size_t reported;
    ks_timings *timings; /* --timings, else NULL */
} stats_ctx;

/* an input that could not be read: listed after the others (text) or under "errors" (JSON) */
static void on_error(void *ctx, const char *input, const char *message)
{
    stats_ctx *c = ctx;
    if (c->json)
        ks_stats_json_error(c->w, input, message);
    else
        ks_cli_input_errors_add(&c->errors, input, message);
}

static int on_trace(void *ctx, ks_trace *tr)
{
    stats_ctx *c = ctx;
    c->reported++;
    int64_t t0 = ks_timings_start(c->timings);
    if (c->json)
        ks_stats_json_trace(c->w, tr);
    else
        ks_stats_text(stdout, tr, ks_cli_text_width());
    t0 = ks_timings_stop(c->timings, "writing", t0, 0);
    ks_trace_free(tr);
    ks_timings_stop(c->timings, "free (store)", t0, 0);
    return 0;
}

int ks_cmd_stats(int argc, char **argv)
{
    static const char *const formats[] = {"text", "json", NULL};
    ks_load_opts lo = {0};
    stats_ctx c = {0};
    int first, timed = 0;
    int64_t start = ks_timings_now();
    ks_timings tm;
    ks_option tab[] = {
        KS_OPT_CHOICE("format", 'f', &c.json, formats, "format", "text or json"),
        KS_OPT_FLAG("strict", 0, &lo.strict, "malformed input is an error"),
        KS_OPT_CALL("threads", 'j', ks_cli_threads_opt, &lo.threads, 0, "parser threads"),
        KS_OPT_FLAG("quiet", 'q', &lo.quiet, "no progress line"),
        KS_OPT_FLAG("timings", 0, &timed, "the wall time of each phase on stderr"),
        KS_OPT_END(),
    };
    int prc = ks_opt_parse("stats", tab, argc, argv, &first);
    if (prc)
        return prc == KS_OPT_LISTED ? 0 : prc;
    if (first >= argc)
        return ks_cli_usage("stats", "no input file");
    if (ks_cli_outputs_not_inputs("stats", argv + first, (size_t)(argc - first), NULL, 0))
        return KS_EXIT_USAGE;
    if (c.json)
        c.w = ks_stats_json_begin(stdout);
    lo.on_error = on_error;
    if (timed) {
        ks_timings_init(&tm);
        c.timings = lo.timings = &tm;
    }
    int rc = ks_cli_load(argv + first, argc - first, &lo, on_trace, &c);
    if (c.reported) /* after the reports of the others; an input alone: its error line only */
        ks_cli_input_errors_text(stdout, &c.errors);
    ks_cli_input_errors_free(&c.errors);
    if (c.json && ks_stats_json_end(c.w) != 0 && !rc)
        rc = ks_cli_write_failed("stats");
    if (fflush(stdout) != 0 && !rc)
        rc = ks_cli_write_failed("stats");
    if (timed)
        ks_cli_timings_print(stderr, "stats", &tm, ks_timings_now() - start);
    return rc;
}
