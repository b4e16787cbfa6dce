/* report/tables_run.c: `analyze`, `stats`, `diff` and `ranks` run in-process for a binding
 * (kinesift/tables.h): the input read as the command reads it, the passes the command runs
 * (ks_insights_run), its JSON writer into memory with the column tables built beside it; the
 * options by their long names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "common/util.h"
#include "kinesift/compare.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"
#include "kinesift/ranks.h"
#include "kinesift/report.h"
#include "kinesift/source.h"
#include "kinesift/tables.h"
#include "report/tables_build.h"

static void opts_defaults(ks_tables_opts *o)
{
    memset(o, 0, sizeof *o);
    ks_insights_opts_init(&o->run);
    ks_diff_opts_init(&o->diff);
    ks_ranks_opts_init(&o->ranks);
    o->text = 1;
}

ks_tables_opts *ks_tables_opts_new(void)
{
    ks_tables_opts *o = ks_xmalloc(sizeof *o);
    opts_defaults(o);
    return o;
}

void ks_tables_opts_free(ks_tables_opts *o)
{
    if (!o)
        return;
    free(o->window);
    free(o->step_label);
    free(o->data_label);
    free(o->key_file);
    free(o);
}

const char *ks_tables_opts_error(const ks_tables_opts *o)
{
    return o && o->err[0] ? o->err : NULL;
}

static int opt_fail(ks_tables_opts *o, const char *name, const char *want, const char *value)
{
    snprintf(o->err, sizeof o->err, "%s needs %s, not '%s'", name, want, value);
    return -1;
}

static int flag(const char *v)
{
    return !strcmp(v, "1") || !strcmp(v, "true") ? 1 : !strcmp(v, "0") || !strcmp(v, "false") ? 0 : -1;
}

static char *keep(char **slot, const char *v)
{
    free(*slot);
    return *slot = ks_xstrdup(v);
}

int ks_tables_opts_set(ks_tables_opts *o, const char *name, const char *value)
{
    if (!o || !name || !value)
        return -1;
    o->err[0] = 0;
    char *end;
    if (!strcmp(name, "window")) {
        o->run.window = keep(&o->window, value);
    } else if (!strcmp(name, "step-label")) {
        o->run.steps.label_regex = o->rank.step_label = keep(&o->step_label, value);
    } else if (!strcmp(name, "data-label")) {
        o->run.gaps.data_regex = keep(&o->data_label, value);
    } else if (!strcmp(name, "warmup")) {
        long v = strtol(value, &end, 10);
        if (end == value || *end || v < 0 || v > 1000000)
            return opt_fail(o, name, "a number of steps >= 0", value);
        o->run.steps.warmup = (int)v;
    } else if (!strcmp(name, "overlap")) {
        if (ks_overlap_parse(value, &o->run.analysis.overlap, &o->run.analysis.clamp_ns) != 0)
            return opt_fail(o, name, "spill, drop, truncate or clamp:NS", value);
    } else if (!strcmp(name, "gap-threshold")) {
        if (ks_duration_parse(value, &o->run.gaps.threshold_ns) != 0 || o->run.gaps.threshold_ns < 0)
            return opt_fail(o, name, "a duration such as 10us or 2ms", value);
    } else if (!strcmp(name, "min-impact")) {
        double v = strtod(value, &end);
        if (end != value && *end == '%')
            end++;
        if (end == value || *end || !(v >= 0 && v <= 100))
            return opt_fail(o, name, "a percentage from 0 to 100", value);
        o->run.diagnose.min_impact = v / 100.0;
    } else if (!strcmp(name, "key-file")) {
        keep(&o->key_file, value);
    } else if (!strcmp(name, "all-diagnoses") || !strcmp(name, "strict") || !strcmp(name, "force") ||
               !strcmp(name, "shapes") || !strcmp(name, "keep-logs") || !strcmp(name, "text")) {
        int v = flag(value);
        if (v < 0)
            return opt_fail(o, name, "1 or 0", value);
        *(!strcmp(name, "all-diagnoses") ? &o->run.diagnose.all : !strcmp(name, "strict") ? &o->strict
          : !strcmp(name, "force") ? &o->force : !strcmp(name, "shapes") ? &o->shapes
          : !strcmp(name, "text") ? &o->text : &o->keep_logs) = v;
    } else if (!strcmp(name, "top")) {
        long v = strtol(value, &end, 10);
        if (end == value || *end || v < 0)
            return opt_fail(o, name, "a number of rows >= 0 (0: all)", value);
        o->ro.top = (size_t)v;
    } else if (!strcmp(name, "sort")) {
        static const char *const keys[] = {"self", "incl", "gpu", "count"};
        size_t k = 0;
        while (k < 4 && strcmp(value, keys[k]))
            k++;
        if (k == 4)
            return opt_fail(o, name, "self, incl, gpu or count", value);
        o->ro.sort = (ks_sort_key)k;
    } else if (!strcmp(name, "peak")) {
        double f = strtod(value, &end), b = 0;
        if (*end == '/')
            b = strtod(end + 1, &end);
        if (end == value || *end || !(f > 0) || !(b > 0) || f > 1e7 || b > 1e5)
            return opt_fail(o, name, "TFLOPS/TBPS, two positive numbers (989/3.35)", value);
        o->ro.peak_tflops = f;
        o->ro.peak_tbps = b;
    } else if (!strcmp(name, "threads")) {
        long v = strtol(value, &end, 10);
        if (end == value || *end || v < 0 || v > 64)
            return opt_fail(o, name, "a number from 0 to 64", value);
        o->threads = o->run.analysis.threads = (int)v;
    } else {
        snprintf(o->err, sizeof o->err, "unknown option '%s'", name);
        return -1;
    }
    return 0;
}

/* ---- a run --------------------------------------------------------------------------------- */

static ks_tables *fail(ks_tables *t, const char *file, const ks_error *err)
{
    return ks_tables_fail(t, file, err);
}

static ks_tables *fail_text(ks_tables *t, const char *msg)
{
    ks_error err;
    ks_error_set(&err, "%s", msg);
    return fail(t, NULL, &err);
}

const ks_tables_opts *ks_tables_opts_or_defaults(const ks_tables_opts *o, ks_tables_opts *def)
{
    if (o)
        return o;
    opts_defaults(def);
    return def;
}

static void parse_opts(const ks_tables_opts *o, ks_parse_opts *po)
{
    ks_parse_opts_init(po);
    po->strict = o->strict;
    po->threads = o->threads;
}

/* Every trace of path (a file, or an archive's members), each given to cb; 0, or -1 with the error
 * in t. A path that holds no trace is an error. */
typedef int (*trace_fn)(void *ctx, ks_trace *tr, ks_tables *t);
/* a summary (kinesift summarize) among the inputs, for the runs that take one (ranks) */
typedef int (*summary_fn)(void *ctx, ks_stream *st, ks_tables *t);

static int each_input(ks_tables *t, const char *path, const ks_tables_opts *o, size_t most, trace_fn cb,
                      summary_fn sum, void *ctx)
{
    ks_error err;
    if (!path || !strcmp(path, "-")) {
        fail_text(t, "-: standard input is not read here: give a path");
        return -1;
    }
    ks_source *src;
    if (ks_source_open(path, &src, &err) != KS_OK) {
        fail(t, path, &err);
        return -1;
    }
    ks_parse_opts po;
    parse_opts(o, &po);
    size_t n = 0;
    int rc = 0;
    for (;;) {
        ks_stream *st;
        int r = ks_source_next(src, &st, &err);
        if (r == 0)
            break;
        if (r < 0) {
            fail(t, path, &err);
            rc = -1;
            break;
        }
        if (most && n == most) {
            char msg[600];
            snprintf(msg, sizeof msg, "%s: an archive of several traces: give one member", path);
            fail_text(t, msg);
            rc = -1;
            break;
        }
        if (sum && ks_rank_is_summary(ks_stream_name(st))) {
            n++;
            if (sum(ctx, st, t) != 0) {
                rc = -1;
                break;
            }
            continue;
        }
        ks_trace *tr;
        if (ks_parse_stream(st, &po, &tr, &err) != KS_OK) {
            fail(t, ks_stream_name(st), &err);
            rc = -1;
            break;
        }
        n++;
        if (cb(ctx, tr, t) != 0) {
            rc = -1;
            break;
        }
    }
    ks_source_close(src);
    if (!rc && !n) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s: no trace in this input", path);
        fail_text(t, msg);
        rc = -1;
    }
    return rc;
}

static int each_trace(ks_tables *t, const char *path, const ks_tables_opts *o, size_t most, trace_fn cb, void *ctx)
{
    return each_input(t, path, o, most, cb, NULL, ctx);
}

/* ---- analyze ------------------------------------------------------------------------------- */

typedef struct one_trace {
    ks_trace *tr;
} one_trace;

static int keep_trace(void *ctx, ks_trace *tr, ks_tables *t)
{
    (void)t;
    one_trace *k = ctx;
    if (k->tr)
        ks_trace_free(k->tr);
    k->tr = tr;
    return 0;
}

ks_tables *ks_tables_analyze(const char *path, const ks_tables_opts *o)
{
    ks_tables_opts def;
    o = ks_tables_opts_or_defaults(o, &def);
    ks_tables *t = ks_xcalloc(1, sizeof *t);
    one_trace k = {0};
    if (each_trace(t, path, o, 1, keep_trace, &k) != 0) {
        if (k.tr)
            ks_trace_free(k.tr);
        return t;
    }
    ks_insights in;
    ks_error err;
    if (ks_insights_run(k.tr, &o->run, &in, &err) != KS_OK) {
        fail(t, k.tr->source, &err);
    } else {
        ks_insights_view iv = {.steps = &in.steps, .gaps = &in.gaps, .diagnoses = &in.diagnoses,
                               .telemetry = in.have_telemetry ? &in.telemetry : NULL,
                               .threads = &in.threads, .critpath = in.critpath};
        ks_tables_doc d;
        ks_analyze_json *j = ks_analyze_json_begin(ks_tables_doc_begin(&d, t, o->text));
        ks_analyze_json_trace(j, in.a, &iv, &o->ro);
        ks_analyze_json_end(j);
        ks_tables_doc_end(&d, t);
    }
    ks_insights_free(&in);
    ks_trace_free(k.tr);
    return t;
}

/* ---- stats --------------------------------------------------------------------------------- */

static int stats_trace(void *ctx, ks_trace *tr, ks_tables *t)
{
    (void)t;
    ks_stats_json_trace(ctx, tr);
    ks_trace_free(tr);
    return 0;
}

ks_tables *ks_tables_stats(const char *path, const ks_tables_opts *o)
{
    ks_tables_opts def;
    o = ks_tables_opts_or_defaults(o, &def);
    ks_tables *t = ks_xcalloc(1, sizeof *t);
    ks_tables_doc d;
    ks_stats_json *w = ks_stats_json_begin(ks_tables_doc_begin(&d, t, o->text));
    int rc = each_trace(t, path, o, 0, stats_trace, w);
    ks_stats_json_end(w);
    ks_tables_doc_end(&d, t);
    if (rc) { /* the error stays; no half document */
        ks_tables_drop_json(t);
    }
    return t;
}

/* ---- diff ---------------------------------------------------------------------------------- */

typedef struct side {
    ks_trace *tr;
    ks_insights in;
    int ran;
} side;

static int side_read(ks_tables *t, const char *path, const ks_tables_opts *o, side *s)
{
    one_trace k = {0};
    if (each_trace(t, path, o, 1, keep_trace, &k) != 0) {
        if (k.tr)
            ks_trace_free(k.tr);
        return -1;
    }
    s->tr = k.tr;
    ks_insights_opts run = o->run;
    run.depth = KS_INSIGHTS_STEPS;
    ks_error err;
    s->ran = 1;
    if (ks_insights_run(s->tr, &run, &s->in, &err) != KS_OK) {
        fail(t, s->tr->source, &err);
        return -1;
    }
    return 0;
}

static void side_free(side *s)
{
    if (s->ran)
        ks_insights_free(&s->in);
    if (s->tr)
        ks_trace_free(s->tr);
}

ks_tables *ks_tables_diff(const char *before, const char *after, const ks_tables_opts *o)
{
    ks_tables_opts def;
    o = ks_tables_opts_or_defaults(o, &def);
    ks_tables *t = ks_xcalloc(1, sizeof *t);
    side a = {0}, b = {0};
    if (side_read(t, before, o, &a) == 0 && side_read(t, after, o, &b) == 0) {
        ks_diff d = {0};
        ks_error err;
        if (ks_diff_build(a.in.a, &a.in.steps, b.in.a, &b.in.steps, &o->diff, &d, &err) != KS_OK) {
            fail(t, NULL, &err);
        } else {
            ks_tables_doc dc;
            ks_diff_json(ks_tables_doc_begin(&dc, t, o->text), &d, o->ro.top);
            ks_tables_doc_end(&dc, t);
        }
        ks_diff_free(&d);
    }
    side_free(&a);
    side_free(&b);
    return t;
}

/* ---- ranks --------------------------------------------------------------------------------- */

typedef struct rank_list {
    ks_rank *v;
    size_t n, cap;
    const ks_tables_opts *o;
} rank_list;

static int rank_trace(void *ctx, ks_trace *tr, ks_tables *t)
{
    rank_list *l = ctx;
    ks_error err;
    KS_GROW(l->v, l->cap, l->n + 1);
    memset(&l->v[l->n], 0, sizeof l->v[l->n]);
    int rc = ks_rank_from_trace(tr, &l->o->rank, &l->v[l->n], &err);
    if (rc != KS_OK) {
        ks_rank_free(&l->v[l->n]);
        fail(t, tr->source, &err);
    } else {
        l->n++;
    }
    ks_trace_free(tr);
    return rc == KS_OK ? 0 : -1;
}

static int rank_summary(void *ctx, ks_stream *st, ks_tables *t)
{
    rank_list *l = ctx;
    ks_error err;
    KS_GROW(l->v, l->cap, l->n + 1);
    memset(&l->v[l->n], 0, sizeof l->v[l->n]);
    if (ks_rank_summary_stream(st, &l->v[l->n], &err) != KS_OK) {
        ks_rank_free(&l->v[l->n]);
        ks_tables_fail(t, NULL, &err);
        return -1;
    }
    l->n++;
    return 0;
}

ks_tables *ks_tables_ranks(const char *const *paths, size_t npaths, const ks_tables_opts *o)
{
    ks_tables_opts def;
    o = ks_tables_opts_or_defaults(o, &def);
    ks_tables *t = ks_xcalloc(1, sizeof *t);
    char **list = NULL;
    size_t nlist = 0;
    ks_error err;
    if (!npaths)
        return fail_text(t, "no input file");
    if (ks_inputs_expand((char *const *)paths, npaths, &list, &nlist, &err) != KS_OK)
        return fail(t, NULL, &err);
    rank_list l = {.o = o};
    int rc = 0;
    for (size_t i = 0; i < nlist && !rc; i++)
        rc = each_input(t, list[i], o, 0, rank_trace, rank_summary, &l);
    if (!rc && ks_ranks_identify(l.v, l.n, 0, &err) != KS_OK) {
        fail(t, NULL, &err);
        rc = -1;
    }
    if (!rc) {
        ks_ranks r;
        ks_ranks_match(l.v, l.n, &o->ranks, &r);
        ks_ranks_verdict(&r);
        ks_tables_doc d;
        ks_ranks_report(ks_tables_doc_begin(&d, t, o->text), &r, KS_FORMAT_JSON, 0);
        ks_tables_doc_end(&d, t);
        ks_ranks_free(&r);
    }
    for (size_t i = 0; i < l.n; i++)
        ks_rank_free(&l.v[i]);
    free(l.v);
    ks_inputs_free(list, nlist);
    return t;
}
