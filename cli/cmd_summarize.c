/* cli/cmd_summarize.c: `kinesift summarize TRACE -o RANK.kss.json.gz`: one rank's trace reduced
 * to what `kinesift ranks` needs and to the report `kinesift analyze` prints for it with its
 * default options (kinesift.summary/2, ranks/summary.c), so that the ranks of a job bigger than
 * one machine can be summarised where they are and merged or read elsewhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/insights.h"
#include "cli/options.h"
#include "kinesift/ranks.h"
#include "kinesift/report.h"

const char ks_help_summarize[] =
    "usage: kinesift summarize TRACE -o OUT.kss.json[.gz] [--step-label REGEX] [--force] [--threads N]\n"
    "                          [--strict] [--quiet]\n"
    "\n"
    "Reduce one rank's trace to everything `kinesift ranks` needs from it (schema kinesift.summary/2:\n"
    "step times, GPU unions, every collective with its times, bytes and group, the kernels before\n"
    "each) and to the report `kinesift analyze` prints for it with its default options (text, JSON\n"
    "and CSV): kilobytes for a trace of hundreds of MB. `kinesift ranks` and `kinesift analyze`\n"
    "accept summaries wherever they accept traces, mixed freely, and print the same report from\n"
    "them. See docs/scale-out.md for job arrays (Slurm) and xargs -P / GNU parallel over many hosts.\n"
    "\n"
    "  -o, --output FILE       the summary; a name ending in .gz is gzip-compressed; the name must\n"
    "                          contain .kss.json (that is how ranks knows a summary)\n"
    "  --force                 replace FILE if it exists (never the input)\n"
    "  --step-label REGEX      steps are the user annotations matching REGEX (default ProfilerStep#N);\n"
    "                          `analyze` of the summary then needs the same --step-label\n"
    "  --threads N             parser threads (default 0: one per core)\n"
    "  --strict                malformed input is an error instead of a counted recovery\n"
    "  --quiet                 no progress line and no warnings on stderr\n"
    "\n"
    "Exit status: 0 success, 2 usage or input error.\n";

typedef struct sum_ctx {
    const char *out;
    int force, quiet, seen, threads;
    ks_rank_opts ro;
} sum_ctx;

/* the report `analyze` prints with its default options (and this step label), in its three
 * forms: the JSON document, the text (--top 15) and the CSV rows (every row) */
typedef struct report_text {
    char *json, *text, *csv;
    size_t njson, ntext, ncsv;
} report_text;

static int make_report(const sum_ctx *c, const ks_trace *tr, report_text *rt)
{
    ks_cli_insight_opts io;
    ks_cli_insight_opts_init(&io);
    io.run.steps.label_regex = c->ro.step_label;
    io.run.analysis.threads = c->threads;
    io.quiet = c->quiet;
    ks_cli_insights r;
    ks_error err;
    memset(rt, 0, sizeof *rt);
    if (ks_cli_insights_run(&io, tr, &r, &err) != KS_OK) {
        ks_cli_insights_error(&r, tr, &err);
        ks_cli_insights_free(&r);
        return KS_EXIT_USAGE;
    }
    ks_report_opts all = {0}, text = {0};
    text.top = 15;
    text.width = KS_TEXT_RAW; /* laid out when shown (analyze of the summary) */
    FILE *m = open_memstream(&rt->json, &rt->njson);
    ks_analyze_json *j = ks_analyze_json_begin(m);
    ks_analyze_json_trace(j, r.in.a, &r.iv, &all);
    ks_analyze_json_end(j);
    fclose(m);
    m = open_memstream(&rt->text, &rt->ntext);
    ks_analyze_text(m, r.in.a, &r.iv, &text);
    fclose(m);
    m = open_memstream(&rt->csv, &rt->ncsv);
    ks_analyze_csv_trace(m, r.in.a, &r.iv, &all);
    fclose(m);
    ks_cli_insights_free(&r);
    return 0;
}

static void report_text_free(report_text *rt)
{
    free(rt->json);
    free(rt->text);
    free(rt->csv);
}

static int on_trace(void *ctx, ks_trace *tr)
{
    sum_ctx *c = ctx;
    ks_error err;
    int rc = 0;
    if (c->seen++) {
        ks_cli_fail("%s: summarize takes one trace (an archive with several ranks: one summary each)", tr->source);
        ks_trace_free(tr);
        return KS_EXIT_USAGE;
    }
    ks_cli_warnings(tr, c->quiet);
    ks_rank r;
    report_text rt;
    if (ks_rank_from_trace(tr, &c->ro, &r, &err) != KS_OK) {
        ks_cli_error(tr->source, &err);
        ks_trace_free(tr);
        return KS_EXIT_USAGE;
    }
    rc = make_report(c, tr, &rt);
    if (!rc) {
        ks_summary_report rep = {.step_label = c->ro.step_label, .json = rt.json, .text = rt.text, .csv = rt.csv};
        if (ks_rank_summary_write(&r, &rep, c->out, c->force, &err) != KS_OK) {
            ks_cli_error(NULL, &err);
            rc = KS_EXIT_USAGE;
        }
    }
    report_text_free(&rt);
    ks_rank_free(&r);
    ks_trace_free(tr);
    return rc;
}

int ks_cmd_summarize(int argc, char **argv)
{
    sum_ctx c = {0};
    ks_load_opts lo = {0};
    int first;
    ks_option tab[] = {
        KS_OPT_STRING("output", 'o', &c.out, "the summary (.kss.json[.gz])"),
        KS_OPT_FLAG("force", 0, &c.force, "replace it when it exists"),
        KS_OPT_STRING("step-label", 0, &c.ro.step_label, "steps are the annotations matching REGEX"),
        KS_OPT_CALL("threads", 0, ks_cli_threads_opt, &c.threads, 0, "parser threads"),
        KS_OPT_FLAG("strict", 0, &lo.strict, "malformed input is an error"),
        KS_OPT_FLAG("quiet", 0, &c.quiet, "no progress line, no warnings"),
        KS_OPT_END(),
    };
    int rc = ks_opt_parse("summarize", tab, argc, argv, &first);
    if (rc)
        return rc == KS_OPT_LISTED ? 0 : rc;
    lo.quiet = c.quiet;
    lo.threads = c.threads;
    if (first >= argc)
        return ks_cli_usage("summarize", "no input file");
    if (argc - first > 1)
        return ks_cli_usage("summarize", "one trace at a time (one summary per rank)");
    if (!c.out)
        return ks_cli_usage("summarize", "-o OUT.kss.json.gz is required");
    if (!ks_rank_is_summary(c.out))
        return ks_cli_usage("summarize", "the output name must contain .kss.json, not '%s'", c.out);
    if (!strcmp(c.out, argv[first]))
        return ks_cli_usage("summarize", "the output would overwrite the input");
    const char *outs[] = {c.out};
    if (ks_cli_outputs_not_inputs("summarize", argv + first, 1, outs, 1))
        return KS_EXIT_USAGE;
    return ks_cli_load(argv + first, 1, &lo, on_trace, &c);
}
