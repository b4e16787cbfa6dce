/* tests/ranks/test_ranks_unit.c: rank identity (file names, distributedInfo, input order,
 * duplicates, world sizes) and the cross-rank arithmetic on hand-built ranks whose answers are
 * worked out in the comments: clock offsets from end times, waits, the last arrival, bus
 * bandwidth, unmatched calls, slow ranks. */
#include <time.h>

#include "ks_test.h"
#include "kinesift/ranks.h"
#include "ranks/ranks_int.h"

static void names(void **state)
{
    (void)state;
    assert_int_equal(ks_rank_from_name("rank-3.json"), 3);
    assert_int_equal(ks_rank_from_name("/x/y/rank_12.pt.trace.json.gz"), 12);
    assert_int_equal(ks_rank_from_name("RANK7.json"), 7);
    assert_int_equal(ks_rank_from_name("trace_5.json"), 5);
    assert_int_equal(ks_rank_from_name("job.tar:run/rank3.json.gz"), 3);
    assert_int_equal(ks_rank_from_name("/runs/rank-1/x.json"), -1); /* the base name only */
    assert_int_equal(ks_rank_from_name("node_2_x.json"), -1);
    assert_int_equal(ks_rank_from_name("rank.json"), -1);
    assert_int_equal(ks_rank_from_name("ranking9x.json"), -1);
}

static ks_rank mk(const char *src, int64_t dist, int64_t world)
{
    ks_rank r;
    memset(&r, 0, sizeof r);
    r.source = strdup(src);
    r.rank = dist;
    r.world_size = world;
    r.name_rank = ks_rank_from_name(src);
    return r;
}

static void free_all(ks_rank *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ks_rank_free(&v[i]);
}

static void identity(void **state)
{
    (void)state;
    ks_error err;
    /* distributedInfo 1, file name 0, nothing (takes 2, the smallest free) */
    ks_rank v[3] = {mk("a.json", 1, 4), mk("rank-0.json", -1, -1), mk("b.json", -1, -1)};
    assert_int_equal(ks_ranks_identify(v, 3, 0, &err), KS_OK);
    assert_string_equal(v[0].source, "rank-0.json");
    assert_int_equal(v[0].rule, KS_RANK_FILENAME);
    assert_int_equal(v[1].rank, 1);
    assert_int_equal(v[1].rule, KS_RANK_DIST);
    assert_int_equal(v[2].rank, 2);
    assert_int_equal(v[2].rule, KS_RANK_ORDER);
    free_all(v, 3);

    ks_rank d[2] = {mk("x.json", 3, 8), mk("y.json", 3, 8)};
    assert_int_equal(ks_ranks_identify(d, 2, 0, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "x.json"));
    assert_non_null(strstr(err.msg, "y.json"));
    assert_int_equal(ks_ranks_identify(d, 2, 1, &err), KS_OK); /* y renumbered: smallest free, 0 */
    assert_int_equal(d[0].rank, 0);
    assert_string_equal(d[0].source, "y.json");
    assert_int_equal(d[0].rule, KS_RANK_ORDER);
    free_all(d, 2);

    /* taken 0, 1, 3: the two traces without a rank take 2 and 4, in input order */
    ks_rank g[5] = {mk("p.json", -1, -1), mk("a.json", 3, -1), mk("q.json", -1, -1), mk("b.json", 0, -1),
                    mk("rank1.json", -1, -1)};
    assert_int_equal(ks_ranks_identify(g, 5, 0, &err), KS_OK);
    for (int i = 0; i < 5; i++)
        assert_int_equal(g[i].rank, i);
    assert_string_equal(g[2].source, "p.json");
    assert_string_equal(g[4].source, "q.json");
    assert_int_equal(g[4].rule, KS_RANK_ORDER);
    assert_int_equal(g[1].rule, KS_RANK_FILENAME);
    free_all(g, 5);

    ks_rank w[2] = {mk("x.json", 0, 8), mk("y.json", 1, 16)};
    assert_int_equal(ks_ranks_identify(w, 2, 0, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "world size"));
    free_all(w, 2);
}

/* CPU seconds of ks_ranks_identify over n traces asking for ranks n-1 .. 0 (the best of three) */
static double identify_cpu(size_t n)
{
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        ks_rank *v = calloc(n, sizeof *v);
        for (size_t i = 0; i < n; i++) {
            char src[32];
            snprintf(src, sizeof src, "t%zu.json", i);
            v[i] = mk(src, (int64_t)(n - 1 - i), (int64_t)n);
        }
        ks_error err;
        struct timespec a, b;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
        assert_int_equal(ks_ranks_identify(v, n, 0, &err), KS_OK);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(v[i].rank, (int64_t)i);
        double t = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
        if (t < best)
            best = t;
        free_all(v, n);
        free(v);
    }
    return best;
}

/* Duplicates among many: the first trace asking for a rank takes it, whoever comes later; and the
 * cost grows with the traces, not with their square (8x the traces: 8x-20x the CPU time; each
 * trace searched the earlier ones before, 64x: 16 000 tiny ranks spent 0.6 G instructions
 * there). A ratio of two sizes measured in this one run, with room for a loaded machine. */
static void identity_many(void **state)
{
    (void)state;
    ks_error err;
    ks_rank d[5] = {mk("a.json", 2, -1), mk("b.json", 5, -1), mk("c.json", 2, -1), mk("rank5.json", -1, -1),
                    mk("e.json", 2, -1)};
    assert_int_equal(ks_ranks_identify(d, 5, 0, &err), KS_ERR);
    assert_non_null(strstr(err.msg, "a.json and c.json are both rank 2"));
    free_all(d, 5);
    ks_rank m[5] = {mk("a.json", 2, -1), mk("b.json", 5, -1), mk("c.json", 2, -1), mk("rank5.json", -1, -1),
                    mk("e.json", 2, -1)};
    assert_int_equal(ks_ranks_identify(m, 5, 1, &err), KS_OK);
    /* a 2, b 5; c, rank5 and e take the free 0, 1, 3 in input order */
    static const char *const want[] = {"c.json", "rank5.json", "a.json", "e.json", "b.json"};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(m[i].rank, i < 4 ? i : 5);
        assert_string_equal(m[i].source, want[i]);
    }
    free_all(m, 5);

    double small = identify_cpu(8192), large = identify_cpu(65536);
    print_message("ks_ranks_identify: 8192 traces %.4f s, 65536 traces %.4f s CPU (%.1fx)\n", small, large,
                  large / (small > 1e-5 ? small : 1e-5));
    assert_true(large < 40 * (small > 2e-4 ? small : 2e-4));
}

static void add_coll(ks_rank *r, const char *name, ks_ns start, ks_ns end, int64_t bytes)
{
    r->colls = realloc(r->colls, (r->ncolls + 1) * sizeof *r->colls);
    ks_rank_coll *c = &r->colls[r->ncolls++];
    memset(c, 0, sizeof *c);
    c->name = strdup(name);
    c->pg = strdup("0");
    c->seq = -1;
    c->bytes = bytes;
    c->group_size = -1;
    c->start = start;
    c->end = end;
}

/* Rank 0 (reference) and rank 1 whose clock reads 1000 ns more. Three all-reduces: rank 1 arrives
 * at 100 / 300 / 500 (its clock: +1000), rank 0 at 150 / 200 / 450; both end at 400 / 700 / 900
 * true time. Offsets: 1400-400 = 1700-700 = 1900-900 = 1000. Waits after alignment: call 0: last
 * rank 0 (150 > 100): rank 1 waits 50; call 1: last rank 1 (300 > 200): rank 0 waits 100; call 2:
 * last rank 1 (500 > 450): rank 0 waits 50. Rank 1 caused 150 of 200: the straggler. Call 1's
 * transfer: rank 1's kernel 300..700 = 400 ns; 800 bytes in 400 ns = 2 GB/s; busbw x 2(2-1)/2.
 * Rank 0 has a fourth all-reduce: one unmatched call of rank 1. */
static void matching(void **state)
{
    (void)state;
    ks_rank v[2];
    memset(v, 0, sizeof v);
    v[0].source = strdup("r0");
    v[1].source = strdup("r1");
    v[1].rank = 1;
    add_coll(&v[0], "allreduce", 150, 400, 800);
    add_coll(&v[0], "allreduce", 200, 700, 800);
    add_coll(&v[0], "allreduce", 450, 900, 800);
    add_coll(&v[0], "allreduce", 2000, 2100, 800);
    add_coll(&v[1], "allreduce", 1100, 1400, 800);
    add_coll(&v[1], "allreduce", 1300, 1700, 800);
    add_coll(&v[1], "allreduce", 1500, 1900, 800);
    v[0].step_median = 100;
    v[1].step_median = 120; /* 20 % above the median of 100 and 120 (110)? 120 > 1.05 * 110 */
    v[0].steps = v[1].steps = 1;
    v[0].gpu_reason = v[1].gpu_reason = "none";
    ks_ranks r;
    ks_ranks_match(v, 2, NULL, &r);
    assert_int_equal(r.nm, 3);
    assert_int_equal(r.st[1].offset, 1000);
    assert_int_equal(r.st[1].residual, 0);
    assert_int_equal(r.spread, 0);
    assert_int_equal(r.m[0].last, 0);
    assert_int_equal(r.m[0].arr[1].wait, 50);
    assert_int_equal(r.m[1].last, 1);
    assert_int_equal(r.m[1].arr[0].wait, 100);
    assert_int_equal(r.m[1].after_ns, 400);
    assert_true(r.m[1].algbw > 1.999 && r.m[1].algbw < 2.001);
    assert_true(r.m[1].busbw > 1.999 && r.m[1].busbw < 2.001);
    assert_int_equal(r.st[0].wait, 150);
    assert_int_equal(r.st[1].wait, 50);
    assert_int_equal(r.st[1].caused, 150);
    assert_int_equal(r.st[1].times_last, 2);
    assert_int_equal(r.total_wait, 200);
    assert_int_equal(r.straggler, 1);
    assert_int_equal(r.num, 1);
    assert_int_equal(r.um[0].rank, 1);
    assert_int_equal(r.um[0].missing, 1);
    assert_int_equal(r.step_median, 110);
    assert_int_equal(r.st[1].slow_step, 1);
    assert_int_equal(r.st[0].slow_step, 0);
    ks_ranks_free(&r);
    free_all(v, 2);
}

/* sequence alignment on letters: a = "ABCABD", b = "ABABD" (b skipped the C at a[2]): the
 * fewest differences is 1, and b's calls pair with a[0], a[1], a[3], a[4], a[5]. b = "XABCABD"
 * (an extra X first): X alone, the rest pairs in order. Two equal sequences: 0 differences. */
static const char *seq_a, *seq_b;
static int eq_letters(void *ctx, size_t i, size_t j)
{
    (void)ctx;
    return seq_a[i] == seq_b[j];
}

static void sequence(void **state)
{
    (void)state;
    long pair[8];
    seq_a = "ABCABD";
    seq_b = "ABABD";
    assert_int_equal(ks_seq_align(6, 5, eq_letters, NULL, pair), 1);
    long want[5] = {0, 1, 3, 4, 5};
    for (int j = 0; j < 5; j++)
        assert_int_equal(pair[j], want[j]);
    seq_b = "XABCABD";
    assert_int_equal(ks_seq_align(6, 7, eq_letters, NULL, pair), 1);
    assert_int_equal(pair[0], -1);
    for (int j = 1; j < 7; j++)
        assert_int_equal(pair[j], j - 1);
    seq_b = "ABCABD";
    assert_int_equal(ks_seq_align(6, 6, eq_letters, NULL, pair), 0);
    for (int j = 0; j < 6; j++)
        assert_int_equal(pair[j], j);
    /* nothing in common: every b alone */
    seq_b = "XY";
    assert_int_equal(ks_seq_align(6, 2, eq_letters, NULL, pair), 8);
    assert_int_equal(pair[0], -1);
    assert_int_equal(pair[1], -1);
}

/* Three ranks, step 1 holds allreduce (100 B), broadcast, allreduce (200 B); rank 2 skipped the
 * broadcast: it is named (skipped, step 1, broadcast #1), both all-reduces still match on the
 * three ranks. Rank 1's capture starts at step 2: a call of step 1 is not expected of it. */
static void skipped(void **state)
{
    (void)state;
    ks_rank v[3];
    memset(v, 0, sizeof v);
    for (int r = 0; r < 3; r++) {
        v[r].source = strdup("r");
        v[r].rank = r;
        v[r].first_step = r == 1 ? 2 : 1;
        v[r].last_step = 2;
        ks_ns base = 1000 * r;
        if (r != 1) {
            add_coll(&v[r], "allreduce", base + 10, base + 50, 100);
            if (r != 2)
                add_coll(&v[r], "broadcast", base + 60, base + 70, 8);
            add_coll(&v[r], "allreduce", base + 80, base + 120, 200);
            for (size_t i = 0; i < v[r].ncolls; i++)
                v[r].colls[i].step = 1;
        }
        add_coll(&v[r], "allreduce", base + 200, base + 250, 100);
        v[r].colls[v[r].ncolls - 1].step = 2;
    }
    ks_ranks m;
    ks_ranks_match(v, 3, NULL, &m);
    assert_int_equal(m.num, 1);
    assert_int_equal(m.um[0].rank, 2);
    assert_int_equal(m.um[0].kind, KS_MISS_SKIPPED);
    assert_int_equal(m.um[0].step, 1);
    assert_int_equal(m.um[0].call, 1);
    assert_string_equal(m.um[0].name, "broadcast");
    /* allreduce #1 and #2 of step 1 on ranks 0 and 2, allreduce #1 of step 2 on all three */
    size_t ar = 0;
    for (size_t i = 0; i < m.nm; i++)
        if (!strcmp(m.m[i].name, "allreduce")) {
            ar++;
            assert_int_equal(m.m[i].narr, m.m[i].step == 2 ? 3 : 2);
        }
    assert_int_equal(ar, 3);
    ks_ranks_free(&m);
    free_all(v, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names),
        cmocka_unit_test(identity),
        cmocka_unit_test(identity_many),
        cmocka_unit_test(matching),
        cmocka_unit_test(sequence),
        cmocka_unit_test(skipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
