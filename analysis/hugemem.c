/* analysis/hugemem.c: allocation of big arrays on transparent huge pages (see hugemem.h). */
#include "analysis/hugemem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/util.h"

void *ks_xmalloc_big(size_t bytes)
{
    if (bytes < KS_HUGE_MIN)
        return ks_xmalloc(bytes);
    size_t rounded = (bytes + KS_HUGE_PAGE - 1) & ~(KS_HUGE_PAGE - 1);
    void *p = aligned_alloc(KS_HUGE_PAGE, rounded);
    if (!p)
        return ks_xmalloc(bytes); /* aborts when there is no memory at all */
#ifdef MADV_HUGEPAGE
    (void)madvise(p, rounded, MADV_HUGEPAGE); /* a hint: without huge pages, plain pages */
#endif
    return p;
}

void *ks_xcalloc_big(size_t n, size_t size)
{
    size_t bytes = ks_mul(n, size);
    if (bytes < KS_HUGE_MIN)
        return ks_xcalloc(n ? n : 1, size ? size : 1);
    void *p = ks_xmalloc_big(bytes);
    memset(p, 0, bytes);
    return p;
}
