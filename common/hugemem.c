/* common/hugemem.c: allocation of big arrays on transparent huge pages (see hugemem.h). */
#include "common/hugemem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/util.h"

static size_t round_huge(size_t bytes)
{
    return (bytes + KS_HUGE_PAGE - 1) & ~(KS_HUGE_PAGE - 1);
}

static void advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: without huge pages, plain pages */
#else
    (void)p;
    (void)bytes;
#endif
}

void *ks_xmalloc_big(size_t bytes)
{
    if (bytes < KS_HUGE_MIN)
        return ks_xmalloc(bytes);
    size_t rounded = round_huge(bytes);
    void *p = aligned_alloc(KS_HUGE_PAGE, rounded);
    if (!p)
        return ks_xmalloc(bytes); /* aborts when there is no memory at all */
    advise(p, rounded);
    return p;
}

void ks_grow_big(void **arr, size_t *cap, size_t n, size_t need, size_t esz)
{
    if (need <= *cap)
        return;
    size_t c = ks_grow_cap(*cap, need);
    size_t bytes = ks_mul(c, esz);
    if (bytes < KS_HUGE_MIN) {
        *arr = ks_xrealloc(*arr, bytes);
    } else {
        void *b = ks_xmalloc_big(bytes);
        if (n)
            memcpy(b, *arr, n * esz);
        free(*arr);
        *arr = b;
    }
    *cap = c;
}

void *ks_huge_map(size_t len, int noreserve, int huge)
{
    size_t span = len + KS_HUGE_PAGE;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | (noreserve ? MAP_NORESERVE : 0);
    char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    char *p = (char *)(((uintptr_t)m + KS_HUGE_PAGE - 1) & ~(uintptr_t)(KS_HUGE_PAGE - 1));
    if (p > m)
        munmap(m, (size_t)(p - m));
    if (m + span > p + len)
        munmap(p + len, (size_t)(m + span - (p + len)));
    if (huge)
        advise(p, len);
    return p;
}

/* A mapping of round_huge(bytes), aligned to 2 MiB. */
static void *map_big(size_t bytes)
{
    return ks_huge_map(round_huge(bytes), 1, 1);
}

void *ks_big_alloc(size_t bytes)
{
    if (bytes < KS_HUGE_MIN)
        return ks_xmalloc(bytes ? bytes : 1);
    void *p = map_big(bytes);
    if (!p) /* as ks_xmalloc does */
        ks_out_of_memory(bytes);
    return p;
}

void *ks_big_calloc(size_t n, size_t size)
{
    size_t bytes = ks_mul(n, size);
    if (bytes < KS_HUGE_MIN)
        return ks_xcalloc(bytes ? bytes : 1, 1);
    return ks_big_alloc(bytes); /* a fresh mapping reads as zero */
}

void ks_big_free(void *p, size_t bytes)
{
    if (!p)
        return;
    if (bytes < KS_HUGE_MIN)
        free(p);
    else
        munmap(p, round_huge(bytes));
}

void ks_big_grow(void **v, size_t *cap, size_t n, size_t need, size_t elem)
{
    size_t c = *cap + *cap / 2 + 8;
    if (c < need)
        c = need;
    void *w = ks_big_alloc(ks_mul(c, elem));
    if (n)
        memcpy(w, *v, n * elem);
    ks_big_free(*v, *cap * elem);
    *v = w;
    *cap = c;
}
