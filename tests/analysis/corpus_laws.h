/* tests/analysis/corpus_laws.h: what the corpus law programs (corpus_invariants.c,
 * corpus_threads.c, corpus_launchers.c) share: a CHECK that counts failures and goes on (every law
 * of every trace is reported, not only the first), and the length of a union of intervals by
 * sorting, written here apart from algo/intervals.c so the laws do not test the library with
 * itself. Header-only, for those test programs. */
#ifndef KS_TESTS_CORPUS_LAWS_H
#define KS_TESTS_CORPUS_LAWS_H

#include <stdio.h>
#include <stdlib.h>

#include "kinesift/common.h"

static int failures;

#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                      \
            fprintf(stderr, __VA_ARGS__);                                                         \
            fputc('\n', stderr);                                                                  \
            failures++;                                                                           \
        }                                                                                         \
    } while (0)

typedef struct iv {
    ks_ns a, b;
} iv;

static inline int cmp_iv(const void *x, const void *y)
{
    const iv *p = x, *q = y;
    return (p->a > q->a) - (p->a < q->a);
}

/* length of the union of v[0 .. n) (sorted in place; empty intervals ignored) */
static inline ks_ns union_length(iv *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_iv);
    ks_ns total = 0, cur_a = 0, cur_b = 0;
    int open = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].b <= v[i].a)
            continue;
        if (open && v[i].a <= cur_b) {
            if (v[i].b > cur_b)
                cur_b = v[i].b;
            continue;
        }
        if (open)
            total += cur_b - cur_a;
        cur_a = v[i].a;
        cur_b = v[i].b;
        open = 1;
    }
    if (open)
        total += cur_b - cur_a;
    return total;
}

#endif
