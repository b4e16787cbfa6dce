/* common/hugemem.h: the one huge-page allocator of the library. The big arrays of the analysis (a slice per event, sort scratch, indexes,
 * per-row durations) are written right after they are allocated, so what they cost is mostly page
 * faults: one per 4 KiB page, which on a virtual machine can take tens of microseconds, unless the
 * kernel backs the array with transparent huge pages (one fault per 2 MiB), which in its default
 * "madvise" mode it does only where asked. Arrays of KS_HUGE_MIN bytes or more are asked for;
 * smaller ones come from malloc as they are. Where the system has no huge pages, they are plain
 * memory.
 *  - ks_xmalloc_big: for arrays that live as long as the analysis; from malloc, aligned to 2 MiB
 *    and rounded up to it; free() and realloc() work on them.
 *  - ks_big_alloc / ks_big_free: for temporaries; each big one is a mapping of its own, returned
 *    to the system when freed (malloc would keep it, and the next array, aligned differently,
 *    might not fit in it: the peak memory would grow). ks_big_calloc'ed memory is zero without
 *    being written. Free with the size given at allocation.
 *  - ks_huge_map: the mapping both of the above and the event store's growable arrays
 *    (store/bigarray.c) are made of: 2 MiB-aligned, optionally advised for huge pages.
 * Internal: any room of the library. */
#ifndef KS_HUGEMEM_H
#define KS_HUGEMEM_H

#include <stddef.h>

#define KS_HUGE_MIN ((size_t)1 << 20)
#define KS_HUGE_PAGE ((size_t)2 << 20)

void *ks_xmalloc_big(size_t bytes);

/* A fresh read/write mapping of len bytes (a multiple of KS_HUGE_PAGE) that starts on a
 * KS_HUGE_PAGE boundary (2 MiB more is mapped and the ends unmapped), advised for transparent
 * huge pages when huge (a hint: without them, plain pages); noreserve: address space only
 * (MAP_NORESERVE), memory is committed page by page as it is touched. NULL when refused. */
void *ks_huge_map(size_t len, int noreserve, int huge);

/* KS_GROW for an array that may grow big (the store's side records): while it is under
 * KS_HUGE_MIN bytes it is realloc'ed as KS_GROW does; past it, each new size is a ks_xmalloc_big
 * array the n elements in use are copied into (a realloc'ed array faults once per 4 KiB as it is
 * written, a huge-page one once per 2 MiB; the copies add up to less than the final size). The
 * capacities are those of ks_grow; free() frees it. KS_PUSH_BIG is KS_PUSH on it. */
void ks_grow_big(void **arr, size_t *cap, size_t n, size_t need, size_t esz);
#define KS_PUSH_BIG(arr, n, cap, val)                                                \
    do {                                                                             \
        if ((n) + 1 > (cap))                                                         \
            ks_grow_big((void **)&(arr), &(cap), (n), (n) + 1, sizeof(*(arr)));       \
        (arr)[(n)++] = (val);                                                        \
    } while (0)

void *ks_big_alloc(size_t bytes);
void *ks_big_calloc(size_t n, size_t size);
void ks_big_free(void *p, size_t bytes);
/* Make a ks_big_alloc array of *cap elements of elem bytes (n in use) hold need: it moves into a
 * new one 1.5 times as big (or need), never realloc'ed. */
void ks_big_grow(void **v, size_t *cap, size_t n, size_t need, size_t elem);

#endif
