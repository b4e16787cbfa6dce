/* algo/idindex.c: the sorted id index (see idindex.h). */
#include "algo/idindex.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "common/hugemem.h"
#include "algo/msort.h"
#include "common/util.h"

static inline int pair_before(const ks_id_pair *a, const ks_id_pair *b)
{
    return a->id != b->id ? a->id < b->id : a->val < b->val;
}

KS_MSORT_DEFINE(sort_pairs, ks_id_pair, pair_before)

void ks_idindex_init(ks_idindex *x)
{
    memset(x, 0, sizeof *x);
}

void ks_idindex_free(ks_idindex *x)
{
    ks_big_free(x->v, x->cap * sizeof *x->v);
    memset(x, 0, sizeof *x);
}

/* the pairs live in a ks_big_alloc array (hugemem.h), moved when it grows */
static void grow_to(ks_idindex *x, size_t need)
{
    ks_big_grow((void **)&x->v, &x->cap, x->n, need, sizeof *x->v);
}

void ks_idindex_reserve(ks_idindex *x, size_t n)
{
    if (x->n + n > x->cap)
        grow_to(x, x->n + n);
}

void ks_idindex_add(ks_idindex *x, int64_t id, uint64_t val)
{
    assert(!x->built); /* pairs are added before the build */
    if (x->n == x->cap)
        grow_to(x, x->n + 1);
    x->v[x->n].id = id;
    x->v[x->n].val = val;
    x->n++;
}

void ks_idindex_build(ks_idindex *x)
{
    sort_pairs(x->v, x->n);
    size_t o = 0;
    for (size_t i = 0; i < x->n; i++)
        if (!o || x->v[i].id != x->v[o - 1].id)
            x->v[o++] = x->v[i]; /* the first of each id holds its smallest value */
    x->n = o;
    x->built = 1;
}

const uint64_t *ks_idindex_find(const ks_idindex *x, int64_t id, size_t *cursor)
{
    assert(x->built || !x->n); /* ks_idindex_build first: lookups search the sorted pairs */
    size_t n = x->n, p;
    if (!n)
        return NULL;
    KS_GALLOP_BOUND(p, 0, n, *cursor < n ? *cursor : n, mid, x->v[mid].id < id);
    *cursor = p;
    return p < n && x->v[p].id == id ? &x->v[p].val : NULL;
}
