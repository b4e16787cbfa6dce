/* tests/analysis/test_gpuwork.c: the GPU-work index (analysis/gpuwork.c) and the one window rule
 * of GPU work at its edges: an event straddling the window start or end, zero-length events at
 * either edge and inside, an event ending exactly at the start, and work on a GPU track without a
 * device. Expected values are worked out by hand in the comments (times in us in the trace). */
#include "analysis_test.h"
#include "analysis/analysis_int.h"
#include "kinesift/insights.h"

/* Device 0, stream 7: K_a [100,200) launched by correlation 1, Z zero-length at 300, a memcpy
 * [400,450); a GPU track without a device (no args.device, a pid that is no number, no "GPU N"
 * process label): K_n [250,260); a GPU annotation and a
 * sync on stream 7 that are not work. */
static const char TRACE[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,"
    "\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K_a\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":100,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"range\",\"pid\":0,\"tid\":7,\"ts\":90,\"dur\":400},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"Z\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":0,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,\"tid\":7,\"ts\":400,\"dur\":50,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":7,\"ts\":460,\"dur\":20,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K_n\",\"pid\":\"accel\",\"tid\":9,\"ts\":250,\"dur\":10}"
    "]}";

static void window_rule_edges(void **state)
{
    (void)state;
    ks_ns s = -1, e = -1;
    /* window [100, 200) */
    assert_true(ks_window_clip(100, 200, 50, 100, &s, &e)); /* straddles the start: cut at it */
    assert_int_equal(s, 100);
    assert_int_equal(e, 150);
    assert_true(ks_window_clip(100, 200, 150, 100, &s, &e)); /* straddles the end */
    assert_int_equal(s, 150);
    assert_int_equal(e, 200);
    assert_true(ks_window_clip(100, 200, 50, 200, &s, &e)); /* covers the window */
    assert_int_equal(s, 100);
    assert_int_equal(e, 200);
    assert_false(ks_window_clip(100, 200, 50, 50, &s, &e));  /* ends exactly at the start */
    assert_false(ks_window_clip(100, 200, 200, 10, &s, &e)); /* starts exactly at the end */
    assert_true(ks_window_clip(100, 200, 100, 0, &s, &e));   /* zero-length at the start: in */
    assert_int_equal(s, 100);
    assert_int_equal(e, 100);
    assert_true(ks_window_clip(100, 200, 150, 0, &s, &e));   /* zero-length inside */
    assert_false(ks_window_clip(100, 200, 200, 0, &s, &e));  /* zero-length at the end: out */
    assert_false(ks_window_clip(100, 200, 99, 0, &s, &e));   /* zero-length before */
    /* a count goes to the window its event starts in */
    assert_true(ks_window_starts_in(100, 200, 100));
    assert_true(ks_window_starts_in(100, 200, 199));
    assert_false(ks_window_starts_in(100, 200, 200));
    assert_false(ks_window_starts_in(100, 200, 99));
}

static void index_items(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(TRACE);
    ks_analysis *a = analyse(t, NULL);
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    /* K_a, Z, the memcpy, K_n: the annotation and the sync are not work */
    assert_int_equal(gw->n, 4);
    assert_int_equal(gw->n, a->links.gpu_events);
    assert_int_equal(gw->nstreams, 2);
    const ks_track *s7 = ks_test_track(t, 0, 7), *nodev = NULL;
    for (size_t k = 0; k < t->ntracks; k++)
        if (t->tracks[k].kind == KS_TRACK_GPU && t->tracks[k].device == -1)
            nodev = &t->tracks[k];
    assert_non_null(nodev);
    assert_int_equal(ks_gpuwork_device_count(gw, 0), 3);
    assert_int_equal(ks_gpuwork_device_count(gw, -1), 1);
    assert_int_equal(ks_gpuwork_device_count(gw, 1), 0);
    assert_int_equal(sizeof(ks_gpuwork_item), 8); /* a place in the store, no copy of the event */
    for (size_t i = 0; i < gw->n; i++) {
        const ks_gpuwork_item *it = &gw->v[i];
        const ks_event *e = &t->tracks[it->track].ev[it->ev];
        assert_ptr_equal(ks_gpuwork_event(t, it), e);
        assert_true(ks_kind_is_gpu_work((ks_kind)e->kind) && e->ph == 'X');
        assert_int_equal(ks_gpuwork_ts(t, it), e->ts);
        assert_int_equal(ks_gpuwork_dur(t, it), ks_event_dur(e));
        assert_int_equal(ks_gpuwork_device(t, it), t->tracks[it->track].device);
        if (i) /* the order of the store: track, then file order */
            assert_true(gw->v[i - 1].track < it->track ||
                        (gw->v[i - 1].track == it->track && gw->v[i - 1].ev < it->ev));
    }
    /* K_a is linked to its launch (correlation 1); the others have none */
    size_t linked = 0;
    for (size_t i = 0; i < gw->n; i++) {
        ks_slice_ref r = ks_gpuwork_launcher(a, &gw->v[i]);
        if (r.s < 0)
            continue;
        linked++;
        assert_int_equal(gw->v[i].track, (uint32_t)(s7 - t->tracks));
        assert_int_equal(ks_gpuwork_ts(t, &gw->v[i]), 100 * US);
        assert_int_equal(ks_event_corr(t, ks_slice_event(t, &a->tl[r.tl], &a->tl[r.tl].s[r.s])), 1);
    }
    assert_int_equal(linked, 1);
    /* found by its place in the store: an event of the index gets its item's launcher, any other
     * event (the annotation, the sync, a CPU op, one past a track's end) none */
    size_t found = 0;
    for (uint32_t k = 0; k < t->ntracks; k++)
        for (size_t i = 0; i <= t->tracks[k].n; i++) {
            ks_slice_ref r = ks_analysis_launcher(a, k, i), want = {0, -1};
            for (size_t j = 0; j < gw->n; j++)
                if (gw->v[j].track == k && gw->v[j].ev == i)
                    want = ks_gpuwork_launcher_at(a, j);
            assert_int_equal(r.s, want.s);
            assert_int_equal(r.s < 0 ? 0 : r.tl, r.s < 0 ? 0 : want.tl);
            found += r.s >= 0;
        }
    assert_int_equal(found, 1);
    assert_int_equal(ks_analysis_launcher(a, (uint32_t)t->ntracks, 0).s, -1);
    ks_analysis_free(a);
    ks_trace_free(t);
}

/* The rule through the passes: GPU unions, the kernels table and the idle gaps of one window. */
static void window_through_passes(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(TRACE);
    ks_analysis *a = analyse(t, NULL);
    ks_error err;
    /* [150, 300): K_a cut to [150,200), K_n [250,260) on device -1, Z at the end left out */
    assert_int_equal(ks_analysis_set_window(a, 150 * US, 300 * US, &err), KS_OK);
    assert_int_equal(a->ngpu, 2);
    const ks_gpu_row *nd = &a->gpu[0], *d0 = &a->gpu[1]; /* sorted by device */
    assert_int_equal(nd->device, -1);
    assert_int_equal(nd->busy_ns, 10 * US);
    assert_int_equal(d0->device, 0);
    assert_int_equal(d0->first_ns, 150 * US);
    assert_int_equal(d0->last_ns, 200 * US);
    assert_int_equal(d0->busy_ns, 50 * US);
    assert_int_equal(d0->kernels, 1);
    /* the kernels table counts what starts in the window: K_n only (K_a started at 100) */
    assert_int_equal(a->nkernels, 1);
    assert_string_equal(ks_trace_str(t, a->kernels[0].name), "K_n");

    /* [300, 420): Z at the start is in (counted; it covers no time, so the busy span starts at
     * the memcpy), the memcpy is cut at 420 */
    assert_int_equal(ks_analysis_set_window(a, 300 * US, 420 * US, &err), KS_OK);
    assert_int_equal(a->ngpu, 1);
    d0 = &a->gpu[0];
    assert_int_equal(d0->first_ns, 400 * US);
    assert_int_equal(d0->last_ns, 420 * US);
    assert_int_equal(d0->busy_ns, 20 * US);
    assert_int_equal(d0->kernels, 1);
    assert_int_equal(d0->memcpys, 1);
    /* the idle gaps see the same work: Z at the start is work that ends at 300, so one gap
     * [300, 400) (the rule at the start edge is the one inside: a zero-length event anywhere
     * in [w0, w1) is a point of work) */
    ks_gaps g;
    assert_int_equal(ks_gaps_find(a, NULL, NULL, &g, &err), KS_OK);
    assert_int_equal(g.n, 1);
    assert_int_equal(g.dev[0].count, 1);
    assert_int_equal(g.dev[0].total_ns, 100 * US);
    assert_int_equal(g.dev[0].all[0].start, 300 * US);
    assert_int_equal(g.dev[0].all[0].end, 400 * US);
    ks_gaps_free(&g);
    ks_analysis_free(a);
    ks_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(window_rule_edges),
        cmocka_unit_test(index_items),
        cmocka_unit_test(window_through_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
