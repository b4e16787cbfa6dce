/* cli/cmd_annotate.c: `kinesift annotate TRACE -o OUT`: the trace with kinesift's tracks added,
 * for Perfetto UI and chrome://tracing (report/annotate.c). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/insights.h"

const char ks_help_annotate[] =
    "usage: kinesift annotate TRACE -o OUT.json[.gz|.zst|.xz|.bz2] [--force] [--step-label REGEX]\n"
    "                         [--warmup N] [--gap-threshold DUR] [--data-label REGEX]\n"
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
    "  other options          as for analyze (kinesift help analyze)\n"
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
        fprintf(stderr, "kinesift: %s: %llu events added (pid \"kinesift\") -> %s\n", tr->source,
                (unsigned long long)added, c->output);
    }
    ks_cli_insights_free(&r);
    ks_trace_free(tr);
    return rc;
}

int ks_cmd_annotate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"force", no_argument, NULL, 'F'},
        KS_CLI_INSIGHT_LONGOPTS, {NULL, 0, NULL, 0},
    };
    annotate_ctx c;
    memset(&c, 0, sizeof c);
    ks_cli_insight_opts_init(&c.io);
    ks_load_opts lo = {0};
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "qo:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o': c.output = optarg; break;
        case 'F': c.force = 1; break;
        default: {
            int r = ks_cli_insight_opt(&c.io, &lo, "annotate", opt, optarg);
            if (r)
                return r < 0 ? ks_cli_usage("annotate", "bad option") : r;
        }
        }
    }
    if (optind >= argc)
        return ks_cli_usage("annotate", "no input file");
    if (optind + 1 < argc)
        return ks_cli_usage("annotate", "one trace file at a time");
    if (!c.output)
        return ks_cli_usage("annotate", "no output file (-o OUT.json.gz)");
    if (c.io.run.window)
        return ks_cli_usage("annotate", "--window is not supported: the whole trace is annotated");
    if (c.io.run.smi.path)
        return ks_cli_usage("annotate", "--smi is not supported (telemetry is not a track)");
    c.input = argv[optind];
    if (!strcmp(c.input, "-"))
        return ks_cli_usage("annotate", "the input is read twice: give a file, not stdin");
    return ks_cli_load(argv + optind, 1, &lo, on_trace, &c);
}
