/* cli/cmd_annotate.c: `kinesift annotate TRACE -o OUT`: the trace with kinesift's tracks added,
 * for Perfetto UI and chrome://tracing (report/annotate.c). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/insights.h"
#include "cli/options.h"

const char ks_help_annotate[] =
    "usage: kinesift annotate TRACE -o OUT.json[.gz|.zst|.xz|.bz2] [--force] [--step-label REGEX]\n"
    "                         [--warmup N] [--gap-threshold DUR] [--data-label REGEX]\n"
    "                         [--min-impact PCT] [--all-diagnoses]\n"
    "                         [--overlap POLICY] [--threads N] [--strict] [--quiet]\n"
    "\n"
    "Write the trace again, every original event byte for byte, with tracks added in a process of\n"
    "their own named \"kinesift\", shown beside the profiler's in Perfetto UI and chrome://tracing:\n"
    "  steps                  one slice per step (name, state active/warm-up/unfinished, wall,\n"
    "                         GPU busy and idle in args)\n"
    "  step breakdown         the step's phases (kernel, memcpy, ..., other) laid end to end inside\n"
    "                         the step: their lengths are the breakdown, not where they happened\n"
    "  GPU N idle gaps        each gap >= the threshold, named by what the launching CPU thread did\n"
    "  diagnosis: ID          one thread per diagnosis, a slice over each step it names (the whole\n"
    "                         trace when none), hypothesis, evidence and next check in args\n"
    "\n"
    "  -o, --output OUT       the output file, compressed by its name (.gz, .zst, .xz, .bz2); written\n"
    "                         to a temporary file and renamed; never the input\n"
    "  --force                replace OUT when it exists\n"
    "  other options          as for analyze (kinesift help analyze), except:\n"
    "  --window, --smi, --smi-tz, --smi-offset, --smi-gpu\n"
    "                         refused: the whole trace is annotated, and telemetry is not a track\n"
    "\n"
    "TRACE is one trace file (plain or compressed), not an archive, a directory or stdin: it is read\n"
    "twice. A truncated trace cannot be annotated. Exit status: 0 success, 2 usage or input error.\n";

typedef struct annotate_ctx {
    ks_cli_insight_opts io;
    const char *input, *output;
    int force;
    int rc;
} annotate_ctx;

static int on_trace(void *ctx, ks_trace *tr)
{
    annotate_ctx *c = ctx;
    ks_cli_warnings(tr, c->io.quiet);
    ks_cli_insights r;
    ks_error err;
    uint64_t added = 0;
    int rc = 0;
    if (ks_cli_insights_run(&c->io, tr, &r, &err) != KS_OK) {
        ks_cli_insights_error(&r, tr, &err);
        rc = KS_EXIT_USAGE;
    } else if (ks_annotate_file(c->input, c->output, c->force, r.in.a, &r.iv, &added, &err) != KS_OK) {
        ks_cli_error(c->input, &err);
        rc = KS_EXIT_USAGE;
    } else if (!c->io.quiet) {
        ks_cli_fail("%s: %llu events added (pid \"kinesift\") -> %s", tr->source, (unsigned long long)added,
                    c->output);
    }
    ks_cli_insights_free(&r);
    ks_trace_free(tr);
    return rc;
}

int ks_cmd_annotate(int argc, char **argv)
{
    annotate_ctx c;
    memset(&c, 0, sizeof c);
    ks_cli_insight_opts_init(&c.io);
    c.io.run.whole_trace = 1; /* the whole trace is annotated */
    ks_load_opts lo = {0};
    int first;
    ks_option tab[] = {
        KS_OPT_STRING("output", 'o', &c.output, "the output file"),
        KS_OPT_FLAG("force", 0, &c.force, "replace OUT when it exists"),
        KS_OPT_TABLE(ks_cli_insight_table(&c.io, &lo, KS_CLI_ALL_INSIGHT_OPTS, 0)),
        KS_OPT_END(),
    };
    int prc = ks_opt_parse("annotate", tab, argc, argv, &first);
    if (prc)
        return prc == KS_OPT_LISTED ? 0 : prc;
    if (first >= argc)
        return ks_cli_usage("annotate", "no input file");
    if (first + 1 < argc)
        return ks_cli_usage("annotate", "one trace file at a time");
    if (!c.output)
        return ks_cli_usage("annotate", "no output file (-o OUT.json.gz)");
    if (c.io.run.window)
        return ks_cli_usage("annotate", "--window is not supported: the whole trace is annotated");
    if (c.io.run.smi.path)
        return ks_cli_usage("annotate", "--smi is not supported (telemetry is not a track)");
    c.input = argv[first];
    if (!strcmp(c.input, "-"))
        return ks_cli_usage("annotate", "the input is read twice: give a file, not stdin");
    const char *outs[] = {c.output};
    if (ks_cli_outputs_not_inputs("annotate", argv + first, 1, outs, 1))
        return KS_EXIT_USAGE;
    return ks_cli_load(argv + first, 1, &lo, on_trace, &c);
}
