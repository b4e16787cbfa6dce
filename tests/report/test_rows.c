/* tests/report/test_rows.c: the order of the ops and labels tables (report/rows.c). The writers
 * walk ks_rows_order's pointers; it must give the order of ks_rows_sorted's copy for every sort
 * key, whatever the order of the input rows (the rows are distinct by name and category), with
 * ties on the key broken by self time, then name, then category. */
#include "ks_test.h"
#include "kinesift/report.h"

#include <stdlib.h>
#include <string.h>

#define N 300

static ks_op_gpu gpu_of[N]; /* the rows' GPU credit (the rows point here) */

static void fill(ks_op_row *v, uint64_t seed)
{
    uint64_t x = seed;
    for (size_t i = 0; i < N; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        memset(&v[i], 0, sizeof v[i]);
        v[i].name = (ks_str)(i / 3 + 1); /* three categories per name */
        v[i].cat = (uint16_t)(i % 3);
        /* few distinct values: many ties on each key */
        v[i].self_ns = (ks_ns)((x >> 20) % 5);
        v[i].incl_ns = (ks_ns)((x >> 30) % 4);
        gpu_of[i].subtree_ns = (ks_ns)((x >> 40) % 3);
        v[i].gpu = gpu_of[i].subtree_ns || i % 2 ? &gpu_of[i] : NULL; /* NULL: no credit, 0 ns */
        v[i].count = (x >> 50) % 6;
    }
    for (size_t i = N - 1; i > 0; i--) { /* shuffle */
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t j = (size_t)(x >> 33) % (i + 1);
        ks_op_row t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

static void order_is_the_sorted_copy(void **state)
{
    (void)state;
    ks_op_row v[N];
    for (uint64_t seed = 1; seed < 6; seed++) {
        fill(v, seed);
        for (int key = KS_SORT_SELF; key <= KS_SORT_COUNT; key++) {
            ks_op_row *copy = ks_rows_sorted(v, N, (ks_sort_key)key);
            const ks_op_row **order = ks_rows_order(v, N, (ks_sort_key)key);
            for (size_t i = 0; i < N; i++) {
                assert_true(order[i] >= v && order[i] < v + N); /* points into the rows */
                assert_memory_equal(order[i], &copy[i], sizeof copy[i]);
            }
            /* descending by key, then by self time, then ascending name and category */
            for (size_t i = 1; i < N; i++) {
                const ks_op_row *p = order[i - 1], *q = order[i];
                ks_ns kp = key == KS_SORT_INCL ? p->incl_ns : key == KS_SORT_GPU ? ks_op_row_gpu(p).subtree_ns
                         : key == KS_SORT_COUNT ? (ks_ns)p->count : p->self_ns;
                ks_ns kq = key == KS_SORT_INCL ? q->incl_ns : key == KS_SORT_GPU ? ks_op_row_gpu(q).subtree_ns
                         : key == KS_SORT_COUNT ? (ks_ns)q->count : q->self_ns;
                assert_true(kp > kq || (kp == kq && (p->self_ns > q->self_ns ||
                                                      (p->self_ns == q->self_ns &&
                                                       (p->name < q->name || (p->name == q->name && p->cat < q->cat))))));
            }
            free(copy);
            free((void *)order);
        }
    }
    const ks_op_row **none = ks_rows_order(v, 0, KS_SORT_SELF);
    free((void *)none);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(order_is_the_sorted_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
