/* cli/cmd_whatif.c: `kinesift whatif FILE --shrink LABEL=FACTOR`: project the step time if a
 * labelled phase took FACTOR of its time. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/jsonw.h"
#include "kinesift/insights.h"
#include "kinesift/report.h"

const char ks_help_whatif[] =
    "usage: kinesift whatif FILE... --shrink LABEL=FACTOR [--shrink ...] [--step-label REGEX]\n"
    "                       [--warmup N] [--format text|json] [--strict] [--quiet]\n"
    "\n"
    "Project each step's time if the phase LABEL took FACTOR of its time (0.5 = twice as fast).\n"
    "LABEL is the name of a labelled range or op (record_function) on a replayed thread; its CPU\n"
    "time is scaled, and so is the GPU work launched inside it or running inside a GPU range of\n"
    "that name. @cpu scales all CPU time, @gpu all GPU work, whichever thread launched it. A\n"
    "LABEL that matches nothing on the replayed threads nor a GPU range is an error naming the\n"
    "closest names. Time a thread only waits in a label while another thread works is not\n"
    "scaled (it is not CPU work); the report says how much.\n"
    "\n"
    "The model replays the step on every thread that launched GPU work, each on its own clock:\n"
    "CPU phases run in order, GPU work starts after its launch and after the previous work of\n"
    "its stream, and a blocking call (synchronize, blocking copy) waits for the GPU. A thread\n"
    "waiting on another keeps its measured timing. Serial phases add up, overlapped ones do\n"
    "not. The report shows the measured step time, the model's replay without change (compare\n"
    "them before trusting the projection) and the projected time. JSON schema kinesift.whatif/1.\n"
    "\n"
    "Exit status: 0 success, 2 usage or input error.\n";

typedef struct whatif_ctx {
    ks_shrink *sh;
    size_t nsh;
    ks_step_opts so;
    int json;
    ks_jw jw;
} whatif_ctx;

static int on_trace(void *ctx, ks_trace *tr)
{
    whatif_ctx *c = ctx;
    ks_analysis *a = NULL;
    ks_steps st = {0};
    ks_whatif w = {0};
    ks_error err;
    int rc = 0;
    if (ks_analyze(tr, NULL, &a, &err) != KS_OK || ks_steps_find(a, &c->so, &st, &err) != KS_OK ||
        ks_whatif_run(a, &st, c->sh, c->nsh, &w, &err) != KS_OK) {
        ks_cli_error(tr->source, &err);
        rc = KS_EXIT_USAGE;
    } else if (c->json) {
        ks_whatif_json_trace(&c->jw, a, &w, c->sh, c->nsh);
    } else {
        ks_whatif_text(stdout, a, &w, c->sh, c->nsh);
    }
    ks_whatif_free(&w);
    ks_steps_free(&st);
    ks_analysis_free(a);
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

int ks_cmd_whatif(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"shrink", required_argument, NULL, 's'}, {"step-label", required_argument, NULL, 'L'},
        {"warmup", required_argument, NULL, 'W'}, {"format", required_argument, NULL, 'f'},
        {"strict", no_argument, NULL, 'S'},       {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    static const char *const formats[] = {"text", "json", NULL};
    whatif_ctx c;
    memset(&c, 0, sizeof c);
    ks_step_opts_init(&c.so);
    ks_load_opts lo = {0};
    int rc = 0, opt;
    optind = 1;
    while (!rc && (opt = getopt_long(argc, argv, "qs:f:", longopts, NULL)) != -1) {
        switch (opt) {
        case 's':
            c.sh = realloc(c.sh, (c.nsh + 1) * sizeof *c.sh);
            if (!c.sh || parse_shrink(optarg, &c.sh[c.nsh]) != 0)
                rc = ks_cli_usage("whatif", "--shrink wants LABEL=FACTOR with FACTOR >= 0, not '%s'", optarg);
            else
                c.nsh++;
            break;
        case 'L':
            if (ks_cli_regex("whatif", "--step-label", optarg))
                return KS_EXIT_USAGE;
            c.so.label_regex = optarg;
            break;
        case 'W': c.so.warmup = atoi(optarg); break;
        case 'f': {
            int k = ks_cli_choice(optarg, formats);
            if (k < 0)
                rc = ks_cli_usage("whatif", "unknown format '%s' (text or json)", optarg);
            c.json = k == 1;
            break;
        }
        case 'S': lo.strict = 1; break;
        case 'q': lo.quiet = 1; break;
        default: rc = ks_cli_usage("whatif", "bad option"); break;
        }
    }
    if (!rc && optind >= argc)
        rc = ks_cli_usage("whatif", "no input file");
    if (!rc && !c.nsh)
        rc = ks_cli_usage("whatif", "nothing to project: give --shrink LABEL=FACTOR");
    if (!rc) {
        if (c.json) {
            ks_jw_open(&c.jw, stdout, 1);
            ks_jw_obj(&c.jw);
            ks_jw_kstr(&c.jw, "schema", "kinesift.whatif/1");
            ks_jw_kstr(&c.jw, "version", ks_version());
            ks_jw_key(&c.jw, "traces");
            ks_jw_arr(&c.jw);
        }
        rc = ks_cli_load(argv + optind, argc - optind, &lo, on_trace, &c);
        if (c.json) {
            ks_jw_end_arr(&c.jw);
            ks_jw_end_obj(&c.jw);
            if (ks_jw_close(&c.jw) != 0 && !rc)
                rc = KS_EXIT_USAGE;
            fputc('\n', stdout);
        }
    }
    for (size_t i = 0; i < c.nsh; i++)
        free((char *)c.sh[i].label);
    free(c.sh);
    return rc;
}
