/* common/yajl_alloc.c: yajl's allocations through ks_xmalloc/ks_xrealloc (see yajl_alloc.h). */
#include "common/yajl_alloc.h"

#include <stdlib.h>

#include "common/util.h"

static void *x_malloc(void *ctx, size_t n)
{
    (void)ctx;
    return ks_xmalloc(n);
}

static void *x_realloc(void *ctx, void *q, size_t n)
{
    (void)ctx;
    return ks_xrealloc(q, n);
}

static void x_free(void *ctx, void *q)
{
    (void)ctx;
    free(q);
}

yajl_alloc_funcs *ks_yajl_alloc_funcs(void)
{
    static yajl_alloc_funcs af = {x_malloc, x_realloc, x_free, NULL};
    return &af;
}
