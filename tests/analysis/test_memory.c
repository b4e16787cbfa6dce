/* tests/analysis/test_memory.c: the memory pass (analysis/memory.c), its steps
 * (insights/memory_steps.c) and the memory_growth diagnosis (insights/diag_memory.c) on synthetic
 * traces whose figures are worked out by hand below: a loop that leaks one allocation a step, the
 * same loop flat (every step frees what it allocates), one event dropped, a trace before PyTorch
 * 1.10 (Bytes only), and a trace without memory events.
 *
 * The loop: thread (1, 1), steps ProfilerStep#k at k ms for k = 1..6, 900 us long; in each a label
 * "fwd" [+50, +500) us holding "aten::leak" [+100, +200) and "aten::mm" [+300, +400). CUDA 0 events
 * (Device Type 1): +150 leak allocates 1024 B at Addr 4096 + k; +310 mm allocates 4096 B at Addr
 * 65536; +600 (no op) mm's buffer is freed; flat: +700 (no op) the leak's is freed too. Before
 * the capture B = 1 000 000 B are allocated; Total Reserved 2 097 152 throughout. */
#include "analysis_test.h"
#include "kinesift/insights.h"
#include "kinesift/memory.h"

#define B 1000000LL
#define RES 2097152LL

enum shape { LEAK, FLAT, DROPPED, OLD };

static void mem(ks_buf *b, int shape, long long ts, long long bytes, long long addr, long long *total)
{
    *total += bytes;
    if (shape == OLD)
        ks_buf_printf(b, ",\n{\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": %lld, "
                         "\"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Bytes\": %lld}}", ts, bytes);
    else
        ks_buf_printf(b, ",\n{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", "
                         "\"pid\": 1, \"tid\": 1, \"ts\": %lld, \"args\": {\"Total Reserved\": %lld, "
                         "\"Total Allocated\": %lld, \"Bytes\": %lld, \"Addr\": %lld, \"Device Id\": 0, "
                         "\"Device Type\": 1}}", ts, RES, *total, bytes, addr);
}

static ks_trace *loop(int shape)
{
    ks_buf b = {0};
    long long total = B;
    ks_buf_puts(&b, "{\"deviceProperties\": [{\"id\": 0, \"totalGlobalMem\": 85000000000}], \"traceEvents\": [\n"
                    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"setup\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 10}");
    for (long long k = 1; k <= 6; k++) {
        long long t = k * 1000;
        ks_buf_printf(&b, ",\n{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%lld\", \"pid\": 1, "
                          "\"tid\": 1, \"ts\": %lld, \"dur\": 900}", k, t);
        ks_buf_printf(&b, ",\n{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"fwd\", \"pid\": 1, \"tid\": 1, "
                          "\"ts\": %lld, \"dur\": 450}", t + 50);
        ks_buf_printf(&b, ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::leak\", \"pid\": 1, \"tid\": 1, "
                          "\"ts\": %lld, \"dur\": 100}", t + 100);
        ks_buf_printf(&b, ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, "
                          "\"ts\": %lld, \"dur\": 100}", t + 300);
        mem(&b, shape, t + 150, 1024, 4096 + k, &total);
        mem(&b, shape, t + 310, 4096, 65536, &total);
        if (shape == DROPPED && k == 3)
            total -= 4096; /* the allocator freed it; the profiler dropped the event */
        else
            mem(&b, shape, t + 600, -4096, 65536, &total);
        if (shape == FLAT)
            mem(&b, shape, t + 700, -1024, 4096 + k, &total);
    }
    ks_buf_puts(&b, "\n]}");
    ks_trace *tr = ks_test_parse(b.p);
    free(b.p);
    return tr;
}

typedef struct run {
    ks_trace *t;
    ks_analysis *a;
    ks_steps st;
    ks_diagnoses d;
    const ks_mem_device *dev; /* CUDA 0 */
} run;

static void go(run *r, int shape)
{
    ks_error err;
    memset(r, 0, sizeof *r);
    r->t = loop(shape);
    r->a = analyse(r->t, NULL);
    assert_int_equal(ks_steps_find(r->a, NULL, &r->st, &err), KS_OK);
    assert_int_equal(r->st.n, 6);
    assert_int_equal(r->st.nactive, 6);
    ks_memory_steps(r->a->memory, &r->st);
    ks_diagnose(r->a, &r->st, NULL, &r->d);
    assert_null(r->a->memory->reason);
    assert_int_equal(r->a->memory->n, 1);
    r->dev = &r->a->memory->dev[0];
    assert_int_equal(r->dev->device_type, 1);
    assert_int_equal(r->dev->device_id, 0);
    assert_string_equal(r->dev->type_name, "CUDA");
}

static void done(run *r)
{
    ks_diagnoses_free(&r->d);
    ks_steps_free(&r->st);
    ks_analysis_free(r->a);
    ks_trace_free(r->t);
}

static const ks_diagnosis *growth(const run *r)
{
    for (size_t i = 0; i < r->d.n; i++)
        if (!strcmp(r->d.v[i].id, "memory_growth"))
            return &r->d.v[i];
    return NULL;
}

static const ks_mem_op *op(const run *r, const char *name)
{
    for (size_t i = 0; i < r->dev->nops; i++) {
        const ks_mem_op *o = &r->dev->ops[i];
        if (!strcmp(o->name ? ks_trace_str(r->t, o->name) : "[no op]", name))
            return o;
    }
    fail_msg("no memory op %s", name);
    return NULL;
}

static const char *name(const run *r, ks_str s)
{
    return s ? ks_trace_str(r->t, s) : "[no op]";
}

/* The leak: 1024 B a step stay; the peak is step 6's mm allocation. */
static void leak_loop(void **state)
{
    (void)state;
    run r;
    go(&r, LEAK);
    const ks_mem_device *d = r.dev;
    assert_int_equal(d->events, 18);
    assert_int_equal(d->basis, KS_MEM_BASIS_TOTAL);
    assert_int_equal(d->peak_allocated, B + 6 * 1024 + 4096);
    assert_int_equal(d->peak_ns, (6000 + 310) * US);
    assert_string_equal(name(&r, d->peak_op), "aten::mm");
    assert_int_equal(d->npeak_path, 2);
    assert_string_equal(name(&r, d->peak_path[0]), "fwd");
    assert_true(d->has_peak_step);
    assert_int_equal(d->peak_step, 6);
    assert_int_equal(d->peak_reserved, RES);
    assert_int_equal(d->reserved_at_peak - d->peak_allocated, RES - (B + 6 * 1024 + 4096));
    assert_int_equal(d->capacity, 85000000000LL);
    assert_int_equal(d->start_level, B);
    assert_int_equal(d->end_level, B + 6 * 1024);
    assert_int_equal(d->net_bytes, 6 * 1024);
    assert_int_equal(d->law_breaks, 0);
    assert_int_equal(d->law_checked, 17);
    /* live at the peak: 1 000 000 before the capture, 6 x 1024 by aten::leak, 4096 by aten::mm */
    assert_int_equal(d->nlive, 3);
    assert_int_equal(d->live[0].what, KS_MEM_LIVE_BEFORE);
    assert_int_equal(d->live[0].bytes, B);
    assert_string_equal(name(&r, d->live[1].op), "aten::leak");
    assert_int_equal(d->live[1].count, 6);
    assert_int_equal(d->live[1].bytes, 6 * 1024);
    assert_string_equal(name(&r, d->live[2].op), "aten::mm");
    assert_int_equal(d->live[2].bytes, 4096);
    /* the plugin's figures: self and inclusive; the frees at +600 are nobody's op */
    const ks_mem_op *o = op(&r, "aten::mm");
    assert_int_equal(o->self_allocs, 6);
    assert_int_equal(o->self_alloc_bytes, 6 * 4096);
    assert_int_equal(o->self_net_bytes, 6 * 4096);
    o = op(&r, "fwd");
    assert_int_equal(o->self_allocs, 0);
    assert_int_equal(o->incl_allocs, 12);
    assert_int_equal(o->incl_alloc_bytes, 6 * (1024 + 4096));
    assert_int_equal(o->incl_net_bytes, 6 * (1024 + 4096));
    o = op(&r, "[no op]");
    assert_int_equal(o->self_net_bytes, -6 * 4096);
    int64_t sum = 0;
    for (size_t i = 0; i < d->nops; i++)
        sum += d->ops[i].self_net_bytes;
    assert_int_equal(sum, d->net_bytes);
    /* per step: 1024 B more at each end */
    assert_int_equal(d->nsteps, 6);
    for (size_t k = 0; k < 6; k++) {
        assert_int_equal(d->steps[k].start_level, B + (int64_t)k * 1024);
        assert_int_equal(d->steps[k].end_level, B + (int64_t)(k + 1) * 1024);
        assert_int_equal(d->steps[k].peak_level, B + (int64_t)(k + 1) * 1024 + 4096);
        assert_int_equal(d->steps[k].events, 3);
    }
    /* the diagnosis names the op whose allocations stay: 5 of them made in steps 1-5 */
    const ks_diagnosis *x = growth(&r);
    assert_non_null(x);
    assert_string_equal(x->subject, "aten::leak");
    assert_string_equal(x->confidence, "high");
    assert_int_equal(x->impact_ns, -1);
    assert_int_equal(x->nsteps, 6);
    assert_non_null(strstr(x->evidence, "5 allocations"));
    done(&r);
}

/* Flat: every step frees what it allocates; the peak is first reached in step 1. */
static void flat_loop(void **state)
{
    (void)state;
    run r;
    go(&r, FLAT);
    const ks_mem_device *d = r.dev;
    assert_int_equal(d->events, 24);
    assert_int_equal(d->peak_allocated, B + 1024 + 4096);
    assert_int_equal(d->peak_ns, (1000 + 310) * US);
    assert_int_equal(d->peak_step, 1);
    assert_int_equal(d->end_level, B);
    assert_int_equal(d->net_bytes, 0);
    assert_int_equal(d->law_breaks, 0);
    for (size_t k = 0; k < 6; k++)
        assert_int_equal(d->steps[k].end_level - d->steps[k].start_level, 0);
    assert_null(growth(&r));
    done(&r);
}

/* One free dropped by the profiler: the chain breaks once, and the sum of Bytes no longer equals
 * the change of Total Allocated; both are reported as they are. */
static void dropped_event_breaks_the_law(void **state)
{
    (void)state;
    run r;
    go(&r, DROPPED);
    const ks_mem_device *d = r.dev;
    assert_int_equal(d->events, 17);
    assert_int_equal(d->law_breaks, 1);
    assert_int_equal(d->net_bytes, 6 * 1024 + 4096);
    assert_int_equal(d->end_level - d->start_level, 6 * 1024);
    assert_int_equal(d->peak_allocated, B + 6 * 1024 + 4096);
    done(&r);
}

/* Before PyTorch 1.10 (Bytes, Device Type and Id only): no peak is observed; the level is the sum
 * of Bytes since the first event, which still shows the leak. */
static void bytes_only(void **state)
{
    (void)state;
    run r;
    go(&r, OLD);
    const ks_mem_device *d = r.dev;
    assert_int_equal(d->basis, KS_MEM_BASIS_NET);
    assert_int_equal(d->peak_allocated, -1);
    assert_int_equal(d->peak_reserved, -1);
    assert_int_equal(d->start_level, 0);
    assert_int_equal(d->peak_level, 6 * 1024 + 4096);
    assert_int_equal(d->end_level, 6 * 1024);
    assert_int_equal(d->nlive, 0);
    const ks_diagnosis *x = growth(&r);
    assert_non_null(x);
    assert_null(x->subject); /* no Addr: nothing pairs allocations with frees */
    done(&r);
}

static void no_memory_events(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", "
                                "\"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 5}]}");
    ks_analysis *a = analyse(t, NULL);
    assert_non_null(a->memory);
    assert_non_null(a->memory->reason);
    assert_int_equal(a->memory->n, 0);
    ks_analysis_free(a);
    ks_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(leak_loop),
        cmocka_unit_test(flat_loop),
        cmocka_unit_test(dropped_event_breaks_the_law),
        cmocka_unit_test(bytes_only),
        cmocka_unit_test(no_memory_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
