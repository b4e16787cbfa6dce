/* cli/insights.h: the analysis options and passes that analyze, report and annotate share
 * (cli/insights.c). */
#ifndef KS_CLI_INSIGHTS_H
#define KS_CLI_INSIGHTS_H

#include "cli/cli.h"
#include "kinesift/analysis.h"
#include "kinesift/insights.h"
#include "kinesift/report.h"

typedef struct ks_cli_insight_opts {
    ks_analysis_opts ao;
    ks_step_opts so;
    ks_gap_opts go;
    ks_smi_opts smi;
    const char *window;
    int quiet;
} ks_cli_insight_opts;

/* getopt_long entries for the shared options, short codes V (overlap) S q w L W g D m z O G j. */
#define KS_CLI_INSIGHT_LONGOPTS                                                                   \
    {"overlap", required_argument, NULL, 'V'}, {"strict", no_argument, NULL, 'S'},                \
        {"quiet", no_argument, NULL, 'q'}, {"window", required_argument, NULL, 'w'},              \
        {"step-label", required_argument, NULL, 'L'}, {"warmup", required_argument, NULL, 'W'},   \
        {"gap-threshold", required_argument, NULL, 'g'},                                          \
        {"data-label", required_argument, NULL, 'D'}, {"smi", required_argument, NULL, 'm'},      \
        {"smi-tz", required_argument, NULL, 'z'}, {"smi-offset", required_argument, NULL, 'O'},   \
        {"smi-gpu", required_argument, NULL, 'G'}, {"threads", required_argument, NULL, 'j'}

void ks_cli_insight_opts_init(ks_cli_insight_opts *o);
/* Handle one shared option: 0 done, KS_EXIT_USAGE after a usage error, -1 not a shared one. */
int ks_cli_insight_opt(ks_cli_insight_opts *o, ks_load_opts *lo, const char *cmd, int opt, const char *arg);
/* After parsing: option combinations (--smi needs --smi-tz); 0 or KS_EXIT_USAGE. */
int ks_cli_insight_check(const ks_cli_insight_opts *o, const char *cmd);

/* Everything `analyze` reports about one trace. */
typedef struct ks_cli_insights {
    ks_analysis *a;
    ks_steps steps;
    ks_gaps gaps;
    ks_threads threads;
    ks_diagnoses dx;
    ks_telemetry tm;
    int have_tm;
    int smi_failed; /* the error is about the --smi CSV, not the trace */
    ks_insights_view iv;
} ks_cli_insights;

/* Run every pass; KS_ERR with err set. Free r in any case. */
int ks_cli_insights_run(const ks_cli_insight_opts *o, const ks_trace *tr, ks_cli_insights *r, ks_error *err);
/* Print the error of a failed run, naming the file it is about. */
void ks_cli_insights_error(const ks_cli_insights *r, const ks_trace *tr, const ks_error *err);
void ks_cli_insights_free(ks_cli_insights *r);

#endif
