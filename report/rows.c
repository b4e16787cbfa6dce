/* report/rows.c: ordering of table rows for the writers (--sort, --top). */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/report.h"

static ks_ns keyval(const ks_op_row *r, ks_sort_key key)
{
    switch (key) {
    case KS_SORT_INCL: return r->incl_ns;
    case KS_SORT_GPU: return ks_op_row_gpu(r).subtree_ns;
    case KS_SORT_COUNT: return (ks_ns)r->count;
    default: return r->self_ns;
    }
}

static int cmp(const void *x, const void *y, void *ctx)
{
    const ks_op_row *a = x, *b = y;
    ks_sort_key key = *(const ks_sort_key *)ctx;
    ks_ns ka = keyval(a, key), kb = keyval(b, key);
    if (ka != kb)
        return ka < kb ? 1 : -1;
    if (a->self_ns != b->self_ns)
        return a->self_ns < b->self_ns ? 1 : -1;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return (a->cat > b->cat) - (a->cat < b->cat);
}

static int cmp_ptr(const void *x, const void *y, void *ctx)
{
    return cmp(*(const ks_op_row *const *)x, *(const ks_op_row *const *)y, ctx);
}

/* 8 bytes per row where a sorted copy takes 56: a trace may have a million names */
const ks_op_row **ks_rows_order(const ks_op_row *rows, size_t n, ks_sort_key key)
{
    const ks_op_row **v = ks_xmalloc(ks_mul(n ? n : 1, sizeof *v));
    for (size_t i = 0; i < n; i++)
        v[i] = &rows[i];
    qsort_r(v, n, sizeof *v, cmp_ptr, &key);
    return v;
}

ks_op_row *ks_rows_sorted(const ks_op_row *rows, size_t n, ks_sort_key key)
{
    ks_op_row *v = ks_xmalloc(ks_mul(n ? n : 1, sizeof *v));
    if (n)
        memcpy(v, rows, n * sizeof *v);
    qsort_r(v, n, sizeof *v, cmp, &key);
    return v;
}
