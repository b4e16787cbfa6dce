/* compare/gate.c: `kinesift gate`: the checks of a budget (or the documented default set) over
 * the per-step samples of the baseline and candidate inputs (gate_profile.c, gate_validate.c),
 * per side and, when the inputs carry several ranks, per rank. Each input is one run: each check
 * is decided with the run as the unit (docs/statistics.md section 8, stats/runs.c: Welch on
 * per-run medians, or the single-run rule), and with several checks the p-values are
 * Holm-adjusted and every interval recomputed at its Holm-consistent level before deciding, so
 * that the printed interval is the one the verdict used. Warnings say when there is one run per
 * side, when one side's runs disagree, when step counts differ and when warm-up was found on one
 * side only. The capture settings must match (section 4) unless mismatches are allowed. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/compare.h"
#include "compare/gate_text.h"

const char *ks_gate_status_name(ks_gate_status s)
{
    switch (s) {
    case KS_GATE_IMPROVEMENT: return "improvement";
    case KS_GATE_REGRESSION: return "regression";
    case KS_GATE_INCONCLUSIVE: return "inconclusive";
    case KS_GATE_ERROR: return "error";
    case KS_GATE_PASS: break;
    }
    return "pass";
}

/* The limit of a check as the writers and the warnings word it: "+5 %", "+2 pt". Here rather
 * than with the writers' other helpers (report/gate_format.c) because the gate's own warnings
 * use it and report/ comes after compare/. */
void ks_gate_fmt_limit(char *buf, size_t n, const ks_gate_result *r)
{
    if (ks_metric_points(r->metric))
        snprintf(buf, n, "+%.3g pt", r->limit);
    else
        snprintf(buf, n, "+%.3g %%", 100 * r->limit);
}

void ks_gate_opts_init(ks_gate_opts *o)
{
    memset(o, 0, sizeof *o);
    ks_compare_params_gate(&o->params);
    o->idle_points = 2;
    o->label_share = 0.05;
}

int ks_gate_exit_code(const ks_gate_status *s, size_t n, int input_error, int inconclusive_fails)
{
    int error = input_error, regression = 0, inconclusive = 0;
    for (size_t i = 0; i < n; i++) {
        error |= s[i] == KS_GATE_ERROR;
        regression |= s[i] == KS_GATE_REGRESSION;
        inconclusive |= s[i] == KS_GATE_INCONCLUSIVE;
    }
    if (error)
        return 2;
    if (regression)
        return 1;
    if (inconclusive && inconclusive_fails)
        return 3;
    return 0;
}

int ks_gate_exit(const ks_gate *g, int inconclusive_fails)
{
    ks_gate_status *s = ks_xmalloc(ks_mul(g->n ? g->n : 1, sizeof *s));
    for (size_t i = 0; i < g->n; i++)
        s[i] = g->r[i].status;
    int rc = ks_gate_exit_code(s, g->n, g->input_error, inconclusive_fails);
    free(s);
    return rc;
}

static void warn(ks_gate *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void warn(ks_gate *g, const char *fmt, ...)
{
    char buf[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    KS_PUSH(g->warnings, g->nwarnings, g->warnings_cap, ks_xstrdup(buf));
}

void ks_gate_set_error(ks_gate *g, const char *msg)
{
    g->input_error = 1;
    snprintf(g->error, sizeof g->error, "%s", msg);
}

static int fail(ks_gate *g, ks_error *err, const char *msg)
{
    ks_gate_set_error(g, msg);
    return ks_error_set(err, "%s", msg);
}

/* ---- inputs: kinds, settings, ranks --------------------------------------------------------- */

static void sides(ks_gate *g, const ks_profile *base, size_t nbase, const ks_profile *cand, size_t ncand)
{
    g->base_sources = ks_xcalloc(nbase ? nbase : 1, sizeof *g->base_sources);
    g->cand_sources = ks_xcalloc(ncand ? ncand : 1, sizeof *g->cand_sources);
    g->base.inputs = nbase;
    g->cand.inputs = ncand;
    for (size_t i = 0; i < nbase; i++) {
        g->base_sources[i] = base[i].source;
        g->base.steps += base[i].nsteps;
        g->base.warmup += base[i].nwarmup;
        g->base.unfinished += base[i].nunfinished;
        g->base.samples += base[i].n;
    }
    for (size_t i = 0; i < ncand; i++) {
        g->cand_sources[i] = cand[i].source;
        g->cand.steps += cand[i].nsteps;
        g->cand.warmup += cand[i].nwarmup;
        g->cand.unfinished += cand[i].nunfinished;
        g->cand.samples += cand[i].n;
    }
}

/* Every input against the first baseline; the first differing pair is reported. */
static int settings(ks_gate *g, const ks_profile *base, size_t nbase, const ks_profile *cand, size_t ncand,
                    ks_error *err)
{
    for (size_t k = 1; k < nbase + ncand && !g->nmismatch; k++) {
        const ks_profile *p = k < nbase ? &base[k] : &cand[k - nbase];
        g->nmismatch = ks_settings_compare(&base[0].settings, &p->settings, g->mismatch);
        if (g->nmismatch)
            snprintf(g->mismatch_where, sizeof g->mismatch_where, "%s (baseline) and %s (%s)", base[0].source,
                     p->source, k < nbase ? "baseline" : "candidate");
    }
    if (!g->nmismatch)
        return KS_OK;
    char what[1024];
    size_t len = 0;
    for (size_t i = 0; i < g->nmismatch && len < sizeof what; i++)
        len += (size_t)snprintf(what + len, sizeof what - len, "%s%s %s vs %s", i ? "; " : "", g->mismatch[i].what,
                                g->mismatch[i].a, g->mismatch[i].b);
    if (g->opts.allow_mismatch) {
        warn(g, "the captures differ (%s: %s); compared anyway (--allow-mismatch)", g->mismatch_where, what);
        return KS_OK;
    }
    char msg[1600];
    snprintf(msg, sizeof msg, "the captures are not comparable: %s differ in %s (use --allow-mismatch to compare "
                              "anyway)", g->mismatch_where, what);
    return fail(g, err, msg);
}

#define NO_RANK INT64_MIN

static int64_t rank_of(const ks_profile *p)
{
    return p->has_rank ? p->rank : NO_RANK;
}

static void rank_text(int64_t r, char *buf, size_t n)
{
    if (r == NO_RANK)
        snprintf(buf, n, "of no rank");
    else
        snprintf(buf, n, "rank %lld", (long long)r);
}

static size_t distinct_ranks(const ks_profile *v, size_t n, int64_t *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t r = rank_of(&v[i]);
        size_t j = 0;
        while (j < m && out[j] != r)
            j++;
        if (j == m)
            out[m++] = r;
    }
    return m;
}

/* ---- samples ------------------------------------------------------------------------------- */

typedef struct side_in {
    const ks_profile *p;
    size_t n;
    int per_rank;
    int64_t rank;
} side_in;

static int in_group(const side_in *s, size_t i)
{
    return !s->per_rank || rank_of(&s->p[i]) == s->rank;
}

/* The values of one check in one profile (NULL with *n = 0 when absent); *found tells whether
 * the named series exists there. */
static const double *values_of(const ks_profile *p, ks_metric m, const char *name, size_t *n, size_t *discarded,
                               int *found)
{
    *discarded = 0;
    *found = 1;
    *n = p->n;
    switch (m) {
    case KS_METRIC_STEP_TIME: return p->step_time;
    case KS_METRIC_LAUNCHES: return p->launches;
    case KS_METRIC_GPU_IDLE: return p->gpu_idle;
    default: break;
    }
    const ks_sample_series *s = ks_profile_series(p, m, name);
    if (!s) {
        *found = 0;
        *n = m == KS_METRIC_VALIDATE ? 0 : p->n; /* traces: the range did not occur: 0 per step */
        return NULL;
    }
    *n = s->n;
    *discarded = s->discarded;
    return s->v;
}

/* Pool one side's samples of a check into r (a or b). Returns the number of profiles holding
 * the series; -1 when a trace lacks the GPU idle share. */
static long pool(const side_in *s, ks_metric m, const char *name, double **out, size_t *nout, size_t *disc,
                 ks_trace_median **per, size_t *nper, char *why, size_t whylen)
{
    size_t cap = 0, pcap = 0;
    long found_in = 0;
    *out = NULL;
    *nout = *disc = *nper = 0;
    *per = NULL;
    for (size_t i = 0; i < s->n; i++) {
        if (!in_group(s, i))
            continue;
        size_t n, d;
        int found;
        const double *v = values_of(&s->p[i], m, name, &n, &d, &found);
        if (m == KS_METRIC_GPU_IDLE && !v && n) {
            snprintf(why, whylen, "the GPU idle share is not observed in %s: it holds no GPU work", s->p[i].source);
            return -1;
        }
        found_in += found;
        *disc += d;
        KS_GROW(*out, cap, *nout + n + 1);
        for (size_t j = 0; j < n; j++)
            (*out)[(*nout)++] = v ? v[j] : 0;
        ks_trace_median tm = {s->p[i].source, n, v ? ks_median(v, n) : (n ? 0 : NAN)};
        KS_PUSH(*per, *nper, pcap, tm);
    }
    return found_in;
}

static const char *unit_of(ks_metric m)
{
    return m == KS_METRIC_GPU_IDLE ? "points" : m == KS_METRIC_LAUNCHES ? "kernels" : "ns";
}

static void result_error(ks_gate_result *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void result_error(ks_gate_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    r->status = KS_GATE_ERROR;
}

/* The limit of a check, resolved: a fraction for growth checks, points for gpu_idle_share. */
static double limit_of(const ks_check *c, const ks_gate_opts *o)
{
    if (ks_metric_points(c->metric))
        return c->has_limit ? c->limit : o->idle_points;
    if (c->has_limit)
        return c->limit / 100;
    return c->metric == KS_METRIC_LAUNCHES ? 0 : o->params.threshold;
}

/* The runs of one side of r: one per input (its samples consecutive in the pooled array). */
static ks_runs runs_of(const double *x, const ks_trace_median *per, size_t nper, size_t *len)
{
    for (size_t i = 0; i < nper; i++)
        len[i] = per[i].n;
    return (ks_runs){x, len, nper};
}

static void fill(ks_gate *g, ks_gate_result *r, const ks_check *c, const side_in *a, const side_in *b)
{
    r->metric = c->metric;
    r->name = c->name ? ks_xstrdup(c->name) : NULL;
    r->has_rank = a->per_rank;
    r->rank = a->rank;
    r->title = ks_xasprintf("%s%s%s", ks_metric_name(c->metric), c->name ? " " : "", c->name ? c->name : "");
    if (a->per_rank) {
        char *t = r->title;
        r->title = a->rank == NO_RANK ? ks_xasprintf("%s [no rank]", t)
                                      : ks_xasprintf("%s [rank %lld]", t, (long long)a->rank);
        free(t);
    }
    r->unit = unit_of(c->metric);
    r->limit = limit_of(c, &g->opts);
    r->params = g->opts.params;
    r->params.threshold = r->limit;
    r->diff = r->diff_lo = r->diff_hi = NAN;
    if ((c->metric == KS_METRIC_VALIDATE) != (g->is_validate != 0)) {
        result_error(r, g->is_validate ? "the inputs are validate results: only validate checks apply"
                                       : "validate checks need validate results as inputs, not traces");
        return;
    }
    char why[512] = "";
    size_t da, db;
    long fa = pool(a, c->metric, c->name, &r->a, &r->na, &da, &r->per_a, &r->nper_a, why, sizeof why);
    long fb = fa < 0 ? -1 : pool(b, c->metric, c->name, &r->b, &r->nb, &db, &r->per_b, &r->nper_b, why, sizeof why);
    if (fa < 0 || fb < 0) {
        result_error(r, "%s", why);
        return;
    }
    if (c->name && !fa && !fb) {
        result_error(r, "no %s named '%s' in the baseline or the candidate inputs", ks_metric_name(c->metric),
                     c->name);
        return;
    }
    if (c->metric == KS_METRIC_VALIDATE && (!fa || !fb)) {
        result_error(r, "the validate metric '%s' is missing from the %s", c->name, fa ? "candidate" : "baseline");
        return;
    }
    r->discarded_a = da;
    r->discarded_b = db;
}

static ks_gate_status status_of(ks_verdict v)
{
    switch (v) {
    case KS_VERDICT_FASTER: return KS_GATE_IMPROVEMENT;
    case KS_VERDICT_SLOWER: return KS_GATE_REGRESSION;
    case KS_VERDICT_NO_CHANGE: return KS_GATE_PASS;
    default: break;
    }
    return KS_GATE_INCONCLUSIVE;
}

/* Every evaluated check decided as one family with the run as the unit (ks_compare_runs_family,
 * the code path validate shares): Holm-adjusted p, each interval at its Holm-consistent level,
 * the verdict read from that interval, so that the printed interval, the adjusted p and the
 * verdict agree. */
static void decide_all(ks_gate *g)
{
    ks_runs_pair *f = ks_xcalloc(g->n ? g->n : 1, sizeof *f);
    size_t **len = ks_xcalloc(g->n ? 2 * g->n : 1, sizeof *len);
    size_t m = 0;
    for (size_t i = 0; i < g->n; i++) {
        ks_gate_result *r = &g->r[i];
        if (r->status == KS_GATE_ERROR)
            continue;
        size_t *la = len[2 * m] = ks_xmalloc(ks_mul(r->nper_a + 1, sizeof **len));
        size_t *lb = len[2 * m + 1] = ks_xmalloc(ks_mul(r->nper_b + 1, sizeof **len));
        f[m++] = (ks_runs_pair){runs_of(r->a, r->per_a, r->nper_a, la), runs_of(r->b, r->per_b, r->nper_b, lb),
                                ks_metric_points(r->metric), &r->params, r->discarded_a, r->discarded_b, &r->cmp};
    }
    ks_compare_runs_family(f, m, g->opts.params.alpha);
    for (size_t i = 0; i < g->n; i++) {
        ks_gate_result *r = &g->r[i];
        if (r->status == KS_GATE_ERROR)
            continue;
        if (ks_metric_points(r->metric)) {
            r->diff = r->cmp.method == KS_METHOD_RUNS ? r->cmp.est : r->cmp.b.median - r->cmp.a.median;
            r->diff_lo = r->cmp.ci_lo;
            r->diff_hi = r->cmp.ci_hi;
        }
        r->status = status_of(r->cmp.verdict);
    }
    for (size_t i = 0; i < 2 * m; i++)
        free(len[i]);
    free(len);
    free(f);
}

/* ---- warnings that help ----------------------------------------------------------------------- */

/* One line when some check had a single run on a side; per-run medians of one side that
 * disagree by more than the check's limit. */
static void run_warnings(ks_gate *g)
{
    size_t single = 0;
    const ks_gate_result *first = NULL;
    for (size_t i = 0; i < g->n; i++) {
        const ks_gate_result *r = &g->r[i];
        if (r->status == KS_GATE_ERROR)
            continue;
        if (r->cmp.method == KS_METHOD_SINGLE_RUN && !single++)
            first = r;
        const double sp[2] = {r->cmp.spread_a, r->cmp.spread_b};
        for (int s = 0; s < 2; s++) {
            if (!(sp[s] > r->limit))
                continue;
            char lim[24];
            ks_gate_fmt_limit(lim, sizeof lim, r);
            if (ks_metric_points(r->metric))
                warn(g, "%s: the %s's per-run medians disagree by %.3g points (more than the limit %s): one run "
                        "may be odd (its medians per input are in the report)", r->title, s ? "candidate" : "baseline",
                     sp[s], lim);
            else
                warn(g, "%s: the %s's per-run medians disagree by %.3g %% (more than the limit %s): one run may be "
                        "odd (its medians per input are in the report)", r->title, s ? "candidate" : "baseline",
                     100 * sp[s], lim);
        }
    }
    if (single)
        warn(g, "one run per side (%s%s): a change cannot be told from run-to-run variation, so the verdict is "
                "inconclusive unless the change exceeds its limit by %.3g more %s (docs/statistics.md section 8); "
                "profile 3 or more runs per side", first->title, single > 1 ? " and others" : "",
             100 * g->opts.params.single_run_margin, ks_metric_points(first->metric) ? "points" : "percent");
}

/* Traces: runs of different lengths; warm-up detected on one side only. */
static void input_warnings(ks_gate *g, const ks_profile *base, size_t nbase, const ks_profile *cand, size_t ncand)
{
    if (g->is_validate)
        return;
    int differ = 0;
    for (size_t k = 1; k < nbase + ncand; k++)
        differ |= (k < nbase ? base[k].n : cand[k - nbase].n) != base[0].n;
    if (differ) {
        char list[512];
        size_t len = 0;
        for (size_t k = 0; k < nbase + ncand && len < sizeof list - 40; k++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%zu",
                                    k == 0 ? "baseline " : k == nbase ? "; candidate " : ", ",
                                    k < nbase ? base[k].n : cand[k - nbase].n);
        warn(g, "the runs hold different numbers of active steps (%s): compare captures of the same profiling "
                "schedule", list);
    }
    if ((g->base.warmup > 0) != (g->cand.warmup > 0))
        warn(g, "warm-up steps were left out of the %s (%zu) but none of the %s: if the %s's first steps are "
                "warm-up, say so with --skip-steps N", g->base.warmup ? "baseline" : "candidate",
             g->base.warmup ? g->base.warmup : g->cand.warmup, g->base.warmup ? "candidate" : "baseline",
             g->base.warmup ? "candidate" : "baseline");
}

/* ---- the check list ------------------------------------------------------------------------ */

static int has_check(const ks_budget *b, ks_metric m, const char *name)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->v[i].metric == m && ((!name && !b->v[i].name) || (name && b->v[i].name && !strcmp(name, b->v[i].name))))
            return 1;
    return 0;
}

/* Default set of one group: step_time and every label taking >= label_share of the pooled
 * baseline step time (or, for validate results, every arm of the baseline). */
static void default_set(const ks_gate *g, const side_in *a, ks_budget *out)
{
    ks_error e;
    if (g->is_validate) {
        for (size_t i = 0; i < a->n; i++)
            for (size_t j = 0; in_group(a, i) && j < a->p[i].nseries; j++)
                if (!has_check(out, KS_METRIC_VALIDATE, a->p[i].series[j].name))
                    ks_budget_add(out, KS_METRIC_VALIDATE, a->p[i].series[j].name, 0, 0, &e);
        return;
    }
    ks_budget_add(out, KS_METRIC_STEP_TIME, NULL, 0, 0, &e);
    double wall = 0;
    for (size_t i = 0; i < a->n; i++)
        for (size_t j = 0; in_group(a, i) && j < a->p[i].n; j++)
            wall += a->p[i].step_time[j];
    if (!(wall > 0))
        return;
    for (size_t i = 0; i < a->n; i++) {
        for (size_t j = 0; in_group(a, i) && j < a->p[i].nseries; j++) {
            const ks_sample_series *s = &a->p[i].series[j];
            int label = s->metric == KS_METRIC_LABEL || s->metric == KS_METRIC_GPU_LABEL;
            if (!label || has_check(out, s->metric, s->name))
                continue;
            double sum = 0;
            for (size_t k = 0; k < a->n; k++) {
                const ks_sample_series *t = in_group(a, k) ? ks_profile_series(&a->p[k], s->metric, s->name) : NULL;
                for (size_t x = 0; t && x < t->n; x++)
                    sum += t->v[x];
            }
            if (sum / wall >= g->opts.label_share)
                ks_budget_add(out, s->metric, s->name, 0, 0, &e);
        }
    }
}

static void run_group(ks_gate *g, const ks_budget *checks, const side_in *a, const side_in *b, size_t *cap)
{
    ks_budget def = {0};
    const ks_budget *use = checks;
    if (!checks->n) {
        default_set(g, a, &def);
        use = &def;
    }
    for (size_t i = 0; i < use->n; i++) {
        KS_GROW(g->r, *cap, g->n + 1);
        ks_gate_result *r = &g->r[g->n++];
        memset(r, 0, sizeof *r);
        r->from_default = !checks->n;
        fill(g, r, &use->v[i], a, b);
    }
    ks_budget_free(&def);
}

static int groups(ks_gate *g, const ks_budget *checks, const ks_profile *base, size_t nbase, const ks_profile *cand,
                  size_t ncand, ks_error *err)
{
    int64_t *ra = ks_xmalloc(ks_mul(nbase, sizeof *ra)), *rb = ks_xmalloc(ks_mul(ncand, sizeof *rb));
    size_t na = distinct_ranks(base, nbase, ra), nb = distinct_ranks(cand, ncand, rb);
    side_in a = {base, nbase, 0, NO_RANK}, b = {cand, ncand, 0, NO_RANK};
    size_t cap = 0;
    int rc = KS_OK;
    if (na == 1 && nb == 1) {
        if (ra[0] != rb[0]) {
            char x[32], y[32];
            rank_text(ra[0], x, sizeof x);
            rank_text(rb[0], y, sizeof y);
            warn(g, "the baseline is %s and the candidate %s: compared with each other", x, y);
        }
        run_group(g, checks, &a, &b, &cap);
    } else {
        for (size_t i = 0; i < na + nb && rc == KS_OK; i++) {
            int64_t r = i < na ? ra[i] : rb[i - na];
            int in_a = 0, in_b = 0;
            for (size_t j = 0; j < na; j++)
                in_a |= ra[j] == r;
            for (size_t j = 0; j < nb; j++)
                in_b |= rb[j] == r;
            if (!in_a || !in_b) {
                char msg[256], rt[32];
                rank_text(r, rt, sizeof rt);
                snprintf(msg, sizeof msg, "%s%s has %s traces but no %s traces: give every rank on both sides",
                         r == NO_RANK ? "a trace " : "", rt, in_a ? "baseline" : "candidate",
                         in_a ? "candidate" : "baseline");
                rc = fail(g, err, msg);
                break;
            }
            if (i >= na)
                continue; /* each rank once */
            a.per_rank = b.per_rank = 1;
            a.rank = b.rank = r;
            run_group(g, checks, &a, &b, &cap);
        }
    }
    free(ra);
    free(rb);
    return rc;
}

int ks_gate_run(const ks_profile *base, size_t nbase, const ks_profile *cand, size_t ncand, const ks_budget *b,
                const ks_gate_opts *o, ks_gate *g, ks_error *err)
{
    memset(g, 0, sizeof *g);
    if (o)
        g->opts = *o;
    else
        ks_gate_opts_init(&g->opts);
    if (b && b->has_threshold)
        g->opts.params.threshold = b->threshold_pct / 100;
    sides(g, base, nbase, cand, ncand);
    if (!nbase || !ncand)
        return fail(g, err, !nbase ? "no baseline input" : "no candidate input");
    g->is_validate = base[0].is_validate;
    for (size_t k = 0; k < nbase + ncand; k++) {
        const ks_profile *p = k < nbase ? &base[k] : &cand[k - nbase];
        if (p->is_validate != g->is_validate) {
            char msg[600];
            snprintf(msg, sizeof msg, "%s is a %s but %s is a %s: compare traces with traces and validate results "
                                      "with validate results", base[0].source,
                     g->is_validate ? "validate result" : "trace", p->source,
                     p->is_validate ? "validate result" : "trace");
            return fail(g, err, msg);
        }
        if (!p->is_validate && !p->nsteps)
            warn(g, "%s: no steps found, so no samples (%s)", p->source, p->steps_source);
    }
    if (settings(g, base, nbase, cand, ncand, err) != KS_OK)
        return KS_ERR;
    static const ks_budget none;
    g->default_set = !b || !b->n;
    if (groups(g, b ? b : &none, base, nbase, cand, ncand, err) != KS_OK)
        return KS_ERR;
    decide_all(g);
    input_warnings(g, base, nbase, cand, ncand);
    run_warnings(g);
    return KS_OK;
}

void ks_gate_free(ks_gate *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n; i++) {
        ks_gate_result *r = &g->r[i];
        free(r->name);
        free(r->title);
        free(r->a);
        free(r->b);
        free(r->per_a);
        free(r->per_b);
    }
    free(g->r);
    for (size_t i = 0; i < g->nwarnings; i++)
        free(g->warnings[i]);
    free(g->warnings);
    free(g->base_sources);
    free(g->cand_sources);
    memset(g, 0, sizeof *g);
}
