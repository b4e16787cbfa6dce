/* tests/compare/test_gate.c: gate decisions on synthetic profiles: verdicts and their mapping
 * to pass / regression / improvement / inconclusive / error, with three runs per side (Welch on
 * per-run medians) and with one (inconclusive unless beyond the limit plus the single-run
 * margin), the exit status precedence 2 > 1 > 3 > 0 and --on-inconclusive, Holm across checks
 * with intervals at Holm-consistent levels (the interval and the verdict never disagree),
 * limits per check, points checks, the default set, settings mismatches, validate results,
 * ranks, --runs-per-side-min and the warnings about runs. */
#include "gate_test.h"
#include "compare/gate_text.h"

#include <math.h>

static void exit_code_precedence(void **state)
{
    (void)state;
    const ks_gate_status P = KS_GATE_PASS, I = KS_GATE_IMPROVEMENT, R = KS_GATE_REGRESSION,
                         N = KS_GATE_INCONCLUSIVE, E = KS_GATE_ERROR;
    ks_gate_status all[] = {P, I, R, N, E};
    assert_int_equal(ks_gate_exit_code(all, 0, 0, 1), 0);            /* nothing checked */
    assert_int_equal(ks_gate_exit_code(all, 2, 0, 1), 0);            /* pass, improvement */
    assert_int_equal(ks_gate_exit_code((ks_gate_status[]){P, N}, 2, 0, 1), 3);
    assert_int_equal(ks_gate_exit_code((ks_gate_status[]){P, N}, 2, 0, 0), 0); /* warn */
    assert_int_equal(ks_gate_exit_code((ks_gate_status[]){N, R}, 2, 0, 1), 1); /* 1 > 3 */
    assert_int_equal(ks_gate_exit_code((ks_gate_status[]){N, R}, 2, 0, 0), 1);
    assert_int_equal(ks_gate_exit_code((ks_gate_status[]){R, E}, 2, 0, 1), 2); /* 2 > 1 */
    assert_int_equal(ks_gate_exit_code((ks_gate_status[]){E, N}, 2, 0, 0), 2);
    assert_int_equal(ks_gate_exit_code((ks_gate_status[]){P}, 1, 1, 1), 2);    /* input error */
    assert_int_equal(ks_gate_exit_code(all, 5, 0, 1), 2);
}

typedef struct pair {
    ks_profile a[3], b[3];
    size_t na, nb;
} pair;

static void pair_free(pair *p)
{
    for (size_t i = 0; i < p->na; i++)
        ks_profile_free(&p->a[i]);
    for (size_t i = 0; i < p->nb; i++)
        ks_profile_free(&p->b[i]);
}

/* runs baseline and candidate traces of n steps each (run effects with CV 0.5 %, steps CV
 * 1 %), with a label "fwd" (40 ms) on both. */
static void pair_runs(pair *p, size_t runs, size_t n, double step_factor, double fwd_factor, uint64_t seed)
{
    ks_rng r;
    ks_rng_seed(&r, seed);
    p->na = p->nb = runs;
    for (size_t i = 0; i < runs; i++) {
        gt_profile(&p->a[i], "base.json", &r, n, 1 + 0.005 * ks_rng_normal(&r), 0.01);
        gt_profile(&p->b[i], "cand.json", &r, n, step_factor * (1 + 0.005 * ks_rng_normal(&r)), 0.01);
        gt_series(&p->a[i], KS_METRIC_LABEL, "fwd", &r, 40e6 * (1 + 0.005 * ks_rng_normal(&r)), 0.01);
        gt_series(&p->b[i], KS_METRIC_LABEL, "fwd", &r, 40e6 * fwd_factor * (1 + 0.005 * ks_rng_normal(&r)), 0.01);
    }
}

static void simple_pair(pair *p, size_t n, double step_factor, double fwd_factor, uint64_t seed)
{
    pair_runs(p, 3, n, step_factor, fwd_factor, seed);
}

static ks_gate_status run1(pair *p, const ks_budget *b, ks_gate *g)
{
    ks_error err;
    assert_int_equal(ks_gate_run(p->a, p->na, p->b, p->nb, b, NULL, g, &err), KS_OK);
    return g->n ? g->r[0].status : KS_GATE_ERROR;
}

static void verdicts(void **state)
{
    (void)state;
    struct {
        double step, fwd;
        size_t runs, n;
        ks_gate_status want;
        int exit;
    } cases[] = {
        {1.00, 1, 3, 30, KS_GATE_PASS, 0},
        {1.20, 1, 3, 30, KS_GATE_REGRESSION, 1},
        {0.80, 1, 3, 30, KS_GATE_IMPROVEMENT, 0},
        {1.20, 1, 3, 1, KS_GATE_INCONCLUSIVE, 3}, /* fewer than 5 samples per side */
        /* one run per side: never a pass; beyond the limit only when beyond it by the margin */
        {1.00, 1, 1, 30, KS_GATE_INCONCLUSIVE, 3},
        {1.12, 1, 1, 30, KS_GATE_INCONCLUSIVE, 3},
        {1.40, 1, 1, 30, KS_GATE_REGRESSION, 1},
        {0.60, 1, 1, 30, KS_GATE_IMPROVEMENT, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pair p;
        ks_gate g;
        ks_budget b = {0};
        ks_error err;
        pair_runs(&p, cases[i].runs, cases[i].n, cases[i].step, cases[i].fwd, 1000 + i);
        assert_int_equal(ks_budget_add(&b, KS_METRIC_STEP_TIME, NULL, 0, 0, &err), KS_OK);
        ks_gate_status s = run1(&p, &b, &g);
        if (s != cases[i].want)
            fail_msg("case %zu: %s, want %s (%s)", i, ks_gate_status_name(s), ks_gate_status_name(cases[i].want),
                     g.r[0].cmp.reason);
        assert_int_equal(ks_gate_exit(&g, 1), cases[i].exit);
        assert_int_equal(ks_gate_exit(&g, 0), cases[i].exit == 3 ? 0 : cases[i].exit);
        assert_true(fabs(g.r[0].limit - 0.05) < 1e-12); /* the default threshold */
        assert_int_equal(g.r[0].cmp.holm_m, 1);
        assert_int_equal(g.r[0].cmp.method, cases[i].runs > 1 ? KS_METHOD_RUNS : KS_METHOD_SINGLE_RUN);
        int said = 0; /* one run per side is said in one line */
        for (size_t w = 0; w < g.nwarnings; w++)
            said += strstr(g.warnings[w], "one run per side") != NULL;
        assert_int_equal(said, cases[i].runs == 1);
        ks_gate_free(&g);
        ks_budget_free(&b);
        pair_free(&p);
    }
}

static void limits_and_holm(void **state)
{
    (void)state;
    pair p;
    ks_gate g;
    ks_budget b = {0};
    ks_error err;
    simple_pair(&p, 30, 1.00, 1.06, 7); /* the label grew 6 % */
    assert_int_equal(ks_budget_add(&b, KS_METRIC_STEP_TIME, NULL, 1, 3, &err), KS_OK);
    assert_int_equal(ks_budget_add(&b, KS_METRIC_LABEL, "fwd", 1, 10, &err), KS_OK);
    assert_int_equal(ks_budget_add(&b, KS_METRIC_LABEL, "fwd2", 1, 3, &err), KS_OK); /* on neither side */
    run1(&p, &b, &g);
    assert_int_equal(g.n, 3);
    assert_true(fabs(g.r[0].limit - 0.03) < 1e-12);
    assert_true(fabs(g.r[1].limit - 0.10) < 1e-12);
    if (g.r[0].status != KS_GATE_PASS || g.r[1].status != KS_GATE_PASS)
        fail_msg("%s | %s", g.r[0].cmp.reason, g.r[1].cmp.reason);
    assert_int_equal(g.r[0].status, KS_GATE_PASS);
    assert_int_equal(g.r[1].status, KS_GATE_PASS); /* +6 %, but its interval lies inside its own 10 % */
    assert_int_equal(g.r[2].status, KS_GATE_ERROR);
    assert_non_null(strstr(g.r[2].error, "no label named 'fwd2'"));
    assert_int_equal(ks_gate_exit(&g, 1), 2);
    /* Holm over the two evaluated checks: the smaller raw p doubles */
    const ks_compare *c0 = &g.r[0].cmp, *c1 = &g.r[1].cmp;
    assert_int_equal(c0->holm_m, 2);
    assert_int_equal(c1->holm_m, 2);
    assert_true(c1->mwu.p < c0->mwu.p);
    assert_true(fabs(c1->p - 2 * c1->mwu.p) < 1e-15);
    assert_true(c0->p >= c0->mwu.p);
    ks_gate_free(&g);
    ks_budget_free(&b);

    /* budget threshold_pct is the default limit */
    b.has_threshold = 1;
    b.threshold_pct = 10;
    assert_int_equal(ks_budget_add(&b, KS_METRIC_LABEL, "fwd", 0, 0, &err), KS_OK);
    run1(&p, &b, &g);
    assert_true(fabs(g.r[0].limit - 0.10) < 1e-12);
    assert_true(fabs(g.opts.params.threshold - 0.10) < 1e-12);
    ks_gate_free(&g);
    ks_budget_free(&b);
    pair_free(&p);
}

static void points_and_launches(void **state)
{
    (void)state;
    pair p;
    ks_gate g;
    ks_budget b = {0};
    ks_error err;
    simple_pair(&p, 30, 1.00, 1.00, 11);
    for (size_t k = 0; k < p.nb; k++)
        for (size_t i = 0; i < 30; i++) {
            p.b[k].gpu_idle[i] += 5; /* +5 points of idle */
            p.b[k].launches[i] = 51; /* one more kernel per step */
        }
    assert_int_equal(ks_budget_add(&b, KS_METRIC_GPU_IDLE, NULL, 0, 0, &err), KS_OK); /* default 2 points */
    assert_int_equal(ks_budget_add(&b, KS_METRIC_LAUNCHES, NULL, 0, 0, &err), KS_OK);  /* default: no growth */
    run1(&p, &b, &g);
    const ks_gate_result *idle = &g.r[0], *launches = &g.r[1];
    assert_string_equal(idle->unit, "points");
    assert_true(idle->limit == 2);
    double da = 0, db = 0; /* the difference of the means of the per-run medians */
    for (size_t k = 0; k < 3; k++) {
        da += ks_median(p.a[k].gpu_idle, 30) / 3;
        db += ks_median(p.b[k].gpu_idle, 30) / 3;
    }
    assert_int_equal(idle->cmp.method, KS_METHOD_RUNS);
    assert_true(fabs(idle->diff - (db - da)) < 1e-9);
    assert_true(idle->diff > 4 && idle->diff < 6);
    assert_true(idle->diff_lo > 2 && idle->diff_hi < 8);
    assert_true(isnan(idle->cmp.ratio));
    assert_int_equal(idle->status, KS_GATE_REGRESSION);
    assert_true(launches->limit == 0);
    assert_int_equal(launches->status, KS_GATE_REGRESSION);
    /* every run has the same median: the interval is the point 51/50, p = 0 */
    assert_true(fabs(launches->cmp.ci_lo - 51.0 / 50) < 1e-12 && fabs(launches->cmp.ci_hi - 51.0 / 50) < 1e-12);
    assert_true(launches->cmp.mwu.p == 0);
    ks_gate_free(&g);
    ks_budget_free(&b);
    pair_free(&p);
}

static void default_set(void **state)
{
    (void)state;
    ks_rng r;
    ks_rng_seed(&r, 5);
    pair p = {.na = 1, .nb = 1};
    gt_profile(&p.a[0], "a", &r, 20, 1, 0.01);
    gt_profile(&p.b[0], "b", &r, 20, 1, 0.01);
    /* step 100 ms: big (40 %), edge (6 %) and gpu (10 %) join, small (4 %) does not */
    gt_series(&p.a[0], KS_METRIC_LABEL, "big", &r, 40e6, 0.01);
    gt_series(&p.a[0], KS_METRIC_LABEL, "small", &r, 4e6, 0.01);
    gt_series(&p.a[0], KS_METRIC_LABEL, "edge", &r, 6e6, 0.01);
    gt_series(&p.a[0], KS_METRIC_GPU_LABEL, "gpu", &r, 10e6, 0.01);
    gt_series(&p.b[0], KS_METRIC_LABEL, "big", &r, 40e6, 0.01);
    ks_gate g;
    ks_error err;
    assert_int_equal(ks_gate_run(p.a, 1, p.b, 1, NULL, NULL, &g, &err), KS_OK);
    assert_true(g.default_set);
    assert_int_equal(g.n, 4);
    assert_string_equal(g.r[0].title, "step_time");
    assert_string_equal(g.r[1].title, "label big");
    assert_string_equal(g.r[2].title, "label edge");
    assert_string_equal(g.r[3].title, "gpu_label gpu");
    for (size_t i = 0; i < g.n; i++)
        assert_true(g.r[i].from_default);
    /* edge and gpu are absent from the candidate: 0 per step there, a large improvement */
    assert_int_equal(g.r[2].status, KS_GATE_IMPROVEMENT);
    assert_true(g.r[2].nb == 20 && g.r[2].b[0] == 0);
    ks_gate_free(&g);
    pair_free(&p);
}

static void mismatch_and_kinds(void **state)
{
    (void)state;
    pair p;
    ks_gate g;
    ks_error err;
    simple_pair(&p, 10, 1, 1, 3);
    p.b[0].settings.with_stack = 1;
    assert_int_equal(ks_gate_run(p.a, 1, p.b, 1, NULL, NULL, &g, &err), KS_ERR);
    assert_true(g.input_error);
    assert_non_null(strstr(g.error, "with_stack off vs on"));
    assert_non_null(strstr(err.msg, "--allow-mismatch"));
    assert_int_equal(ks_gate_exit(&g, 0), 2);
    ks_gate_free(&g);
    ks_gate_opts o;
    ks_gate_opts_init(&o);
    o.allow_mismatch = 1;
    assert_int_equal(ks_gate_run(p.a, 1, p.b, 1, NULL, &o, &g, &err), KS_OK);
    assert_int_equal(g.nmismatch, 1);
    assert_true(g.nwarnings >= 1);
    assert_non_null(strstr(g.warnings[0], "compared anyway"));
    ks_gate_free(&g);
    p.b[0].settings.with_stack = 0;
    p.b[0].is_validate = 1;
    assert_int_equal(ks_gate_run(p.a, 1, p.b, 1, NULL, NULL, &g, &err), KS_ERR);
    assert_non_null(strstr(g.error, "compare traces with traces"));
    ks_gate_free(&g);
    assert_int_equal(ks_gate_run(p.a, 1, p.b, 0, NULL, NULL, &g, &err), KS_ERR);
    assert_non_null(strstr(g.error, "no candidate input"));
    ks_gate_free(&g);
    pair_free(&p);
}

static void validate_inputs(void **state)
{
    (void)state;
    ks_rng r;
    ks_rng_seed(&r, 9);
    ks_profile a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.source = ks_xstrdup("main.json");
    b.source = ks_xstrdup("pr.json");
    a.is_validate = b.is_validate = 1;
    a.settings.with_stack = b.settings.with_stack = -1;
    a.settings.gpu_activity = b.settings.gpu_activity = -1;
    a.settings.runtime_activity = b.settings.runtime_activity = -1;
    a.settings.record_shapes = a.settings.profile_memory = a.settings.with_modules = a.settings.with_flops = -1;
    b.settings.record_shapes = b.settings.profile_memory = b.settings.with_modules = b.settings.with_flops = -1;
    a.n = b.n = 30;
    gt_series(&a, KS_METRIC_VALIDATE, "w/base", &r, 1e6, 0.01);
    gt_series(&a, KS_METRIC_VALIDATE, "w/fused", &r, 0.5e6, 0.01);
    gt_series(&b, KS_METRIC_VALIDATE, "w/base", &r, 1e6, 0.01);
    gt_series(&b, KS_METRIC_VALIDATE, "w/fused", &r, 0.7e6, 0.01); /* the fused arm got 40 % slower */
    ks_gate g;
    ks_error err;
    assert_int_equal(ks_gate_run(&a, 1, &b, 1, NULL, NULL, &g, &err), KS_OK);
    assert_true(g.is_validate);
    assert_int_equal(g.n, 2);
    assert_string_equal(g.r[0].title, "validate w/base");
    /* one validate result per side is one run per side: no pass, and the 40 % slowdown is beyond
     * the limit plus the single-run margin */
    assert_int_equal(g.r[0].status, KS_GATE_INCONCLUSIVE);
    assert_int_equal(g.r[1].status, KS_GATE_REGRESSION);
    assert_int_equal(g.r[1].cmp.method, KS_METHOD_SINGLE_RUN);
    assert_int_equal(ks_gate_exit(&g, 1), 1);
    ks_gate_free(&g);
    ks_budget bud = {0};
    assert_int_equal(ks_budget_add(&bud, KS_METRIC_STEP_TIME, NULL, 0, 0, &err), KS_OK);
    assert_int_equal(ks_gate_run(&a, 1, &b, 1, &bud, NULL, &g, &err), KS_OK);
    assert_int_equal(g.r[0].status, KS_GATE_ERROR); /* a trace check on validate results */
    ks_gate_free(&g);
    ks_budget_free(&bud);
    ks_profile_free(&a);
    ks_profile_free(&b);
}

static void pooling_and_ranks(void **state)
{
    (void)state;
    ks_rng r;
    ks_rng_seed(&r, 21);
    pair p = {.na = 2, .nb = 2};
    gt_profile(&p.a[0], "a0", &r, 6, 1, 0.01);
    gt_profile(&p.a[1], "a1", &r, 6, 1, 0.01);
    gt_profile(&p.b[0], "b0", &r, 6, 1, 0.01);
    gt_profile(&p.b[1], "b1", &r, 6, 1.3, 0.01);
    ks_gate g;
    ks_error err;
    ks_budget b = {0};
    assert_int_equal(ks_budget_add(&b, KS_METRIC_STEP_TIME, NULL, 0, 0, &err), KS_OK);
    /* no ranks: two runs per side, 12 samples per side, per-input medians shown; the candidate's
     * runs disagree by 30 %: Welch over 2 + 2 runs cannot decide, and a warning names the side */
    assert_int_equal(ks_gate_run(p.a, 2, p.b, 2, &b, NULL, &g, &err), KS_OK);
    assert_int_equal(g.n, 1);
    assert_int_equal(g.r[0].na, 12);
    assert_int_equal(g.r[0].nper_b, 2);
    assert_true(g.r[0].per_b[1].median > 1.25 * g.r[0].per_b[0].median);
    assert_false(g.r[0].has_rank);
    assert_int_equal(g.r[0].cmp.method, KS_METHOD_RUNS);
    assert_int_equal(g.r[0].cmp.runs_a, 2);
    assert_int_equal(g.r[0].status, KS_GATE_INCONCLUSIVE);
    int spread = 0;
    for (size_t w = 0; w < g.nwarnings; w++)
        spread += strstr(g.warnings[w], "the candidate's per-run medians disagree") != NULL;
    assert_int_equal(spread, 1);
    ks_gate_free(&g);
    /* two ranks per side: one check per rank, the regression named by its rank */
    p.a[0].has_rank = p.a[1].has_rank = p.b[0].has_rank = p.b[1].has_rank = 1;
    p.a[1].rank = p.b[1].rank = 1;
    assert_int_equal(ks_gate_run(p.a, 2, p.b, 2, &b, NULL, &g, &err), KS_OK);
    assert_int_equal(g.n, 2);
    assert_string_equal(g.r[0].title, "step_time [rank 0]");
    assert_string_equal(g.r[1].title, "step_time [rank 1]");
    assert_int_equal(g.r[0].na, 6);
    /* one trace per rank and side: one run per side */
    assert_int_equal(g.r[0].status, KS_GATE_INCONCLUSIVE);
    assert_int_equal(g.r[1].status, KS_GATE_REGRESSION); /* +30 %: beyond 5 % + the 15 % margin */
    ks_gate_free(&g);
    /* a rank on one side only */
    p.b[1].rank = 2;
    assert_int_equal(ks_gate_run(p.a, 2, p.b, 2, &b, NULL, &g, &err), KS_ERR);
    assert_non_null(strstr(g.error, "rank 1 has baseline traces but no candidate traces"));
    ks_gate_free(&g);
    ks_budget_free(&b);
    pair_free(&p);
}

/* Laws over many random gates of four checks: the printed interval (at its Holm-consistent
 * level) and the verdict never disagree, and the adjusted p agrees with the interval. */
static void interval_and_verdict_agree(void **state)
{
    (void)state;
    size_t seen[5] = {0};
    for (uint64_t seed = 1; seed <= 60; seed++) {
        ks_rng r;
        ks_rng_seed(&r, seed);
        pair p;
        double step = 1 + 0.15 * ks_rng_double(&r), fwd = 0.9 + 0.2 * ks_rng_double(&r);
        pair_runs(&p, 2 + seed % 2, 8, step, fwd, seed * 7);
        for (size_t k = 0; k < p.nb; k++) /* a third label, noisier on the candidate */
            gt_series(&p.b[k], KS_METRIC_LABEL, "bwd", &r, 30e6 * (1 + 0.04 * ks_rng_normal(&r)), 0.02);
        for (size_t k = 0; k < p.na; k++)
            gt_series(&p.a[k], KS_METRIC_LABEL, "bwd", &r, 30e6 * (1 + 0.04 * ks_rng_normal(&r)), 0.02);
        ks_budget b = {0};
        ks_error err;
        ks_budget_add(&b, KS_METRIC_STEP_TIME, NULL, 0, 0, &err);
        ks_budget_add(&b, KS_METRIC_LABEL, "fwd", 0, 0, &err);
        ks_budget_add(&b, KS_METRIC_LABEL, "bwd", 0, 0, &err);
        ks_budget_add(&b, KS_METRIC_GPU_IDLE, NULL, 0, 0, &err);
        ks_gate g;
        run1(&p, &b, &g);
        assert_int_equal(g.n, 4);
        for (size_t i = 0; i < g.n; i++) {
            const ks_gate_result *x = &g.r[i];
            const ks_compare *c = &x->cmp;
            int pts = ks_metric_points(x->metric);
            double lo = c->ci_lo, hi = c->ci_hi, null = pts ? 0 : 1, up = pts ? x->limit : 1 + x->limit;
            double down = pts ? -x->limit : 1 - x->limit;
            seen[x->status]++;
            assert_int_equal(c->holm_m, 4);
            if (lo > up)
                assert_int_equal(x->status, KS_GATE_REGRESSION);
            if (hi < down)
                assert_int_equal(x->status, KS_GATE_IMPROVEMENT);
            if (x->status == KS_GATE_REGRESSION)
                assert_true(lo > null);
            if (x->status == KS_GATE_IMPROVEMENT)
                assert_true(hi < null);
            if (x->status == KS_GATE_PASS)
                assert_true(lo >= down && hi <= up);
            /* Welch: the interval excludes the null exactly when the Holm-adjusted p < alpha */
            assert_int_equal(lo > null || hi < null, c->p < 0.05);
            /* the caveat, and the interval as printed, agree with the verdict */
            int crosses = (x->status == KS_GATE_REGRESSION && lo < up) || (x->status == KS_GATE_IMPROVEMENT && hi > down);
            assert_int_equal(c->caveat[0] != '\0', crosses);
            char iv[64];
            double plo, phi;
            ks_gate_fmt_ci(iv, sizeof iv, x);
            assert_int_equal(sscanf(iv, "[%lf, %lf]", &plo, &phi), 2);
            if (x->status == KS_GATE_REGRESSION)
                assert_true(plo > null && (plo < up) == crosses);
            if (x->status == KS_GATE_PASS)
                assert_true(plo >= down && phi <= up);
            if (x->status == KS_GATE_INCONCLUSIVE)
                assert_false(plo > up || phi < down || (plo >= down && phi <= up));
            assert_true(c->ci_level >= 0.95 - 1e-12 && c->ci_level <= 1 - 0.05 / 4 + 1e-12);
        }
        ks_gate_free(&g);
        ks_budget_free(&b);
        pair_free(&p);
    }
    assert_true(seen[KS_GATE_REGRESSION] > 0 && seen[KS_GATE_PASS] > 0 && seen[KS_GATE_INCONCLUSIVE] > 0);
}

/* The case: a clear slowdown whose raw 95 % interval lies above the limit is not made
 * inconclusive by three unrelated checks that pass: its interval is recomputed at the Holm
 * level, and the verdict follows that interval. */
static void holm_does_not_dilute_a_clear_failure(void **state)
{
    (void)state;
    pair p;
    pair_runs(&p, 3, 20, 1.25, 1.0, 99);
    ks_rng r;
    ks_rng_seed(&r, 4);
    for (size_t k = 0; k < 3; k++) {
        gt_series(&p.a[k], KS_METRIC_LABEL, "x", &r, 20e6, 0.01);
        gt_series(&p.b[k], KS_METRIC_LABEL, "x", &r, 20e6, 0.01);
        gt_series(&p.a[k], KS_METRIC_LABEL, "y", &r, 10e6, 0.01);
        gt_series(&p.b[k], KS_METRIC_LABEL, "y", &r, 10e6, 0.01);
    }
    ks_budget b = {0};
    ks_error err;
    ks_budget_add(&b, KS_METRIC_STEP_TIME, NULL, 0, 0, &err);
    ks_budget_add(&b, KS_METRIC_LABEL, "fwd", 0, 0, &err);
    ks_budget_add(&b, KS_METRIC_LABEL, "x", 0, 0, &err);
    ks_budget_add(&b, KS_METRIC_LABEL, "y", 0, 0, &err);
    ks_gate g;
    run1(&p, &b, &g);
    const ks_compare *c = &g.r[0].cmp;
    assert_int_equal(g.r[0].status, KS_GATE_REGRESSION);
    assert_true(c->mwu.p < 0.05 / 4 / 100); /* a clear failure: raw p tiny */
    assert_true(c->caveat[0] == '\0');     /* its interval lies wholly above the limit */
    assert_true(fabs(c->ci_level - (1 - 0.05 / 4)) < 1e-12); /* the smallest p: level 1 - alpha/m */
    assert_true(c->ci_lo > 1.05);
    for (size_t i = 1; i < 4; i++)
        assert_int_equal(g.r[i].status, KS_GATE_PASS);
    assert_int_equal(ks_gate_exit(&g, 1), 1);
    ks_gate_free(&g);
    ks_budget_free(&b);
    pair_free(&p);
}

static void runs_per_side_min(void **state)
{
    (void)state;
    pair p;
    pair_runs(&p, 2, 20, 1.0, 1.0, 5);
    ks_budget b = {0};
    ks_error err;
    ks_budget_add(&b, KS_METRIC_STEP_TIME, NULL, 0, 0, &err);
    ks_gate_opts o;
    ks_gate_opts_init(&o);
    o.params.min_runs = 3;
    ks_gate g;
    assert_int_equal(ks_gate_run(p.a, 2, p.b, 2, &b, &o, &g, &err), KS_OK);
    assert_int_equal(g.r[0].status, KS_GATE_INCONCLUSIVE);
    assert_non_null(strstr(g.r[0].cmp.reason, "at least 3 per side required"));
    ks_gate_free(&g);
    /* different step counts and warm-up on one side only are warned about */
    p.b[1].n = 15;
    p.a[0].nwarmup = 2;
    assert_int_equal(ks_gate_run(p.a, 2, p.b, 2, &b, NULL, &g, &err), KS_OK);
    int steps = 0, warm = 0;
    for (size_t w = 0; w < g.nwarnings; w++) {
        steps += strstr(g.warnings[w], "different numbers of active steps (baseline 20, 20; candidate 20, 15)") != NULL;
        warm += strstr(g.warnings[w], "warm-up steps were left out of the baseline (2) but none of the candidate") !=
                NULL;
    }
    assert_int_equal(steps, 1);
    assert_int_equal(warm, 1);
    p.b[1].n = 20;
    ks_gate_free(&g);
    ks_budget_free(&b);
    pair_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exit_code_precedence), cmocka_unit_test(verdicts),
        cmocka_unit_test(limits_and_holm),      cmocka_unit_test(points_and_launches),
        cmocka_unit_test(default_set),          cmocka_unit_test(mismatch_and_kinds),
        cmocka_unit_test(validate_inputs),      cmocka_unit_test(pooling_and_ranks),
        cmocka_unit_test(interval_and_verdict_agree), cmocka_unit_test(holm_does_not_dilute_a_clear_failure),
        cmocka_unit_test(runs_per_side_min),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
