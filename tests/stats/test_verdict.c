/* tests/stats/test_verdict.c: every branch of the verdict rule (statistics.md section 3),
 * the reasons and suggestions, the Holm adjustment, and the JSON form of a compared metric. */
#include "ks_test.h"

#include <math.h>
#include <yajl/yajl_tree.h>

#include "common/jsonw.h"
#include "kinesift/stats.h"
#include "stats/stats_int.h"
#include "stats/stats_json.h"

/* n values around base with a fixed, symmetric spread of +/- spread. */
static void fill(double *x, int n, double base, double spread)
{
    for (int i = 0; i < n; i++)
        x[i] = base + spread * ((i * 7) % n - (n - 1) / 2.0) / n;
}

static ks_compare run(const double *a, int na, const double *b, int nb, size_t da, size_t db,
                      const ks_compare_params *p)
{
    ks_compare c;
    assert_int_equal(ks_compare_samples(a, (size_t)na, b, (size_t)nb, da, db, p, &c), 0);
    assert_true(c.reason[0] != '\0');
    return c;
}

static void faster_slower_nochange(void **state)
{
    (void)state;
    ks_compare_params p;
    ks_compare_params_gate(&p);
    double a[30], b[30];
    fill(a, 30, 100, 2);
    fill(b, 30, 80, 2);
    ks_compare c = run(a, 30, b, 30, 0, 0, &p);
    assert_int_equal(c.verdict, KS_VERDICT_FASTER);
    assert_string_equal(ks_verdict_name(c.verdict), "faster");
    assert_true(c.ci_hi < 0.95 && c.p < 0.05 && c.suggestion[0] == '\0');
    assert_true(fabs(c.ratio - c.b.median / c.a.median) < 1e-15);
    fill(b, 30, 120, 2);
    c = run(a, 30, b, 30, 0, 0, &p);
    assert_int_equal(c.verdict, KS_VERDICT_SLOWER);
    assert_true(c.ci_lo > 1.05);
    fill(b, 30, 100.5, 2);
    c = run(a, 30, b, 30, 0, 0, &p);
    assert_int_equal(c.verdict, KS_VERDICT_NO_CHANGE);
    assert_string_equal(ks_verdict_name(c.verdict), "no-change");
    /* no-change holds even when p < alpha: an equivalence claim (2 % apart, 5 % threshold) */
    fill(b, 30, 102, 0.5);
    c = run(a, 30, b, 30, 0, 0, &p);
    assert_true(c.p < 0.05);
    assert_int_equal(c.verdict, KS_VERDICT_NO_CHANGE);
    /* with the validate threshold (2 %) the same 2 % change sits on the threshold:
     * significant, but the CI overlaps 1 + 2 %: inconclusive */
    ks_compare_params v;
    ks_compare_params_validate(&v);
    c = run(a, 30, b, 30, 0, 0, &v);
    assert_int_equal(c.verdict, KS_VERDICT_INCONCLUSIVE);
    assert_non_null(strstr(c.reason, "significant"));
    assert_true(c.suggestion[0] != '\0');
}

static void preconditions(void **state)
{
    (void)state;
    ks_compare_params p;
    ks_compare_params_gate(&p);
    double a[30], b[30];
    fill(a, 30, 100, 2);
    fill(b, 30, 50, 2);
    /* too few samples: 4 per side for a minimum of 5, however clear the effect */
    ks_compare c = run(a, 4, b, 4, 0, 0, &p);
    assert_int_equal(c.verdict, KS_VERDICT_INCONCLUSIVE);
    assert_non_null(strstr(c.reason, "too few samples"));
    assert_non_null(strstr(c.suggestion, "more samples"));
    /* validate needs 9 per side */
    ks_compare_params v;
    ks_compare_params_validate(&v);
    c = run(a, 8, b, 30, 0, 0, &v);
    assert_int_equal(c.verdict, KS_VERDICT_INCONCLUSIVE);
    c = run(a, 9, b, 9, 0, 0, &v);
    assert_int_equal(c.verdict, KS_VERDICT_FASTER);
    /* more than 10 % discarded for throttling: 2 of 12 */
    c = run(a, 10, b, 30, 2, 0, &v);
    assert_int_equal(c.verdict, KS_VERDICT_INCONCLUSIVE);
    assert_non_null(strstr(c.reason, "throttled"));
    c = run(a, 30, b, 30, 3, 3, &v); /* 3 of 33: 9 %, allowed */
    assert_int_equal(c.verdict, KS_VERDICT_FASTER);
    /* minimum attainable p not below alpha: 3 + 3 samples when the minimum count allows it */
    ks_compare_params loose = p;
    loose.min_samples = 3;
    c = run(a, 3, b, 3, 0, 0, &loose);
    assert_int_equal(c.verdict, KS_VERDICT_INCONCLUSIVE);
    assert_non_null(strstr(c.reason, "smallest attainable p"));
    assert_true(fabs(c.min_p - 0.1) < 1e-12);
    /* a baseline median of 0: no ratio */
    double z[10] = {0};
    c = run(z, 10, b, 10, 0, 0, &p);
    assert_int_equal(c.verdict, KS_VERDICT_INCONCLUSIVE);
    assert_true(isnan(c.ratio));
}

static void inconclusive_reasons(void **state)
{
    (void)state;
    ks_compare_params p;
    ks_compare_params_gate(&p);
    double a[30], b[30];
    /* exactly 5 % slower, every sample: significant, CI around 1.05 straddles 1 + 5 % */
    fill(a, 30, 100, 1);
    for (int i = 0; i < 30; i++)
        b[i] = a[i] * 1.05;
    ks_compare c = run(a, 30, b, 30, 0, 0, &p);
    assert_int_equal(c.verdict, KS_VERDICT_INCONCLUSIVE);
    assert_true(c.p < 1e-10 && c.ci_lo < 1.05 && c.ci_hi > 1.05);
    assert_non_null(strstr(c.reason, "overlaps the threshold"));
    /* very noisy, no real difference: a wide CI and no significance */
    fill(a, 30, 100, 80);
    fill(b, 30, 100, 80);
    b[0] += 1; /* not identical */
    c = run(a, 30, b, 30, 0, 0, &p);
    assert_int_equal(c.verdict, KS_VERDICT_INCONCLUSIVE);
    assert_true(c.p >= 0.05);
    assert_non_null(strstr(c.reason, "no significant difference"));
    assert_non_null(strstr(c.suggestion, "noisy"));
}

static void holm(void **state)
{
    (void)state;
    /* sorted 0.005 0.01 0.03 0.04 -> 4 x .005 = .02, 3 x .01 = .03, 2 x .03 = .06,
     * max(.06, 1 x .04) = .06 */
    double pv[] = {0.01, 0.04, 0.03, 0.005}, adj[4];
    ks_holm(pv, 4, adj);
    assert_true(fabs(adj[0] - 0.03) < 1e-15);
    assert_true(fabs(adj[1] - 0.06) < 1e-15);
    assert_true(fabs(adj[2] - 0.06) < 1e-15);
    assert_true(fabs(adj[3] - 0.02) < 1e-15);
    double big[] = {0.5, 0.6};
    ks_holm(big, 2, big); /* in place, capped at 1 */
    assert_true(big[0] == 1 && big[1] == 1);

    /* three metrics: a clear gain stays faster with p tripled; a significant p of the
     * normal test that is no longer below alpha after adjustment turns inconclusive */
    ks_compare_params p;
    ks_compare_params_gate(&p);
    double a[60], b[60];
    fill(a, 60, 100, 2);
    fill(b, 60, 80, 2);
    ks_compare c[3];
    ks_compare_samples(a, 60, b, 60, 0, 0, &p, &c[0]);
    ks_compare_samples(a, 60, a, 60, 0, 0, &p, &c[1]);
    ks_compare_samples(a, 60, b, 60, 0, 0, &p, &c[2]);
    double raw0 = c[0].mwu.p;
    ks_compare_holm(c, 3, &p);
    assert_int_equal(c[0].holm_m, 3);
    assert_true(fabs(c[0].p - fmin(1, 3 * raw0)) <= 1e-12 * c[0].p);
    assert_int_equal(c[0].verdict, KS_VERDICT_FASTER);
    assert_int_equal(c[1].verdict, KS_VERDICT_NO_CHANGE);
    assert_true(c[1].p == 1);
}

static void different_results(void **state)
{
    (void)state;
    ks_compare_params p;
    ks_compare_params_validate(&p);
    double a[30], b[30];
    fill(a, 30, 100, 2);
    fill(b, 30, 50, 2);
    ks_compare c;
    ks_compare_samples(a, 30, b, 30, 0, 0, &p, &c);
    ks_compare_set_different(&c, "element 3: 1.5 vs 1.25");
    assert_int_equal(c.verdict, KS_VERDICT_DIFFERENT_RESULTS);
    assert_string_equal(ks_verdict_name(c.verdict), "different-results");
    assert_non_null(strstr(c.reason, "element 3"));
    ks_compare_holm(&c, 1, &p); /* a later adjustment keeps it */
    assert_int_equal(c.verdict, KS_VERDICT_DIFFERENT_RESULTS);
}

static yajl_val get(yajl_val v, const char *a, const char *b)
{
    const char *path[] = {a, b, NULL};
    return yajl_tree_get(v, path, yajl_t_any);
}

static void json_metric(void **state)
{
    (void)state;
    ks_compare_params p;
    ks_compare_params_gate(&p);
    double a[10], b[10];
    fill(a, 10, 1000000, 2000);
    fill(b, 10, 800000.4, 2000);
    ks_compare c;
    ks_compare_samples(a, 10, b, 10, 0, 0, &p, &c);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ks_jw w;
    ks_jw_open(&w, f, 0);
    ks_compare_json_metric(&w, "step", &c, &p, a, 10, b, 10);
    assert_int_equal(ks_jw_close(&w), 0);
    fclose(f);
    char err[256];
    yajl_val v = yajl_tree_parse(buf, err, sizeof err);
    assert_non_null(v);
    assert_string_equal(YAJL_GET_STRING(get(v, "name", NULL)), "step");
    assert_string_equal(YAJL_GET_STRING(get(v, "unit", NULL)), "ns");
    assert_string_equal(YAJL_GET_STRING(get(v, "verdict", NULL)), "faster");
    assert_string_equal(YAJL_GET_STRING(get(v, "test", NULL)), "mwu-exact");
    assert_true(YAJL_IS_NULL(get(v, "suggestion", NULL)));
    yajl_val ci = get(v, "ci", NULL);
    assert_true(YAJL_IS_ARRAY(ci) && ci->u.array.len == 2);
    assert_true(fabs(YAJL_GET_DOUBLE(ci->u.array.values[0]) - c.ci_lo) < 1e-5);
    assert_int_equal(YAJL_GET_INTEGER(get(v, "baseline", "n")), 10);
    /* durations are integer ns: the median 800000.4 is written as 800000 */
    yajl_val med = get(v, "candidate", "median");
    assert_true(YAJL_IS_INTEGER(med));
    assert_int_equal(YAJL_GET_INTEGER(med), llround(c.b.median));
    yajl_val s = get(v, "candidate", "samples");
    assert_true(YAJL_IS_ARRAY(s) && s->u.array.len == 10);
    assert_int_equal(YAJL_GET_INTEGER(s->u.array.values[3]), llround(b[3]));
    assert_true(YAJL_IS_NUMBER(get(v, "p", NULL)));
    yajl_tree_free(v);
    free(buf);
    /* an empty side writes nulls, not zeros */
    ks_compare_samples(a, 10, NULL, 0, 0, 0, &p, &c);
    f = open_memstream(&buf, &len);
    ks_jw_open(&w, f, 0);
    ks_compare_json_metric(&w, "x", &c, &p, a, 10, NULL, 0);
    ks_jw_close(&w);
    fclose(f);
    v = yajl_tree_parse(buf, err, sizeof err);
    assert_non_null(v);
    assert_true(YAJL_IS_NULL(get(v, "candidate", "median")));
    assert_true(YAJL_IS_NULL(get(v, "ratio", NULL)));
    assert_true(YAJL_IS_NULL(get(v, "test", NULL)));
    assert_string_equal(YAJL_GET_STRING(get(v, "verdict", NULL)), "inconclusive");
    yajl_tree_free(v);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(faster_slower_nochange),
        cmocka_unit_test(preconditions),
        cmocka_unit_test(inconclusive_reasons),
        cmocka_unit_test(holm),
        cmocka_unit_test(different_results),
        cmocka_unit_test(json_metric),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
