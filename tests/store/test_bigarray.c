/* tests/store/test_bigarray.c: the store's growable arrays (store/bigarray.c) keep their contents
 * through malloc growth, the move to a huge-page mapping, mremap growth, shrinking and growing
 * again; the mapping takes huge pages from the move on (few page faults for its first 2 MiB); and
 * the store's per-track arrays built on them hold 300 000 appended events intact. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "ks_test.h"
#include "store/bigarray.h"
#include "store/writer.h"

typedef struct rec {
    uint64_t a, b, c, d, e, f, g; /* 56 bytes, as a ks_event */
} rec;

static void fill_rec(rec *r, uint64_t i)
{
    r->a = i;
    r->b = i * 3;
    r->c = ~i;
    r->d = i ^ 0x5555;
    r->e = i + 7;
    r->f = i << 3;
    r->g = i * i;
}

static void check_recs(const rec *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rec r;
        fill_rec(&r, i);
        if (memcmp(&v[i], &r, sizeof r))
            fail_msg("element %zu changed", i);
    }
}

static void grows_through_the_mapping_and_back(void **state)
{
    (void)state;
    rec *v = NULL;
    size_t n = 0, cap = 0;
    uint8_t mapped = 0;
    size_t target = 3 * (KS_BIGARRAY_HUGE_MIN / sizeof(rec)) + 12345; /* ~12 MiB */
    int saw_malloc = 0;
    while (n < target) {
        if (n == cap) {
            size_t old = cap;
            ks_bigarray_grow((void **)&v, &cap, &mapped, n, n + 1, sizeof *v);
            assert_true(cap > old);
            if (!mapped)
                saw_malloc = 1;
            else
                assert_int_equal(ks_bigarray_map_bytes(cap, sizeof *v) % (2u << 20), 0);
            check_recs(v, n);
        }
        fill_rec(&v[n], n);
        n++;
    }
    assert_true(saw_malloc);
    assert_true(mapped); /* mmap is available on every system this builds on */
    check_recs(v, n);
    /* shrink to the size, then grow again from the shrunk mapping */
    ks_bigarray_shrink((void **)&v, &cap, &mapped, n, sizeof *v);
    assert_int_equal(cap, n);
    check_recs(v, n);
    ks_bigarray_grow((void **)&v, &cap, &mapped, n, n + 1000, sizeof *v);
    assert_true(cap >= n + 1000);
    for (size_t i = n; i < n + 1000; i++)
        fill_rec(&v[i], i);
    n += 1000;
    check_recs(v, n);
    ks_bigarray_shrink((void **)&v, &cap, &mapped, n / 2, sizeof *v);
    check_recs(v, n / 2);
    ks_bigarray_shrink((void **)&v, &cap, &mapped, 0, sizeof *v);
    assert_null(v);
    assert_int_equal(cap, 0);
    assert_int_equal(mapped, 0);
    ks_bigarray_free(v, cap, mapped, sizeof *v);
}

static void small_arrays_stay_in_malloc(void **state)
{
    (void)state;
    rec *v = NULL;
    size_t cap = 0;
    uint8_t mapped = 0;
    ks_bigarray_grow((void **)&v, &cap, &mapped, 0, 100, sizeof *v);
    assert_true(cap >= 100);
    assert_int_equal(mapped, 0);
    for (size_t i = 0; i < 100; i++)
        fill_rec(&v[i], i);
    ks_bigarray_shrink((void **)&v, &cap, &mapped, 100, sizeof *v);
    assert_int_equal(cap, 100);
    check_recs(v, 100);
    ks_bigarray_free(v, cap, mapped, sizeof *v);
}

static long minor_faults(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : -1;
}

/* 1 when the kernel gives transparent huge pages to a region advised for them */
static int thp_on_advice(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char line[128] = "";
    if (!f)
        return 0;
    if (!fgets(line, sizeof line, f))
        line[0] = 0;
    fclose(f);
    return strstr(line, "[always]") || strstr(line, "[madvise]");
}

/* The move to the reservation advises huge pages before copying the array in: the copy and the
 * writes up to 2 MiB fault once (with 4 KiB pages they were ~500 faults, each ~10 us in a VM). */
static void the_mapping_takes_huge_pages_from_the_move(void **state)
{
    (void)state;
    rec *v = NULL;
    size_t n = 0, cap = 0;
    uint8_t mapped = 0;
    while (!mapped) {
        if (n == cap)
            ks_bigarray_grow((void **)&v, &cap, &mapped, n, n + 1, sizeof *v);
        if (!mapped) {
            fill_rec(&v[n], n);
            n++;
        }
    }
    assert_true(n * sizeof *v >= KS_BIGARRAY_MAP_MIN / 2);
    assert_int_equal(mapped, 2); /* advised at the move, not at KS_BIGARRAY_HUGE_MIN */
    size_t upto = (2u << 20) / sizeof *v; /* the rest of the first 2 MiB */
#if defined(__SANITIZE_ADDRESS__)
    int sanitized = 1; /* the sanitizer's shadow pages fault in 4 KiB */
#else
    int sanitized = 0;
#endif
    int count = thp_on_advice() && !sanitized;
    long before = minor_faults();
    for (; n < upto; n++)
        fill_rec(&v[n], n);
    long faults = minor_faults() - before;
    if (count)
        assert_true(faults < 64); /* 4 KiB pages: ~380 */
    else
        print_message("THP not given on advice here (or a sanitizer build): %ld faults not checked\n", faults);
    check_recs(v, n);
    ks_bigarray_free(v, cap, mapped, sizeof *v);
}

typedef struct supply_log {
    int taken, given;
} supply_log;

/* A supply that hands out a ready block on every other call. */
static void *every_other_block(void *ctx)
{
    supply_log *l = ctx;
    if (l->taken++ % 2)
        return NULL;
    void *b = ks_bigarray_ready_block();
    if (b)
        l->given++;
    return b;
}

/* Ready blocks moved into a growing mapped array never land on written elements: the contents
 * stay intact whether a block came or not, through growth past the reservation too. */
static void ready_blocks_fill_ahead_of_the_writer(void **state)
{
    (void)state;
    supply_log log = {0, 0};
    ks_page_supply s = {every_other_block, &log};
    rec *v = NULL;
    size_t n = 0, cap = 0, ready = 0;
    uint8_t mapped = 0;
    size_t target = 4 * (KS_BIGARRAY_HUGE_MIN / sizeof(rec)); /* 16 MiB */
    while (n < target) {
        if (n == cap) {
            uint8_t was = mapped;
            ks_bigarray_grow((void **)&v, &cap, &mapped, n, n + 1, sizeof *v);
            if (!was && mapped)
                ready = 0;
        }
        if (mapped && (n + 1) * sizeof *v + KS_BIGARRAY_BLOCK > ready)
            ks_bigarray_prepare(v, cap, &mapped, sizeof *v, n, &ready, &s);
        assert_true(mapped != 2 || ready >= (n + 1) * sizeof *v);
        fill_rec(&v[n], n);
        n++;
    }
    assert_int_equal(mapped, 2); /* past KS_BIGARRAY_HUGE_MIN */
    assert_true(log.given >= 2);
    check_recs(v, n);
    /* grow past the whole mapping: the blocks moved in make it several mappings, copied over */
    size_t old_cap = cap;
    ks_bigarray_grow((void **)&v, &cap, &mapped, n, cap + 1, sizeof *v);
    assert_true(cap > old_cap);
    check_recs(v, n);
    ks_bigarray_shrink((void **)&v, &cap, &mapped, n, sizeof *v);
    check_recs(v, n);
    ks_bigarray_free(v, cap, mapped, sizeof *v);
}

/* The store appends 300 000 events (17 MB) into one track through the mapped path. */
static void store_keeps_many_events(void **state)
{
    (void)state;
    ks_trace *t = ks_trace_new("big");
    ks_id pid = {1, KS_ID_INT}, tid = {2, KS_ID_INT}, tid2 = {3, KS_ID_INT};
    uint32_t a = ks_trace_track(t, pid, tid), b = ks_trace_track(t, pid, tid2);
    ks_str name = ks_strtab_intern(t->strings, "op", 2);
    const size_t n = 300000;
    for (size_t i = 0; i < n; i++) {
        ks_event e;
        memset(&e, 0, sizeof e);
        e.ts = (ks_ns)i * 10;
        ks_event_set_dur(&e, (i % 3) ? 5 : KS_NO_DUR);
        e.name = name;
        e.ph = 'X';
        e.flags = KS_EF_EXT | KS_EF_CORR;
        /* ids in the record and in the trace's wide ids (kinesift/store.h), on both tracks */
        ks_event_set_ids(t, &e, (int64_t)i, (i % 7) ? -(int64_t)i : INT64_MIN + (int64_t)i);
        ks_trace_append(t, (i % 1000) ? a : b, &e);
    }
    assert_true(ks_trace_track_mapped(t, a));
    assert_false(ks_trace_track_mapped(t, b)); /* 300 events: malloc */
    size_t writing = ks_trace_memory(t);
    ks_trace_finish(t);
    /* finished: each array is exactly its events, and which ones are mappings is still known
     * (the track states of writing are gone) */
    assert_true(ks_trace_track_mapped(t, a));
    assert_false(ks_trace_track_mapped(t, b));
    assert_int_equal(ks_trace_track_cap(t, a), t->tracks[a].n);
    assert_int_equal(ks_trace_track_cap(t, b), t->tracks[b].n);
    assert_true(ks_trace_memory(t) <= writing);
    ks_trace_finish(t); /* twice: nothing more */
    assert_true(ks_trace_track_mapped(t, a));
    assert_int_equal(t->tracks[a].n + t->tracks[b].n, n);
    size_t ia = 0, ib = 0;
    for (size_t i = 0; i < n; i++) {
        const ks_event *e = (i % 1000) ? &t->tracks[a].ev[ia++] : &t->tracks[b].ev[ib++];
        assert_int_equal(e->ts, (ks_ns)i * 10);
        assert_int_equal(ks_event_ext(t, e), (int64_t)i);
        assert_int_equal(ks_event_corr(t, e), (i % 7) ? -(int64_t)i : INT64_MIN + (int64_t)i);
        assert_int_equal(!!(e->flags & KS_EF_CORR_WIDE), !(i % 7));
    }
    ks_ns first, last;
    assert_true(ks_trace_span(t, &first, &last));
    assert_int_equal(first, 0);
    assert_int_equal(last, (ks_ns)(n - 1) * 10 + 5); /* n - 1 = 299999: i % 3 != 0 */
    assert_true(ks_trace_memory(t) >= n * sizeof(ks_event));
    ks_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grows_through_the_mapping_and_back),
        cmocka_unit_test(small_arrays_stay_in_malloc),
        cmocka_unit_test(the_mapping_takes_huge_pages_from_the_move),
        cmocka_unit_test(ready_blocks_fill_ahead_of_the_writer),
        cmocka_unit_test(store_keeps_many_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
