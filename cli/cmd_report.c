/* cli/cmd_report.c: `kinesift report TRACE... -o report.html`: analyze's figures as one
 * self-contained HTML page (report/html_page.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/insights.h"
#include "cli/options.h"
#include "common/util.h"
#include "kinesift/ranks.h"
#include "kinesift/source.h"

const char ks_help_report[] =
    "usage: kinesift report TRACE... -o REPORT.html [--force] [--title TEXT] [--top N]\n"
    "                       [--sort self|incl|gpu|count] [--window SPEC] [--step-label REGEX]\n"
    "                       [--warmup N] [--gap-threshold DUR] [--data-label REGEX]\n"
    "                       [--smi FILE.csv --smi-tz TZ [--smi-offset DUR] [--smi-gpu UUID|INDEX]]\n"
    "                       [--min-impact PCT] [--all-diagnoses]\n"
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
    "Several ranks of one job (traces, or summaries *.kss.json.gz of kinesift summarize, which add\n"
    "to the multi-rank section only; a directory of them is read as kinesift ranks reads it): after\n"
    "the summaries, the figures of `kinesift ranks` (default\n"
    "options): the rank identity rule, the clock alignment and its warnings, heat maps of each\n"
    "rank's step time (median, p90) and of its wait at each matched collective (consecutive ones\n"
    "share a column past 100), and the straggler as a hypothesis with evidence and next check.\n"
    "Traces that are not ranks of one job (two with the same rank, world sizes that disagree) get\n"
    "no multi-rank section. Then each trace's own sections. Exit status: 0 success, 2 usage or input error.\n";

typedef struct report_ctx {
    ks_cli_insight_opts io;
    ks_report_opts ro;
    ks_html *html;
    ks_rank *ranks;             /* one per trace or summary, for the multi-rank section */
    size_t nranks, cap;
} report_ctx;

static ks_rank *new_rank(report_ctx *c)
{
    KS_GROW(c->ranks, c->cap, c->nranks + 1);
    memset(&c->ranks[c->nranks], 0, sizeof c->ranks[c->nranks]);
    return &c->ranks[c->nranks];
}

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
        ks_html_trace(c->html, r.in.a, &r.iv, &c->ro);
        ks_rank_opts rko = {c->io.run.steps.label_regex};
        if (ks_rank_from_trace(tr, &rko, new_rank(c), &err) == KS_OK)
            c->nranks++;
        else if (!c->io.quiet)
            ks_cli_fail("%s: left out of the multi-rank section: %s", tr->source, err.msg);
    }
    ks_cli_insights_free(&r);
    ks_trace_free(tr);
    return rc;
}

/* a summary input: its ks_rank only (it has no events for the per-trace sections) */
static int read_summary(report_ctx *c, const char *path)
{
    ks_source *src;
    ks_stream *st;
    ks_error err;
    if (ks_source_open(path, &src, &err) != KS_OK) {
        ks_cli_error(path, &err);
        return KS_EXIT_USAGE;
    }
    int r = ks_source_next(src, &st, &err);
    if (r <= 0) {
        if (r == 0)
            ks_error_set(&err, "empty");
        ks_cli_error(path, &err);
    } else if (ks_rank_summary_stream(st, new_rank(c), &err) != KS_OK) {
        ks_cli_fail("%s", err.msg);
        r = -1;
    } else {
        c->nranks++;
    }
    ks_source_close(src);
    return r > 0 ? 0 : KS_EXIT_USAGE;
}

/* the multi-rank section, from ks_ranks_match as `kinesift ranks` computes it */
static int ranks_section(report_ctx *c)
{
    if (c->nranks < 2)
        return 0;
    ks_error err;
    if (ks_ranks_identify(c->ranks, c->nranks, 0, &err) != KS_OK) {
        /* not ranks of one job (unrelated traces): the per-trace sections only */
        if (!c->io.quiet)
            fprintf(stderr, "kinesift: no multi-rank section: %s\n", err.msg);
        return 0;
    }
    ks_ranks_opts mo;
    ks_ranks_opts_init(&mo);
    ks_ranks m;
    ks_ranks_match(c->ranks, c->nranks, &mo, &m);
    ks_html_ranks(c->html, &m);
    ks_ranks_free(&m);
    return 0;
}

int ks_cmd_report(int argc, char **argv)
{
    static const char *const sorts[] = {"self", "incl", "gpu", "count", NULL};
    report_ctx c;
    memset(&c, 0, sizeof c);
    ks_cli_insight_opts_init(&c.io);
    ks_load_opts lo = {0};
    const char *output = NULL, *title = "kinesift report";
    int force = 0, sort = 0, first;
    long top = 25;
    ks_option tab[] = {
        KS_OPT_STRING("output", 'o', &output, "the page ('-': standard output)"),
        KS_OPT_FLAG("force", 0, &force, "replace the page when it exists"),
        KS_OPT_STRING("title", 0, &title, "the page title"),
        KS_OPT_COUNT("top", 't', &top, "rows per table"),
        KS_OPT_CHOICE("sort", 's', &sort, sorts, "sort key", "order of operators and labels"),
        KS_OPT_TABLE(ks_cli_insight_table(&c.io, &lo, KS_CLI_ALL_INSIGHT_OPTS, 0)),
        KS_OPT_END(),
    };
    int prc = ks_opt_parse("report", tab, argc, argv, &first);
    if (prc)
        return prc == KS_OPT_LISTED ? 0 : prc;
    c.ro.top = (size_t)top;
    c.ro.sort = (ks_sort_key)sort;
    if (first >= argc)
        return ks_cli_usage("report", "no input file");
    if (!output)
        return ks_cli_usage("report", "no output file (-o report.html, or -o - for standard output)");
    if (ks_cli_insight_check(&c.io, "report"))
        return KS_EXIT_USAGE;
    {
        char **ins = ks_xcalloc((size_t)(argc - first) + 1, sizeof *ins);
        size_t nins = 0;
        for (int i = first; i < argc; i++)
            ins[nins++] = argv[i];
        if (c.io.run.smi.path)
            ins[nins++] = (char *)c.io.run.smi.path;
        const char *outs[] = {output};
        int bad = ks_cli_outputs_not_inputs("report", ins, nins, outs, 1);
        free(ins);
        if (bad)
            return KS_EXIT_USAGE;
    }
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
    /* directories and @LIST first, so that a directory of summaries reads as `ranks DIR` does */
    char **list = NULL;
    size_t nlist = 0;
    ks_error xerr;
    int rc = 0, ntraces = 0;
    if (ks_inputs_expand(argv + first, (size_t)(argc - first), &list, &nlist, &xerr) != KS_OK) {
        ks_cli_error(NULL, &xerr);
        rc = KS_EXIT_USAGE;
    }
    char **traces = ks_xcalloc(nlist + 1, sizeof *traces);
    for (size_t i = 0; i < nlist && !rc; i++)
        if (ks_rank_is_summary(list[i]))
            rc = read_summary(&c, list[i]);
        else
            traces[ntraces++] = list[i];
    if (!rc && ntraces)
        rc = ks_cli_load(traces, ntraces, &lo, on_trace, &c);
    free(traces);
    ks_inputs_free(list, nlist);
    if (!rc)
        rc = ranks_section(&c);
    for (size_t i = 0; i < c.nranks; i++)
        ks_rank_free(&c.ranks[i]);
    free(c.ranks);
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
                rc = ks_cli_write_failed("report");
            }
        } else if (ks_report_write_file(output, force, argv + first, (size_t)(argc - first), page, npage, &err) !=
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
