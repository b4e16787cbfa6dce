/* analysis/hugemem.h: the big arrays of the analysis (a slice per event, sort scratch, indexes,
 * per-row durations) are written right after they are allocated, so they cost page faults more
 * than anything else: one per 4 KiB page, which on a virtual machine can take tens of
 * microseconds, unless the kernel backs the array with transparent huge pages (one fault per
 * 2 MiB), which in its default "madvise" mode it does only where asked.
 *
 * ks_xmalloc_big asks, for arrays of KS_HUGE_MIN bytes or more: it returns memory aligned to
 * 2 MiB, its size rounded up to a multiple of 2 MiB, advised for huge pages (where the system has
 * no huge pages it is plain memory). Free it with free(); realloc works on it. Smaller arrays come
 * from malloc as they are. Internal. */
#ifndef KS_HUGEMEM_H
#define KS_HUGEMEM_H

#include <stddef.h>

#define KS_HUGE_MIN ((size_t)1 << 20)
#define KS_HUGE_PAGE ((size_t)2 << 20)

void *ks_xmalloc_big(size_t bytes);
/* The same, zeroed. */
void *ks_xcalloc_big(size_t n, size_t size);

#endif
