/* cli/cmd_whatif.c: `kinesift whatif FILE --shrink LABEL=FACTOR`: project the step time if a
 * labelled phase took FACTOR of its time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/insights.h"
#include "cli/options.h"
#include "kinesift/insights.h"
#include "kinesift/report.h"

const char ks_help_whatif[] =
    "usage: kinesift whatif FILE... --shrink LABEL=FACTOR [--shrink ...] [--step-label REGEX]\n"
    "                       [--warmup N] [--window SPEC] [--overlap POLICY] [--threads N]\n"
    "                       [--format text|json] [--strict] [--quiet]\n"
    "\n"
    "Project each step's time if the phase LABEL took FACTOR of its time (0.5 = twice as fast).\n"
    "FACTOR is from 0 to 1000. LABEL is the name of a labelled range or op (record_function) on\n"
    "a replayed thread; its CPU\n"
    "time is scaled, and so is the GPU work launched inside it or running inside a GPU range of\n"
    "that name. @cpu scales all CPU time, @gpu all GPU work, whichever thread launched it. A\n"
    "LABEL that matches nothing on the replayed threads nor a GPU range is an error naming the\n"
    "closest names. Time a thread only waits in a label while another thread works is not\n"
    "scaled (it is not CPU work); the report says how much.\n"
    "\n"
    "The model replays the trace's dependency graph (what waits for what: analyze's critical\n"
    "path) with every edge kept: CPU work runs in order on each thread that launched GPU work,\n"
    "GPU work starts after its launch and after the previous work of its stream, a blocking\n"
    "call (synchronize, blocking copy) goes on when the GPU work it waited for ends, and a\n"
    "thread that waited on another goes on when that work ends (the report lists the waits\n"
    "modelled and the waiting kept as measured). A DataLoader's pin-memory thread is replayed\n"
    "too: the main thread's __next__ goes on when its batch is pinned (first in, first out),\n"
    "and no batch is pinned before its worker process delivered it. Work off the critical path\n"
    "gives no gain. A step is its own ProfilerStep range and the GPU work launched in it; when\n"
    "__next__ takes batches from a pin-memory thread the steps are replayed together (a faster\n"
    "step waits longer for the next batch). The report shows the measured step time, the model's\n"
    "replay without change (the same) and the projected time.\n"
    "JSON schema kinesift.whatif/1.\n"
    "\n"
    "  --shrink LABEL=FACTOR   the phase and its new share of its time (repeatable)\n"
    "  --window SPEC           replay only the steps that start in SPEC (steps:A-B, steps:N, or a\n"
    "                          time range START:END, as for analyze)\n"
    "  --step-label, --warmup, --overlap, --threads, --strict, --quiet\n"
    "                          as for analyze (kinesift help analyze)\n"
    "  --format text|json      output (default text)\n"
    "\n"
    "Text fits the terminal ($COLUMNS, else its width, else 80 columns): tables aligned, a table\n"
    "too wide in blocks of columns, long names shortened in the middle, long lines wrapped.\n"
    "\n"
    "Exit status: 0 success, 2 usage or input error.\n";

typedef struct whatif_ctx {
    ks_shrink *sh;
    size_t nsh;
    ks_cli_insight_opts io;    /* analysis, steps and window (KS_INSIGHTS_STEPS) */
    int json;
    ks_whatif_json *jw;
} whatif_ctx;

static int on_trace(void *ctx, ks_trace *tr)
{
    whatif_ctx *c = ctx;
    ks_cli_insights r;
    ks_whatif w = {0};
    ks_error err;
    int rc = 0;
    if (ks_cli_insights_run(&c->io, tr, &r, &err) != KS_OK ||
        ks_whatif_run(r.in.a, &r.in.steps, c->sh, c->nsh, &w, &err) != KS_OK) {
        ks_cli_error(tr->source, &err);
        rc = KS_EXIT_USAGE;
    } else if (c->json) {
        ks_whatif_json_add(c->jw, r.in.a, &w, c->sh, c->nsh);
    } else {
        ks_whatif_text(stdout, r.in.a, &w, c->sh, c->nsh, ks_cli_text_width());
    }
    ks_whatif_free(&w);
    ks_cli_insights_free(&r);
    ks_trace_free(tr);
    return rc;
}

static int parse_shrink(const char *arg, ks_shrink *out)
{
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return -1;
    char *end;
    double f = strtod(eq + 1, &end);
    if (*end || !(f >= 0))
        return -1;
    char *label = malloc((size_t)(eq - arg) + 1);
    if (!label)
        return -1;
    memcpy(label, arg, (size_t)(eq - arg));
    label[eq - arg] = 0;
    out->label = label;
    out->factor = f;
    return 0;
}

/* --shrink LABEL=FACTOR, repeatable */
static int add_shrink(void *ctx, const char *cmd, int key, const char *arg)
{
    whatif_ctx *c = ctx;
    (void)key;
    ks_shrink sh;
    if (parse_shrink(arg, &sh) != 0)
        return ks_cli_usage(cmd, "--shrink wants LABEL=FACTOR with FACTOR >= 0, not '%s'", arg);
    ks_shrink *v = realloc(c->sh, (c->nsh + 1) * sizeof *c->sh);
    if (!v) {
        free((char *)sh.label);
        return ks_cli_usage(cmd, "out of memory");
    }
    c->sh = v;
    c->sh[c->nsh++] = sh;
    return 0;
}

int ks_cmd_whatif(int argc, char **argv)
{
    static const char *const formats[] = {"text", "json", NULL};
    whatif_ctx c;
    memset(&c, 0, sizeof c);
    ks_cli_insight_opts_init(&c.io);
    c.io.run.depth = KS_INSIGHTS_STEPS;
    c.io.run.steps_or_trace = 1; /* the active steps; without, the whole trace (its launch calls) */
    ks_load_opts lo = {0};
    int first;
    ks_option tab[] = {
        KS_OPT_CALL("shrink", 's', add_shrink, &c, 0, "LABEL=FACTOR: the phase and its new share"),
        KS_OPT_CHOICE("format", 'f', &c.json, formats, "format", "text or json"),
        KS_OPT_TABLE(ks_cli_insight_table(&c.io, &lo, KS_CLI_ANALYSIS_OPTS, 0)),
        KS_OPT_END(),
    };
    int rc = ks_opt_parse("whatif", tab, argc, argv, &first), listed = rc == KS_OPT_LISTED;
    if (listed)
        rc = KS_EXIT_OK;
    else if (!rc && first >= argc)
        rc = ks_cli_usage("whatif", "no input file");
    if (!rc && !listed && !c.nsh)
        rc = ks_cli_usage("whatif", "nothing to project: give --shrink LABEL=FACTOR");
    if (!rc && !listed)
        rc = ks_cli_outputs_not_inputs("whatif", argv + first, (size_t)(argc - first), NULL, 0);
    if (!rc && !listed) {
        if (c.json)
            c.jw = ks_whatif_json_begin(stdout);
        rc = ks_cli_load(argv + first, argc - first, &lo, on_trace, &c);
        if (c.json && ks_whatif_json_end(c.jw) != 0 && !rc)
            rc = ks_cli_write_failed("whatif");
    }
    for (size_t i = 0; i < c.nsh; i++)
        free((char *)c.sh[i].label);
    free(c.sh);
    return rc;
}
