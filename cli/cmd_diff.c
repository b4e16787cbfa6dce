/* cli/cmd_diff.c: `kinesift diff BEFORE AFTER`: what changed between two traces. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/insights.h"
#include "cli/options.h"
#include "common/util.h"
#include "kinesift/analysis.h"
#include "kinesift/compare.h"
#include "kinesift/insights.h"
#include "kinesift/report.h"

const char ks_help_diff[] =
    "usage: kinesift diff BEFORE AFTER [--format text|json|csv|markdown] [--top N]\n"
    "                     [--normalize-kernels] [--window SPEC] [--step-label REGEX] [--warmup N]\n"
    "                     [--threshold PCT] [--seed N] [--overlap POLICY] [--output FILE]\n"
    "                     [--threads N] [--strict] [--quiet]\n"
    "\n"
    "Compare two traces (one trace each; for several runs per side use `kinesift gate`). When\n"
    "BEFORE and AFTER hold several traces (directories or archives of ranks), they are compared\n"
    "pairwise by rank (distributedInfo), one report per pair (JSON: kinesift.diff-ranks/1,\n"
    "{\"pairs\": [{\"rank\", \"diff\"}]}); diff says why when they cannot be paired (a trace\n"
    "without a rank, a rank twice or on one side only). Text fits the terminal ($COLUMNS, else\n"
    "its width, else 80 columns): long names are shortened in the middle (whole in json, csv\n"
    "and markdown); a pair without any change says \"no change\".\n"
    "Operators and labels are aligned by name and category, GPU work by name and kind; each row\n"
    "shows count, self, inclusive and GPU time before -> after with the change, rows sorted by\n"
    "absolute impact (operators: |d self| + |d GPU direct|; labels: the larger of |d inclusive|\n"
    "and |d GPU subtree|; kernels: |d total|). Names that appear or disappear are listed. Step\n"
    "annotations (ProfilerStep#N) are not rows: the steps are compared as steps.\n"
    "Per step: when each trace's window is its active steps (the default), every row also has\n"
    "its per-step means (JSON per_step: count and time divided by the side's steps); when the\n"
    "two sides have different numbers of steps, rows are compared by those means (status,\n"
    "impact and order), with the totals beside them, and the report says so.\n"
    "The active steps (warm-up and unfinished steps apart) are compared as distributions: the\n"
    "median ratio after/before, its 95 % block-bootstrap interval (10 000 resamples, fixed\n"
    "seed), with the verdict rule of docs/statistics.md for reference. Two p values:\n"
    "  - the bootstrap p (the verdict's): twice the share of resamples on the other side of a\n"
    "    ratio of 1; when none is, it is printed as a bound, p < 2/resamples, never 0;\n"
    "  - the Mann-Whitney U test of the step times (U of the before side, and of the after\n"
    "    side): exact when both sides have at most 50 steps and no two times are equal,\n"
    "    else the normal approximation (tie-corrected, continuity correction).\n"
    "A warning says when the captures differ in profiler settings (with_stack, record_shapes,\n"
    "profile_memory, with_modules, with_flops), activities (GPU, runtime) or device model: their\n"
    "numbers are then not comparable.\n"
    "\n"
    "  --format FMT            text (default), json (schema kinesift.diff/1), csv, markdown\n"
    "  --top N                 rows per table (default 20 for text and markdown, all for json and\n"
    "                          csv; 0 = all)\n"
    "  --normalize-kernels     compare kernels without template arguments <...>, argument lists\n"
    "                          (...) and a leading \"void \" (rows that merge add up)\n"
    "  --window SPEC           restrict the tables of both traces to steps:A-B or START:END\n"
    "                          (durations with a unit, 1.5ms:20ms; a bare number is microseconds)\n"
    "  --step-label REGEX      steps are the user annotations matching REGEX (default ProfilerStep#N)\n"
    "  --warmup N              the first N steps of each trace are warm-up (default: detected)\n"
    "  --threshold PCT         the verdict's threshold (default 5)\n"
    "  --seed N                bootstrap seed (default 0x6b696e6573696674)\n"
    "  --overlap POLICY        partial overlaps: spill (default), drop, truncate, clamp:NS (ns, or\n"
    "                          a duration with a unit: clamp:2us)\n"
    "  --output FILE           write the report to FILE (written whole, then renamed into place)\n"
    "  --threads N             threads for reading and for the analysis (default 0: one per core);\n"
    "                          the output is the same whatever N\n"
    "  --strict                malformed input is an error instead of a counted recovery\n"
    "  --quiet                 no progress line and no warnings on stderr\n"
    "\n"
    "Exit status: 0 success (whatever changed), 2 usage or input error.\n";

/* the traces of one side, in reading order */
typedef struct diff_side {
    ks_trace **v;
    size_t n, cap;
} diff_side;

static int keep_trace(void *ctx, ks_trace *tr)
{
    diff_side *s = ctx;
    KS_PUSH(s->v, s->n, s->cap, tr);
    return 0;
}

static void side_free(diff_side *s)
{
    for (size_t i = 0; i < s->n; i++)
        ks_trace_free(s->v[i]);
    free(s->v);
}

typedef struct diff_opts {
    ks_cli_insight_opts io;    /* analysis, steps and window (KS_INSIGHTS_STEPS) */
} diff_opts;

static int analyse(const diff_opts *o, ks_trace *tr, ks_analysis **a, ks_steps *st)
{
    ks_error err;
    ks_insights r;
    if (ks_insights_run(tr, &o->io.run, &r, &err) != KS_OK) {
        ks_insights_free(&r);
        ks_cli_error(tr->source, &err);
        return KS_EXIT_USAGE;
    }
    *a = r.a; /* the caller owns them (nothing else was computed at this depth) */
    *st = r.steps;
    return 0;
}

static int load_side(char *path, const ks_load_opts *lo, diff_side *s)
{
    int rc = ks_cli_load(&path, 1, lo, keep_trace, s);
    if (!rc && !s->n) {
        ks_cli_fail("%s: no trace in this input", path);
        rc = KS_EXIT_USAGE;
    }
    for (size_t i = 0; !rc && i < s->n; i++)
        ks_cli_warnings(s->v[i], lo->quiet);
    return rc;
}

static int write_report(int format, FILE *out, const ks_diff *d, size_t top)
{
    switch (format) {
    case KS_FORMAT_JSON: return ks_diff_json(out, d, top);
    case KS_FORMAT_CSV: ks_diff_csv(out, d, top); break;
    case KS_FORMAT_MARKDOWN: ks_diff_markdown(out, d, top); break;
    default: ks_diff_text(out, d, top); break;
    }
    return ferror(out) ? -1 : 0;
}

/* one before/after pair into out; -1 when out could not be written */
static int diff_pair(ks_trace *tb, ks_trace *ta, const diff_opts *o, const ks_diff_opts *dopts, int format,
                     size_t top, FILE *out)
{
    ks_analysis *ab = NULL, *aa = NULL;
    ks_steps sb = {0}, sa = {0};
    ks_diff d = {0};
    ks_error err;
    int rc = analyse(o, tb, &ab, &sb);
    if (!rc)
        rc = analyse(o, ta, &aa, &sa);
    if (!rc && ks_diff_build(ab, &sb, aa, &sa, dopts, &d, &err) != KS_OK) {
        ks_cli_error(NULL, &err);
        rc = KS_EXIT_USAGE;
    }
    if (!rc) {
        for (size_t i = 0; i < d.nmismatch && !o->io.quiet; i++)
            ks_cli_fail("warning: the captures differ in %s (%s before, %s after): their numbers are not comparable",
                        d.mismatch[i].what, d.mismatch[i].a, d.mismatch[i].b);
        if (write_report(format, out, &d, top) != 0)
            rc = -1;
    }
    ks_diff_free(&d);
    ks_steps_free(&sb);
    ks_steps_free(&sa);
    ks_analysis_free(ab);
    ks_analysis_free(aa);
    return rc;
}

static int by_rank(const void *x, const void *y)
{
    const ks_trace *a = *(ks_trace *const *)x, *b = *(ks_trace *const *)y;
    return (a->meta.rank > b->meta.rank) - (a->meta.rank < b->meta.rank);
}

/* Several traces on a side: pair them by rank (distributedInfo), or say why that cannot be done.
 * Both sides end sorted by rank, pair i = (b->v[i], a->v[i]). */
static int pair_by_rank(const char *const *inputs, diff_side *b, diff_side *a, int format)
{
    if (b->n != a->n)
        return ks_cli_usage("diff", "%s holds %zu trace%s and %s %zu: cannot pair them by rank (diff one trace "
                            "with one, or use gate to pool runs)", inputs[0], b->n, b->n == 1 ? "" : "s", inputs[1],
                            a->n);
    diff_side *sides[2] = {b, a};
    for (int k = 0; k < 2; k++) {
        diff_side *s = sides[k];
        for (size_t i = 0; i < s->n; i++)
            if (!s->v[i]->meta.has_rank)
                return ks_cli_usage("diff", "%s has no rank (no distributedInfo): cannot pair the traces of %s and "
                                    "%s by rank", s->v[i]->source, inputs[0], inputs[1]);
        qsort(s->v, s->n, sizeof *s->v, by_rank);
        for (size_t i = 1; i < s->n; i++)
            if (s->v[i]->meta.rank == s->v[i - 1]->meta.rank)
                return ks_cli_usage("diff", "%s and %s are both rank %lld: cannot pair by rank",
                                    s->v[i - 1]->source, s->v[i]->source, (long long)s->v[i]->meta.rank);
    }
    for (size_t i = 0; i < b->n; i++)
        if (b->v[i]->meta.rank != a->v[i]->meta.rank) {
            const ks_trace *lone = b->v[i]->meta.rank < a->v[i]->meta.rank ? b->v[i] : a->v[i];
            return ks_cli_usage("diff", "rank %lld (%s) has no counterpart in %s: cannot pair by rank",
                                (long long)lone->meta.rank, lone->source, lone == b->v[i] ? inputs[1] : inputs[0]);
        }
    if (format == KS_FORMAT_CSV)
        return ks_cli_usage("diff", "%zu pairs of ranks: --format csv holds one pair (text, markdown or json)", b->n);
    return 0;
}

static int run(char **inputs, const ks_load_opts *lo, const diff_opts *o, const ks_diff_opts *dopts, int format,
               size_t top, const char *output)
{
    diff_side b = {0}, a = {0};
    int rc = load_side(inputs[0], lo, &b);
    if (!rc)
        rc = load_side(inputs[1], lo, &a);
    int several = !rc && (b.n > 1 || a.n > 1);
    if (several)
        rc = pair_by_rank((const char *const *)inputs, &b, &a, format);
    ks_outfile *of = NULL;
    ks_error err;
    FILE *out = stdout;
    if (!rc && output) {
        if (ks_outfile_open(&of, output, &err) != KS_OK) {
            ks_cli_error(NULL, &err);
            rc = KS_EXIT_USAGE;
            goto done;
        }
        out = ks_outfile_stream(of);
    }
    if (rc)
        goto done;
    int bad = 0;
    if (several && format == KS_FORMAT_JSON)
        fprintf(out, "{\"schema\": \"kinesift.diff-ranks/1\", \"pairs\": [\n");
    for (size_t i = 0; i < b.n && !rc; i++) {
        if (several && format == KS_FORMAT_JSON)
            fprintf(out, "%s{\"rank\": %lld, \"diff\": ", i ? ",\n" : "", (long long)b.v[i]->meta.rank);
        else if (several)
            fprintf(out, "%s%s rank %lld: %s -> %s\n\n", i ? "\n" : "", format == KS_FORMAT_MARKDOWN ? "##" : "==",
                    (long long)b.v[i]->meta.rank, b.v[i]->source, a.v[i]->source);
        rc = diff_pair(b.v[i], a.v[i], o, dopts, format, top, out);
        if (several && format == KS_FORMAT_JSON)
            fputc('}', out);
        if (rc < 0) {
            bad = 1;
            rc = 0;
            break;
        }
    }
    if (several && format == KS_FORMAT_JSON)
        fprintf(out, "\n]}\n");
    if (output) {
        /* a failed write: commit names it ("cannot write FILE: No space left on device") and
         * removes the temporary file; it never puts a stream in error in place */
        if (rc && !bad)
            ks_outfile_abort(of);
        else if (ks_outfile_commit(of, &err) != KS_OK) {
            ks_cli_error(NULL, &err);
            bad = 1;
        } else if (bad) { /* cannot happen: the stream was in error */
            ks_cli_fail("%s: cannot write", output);
        }
    } else if (fflush(stdout) != 0 || bad) {
        ks_cli_write_failed("diff");
        bad = 1;
    }
    if (bad)
        rc = KS_EXIT_USAGE;
done:
    side_free(&b);
    side_free(&a);
    return rc;
}

static int parse_pct(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end == s || *end || errno || !(*v >= 0) || *v > 1000 ? -1 : 0;
}

static int parse_seed(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    if (*s == '-')
        return -1;
    *v = strtoull(s, &end, 0);
    return end == s || *end || errno ? -1 : 0;
}

/* --threshold PCT and --seed N */
static int diff_param(void *ctx, const char *cmd, int key, const char *arg)
{
    ks_diff_opts *d = ctx;
    double v;
    if (key == 'T') {
        if (parse_pct(arg, &v) != 0)
            return ks_cli_usage(cmd, "--threshold needs a percentage from 0 to 1000, not '%s'", arg);
        d->params.threshold = v / 100;
    } else if (parse_seed(arg, &d->params.seed) != 0) {
        return ks_cli_usage(cmd, "--seed needs an unsigned 64-bit number, not '%s'", arg);
    }
    return 0;
}

int ks_cmd_diff(int argc, char **argv)
{
    static const char *const formats[] = {[KS_FORMAT_TEXT] = "text", [KS_FORMAT_JSON] = "json", [KS_FORMAT_CSV] = "csv",
                                          [KS_FORMAT_MARKDOWN] = "markdown", NULL};
    diff_opts o;
    memset(&o, 0, sizeof o);
    ks_cli_insight_opts_init(&o.io);
    o.io.run.depth = KS_INSIGHTS_STEPS;
    ks_diff_opts dopts;
    ks_diff_opts_init(&dopts);
    ks_load_opts lo = {0};
    const char *output = NULL;
    int format = KS_FORMAT_TEXT, first;
    long top = -1;
    ks_option tab[] = {
        KS_OPT_CHOICE("format", 'f', &format, formats, "format", "text, json, csv or markdown"),
        KS_OPT_COUNT("top", 't', &top, "rows per table"),
        KS_OPT_FLAG("normalize-kernels", 0, &dopts.normalize_kernels, "kernel names without templates"),
        KS_OPT_CALL("threshold", 0, diff_param, &dopts, 'T', "the change that counts, in percent"),
        KS_OPT_CALL("seed", 0, diff_param, &dopts, 's', "the bootstrap's seed"),
        KS_OPT_STRING("output", 0, &output, "write the report to FILE"),
        KS_OPT_TABLE(ks_cli_insight_table(&o.io, &lo, KS_CLI_ANALYSIS_OPTS, 'o')),
        KS_OPT_END(),
    };
    int prc = ks_opt_parse("diff", tab, argc, argv, &first);
    if (prc)
        return prc == KS_OPT_LISTED ? 0 : prc;
    if (argc - first != 2)
        return ks_cli_usage("diff", "needs exactly two inputs, BEFORE and AFTER (%d given)", argc - first);
    for (int i = first; output && i < argc; i++)
        if (ks_same_file(output, argv[i]))
            return ks_cli_usage("diff", "--output %s is an input: refusing to overwrite it", output);
    const char *outs[] = {output};
    if (ks_cli_outputs_not_inputs("diff", argv + first, 2, outs, 1))
        return KS_EXIT_USAGE;
    size_t rows = top >= 0 ? (size_t)top : (format == KS_FORMAT_TEXT || format == KS_FORMAT_MARKDOWN ? 20 : 0);
    dopts.text_width = ks_cli_text_width();
    return run(argv + first, &lo, &o, &dopts, format, rows, output);
}
