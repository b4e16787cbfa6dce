/* tests/compare/test_diff.c: the aligned tables of diff on fixtures/compare/before.json and
 * after.json (numbers in fixtures/compare/gen.py): statuses, deltas, order by impact, kernel
 * rows merged by normalisation, the settings warning, the step comparison. */
#include "ks_test.h"

#include "kinesift/compare.h"

typedef struct side {
    ks_trace *t;
    ks_analysis *a;
    ks_steps st;
} side;

static void load(const char *fixture, side *s)
{
    ks_error err;
    s->t = ks_test_load(ks_fixture(fixture));
    assert_int_equal(ks_analyze(s->t, NULL, &s->a, &err), KS_OK);
    assert_int_equal(ks_steps_find(s->a, NULL, &s->st, &err), KS_OK);
}

static void unload(side *s)
{
    ks_steps_free(&s->st);
    ks_analysis_free(s->a);
    ks_trace_free(s->t);
}

static const ks_diff_row *find(const ks_diff_table *t, const char *name, size_t *pos)
{
    if (pos)
        *pos = SIZE_MAX; /* fail_msg longjmps out; the caller's value is never used then */
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i].name, name)) {
            if (pos)
                *pos = i;
            return &t->v[i];
        }
    fail_msg("no row %s", name);
    return NULL;
}

static void build(int normalize, ks_diff *d, side *b, side *a)
{
    load("compare/before.json", b);
    load("compare/after.json", a);
    ks_diff_opts o;
    ks_diff_opts_init(&o);
    o.normalize_kernels = normalize;
    ks_error err;
    assert_int_equal(ks_diff_build(b->a, &b->st, a->a, &a->st, &o, d, &err), KS_OK);
}

static void operators(void **state)
{
    (void)state;
    side b, a;
    ks_diff d;
    build(0, &d, &b, &a);
    size_t pmm, padd, pmul, prelu;
    /* the step annotation is no row (its number differs from trace to trace; the steps are
     * compared as steps): ProfilerStep#1 of each side, in its operators and its labels, 4 rows
     * left out */
    for (size_t i = 0; i < d.ops.n; i++)
        assert_null(strstr(d.ops.v[i].name, "ProfilerStep#"));
    for (size_t i = 0; i < d.labels.n; i++)
        assert_null(strstr(d.labels.v[i].name, "ProfilerStep#"));
    assert_int_equal(d.step_rows, 4);
    const ks_diff_row *mm = find(&d.ops, "aten::mm", &pmm);
    const ks_diff_row *add = find(&d.ops, "aten::add", &padd);
    const ks_diff_row *mul = find(&d.ops, "aten::mul", &pmul);
    const ks_diff_row *relu = find(&d.ops, "aten::relu", &prelu);
    assert_int_equal(mm->status, KS_DIFF_CHANGED);
    assert_true(mm->before.count == 2 && mm->after.count == 3);
    assert_true(mm->before.self_ns == 80000 && mm->after.self_ns == 120000);
    assert_true(mm->before.incl_ns == 80000 && mm->after.incl_ns == 120000);
    assert_string_equal(mm->cat, "cpu_op");
    assert_int_equal(add->status, KS_DIFF_REMOVED);
    assert_false(add->after.present);
    assert_true(add->before.self_ns == 30000);
    assert_int_equal(mul->status, KS_DIFF_ADDED);
    assert_false(mul->before.present);
    assert_int_equal(relu->status, KS_DIFF_SAME);
    assert_int_equal(relu->impact_ns, 0);
    assert_int_equal(mm->impact_ns, 40000);
    assert_true(pmm < padd && padd < pmul && pmul < prelu); /* ties by name */
    for (size_t i = 1; i < d.ops.n; i++)
        assert_true(d.ops.v[i - 1].impact_ns >= d.ops.v[i].impact_ns);
    assert_int_equal(d.ops.added, 1);
    assert_int_equal(d.ops.removed, 1);
    /* settings: after.json was captured with_stack */
    assert_int_equal(d.nmismatch, 1);
    assert_string_equal(d.mismatch[0].what, "with_stack");
    /* one step each side: compared, but too few samples for a verdict */
    assert_int_equal(d.steps.nbefore, 1);
    assert_int_equal(d.steps.nafter, 1);
    assert_int_equal(d.steps.cmp.verdict, KS_VERDICT_INCONCLUSIVE);
    ks_diff_free(&d);
    unload(&b);
    unload(&a);
}

static void kernels(void **state)
{
    (void)state;
    side b, a;
    ks_diff d;
    build(0, &d, &b, &a);
    const ks_diff_row *kf = find(&d.kernels, "void k<float>(int)", NULL);
    const ks_diff_row *kh = find(&d.kernels, "void k<half>(int)", NULL);
    assert_int_equal(kf->status, KS_DIFF_CHANGED);
    assert_true(kf->before.incl_ns == 20000 && kf->after.incl_ns == 40000);
    assert_int_equal(kf->impact_ns, 20000);
    assert_string_equal(kf->cat, "kernel");
    assert_int_equal(kh->status, KS_DIFF_SAME);
    assert_int_equal(d.kernels.n, 2);
    ks_diff_free(&d);
    unload(&b);
    unload(&a);

    build(1, &d, &b, &a);
    assert_int_equal(d.kernels.n, 1);
    const ks_diff_row *k = &d.kernels.v[0];
    assert_string_equal(k->name, "k");
    assert_true(k->before.count == 2 && k->after.count == 2);
    assert_true(k->before.incl_ns == 30000 && k->after.incl_ns == 50000);
    assert_true(k->before.names == 2 && k->after.names == 2);
    ks_diff_free(&d);
    unload(&b);
    unload(&a);
}

static void same_trace_no_change(void **state)
{
    (void)state;
    side b, a;
    load("compare/steps.json", &b);
    load("compare/steps.json", &a);
    ks_diff d;
    ks_error err;
    assert_int_equal(ks_diff_build(b.a, &b.st, a.a, &a.st, NULL, &d, &err), KS_OK);
    const ks_diff_table *t[3] = {&d.ops, &d.labels, &d.kernels};
    for (int k = 0; k < 3; k++) {
        assert_true(t[k]->n > 0);
        assert_int_equal(t[k]->changed + t[k]->added + t[k]->removed, 0);
    }
    assert_int_equal(d.nmismatch, 0);
    assert_int_equal(d.steps.nbefore, 6);
    assert_true(d.steps.cmp.ratio == 1);
    /* 6 identical steps per side, but one trace per side is one run per side: the gate's rule
     * cannot tell a change from run-to-run variation, so not no-change (statistics.md section 8) */
    assert_int_equal(d.steps.cmp.method, KS_METHOD_SINGLE_RUN);
    assert_int_equal(d.steps.cmp.verdict, KS_VERDICT_INCONCLUSIVE);
    assert_true(d.steps.cmp.ci_lo <= 1 && d.steps.cmp.ci_hi >= 1);
    ks_diff_free(&d);
    unload(&b);
    unload(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(operators),
        cmocka_unit_test(kernels),
        cmocka_unit_test(same_trace_no_change),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
