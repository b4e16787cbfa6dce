/* cli/cmd_report.c: `kinesift report TRACE... -o report.html`: analyze's figures as one
 * self-contained HTML page (report/html_page.c). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/insights.h"

const char ks_help_report[] =
    "usage: kinesift report TRACE... -o REPORT.html [--force] [--title TEXT] [--top N]\n"
    "                       [--sort self|incl|gpu|count] [--window SPEC] [--step-label REGEX]\n"
    "                       [--warmup N] [--gap-threshold DUR] [--data-label REGEX]\n"
    "                       [--smi FILE.csv --smi-tz TZ [--smi-offset DUR] [--smi-gpu UUID|INDEX]]\n"
    "                       [--overlap POLICY] [--threads N] [--strict] [--quiet]\n"
    "\n"
    "One HTML page that opens offline in any browser (it loads nothing: styles, charts and the small\n"
    "sorting script are inline, and its Content-Security-Policy forbids any request), with the\n"
    "figures of `kinesift analyze` for every trace:\n"
    "  - a summary line per trace: window, steps, GPU busy share, the first diagnosis;\n"
    "  - the step breakdown as stacked bars (warm-up steps hatched);\n"
    "  - a GPU activity strip per device with the idle gaps coloured by what the CPU was doing;\n"
    "  - the diagnoses with their evidence, next check and validate command;\n"
    "  - sortable tables of the top operators, labels and kernels (self, inclusive, GPU time);\n"
    "  - the nvidia-smi telemetry when --smi is given.\n"
    "The numbers are those of `analyze --format json`, in the units of the text report. The page\n"
    "reads with JavaScript off (tooltips are SVG titles; the script only sorts the tables).\n"
    "\n"
    "  -o, --output FILE      the page (required; '-' for standard output); written to a temporary\n"
    "                         file and renamed, never over an input\n"
    "  --force                replace FILE when it exists\n"
    "  --title TEXT           the page title (default \"kinesift report\")\n"
    "  --top N                rows per table (default 25; 0 = all)\n"
    "  other options          as for analyze (kinesift help analyze)\n"
    "\n"
    "Several ranks: each trace gets its own sections (cross-rank figures: kinesift ranks; the\n"
    "rank x step heat map is not on the page yet). Exit status: 0 success, 2 usage or input error.\n";

typedef struct report_ctx {
    ks_cli_insight_opts io;
    ks_report_opts ro;
    ks_html *html;
} report_ctx;

static int on_trace(void *ctx, ks_trace *tr)
{
    report_ctx *c = ctx;
    ks_cli_warnings(tr, c->io.quiet);
    ks_cli_insights r;
    ks_error err;
    int rc = 0;
    if (ks_cli_insights_run(&c->io, tr, &r, &err) != KS_OK) {
        ks_cli_insights_error(&r, tr, &err);
        rc = KS_EXIT_USAGE;
    } else {
        ks_html_trace(c->html, r.a, &r.iv, &c->ro);
    }
    ks_cli_insights_free(&r);
    ks_trace_free(tr);
    return rc;
}

int ks_cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"force", no_argument, NULL, 'F'},
        {"title", required_argument, NULL, 'T'},  {"top", required_argument, NULL, 't'},
        {"sort", required_argument, NULL, 's'},   KS_CLI_INSIGHT_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    static const char *const sorts[] = {"self", "incl", "gpu", "count", NULL};
    report_ctx c;
    memset(&c, 0, sizeof c);
    ks_cli_insight_opts_init(&c.io);
    c.ro.top = 25;
    ks_load_opts lo = {0};
    const char *output = NULL, *title = "kinesift report";
    int force = 0, opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "qo:t:s:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o': output = optarg; break;
        case 'F': force = 1; break;
        case 'T': title = optarg; break;
        case 't': {
            char *end;
            long top = strtol(optarg, &end, 10);
            if (end == optarg || *end || top < 0)
                return ks_cli_usage("report", "--top needs a number >= 0, not '%s'", optarg);
            c.ro.top = (size_t)top;
            break;
        }
        case 's': {
            int k = ks_cli_choice(optarg, sorts);
            if (k < 0)
                return ks_cli_usage("report", "unknown sort key '%s' (self, incl, gpu or count)", optarg);
            c.ro.sort = (ks_sort_key)k;
            break;
        }
        default: {
            int r = ks_cli_insight_opt(&c.io, &lo, "report", opt, optarg);
            if (r)
                return r < 0 ? ks_cli_usage("report", "bad option") : r;
        }
        }
    }
    if (optind >= argc)
        return ks_cli_usage("report", "no input file");
    if (!output)
        return ks_cli_usage("report", "no output file (-o report.html, or -o - for standard output)");
    if (ks_cli_insight_check(&c.io, "report"))
        return KS_EXIT_USAGE;
    char *page = NULL;
    size_t npage = 0;
    FILE *mem = open_memstream(&page, &npage);
    if (!mem || !(c.html = ks_html_begin(mem))) {
        ks_cli_fail("report: out of memory");
        if (mem)
            fclose(mem);
        free(page);
        return KS_EXIT_USAGE;
    }
    int rc = ks_cli_load(argv + optind, argc - optind, &lo, on_trace, &c);
    int bad = ks_html_end(c.html, title);
    bad |= fclose(mem) != 0;
    if (!rc && bad) {
        ks_cli_fail("report: cannot build the page");
        rc = KS_EXIT_USAGE;
    }
    if (!rc) {
        ks_error err;
        if (!strcmp(output, "-")) {
            if (fwrite(page, 1, npage, stdout) != npage || fflush(stdout) != 0) {
                ks_cli_fail("report: cannot write the output");
                rc = KS_EXIT_USAGE;
            }
        } else if (ks_report_write_file(output, force, argv + optind, (size_t)(argc - optind), page, npage, &err) !=
                   KS_OK) {
            ks_cli_error(output, &err);
            rc = KS_EXIT_USAGE;
        } else if (!c.io.quiet) {
            fprintf(stderr, "kinesift: report written to %s (%zu bytes)\n", output, npage);
        }
    }
    free(page);
    return rc;
}
