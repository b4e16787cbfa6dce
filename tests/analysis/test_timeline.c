/* tests/analysis/test_timeline.c: nesting, self and inclusive time, percentiles, overlap policies
 * and B/E pairing on the fixtures of fixtures/analysis/, against values worked out by hand (the
 * reasoning is in the comments). */
#include "analysis_test.h"

static void nesting_self_and_inclusive(void **state)
{
    (void)state;
    ks_trace *t = ks_test_load(ks_fixture("analysis/nesting.json"));
    ks_analysis *a = analyse(t, NULL);
    /* step [0,100) holds op1 [10,50), aten::rec [60,90), zero_in [95,95): 100-40-30-0 */
    assert_int_equal(OP(a, "step")->self_ns, 30 * US);
    /* op1 appears on two threads: tid 1 [10,50) self 40-20 = 20, tid 2 [5,15) self 10 */
    assert_int_equal(OP(a, "op1")->self_ns, 30 * US);
    assert_int_equal(OP(a, "op1")->incl_ns, 50 * US); /* 40 + 10: threads add up */
    assert_int_equal(OP(a, "op2")->self_ns, 10 * US);
    assert_int_equal(OP(a, "op3")->self_ns, 7 * US);
    assert_int_equal(OP(a, "op4")->self_ns, 3 * US);
    /* recursion: [60,90) > [65,80) > [70,75); selfs 15 + 10 + 5; the union is 30, not 50 */
    const ks_op_row *rec = OP(a, "aten::rec");
    assert_int_equal(rec->count, 3);
    assert_int_equal(rec->self_ns, 30 * US);
    assert_int_equal(rec->incl_ns, 30 * US);
    assert_int_equal(ks_op_row_durs(rec).min_ns, 5 * US);
    assert_int_equal(ks_op_row_durs(rec).max_ns, 30 * US);
    assert_int_equal(ks_op_row_durs(rec).median_ns, 15 * US);
    assert_int_equal(ks_op_row_durs(rec).p90_ns, 27 * US);   /* 15 + 0.8 * (30 - 15) */
    assert_int_equal(ks_op_row_durs(rec).p99_ns, 29700);     /* 15 + 0.98 * 15 us */
    /* zero-length: inside the parent at 95, a sibling at the parent's end (100) */
    assert_string_equal(parent_name(a, 1, 1, find_slice(a, 1, 1, "zero_in", 0)), "step");
    assert_string_equal(parent_name(a, 1, 1, find_slice(a, 1, 1, "zero_at_end", 0)), "-");
    assert_int_equal(OP(a, "zero_in")->self_ns, 0);
    /* ties at equal start: the longer one is the parent although written second */
    assert_string_equal(parent_name(a, 1, 1, find_slice(a, 1, 1, "inner", 0)), "outer");
    assert_int_equal(OP(a, "outer")->self_ns, 30 * US);
    /* exact duplicates nest in file order and are reported */
    const ks_slice *d1 = find_slice(a, 1, 1, "dup", 1);
    assert_string_equal(parent_name(a, 1, 1, d1), "dup");
    assert_int_equal(OP(a, "dup")->self_ns, 10 * US);
    assert_int_equal(OP(a, "dup")->incl_ns, 10 * US);
    assert_int_equal(ks_diag_total(&a->diag, "timeline.exact_duplicates"), 1);
    /* labels: the user_annotation */
    assert_int_equal(LABEL(a, "step", "user_annotation")->incl_ns, 100 * US);
    /* depth */
    assert_int_equal(find_slice(a, 1, 1, "op4", 0)->depth, 4);
    /* an X slice ends where its event does: the timeline keeps no end for it */
    assert_false(find_slice(a, 1, 1, "op4", 0)->flags & KS_SF_OWN_END);
    assert_int_equal(slice_end(a, 1, 1, find_slice(a, 1, 1, "op4", 0)), 30 * US);
    /* innermost slice at a time */
    const ks_track *k = ks_test_track(t, 1, 1);
    const ks_timeline *tl = &a->tl[k - t->tracks];
    int32_t at = ks_timeline_at(t, tl, 28 * US, NULL);
    assert_string_equal(ks_trace_str(t, k->ev[tl->s[at].ev].name), "op4");
    at = ks_timeline_at(t, tl, 31 * US, NULL);
    assert_string_equal(ks_trace_str(t, k->ev[tl->s[at].ev].name), "op3");
    at = ks_timeline_at(t, tl, 55 * US, NULL);
    assert_string_equal(ks_trace_str(t, k->ev[tl->s[at].ev].name), "step");
    assert_int_equal(ks_timeline_at(t, tl, 150 * US, NULL), -1);
    /* a track the overlap policy did nothing to carries no overlap record (48 bytes a track in
     * all), and reads as all zeros */
    assert_int_equal(sizeof(ks_timeline), 48);
    /* the slice keeps no times (its event's start and duration give them) nor its lane (nothing
     * spilled: the track keeps no lanes): 12 bytes */
    assert_int_equal(sizeof(ks_slice), 12);
    assert_int_equal(tl->nlanes, 1);
    for (size_t i = 0; i < tl->n; i++)
        assert_int_equal(ks_slice_ts_at(tl, i), k->ev[tl->s[i].ev].ts);
    assert_null(tl->ov);
    const ks_timeline_overlaps *ov = ks_timeline_overlaps_of(tl);
    assert_true(ov->spilled == 0 && ov->dropped == 0 && ov->truncated == 0 && ov->reassigned_ns == 0 &&
                ov->clipped_ns == 0 && ov->dropped_ns == 0);
    ks_analysis_free(a);
    ks_trace_free(t);
}

static ks_analysis *with_policy(const ks_trace *t, const char *policy)
{
    ks_analysis_opts o;
    ks_analysis_opts_init(&o);
    assert_int_equal(ks_overlap_parse(policy, &o.overlap, &o.clamp_ns), 0);
    return analyse(t, &o);
}

static void overlap_policies(void **state)
{
    (void)state;
    ks_trace *t = ks_test_load(ks_fixture("analysis/overlap.json"));
    /* spill: B goes to an overflow lane; C stays under A */
    ks_analysis *a = with_policy(t, "spill");
    const ks_slice *b = find_slice(a, 1, 1, "B", 0);
    assert_int_equal(slice_lane(a, 1, 1, b), 1);
    assert_int_equal(slice_lane(a, 1, 1, find_slice(a, 1, 1, "C", 0)), 0);
    assert_true(b->flags & KS_SF_SPILLED);
    assert_non_null(a->tl[ks_test_track(t, 1, 1) - t->tracks].ov); /* the spill is counted */
    /* the thread ran [0,150): A keeps [0,100) less C; B only what lies outside A, [100,150) */
    assert_int_equal(OP(a, "A")->self_ns, 90 * US);
    assert_int_equal(OP(a, "B")->self_ns, 50 * US);
    assert_int_equal(OP(a, "C")->self_ns, 10 * US);
    assert_int_equal(ks_timeline_overlaps_of(&a->tl[0])->reassigned_ns, 50 * US);
    assert_string_equal(parent_name(a, 1, 1, find_slice(a, 1, 1, "C", 0)), "A");
    const ks_diag_kind *d = ks_diag_get(&a->diag, "timeline.partial_overlap");
    assert_non_null(d);
    assert_int_equal(d->count, 1);
    assert_non_null(strstr(d->ex[0].text, "by 50000 ns"));
    assert_int_equal(a->noverlaps, 1);
    assert_int_equal(a->overlaps[0].excess_ns, 50 * US);
    /* the Python frame is cut at L's start; L keeps its child K */
    const ks_slice *p = find_slice(a, 1, 1, "model.py(10): forward", 0);
    assert_int_equal(slice_end(a, 1, 1, p), 210 * US);
    assert_true(p->flags & KS_SF_OWN_END); /* cut: its event's duration no longer gives its end */
    assert_true(p->flags & KS_SF_TRUNCATED);
    assert_string_equal(parent_name(a, 1, 1, find_slice(a, 1, 1, "K", 0)), "L");
    assert_int_equal(LABEL(a, "L", NULL)->self_ns, 30 * US);
    assert_int_equal(ks_diag_total(&a->diag, "timeline.python_frame_cut"), 1);
    ks_analysis_free(a);

    /* truncate: B cut to [50,100) under A, C under B */
    a = with_policy(t, "truncate");
    assert_int_equal(OP(a, "A")->self_ns, 50 * US);
    assert_int_equal(OP(a, "B")->self_ns, 40 * US);
    assert_string_equal(parent_name(a, 1, 1, find_slice(a, 1, 1, "C", 0)), "B");
    assert_int_equal(ks_timeline_overlaps_of(&a->tl[0])->clipped_ns, 50 * US);
    ks_analysis_free(a);

    /* drop: B leaves the timeline, counted */
    a = with_policy(t, "drop");
    assert_int_equal(ks_timeline_overlaps_of(&a->tl[0])->dropped, 1);
    assert_int_equal(ks_timeline_overlaps_of(&a->tl[0])->dropped_ns, 100 * US);
    assert_int_equal(OP(a, "A")->self_ns, 90 * US);
    for (size_t i = 0; i < a->nops; i++)
        assert_string_not_equal(ks_trace_str(t, a->ops[i].name), "B");
    ks_analysis_free(a);

    /* clamp: an excess of 50 us is cut under a 60 us tolerance, spilled under 40 us */
    a = with_policy(t, "clamp:60000");
    assert_int_equal(OP(a, "B")->self_ns, 40 * US);
    ks_analysis_free(a);
    a = with_policy(t, "clamp:40000");
    assert_int_equal(slice_lane(a, 1, 1, find_slice(a, 1, 1, "B", 0)), 1);
    ks_analysis_free(a);

    ks_overlap_policy pol;
    ks_ns c;
    assert_int_not_equal(ks_overlap_parse("clamp:x", &pol, &c), 0);
    assert_int_not_equal(ks_overlap_parse("nope", &pol, &c), 0);
    ks_trace_free(t);
}

/* Σ self of the track's slices and the length of their union */
static void track_sums(const ks_analysis *a, int64_t tid, ks_ns *self, ks_ns *reassigned)
{
    const ks_track *k = ks_test_track(a->trace, 1, tid);
    const ks_timeline *tl = &a->tl[k - a->trace->tracks];
    ks_ns *v = ks_xcalloc(tl->n + 1, sizeof *v);
    ks_timeline_self(tl, v);
    *self = 0;
    for (size_t i = 0; i < tl->n; i++)
        *self += v[i];
    free(v);
    *reassigned = ks_timeline_overlaps_of(tl)->reassigned_ns;
}

#define SELF(a, name) (OP(a, name)->self_ns)

static void overlap_conservation(void **state)
{
    (void)state;
    ks_trace *t = ks_test_load(ks_fixture("analysis/overlap_chain.json"));
    ks_ns sum, re;

    /* spill: the main lane keeps the shared time, a spilled slice's self is what lies outside */
    ks_analysis *a = with_policy(t, "spill");
    /* tid 1: P [0,100000) ns, Q [40000,100001) spilled: Q owns only [100000,100001) */
    assert_int_equal(slice_lane(a, 1, 1, find_slice(a, 1, 1, "Q1", 0)), 1);
    assert_int_equal(SELF(a, "P1"), 100000);
    assert_int_equal(SELF(a, "Q1"), 1);
    track_sums(a, 1, &sum, &re);
    assert_int_equal(sum, 100001); /* the union [0, 100001) */
    assert_int_equal(re, 60000);
    /* tid 2: lane 0 holds P [0,100) > S [60,70) and R [120,130); Q [50,150) in lane 1 owns
     * [100,120) and [130,150) = 40 */
    assert_string_equal(parent_name(a, 1, 2, find_slice(a, 1, 2, "S2", 0)), "P2");
    assert_string_equal(parent_name(a, 1, 2, find_slice(a, 1, 2, "R2", 0)), "-");
    assert_int_equal(SELF(a, "P2"), 90 * US);
    assert_int_equal(SELF(a, "S2"), 10 * US);
    assert_int_equal(SELF(a, "R2"), 10 * US);
    assert_int_equal(SELF(a, "Q2"), 40 * US);
    track_sums(a, 2, &sum, &re);
    assert_int_equal(sum, 150 * US);
    assert_int_equal(re, 60 * US);
    /* tid 3: A lane 0, B lane 1, C lane 2: A [0,100), B [100,150), C [150,200) */
    assert_int_equal(slice_lane(a, 1, 3, find_slice(a, 1, 3, "C3", 0)), 2);
    assert_int_equal(SELF(a, "A3"), 100 * US);
    assert_int_equal(SELF(a, "B3"), 50 * US);
    assert_int_equal(SELF(a, "C3"), 50 * US);
    track_sums(a, 3, &sum, &re);
    assert_int_equal(sum, 200 * US);
    assert_int_equal(re, (50 + 70) * US);
    /* inclusive per name stays the union of the name's intervals */
    assert_int_equal(OP(a, "Q1")->incl_ns, 60001);
    assert_int_equal(OP(a, "C3")->incl_ns, 120 * US);
    /* the report says how much was re-assigned: 60000 + 60 us + 120 us */
    const ks_diag_kind *d = ks_diag_get(&a->diag, "timeline.self_time");
    assert_non_null(d);
    assert_non_null(strstr(d->ex[0].text, "240000 ns that slices in overflow lanes (at most 3 lanes"));
    ks_analysis_free(a);

    /* truncate: the slice is cut at its parent's end; the cut time leaves the track */
    a = with_policy(t, "truncate");
    assert_int_equal(SELF(a, "P1"), 40000);
    assert_int_equal(SELF(a, "Q1"), 60000);
    assert_int_equal(SELF(a, "P2"), 50 * US);
    assert_int_equal(SELF(a, "Q2"), 40 * US); /* [50,100) less S */
    assert_int_equal(SELF(a, "R2"), 10 * US);
    /* chain: B cut to [50,100) under A, C cut to [80,100) under B */
    assert_int_equal(SELF(a, "A3"), 50 * US);
    assert_int_equal(SELF(a, "B3"), 30 * US);
    assert_int_equal(SELF(a, "C3"), 20 * US);
    track_sums(a, 3, &sum, &re);
    assert_int_equal(sum, 100 * US);
    assert_int_equal(re, 0);
    assert_int_equal(ks_timeline_overlaps_of(&a->tl[ks_test_track(t, 1, 3) - t->tracks])->clipped_ns, 150 * US);
    assert_int_equal(ks_timeline_overlaps_of(&a->tl[ks_test_track(t, 1, 1) - t->tracks])->clipped_ns, 1);
    ks_analysis_free(a);

    /* drop: the slices that outlive their parent leave; the rest is untouched */
    a = with_policy(t, "drop");
    assert_int_equal(SELF(a, "P2"), 90 * US);
    assert_int_equal(SELF(a, "A3"), 100 * US);
    track_sums(a, 3, &sum, &re);
    assert_int_equal(sum, 100 * US);
    assert_int_equal(ks_timeline_overlaps_of(&a->tl[ks_test_track(t, 1, 3) - t->tracks])->dropped_ns, 220 * US);
    ks_analysis_free(a);

    /* clamp:60us: B (excess 50) is cut under A; C (excess 100 over the cut B) spills and owns
     * [100,200) */
    a = with_policy(t, "clamp:60000");
    assert_int_equal(slice_lane(a, 1, 3, find_slice(a, 1, 3, "C3", 0)), 1);
    assert_int_equal(SELF(a, "A3"), 50 * US);
    assert_int_equal(SELF(a, "B3"), 50 * US);
    assert_int_equal(SELF(a, "C3"), 100 * US);
    track_sums(a, 3, &sum, &re);
    assert_int_equal(sum, 200 * US);
    assert_int_equal(re, 20 * US);
    ks_analysis_free(a);
    ks_trace_free(t);
}

/* The tables keep instance durations in 32 bits and the few longer ones (from 2^32 - 1 ns, 4.29 s)
 * beside them: the quantiles are exact on both sides of the limit, in two rows of one table (the
 * second row's long durations come first: "other" is seen first, on thread 1, where only "long"
 * is long) and in the labels table. */
static void durations_past_32_bits(void **state)
{
    (void)state;
    const char *json =
        "[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"other\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":0.003},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"long\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":4294967.294},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"long\",\"pid\":1,\"tid\":1,\"ts\":5000000,\"dur\":4294967.295},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"long\",\"pid\":1,\"tid\":1,\"ts\":10000000,\"dur\":4294967.296},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"long\",\"pid\":1,\"tid\":1,\"ts\":15000000,\"dur\":10000000},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"long\",\"pid\":1,\"tid\":1,\"ts\":30000000,\"dur\":0.005},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"other\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":6000000},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"other\",\"pid\":1,\"tid\":2,\"ts\":8000000,\"dur\":7000000},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"phase\",\"pid\":1,\"tid\":3,\"ts\":0,\"dur\":5000000},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"phase\",\"pid\":1,\"tid\":3,\"ts\":6000000,\"dur\":0.001}]";
    ks_trace *t = ks_test_parse(json);
    ks_analysis *a = analyse(t, NULL);
    const ks_op_row *l = OP(a, "long");
    assert_int_equal(l->count, 5);
    ks_op_durs d = ks_op_row_durs(l);
    assert_int_equal(d.min_ns, 5);
    assert_int_equal(d.median_ns, 4294967295LL); /* the limit itself, kept beside */
    assert_int_equal(d.p90_ns, 7717986918LL);    /* 2^32 + 0.6 * (10 s - 2^32), rounded */
    assert_int_equal(d.p99_ns, 9771798692LL);
    assert_int_equal(d.max_ns, 10000000000LL);
    assert_int_equal(l->self_ns, 5 + 4294967294LL + 4294967295LL + 4294967296LL + 10000000000LL);
    d = ks_op_row_durs(OP(a, "other"));
    assert_int_equal(d.min_ns, 3);
    assert_int_equal(d.median_ns, 6000000000LL);
    assert_int_equal(d.p90_ns, 6800000000LL);
    assert_int_equal(d.max_ns, 7000000000LL);
    d = ks_op_row_durs(LABEL(a, "phase", "user_annotation"));
    assert_int_equal(d.min_ns, 1);
    assert_int_equal(d.max_ns, 5000000000LL);
    ks_analysis_free(a);
    ks_trace_free(t);
}

/* n slices on one thread, each starting inside all the earlier ones and outliving them: every
 * one is placed (n lanes; past the lanes searched first-fit, each gets a new one), none is lost,
 * and the thread's self times add up to its union */
static void staircase(int n)
{
    char *json = ks_xmalloc((size_t)n * 128 + 64);
    size_t o = (size_t)sprintf(json, "[");
    for (int i = 0; i < n; i++)
        o += (size_t)sprintf(json + o, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"s\",\"pid\":1,\"tid\":1,"
                             "\"ts\":%d,\"dur\":%d}", i ? "," : "", i, n);
    sprintf(json + o, "]");
    ks_trace *t = ks_test_parse(json);
    free(json);
    ks_analysis *a = analyse(t, NULL);
    const ks_timeline *tl = &a->tl[ks_test_track(t, 1, 1) - t->tracks];
    assert_int_equal(tl->n, n);
    assert_int_equal(tl->nlanes, n);
    for (int i = 0; i < n; i++) { /* slice i in lane i, flagged spilled past the main lane */
        assert_int_equal(ks_slice_lane(tl, &tl->s[i]), i);
        assert_int_equal(!!(tl->s[i].flags & KS_SF_SPILLED), i > 0);
    }
    assert_int_equal(ks_timeline_overlaps_of(tl)->dropped, 0);
    assert_int_equal(ks_timeline_overlaps_of(tl)->spilled, n - 1);
    const ks_op_row *r = OP(a, "s");
    assert_int_equal(r->count, n);
    /* the union is [0, 2n - 1) us: slice 0 owns [0, n), each later one the 1 us past the previous */
    assert_int_equal(r->self_ns, (ks_ns)(2 * n - 1) * US);
    assert_int_equal(r->incl_ns, (ks_ns)(2 * n - 1) * US);
    assert_int_equal(ks_timeline_overlaps_of(tl)->reassigned_ns, (ks_ns)(n - 1) * (n - 1) * US);
    ks_analysis_free(a);
    ks_trace_free(t);
}

static void many_overlapping_lanes(void **state)
{
    (void)state;
    staircase(100); /* the 64-lane limit used to drop 36 of them */
    staircase(300); /* past the 256 lanes searched first-fit */
}

static void begin_end_pairing(void **state)
{
    (void)state;
    ks_trace *t = ks_test_load(ks_fixture("analysis/begin_end.json"));
    ks_analysis *a = analyse(t, NULL);
    /* outer [0,50) holds inner [10,20) */
    assert_int_equal(OP(a, "outer")->self_ns, 40 * US);
    assert_int_equal(OP(a, "inner")->self_ns, 10 * US);
    assert_true(find_slice(a, 1, 1, "outer", 0)->flags & KS_SF_BE);
    assert_int_equal(ks_diag_total(&a->diag, "timeline.unmatched_end"), 1);
    assert_int_equal(ks_diag_total(&a->diag, "timeline.end_name_mismatch"), 1);
    assert_int_equal(ks_diag_total(&a->diag, "timeline.unclosed_begin"), 1);
    /* x [70,90) closed by "E x"; y [80, trace end 120) never closed, so it outlives x */
    const ks_slice *y = find_slice(a, 1, 1, "y", 0);
    assert_int_equal(slice_end(a, 1, 1, y), 120 * US);
    assert_true(y->flags & KS_SF_OWN_END);
    assert_true(y->flags & KS_SF_UNCLOSED);
    assert_int_equal(slice_lane(a, 1, 1, y), 1);
    assert_int_equal(OP(a, "y")->unfinished, 1);
    assert_int_equal(OP(a, "x")->self_ns, 20 * US);
    ks_analysis_free(a);
    ks_trace_free(t);
}

static void windows_restrict_instances(void **state)
{
    (void)state;
    ks_trace *t = ks_test_load(ks_fixture("analysis/nesting.json"));
    ks_analysis_opts o;
    ks_analysis_opts_init(&o);
    o.has_window = 1;
    o.window_start = 60 * US;
    o.window_end = 100 * US;
    ks_analysis *a = analyse(t, &o);
    /* instances starting in [60,100): the three aten::rec and zero_in; step starts at 0 */
    assert_int_equal(OP(a, "aten::rec")->count, 3);
    for (size_t i = 0; i < a->nops; i++) {
        const char *n = ks_trace_str(t, a->ops[i].name);
        assert_true(!strcmp(n, "aten::rec") || !strcmp(n, "zero_in"));
    }
    assert_int_equal(a->window_ns, 40 * US);
    ks_analysis_free(a);
    o.window_end = o.window_start;
    ks_error err;
    assert_int_equal(ks_analyze(t, &o, &a, &err), KS_ERR);
    ks_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nesting_self_and_inclusive),
        cmocka_unit_test(overlap_policies),
        cmocka_unit_test(overlap_conservation),
        cmocka_unit_test(many_overlapping_lanes),
        cmocka_unit_test(begin_end_pairing),
        cmocka_unit_test(windows_restrict_instances),
        cmocka_unit_test(durations_past_32_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
