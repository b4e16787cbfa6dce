/* cli/cmd_analyze.c: `kinesift analyze FILE...`: where the time goes. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kinesift/analysis.h"
#include "kinesift/report.h"

const char ks_help_analyze[] =
    "usage: kinesift analyze FILE... [--format text|json|csv] [--top N] [--sort self|incl|gpu|count]\n"
    "                        [--overlap spill|drop|truncate|clamp:NS] [--strict] [--quiet]\n"
    "\n"
    "Rebuild the nested timeline of every thread and GPU stream and report where the time goes:\n"
    "the window and its span, GPU busy/idle per device, the top operators by self time, the top\n"
    "labelled ranges (record_function) with CPU self/inclusive and GPU direct/subtree time, the top\n"
    "kernels, and the diagnostics (overlaps, unlinked events, recoveries).\n"
    "\n"
    "  --format text|json|csv  output (default text); JSON schema kinesift.analyze/1, see\n"
    "                          docs/schema-analyze.md; CSV has one row per table row\n"
    "  --top N                 rows per table (default 15 for text, all for json and csv; 0 = all)\n"
    "  --sort KEY              order of operators and labels: self (default), incl, gpu, count\n"
    "  --overlap POLICY        a slice that outlives its parent: spill (default, overflow lane),\n"
    "                          drop, truncate (cut at the parent's end), clamp:NS (cut when the\n"
    "                          excess is at most NS nanoseconds, else spill)\n"
    "  --strict                malformed input is an error instead of a counted recovery\n"
    "  --quiet                 no progress line and no warnings on stderr\n"
    "\n"
    "Definitions (docs/analysis.md): self = duration minus its direct children; inclusive = union\n"
    "of a name's intervals per thread (recursion counted once); GPU direct = work launched by the\n"
    "op's own runtime calls, subtree = by it or any descendant (unions; sums in the JSON too);\n"
    "GPU busy = union of kernel, memcpy and memset time per device. Missing GPU data is reported\n"
    "as not observed, never as zero.\n"
    "\n"
    "Exit status: 0 success, 2 usage or input error.\n";

typedef struct analyze_ctx {
    int format; /* 0 text, 1 json, 2 csv */
    int quiet;
    ks_analysis_opts ao;
    ks_report_opts ro;
    ks_analyze_json *json;
    int first;
} analyze_ctx;

static int on_trace(void *ctx, ks_trace *tr)
{
    analyze_ctx *c = ctx;
    ks_analysis *a;
    ks_error err;
    ks_cli_warnings(tr, c->quiet);
    if (ks_analyze(tr, &c->ao, &a, &err) != KS_OK) {
        ks_cli_error(tr->source, &err);
        ks_trace_free(tr);
        return KS_EXIT_USAGE;
    }
    if (c->format == 1)
        ks_analyze_json_trace(c->json, a, &c->ro);
    else if (c->format == 2)
        ks_analyze_csv_trace(stdout, a, &c->ro);
    else {
        if (!c->first)
            fputc('\n', stdout);
        ks_analyze_text(stdout, a, &c->ro);
    }
    c->first = 0;
    ks_analysis_free(a);
    ks_trace_free(tr);
    return 0;
}

int ks_cmd_analyze(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, 'f'}, {"top", required_argument, NULL, 't'},
        {"sort", required_argument, NULL, 's'},   {"overlap", required_argument, NULL, 'o'},
        {"strict", no_argument, NULL, 'S'},       {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    static const char *const formats[] = {"text", "json", "csv", NULL};
    static const char *const sorts[] = {"self", "incl", "gpu", "count", NULL};
    analyze_ctx c;
    memset(&c, 0, sizeof c);
    c.first = 1;
    ks_analysis_opts_init(&c.ao);
    ks_load_opts lo = {0};
    long top = -1;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "qf:t:s:o:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'f':
            c.format = ks_cli_choice(optarg, formats);
            if (c.format < 0)
                return ks_cli_usage("analyze", "unknown format '%s' (text, json or csv)", optarg);
            break;
        case 't': {
            char *end;
            top = strtol(optarg, &end, 10);
            if (end == optarg || *end || top < 0)
                return ks_cli_usage("analyze", "--top needs a number >= 0, not '%s'", optarg);
            break;
        }
        case 's': {
            int k = ks_cli_choice(optarg, sorts);
            if (k < 0)
                return ks_cli_usage("analyze", "unknown sort key '%s' (self, incl, gpu or count)", optarg);
            c.ro.sort = (ks_sort_key)k;
            break;
        }
        case 'o':
            if (ks_overlap_parse(optarg, &c.ao.overlap, &c.ao.clamp_ns) != 0)
                return ks_cli_usage("analyze", "unknown overlap policy '%s' (spill, drop, truncate, clamp:NS)", optarg);
            break;
        case 'S': lo.strict = 1; break;
        case 'q': lo.quiet = c.quiet = 1; break;
        default: return ks_cli_usage("analyze", "bad option");
        }
    }
    if (optind >= argc)
        return ks_cli_usage("analyze", "no input file");
    c.ro.top = top >= 0 ? (size_t)top : (c.format == 0 ? 15 : 0);
    if (c.format == 1)
        c.json = ks_analyze_json_begin(stdout);
    else if (c.format == 2)
        ks_analyze_csv_header(stdout);
    int rc = ks_cli_load(argv + optind, argc - optind, &lo, on_trace, &c);
    if (c.format == 1 && ks_analyze_json_end(c.json) != 0 && !rc) {
        ks_cli_fail("analyze: cannot write the output");
        rc = KS_EXIT_USAGE;
    }
    if (fflush(stdout) != 0 && !rc) {
        ks_cli_fail("analyze: cannot write the output");
        rc = KS_EXIT_USAGE;
    }
    return rc;
}
