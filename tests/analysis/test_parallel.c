/* tests/analysis/test_parallel.c: the pieces behind the fast (and multi-threaded) analysis, on
 * cases worked out by hand: the natural merge sort (msort.h), the radix sort of ks_sort_ns, the
 * sorted id index, the thread pool, the merge of per-track timeline statistics, huge-page
 * allocation and interval-set reservation. */
#include <stdatomic.h>
#include <stdint.h>

#include "ks_test.h"
#include "common/util.h"
#include "common/hugemem.h"
#include "algo/idindex.h"
#include "algo/intervals.h"
#include "algo/msort.h"
#include "algo/pool.h"
#include "analysis/timeline.h"
#include "kinesift/insights.h"

/* ---- msort --------------------------------------------------------------------------------- */

typedef struct item {
    int key;
    int tag; /* original position: shows stability */
} item;

static inline int item_before(const item *a, const item *b)
{
    return a->key < b->key;
}

KS_MSORT_DEFINE(sort_items, item, item_before)

static void fill(item *v, const int *keys, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        v[i].key = keys[i];
        v[i].tag = (int)i;
    }
}

static void msort_small_cases(void **state)
{
    (void)state;
    item v[8];
    sort_items(v, 0); /* nothing to do, nothing touched */
    int one[] = {4};
    fill(v, one, 1);
    sort_items(v, 1);
    assert_int_equal(v[0].key, 4);
    /* equal keys keep their order: 2a 1a 2b 1b -> 1a 1b 2a 2b */
    int keys[] = {2, 1, 2, 1};
    fill(v, keys, 4);
    sort_items(v, 4);
    int want_key[] = {1, 1, 2, 2}, want_tag[] = {1, 3, 0, 2};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(v[i].key, want_key[i]);
        assert_int_equal(v[i].tag, want_tag[i]);
    }
}

/* 100 elements: 0..39 then 100..139 (one ascending run of 80), then 19..0 (descending: runs of
 * one, which insertion sort turns into one run of 20). Merged: 0..19 twice, the copy of the
 * first run first (stability), then 20..39 and 100..139. */
static void msort_runs(void **state)
{
    (void)state;
    item v[100];
    for (int i = 0; i < 40; i++)
        v[i] = (item){i, i};
    for (int i = 0; i < 40; i++)
        v[40 + i] = (item){100 + i, 40 + i};
    for (int i = 0; i < 20; i++)
        v[80 + i] = (item){19 - i, 80 + i};
    sort_items(v, 100);
    size_t o = 0;
    for (int k = 0; k < 20; k++) {
        assert_int_equal(v[o].key, k);
        assert_int_equal(v[o++].tag, k);      /* from the first run */
        assert_int_equal(v[o].key, k);
        assert_int_equal(v[o++].tag, 99 - k); /* from the reversed run */
    }
    for (int k = 20; k < 40; k++)
        assert_int_equal(v[o++].key, k);
    for (int k = 100; k < 140; k++)
        assert_int_equal(v[o++].key, k);
    assert_int_equal(o, 100);
}

/* against insertion sort on pseudo-random keys with many ties, sizes around the run length */
static void msort_random(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ULL;
    size_t sizes[] = {2, 31, 32, 33, 64, 65, 1000, 5003};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        item *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w);
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            v[i] = (item){(int)(x % 50), (int)i};
            w[i] = v[i];
        }
        for (size_t i = 1; i < n; i++) { /* reference: stable insertion sort */
            item t = w[i];
            size_t p = i;
            while (p > 0 && t.key < w[p - 1].key) {
                w[p] = w[p - 1];
                p--;
            }
            w[p] = t;
        }
        sort_items(v, n);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(v[i].key, w[i].key);
            assert_int_equal(v[i].tag, w[i].tag);
        }
        free(v);
        free(w);
    }
}

static int cmp_key_tag(const void *x, const void *y)
{
    const item *a = x, *b = y;
    return a->key != b->key ? (a->key > b->key) - (a->key < b->key) : (a->tag > b->tag) - (a->tag < b->tag);
}

/* v sorted stably: equal to qsort by (key, original position) */
static void sorted_like_reference(item *v, size_t n)
{
    item *w = malloc((n ? n : 1) * sizeof *w);
    memcpy(w, v, n * sizeof *v);
    qsort(w, n, sizeof *w, cmp_key_tag);
    sort_items(v, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(v[i].key, w[i].key);
        assert_int_equal(v[i].tag, w[i].tag);
    }
    free(w);
}

/* Write the subtree of a slice starting at ts, children first, then itself (Kineto's order: a
 * parent after its children), keyed by its start. */
static size_t kineto_tree(item *v, size_t o, size_t cap, int ts, int depth, uint64_t *x)
{
    int start = ts;
    for (int c = 0; depth < 6 && c < 3 && o + 1 < cap; c++) {
        *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
        if (*x % 3 == 0)
            continue;
        o = kineto_tree(v, o, cap, ts + c * 100, depth + 1, x);
    }
    if (o < cap) {
        v[o].key = start;
        v[o].tag = (int)o;
        o++;
    }
    return o;
}

/* The in-place merges on the orders they meet and the ones that stress their two directions:
 * Kineto's (parents after their children, equal starts), descending, sawtooth, runs of equal keys,
 * and random keys with few and with many ties, up to 200 000 elements; each against qsort by
 * (key, position). */
static void msort_shapes(void **state)
{
    (void)state;
    uint64_t x = 2463534242ULL;
    size_t sizes[] = {100, 4097, 200000};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        size_t n = sizes[si];
        item *v = malloc(n * sizeof *v);
        for (int shape = 0; shape < 6; shape++) {
            size_t m = n;
            if (shape == 0) {
                m = 0;
                for (int root = 0; m < n; root++)
                    m = kineto_tree(v, m, n, root * 1000000, 0, &x);
            }
            for (size_t i = 0; shape && i < n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                int k = shape == 1   ? (int)(n - i)
                        : shape == 2 ? (int)(i % 97)
                        : shape == 3 ? (int)(i / 50) * (i % 2 ? 1 : -1)
                        : shape == 4 ? (int)(x % 1000000007)
                                     : (int)(x % 3);
                v[i] = (item){k, (int)i};
            }
            sorted_like_reference(v, m);
        }
        free(v);
    }
}

/* ---- ks_sort_ns ---------------------------------------------------------------------------- */

static void radix_sort_ns(void **state)
{
    (void)state;
    /* below the radix threshold: insertion sort */
    ks_ns small[] = {5, -3, 0, 5, INT64_MIN, INT64_MAX};
    ks_sort_ns(small, 6);
    ks_ns want_small[] = {INT64_MIN, -3, 0, 5, 5, INT64_MAX};
    assert_memory_equal(small, want_small, sizeof small);
    /* 200 values: k * 7919 mod 200 - 100 for k = 0..199 is a permutation of -100..99 (7919 is
     * prime to 200); plus the extremes replacing two of them */
    ks_ns v[200];
    for (int k = 0; k < 200; k++)
        v[k] = (ks_ns)((k * 7919) % 200) - 100;
    v[10] = INT64_MIN; /* replaces (10 * 7919) % 200 - 100 = 79190 % 200 - 100 = 90 */
    v[11] = INT64_MAX; /* replaces (11 * 7919) % 200 - 100 = 87109 % 200 - 100 = 9 */
    ks_sort_ns(v, 200);
    assert_true(v[0] == INT64_MIN);
    assert_true(v[199] == INT64_MAX);
    size_t o = 1;
    for (ks_ns x = -100; x < 100; x++)
        if (x != 90 && x != 9)
            assert_true(v[o++] == x);
    assert_int_equal(o, 199);
    /* all equal, and large values differing only in the top byte */
    ks_ns same[100], top[100];
    for (int i = 0; i < 100; i++) {
        same[i] = 42;
        top[i] = (ks_ns)((uint64_t)(99 - i) << 56) + 7;
    }
    ks_sort_ns(same, 100);
    ks_sort_ns(top, 100);
    for (int i = 0; i < 100; i++) {
        assert_true(same[i] == 42);
        assert_true(top[i] == (ks_ns)((uint64_t)i << 56) + 7);
    }
}

/* ---- a search outward from a position ------------------------------------------------------ */

/* KS_GALLOP_BOUND finds what KS_LOWER_BOUND finds, from every starting position: sorted arrays
 * with runs of equal keys, every length up to 40, every key in and around them, every `at`, and
 * sub-ranges [first, end) that do not start at 0. */
static void gallop_bound_is_lower_bound(void **state)
{
    (void)state;
    int v[40];
    for (size_t n = 0; n <= 40; n++) {
        for (size_t i = 0; i < n; i++)
            v[i] = (int)(i / 3) * 2; /* 0 0 0 2 2 2 4 ... */
        for (size_t first = 0; first <= n; first += n > 8 ? 3 : 1)
            for (int key = -1; key <= (int)n; key++) {
                size_t want = first, hi = n;
                KS_LOWER_BOUND(want, hi, mid, v[mid] < key);
                for (size_t at = first; at <= n; at++) {
                    size_t got;
                    KS_GALLOP_BOUND(got, first, n, at, mid, v[mid] < key);
                    if (got != want)
                        fail_msg("n %zu [%zu, %zu) key %d from %zu: %zu, not %zu", n, first, n, key, at, got, want);
                }
            }
    }
}

/* ---- sorted id index ----------------------------------------------------------------------- */

static void idindex_smallest_value_wins(void **state)
{
    (void)state;
    ks_idindex x;
    ks_idindex_init(&x);
    size_t cur = 0;
    ks_idindex_build(&x);
    assert_null(ks_idindex_find(&x, 1, &cur)); /* empty */
    ks_idindex_free(&x);
    ks_idindex_init(&x);
    /* two runs (as two threads give them): 10:a 20:b 30:c, then 5:d 20:e 30:f 40:g, with values
     * chosen so that 20 keeps 7 (of 9 and 7) and 30 keeps 3 (of 3 and 8) */
    ks_idindex_add(&x, 10, 1);
    ks_idindex_add(&x, 20, 9);
    ks_idindex_add(&x, 30, 3);
    ks_idindex_add(&x, 5, 4);
    ks_idindex_add(&x, 20, 7);
    ks_idindex_add(&x, 30, 8);
    ks_idindex_add(&x, 40, 2);
    ks_idindex_build(&x);
    assert_int_equal(x.n, 5);
    int64_t ids[] = {5, 10, 20, 30, 40};
    uint64_t vals[] = {4, 1, 7, 3, 2};
    cur = 0;
    for (int i = 0; i < 5; i++) { /* ascending: the cursor walks along */
        const uint64_t *v = ks_idindex_find(&x, ids[i], &cur);
        assert_non_null(v);
        assert_int_equal(*v, vals[i]);
        assert_int_equal(cur, (size_t)i);
    }
    /* backwards, missing ids in between and outside, a cursor past the end */
    for (int i = 4; i >= 0; i--)
        assert_int_equal(*ks_idindex_find(&x, ids[i], &cur), vals[i]);
    assert_null(ks_idindex_find(&x, 25, &cur));
    assert_int_equal(cur, 3); /* where 25 would go */
    assert_null(ks_idindex_find(&x, 1, &cur));
    assert_null(ks_idindex_find(&x, 99, &cur));
    cur = 1000;
    assert_int_equal(*ks_idindex_find(&x, 10, &cur), 1);
    ks_idindex_free(&x);
}

/* many ids, looked up from far away in both directions (galloping over long distances) */
static void idindex_gallop(void **state)
{
    (void)state;
    ks_idindex x;
    ks_idindex_init(&x);
    ks_idindex_reserve(&x, 10000);
    for (int64_t i = 9999; i >= 0; i--)
        ks_idindex_add(&x, i * 3, (uint64_t)i);
    ks_idindex_build(&x);
    size_t cur = 0;
    int64_t probe[] = {0, 29997, 3, 15000, 15001, 29996, 6, 29999};
    for (size_t j = 0; j < sizeof probe / sizeof *probe; j++) {
        const uint64_t *v = ks_idindex_find(&x, probe[j], &cur);
        if (probe[j] % 3) {
            assert_null(v);
        } else {
            assert_non_null(v);
            assert_int_equal(*v, (uint64_t)(probe[j] / 3));
        }
    }
    ks_idindex_free(&x);
}

/* ---- pool ---------------------------------------------------------------------------------- */

typedef struct pool_check {
    atomic_int *calls;
} pool_check;

static void count_call(void *ctx, size_t i)
{
    pool_check *c = ctx;
    atomic_fetch_add(&c->calls[i], 1);
}

static void pool_calls_each_item_once(void **state)
{
    (void)state;
    size_t sizes[] = {0, 1, 2, 3, 100};
    int threads[] = {0, 1, 2, 3, 8, 100};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
            atomic_int calls[100];
            for (int i = 0; i < 100; i++)
                atomic_init(&calls[i], 0);
            pool_check c = {calls};
            ks_pool_run(sizes[s], threads[t], count_call, &c);
            for (size_t i = 0; i < 100; i++)
                assert_int_equal(atomic_load(&calls[i]), i < sizes[s] ? 1 : 0);
        }
    assert_int_equal(ks_pool_threads(1), 1);
    assert_int_equal(ks_pool_threads(5), 5);
    assert_int_equal(ks_pool_threads(100000), KS_POOL_MAX);
    int autom = ks_pool_threads(0);
    assert_true(autom >= 1 && autom <= KS_POOL_MAX_AUTO);
}

/* ks_set_thread_start: each thread the pool starts calls the hook once (the caller, which works
 * too, does not); NULL removes it. */
static atomic_int pool_hook_calls;

static void count_pool_thread(void)
{
    atomic_fetch_add(&pool_hook_calls, 1);
}

static void pool_threads_call_the_thread_hook(void **state)
{
    (void)state;
    atomic_int calls[100];
    for (int i = 0; i < 100; i++)
        atomic_init(&calls[i], 0);
    pool_check c = {calls};
    ks_set_thread_start(count_pool_thread);
    static const int threads[] = {1, 2, 5, 8};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        atomic_store(&pool_hook_calls, 0);
        ks_pool_run(100, threads[t], count_call, &c);
        assert_int_equal(atomic_load(&pool_hook_calls), threads[t] - 1);
    }
    atomic_store(&pool_hook_calls, 0);
    ks_pool_run(3, 8, count_call, &c); /* 3 items: 2 threads beside the caller */
    assert_int_equal(atomic_load(&pool_hook_calls), 2);
    ks_set_thread_start(NULL);
    atomic_store(&pool_hook_calls, 0);
    ks_pool_run(100, 4, count_call, &c);
    assert_int_equal(atomic_load(&pool_hook_calls), 0);
}

/* ---- timeline statistics merge ------------------------------------------------------------- */

static ks_overlap_example ex(uint32_t track, ks_ns ts, ks_ns excess)
{
    ks_overlap_example e;
    memset(&e, 0, sizeof e);
    e.track = track;
    e.ts = ts;
    e.excess = excess;
    return e;
}

/* Track 0 kept [5 @10, 3 @20]; track 1 kept [5 @30, 4 @40, 3 @50]; track 2 kept [6 @60, 3 @70].
 * Offered one by one in track order, the five worst are 6 @60, then the 5s in order (@10, @30),
 * 4 @40, and the first 3 (@20): 3 @50 falls off and 3 @70 is not larger than the last kept. */
static void stats_merge_in_track_order(void **state)
{
    (void)state;
    ks_timeline_stats all, t0, t1, t2;
    memset(&all, 0, sizeof all);
    memset(&t0, 0, sizeof t0);
    memset(&t1, 0, sizeof t1);
    memset(&t2, 0, sizeof t2);
    assert_true(ks_timeline_stats_empty(&t0));
    t0.worst[KS_OV_CPU][0] = ex(0, 10, 5);
    t0.worst[KS_OV_CPU][1] = ex(0, 20, 3);
    t0.nworst[KS_OV_CPU] = 2;
    t0.count[KS_OV_CPU] = 2;
    t0.overlap_ns[KS_OV_CPU] = 8;
    t0.unclosed = 1;
    ks_overlap_row r0 = {0, 7, 2, 8};
    t0.cats = &r0;
    t0.ncats = 1;
    t1.worst[KS_OV_CPU][0] = ex(1, 30, 5);
    t1.worst[KS_OV_CPU][1] = ex(1, 40, 4);
    t1.worst[KS_OV_CPU][2] = ex(1, 50, 3);
    t1.nworst[KS_OV_CPU] = 3;
    t1.count[KS_OV_CPU] = 3;
    t1.overlap_ns[KS_OV_CPU] = 12;
    t1.duplicates = 2;
    t2.worst[KS_OV_CPU][0] = ex(2, 60, 6);
    t2.worst[KS_OV_CPU][1] = ex(2, 70, 3);
    t2.nworst[KS_OV_CPU] = 2;
    t2.count[KS_OV_CPU] = 2;
    t2.overlap_ns[KS_OV_CPU] = 9;
    t2.worst[KS_OV_GPU][0] = ex(2, 80, 1);
    t2.nworst[KS_OV_GPU] = 1;
    t2.count[KS_OV_GPU] = 1;
    ks_overlap_row r2[2] = {{2, 7, 1, 6}, {2, 9, 1, 3}};
    t2.cats = r2;
    t2.ncats = 2;
    assert_false(ks_timeline_stats_empty(&t0));
    ks_timeline_stats_merge(&all, &t0);
    ks_timeline_stats_merge(&all, &t1);
    ks_timeline_stats_merge(&all, &t2);
    assert_int_equal(all.count[KS_OV_CPU], 7);
    assert_int_equal(all.overlap_ns[KS_OV_CPU], 29);
    assert_int_equal(all.count[KS_OV_GPU], 1);
    assert_int_equal(all.unclosed, 1);
    assert_int_equal(all.duplicates, 2);
    assert_int_equal(all.nworst[KS_OV_CPU], 5);
    ks_ns want_ts[] = {60, 10, 30, 40, 20}, want_ex[] = {6, 5, 5, 4, 3};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(all.worst[KS_OV_CPU][i].ts, want_ts[i]);
        assert_int_equal(all.worst[KS_OV_CPU][i].excess, want_ex[i]);
    }
    assert_int_equal(all.nworst[KS_OV_GPU], 1);
    assert_int_equal(all.worst[KS_OV_GPU][0].ts, 80);
    /* categories in track order: (0, 7), (2, 7), (2, 9) */
    assert_int_equal(all.ncats, 3);
    assert_int_equal(all.cats[0].track, 0);
    assert_int_equal(all.cats[1].track, 2);
    assert_int_equal(all.cats[1].cat, 7);
    assert_int_equal(all.cats[2].cat, 9);
    assert_int_equal(all.cats[2].excess_ns, 3);
    free(all.cats);
}

/* ---- step breakdown on several threads ---------------------------------------------------- */

/* The step breakdown does not depend on the number of threads: "nccl_op" is a kernel on the GPU
 * stream (track 0) and a cpu_op on the thread (track 1). Kernels and CPU ops are classified apart
 * (analysis/comm.c): the kernel is communication by its name (it contains "nccl"), the cpu_op is
 * not (no communication op prefix such as "nccl:"), whichever track comes first. Step [0, 100):
 * comm = kernel [20, 30) = 10 us, kernel = 3 x 2 us (k1), runtime [10, 15) = 5 us, cpu_exec =
 * op [50, 70) = 20 us, other = 100 - 41 = 59 us. */
static void breakdown_name_both_kernel_and_op(void **state)
{
    (void)state;
    ks_trace *t = ks_test_parse(
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"nccl_op\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":10,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":35,\"dur\":2,\"args\":{\"device\":0}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":40,\"dur\":2,\"args\":{\"device\":0}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":44,\"dur\":2,\"args\":{\"device\":0}},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"nccl_op\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":20},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,"
        "\"dur\":5,\"args\":{\"correlation\":1}}]}");
    ks_ns want[KS_ROLE_COUNT] = {0};
    want[KS_ROLE_COMM] = 10000;
    want[KS_ROLE_CPU_EXEC] = 20000;
    want[KS_ROLE_KERNEL] = 6000;
    want[KS_ROLE_RUNTIME] = 5000;
    want[KS_ROLE_OTHER] = 59000;
    for (int threads = 1; threads <= 3; threads++) {
        ks_analysis_opts o;
        ks_analysis_opts_init(&o);
        o.threads = threads;
        ks_analysis *a;
        ks_steps st;
        ks_error err;
        assert_int_equal(ks_analyze(t, &o, &a, &err), KS_OK);
        assert_int_equal(ks_steps_find(a, NULL, &st, &err), KS_OK);
        assert_int_equal(st.n, 1);
        for (int r = 0; r < KS_ROLE_COUNT; r++)
            assert_int_equal(st.v[0].breakdown[r], want[r]);
        ks_steps_free(&st);
        ks_analysis_free(a);
    }
    ks_trace_free(t);
}

/* ---- memory -------------------------------------------------------------------------------- */

static void big_allocations(void **state)
{
    (void)state;
    /* temporaries: a zeroed mapping of their own, aligned to 2 MiB; small ones from malloc */
    unsigned char *p = ks_big_calloc(3 << 20, 1);
    assert_int_equal((uintptr_t)p % KS_HUGE_PAGE, 0);
    for (size_t i = 0; i < (3u << 20); i += 4096)
        assert_int_equal(p[i], 0);
    p[(3u << 20) - 1] = 1;
    ks_big_free(p, 3 << 20);
    unsigned char *z = ks_big_calloc(100, 3);
    for (int i = 0; i < 300; i++)
        assert_int_equal(z[i], 0);
    ks_big_free(z, 300);
    ks_big_free(NULL, 5 << 20);
    /* arrays that live with the analysis: malloc'ed, aligned when big, free() works */
    char *q = ks_xmalloc_big(5 << 20);
    assert_int_equal((uintptr_t)q % KS_HUGE_PAGE, 0);
    q[(5 << 20) - 1] = 1;
    q = ks_xrealloc(q, 4 << 20); /* as a timeline gives back what it did not use */
    free(q);
    q = ks_xmalloc_big(100);
    q[99] = 1;
    free(q);
    /* a reserved interval set keeps its content and grows past the reservation */
    ks_ivs s = {0};
    ks_ivs_reserve(&s, 100000);
    assert_true(s.cap >= 100000);
    ks_ivs_add(&s, 10, 20);
    ks_ivs_reserve(&s, 200000);
    for (ks_ns i = 0; i < 300000; i++)
        ks_ivs_add(&s, 100 + 2 * i, 101 + 2 * i);
    assert_int_equal(s.n, 300001);
    assert_int_equal(s.v[0].a, 10);
    assert_int_equal(ks_ivs_union(&s), 10 + 300000);
    ks_ivs_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(msort_small_cases),
        cmocka_unit_test(msort_runs),
        cmocka_unit_test(msort_random),
        cmocka_unit_test(msort_shapes),
        cmocka_unit_test(radix_sort_ns),
        cmocka_unit_test(gallop_bound_is_lower_bound),
        cmocka_unit_test(idindex_smallest_value_wins),
        cmocka_unit_test(idindex_gallop),
        cmocka_unit_test(pool_calls_each_item_once),
        cmocka_unit_test(pool_threads_call_the_thread_hook),
        cmocka_unit_test(stats_merge_in_track_order),
        cmocka_unit_test(breakdown_name_both_kernel_and_op),
        cmocka_unit_test(big_allocations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
