/* cli/insights.h: the analysis options that analyze, report, annotate and whatif share (as an
 * option table) and the call of ks_insights_run (cli/insights.c). */
#ifndef KS_CLI_INSIGHTS_H
#define KS_CLI_INSIGHTS_H

#include "cli/cli.h"
#include "cli/options.h"
#include "kinesift/analysis.h"
#include "kinesift/insights.h"
#include "kinesift/report.h"

typedef struct ks_cli_insight_opts {
    ks_insights_opts run;      /* what ks_insights_run is given */
    int quiet;
    ks_load_opts *lo;          /* --strict, --quiet and --threads go there too */
    const char **shaped;       /* when set, the long name of the last option given that changes
                                * analyze's report */
    ks_option table[16];       /* ks_cli_insight_table */
} ks_cli_insight_opts;

/* The shared options as an option table (cli/options.h), to include with KS_OPT_TABLE_: the
 * analysis group (--overlap, --window, --step-label, --warmup, --threads, --strict, --quiet) and,
 * with all, the insight group (--gap-threshold, --data-label, --smi, --smi-tz, --smi-offset,
 * --smi-gpu). overlap_short: a short name for --overlap (analyze's -o), or 0. Returns o->table. */
enum { KS_CLI_ANALYSIS_OPTS = 0, KS_CLI_ALL_INSIGHT_OPTS = 1 };
const ks_option *ks_cli_insight_table(ks_cli_insight_opts *o, ks_load_opts *lo, int all, char overlap_short);

void ks_cli_insight_opts_init(ks_cli_insight_opts *o);
/* After parsing: option combinations (--smi needs --smi-tz); 0 or KS_EXIT_USAGE. */
int ks_cli_insight_check(const ks_cli_insight_opts *o, const char *cmd);

/* Everything `analyze` reports about one trace, and the writers' view of it. */
typedef struct ks_cli_insights {
    ks_insights in;
    ks_insights_view iv;
} ks_cli_insights;

/* ks_insights_run with a phase line after a long read; KS_ERR with err set. Free r in any case. */
int ks_cli_insights_run(const ks_cli_insight_opts *o, const ks_trace *tr, ks_cli_insights *r, ks_error *err);
/* Print the error of a failed run, naming the file it is about. */
void ks_cli_insights_error(const ks_cli_insights *r, const ks_trace *tr, const ks_error *err);
void ks_cli_insights_free(ks_cli_insights *r);

#endif
