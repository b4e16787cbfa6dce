/* store/bigarray.c: growable arrays that move to huge-page mappings when they get big (see
 * bigarray.h). A 1 GiB trace puts ~150 MB of event records into a few per-track arrays; grown
 * through malloc in 4 KiB pages that is ~40 000 page faults (each one costly in a VM), with
 * 2 MiB pages ~75, and with ready blocks from the reader thread none on the parser's thread.
 * Its mappings come from the library's one huge-page allocator (common/hugemem.h, ks_huge_map). */
#include "store/bigarray.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/hugemem.h"
#include "common/util.h"

static size_t page_size(void)
{
    long v = sysconf(_SC_PAGESIZE);
    return v > 0 ? (size_t)v : 4096;
}

static size_t round_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

size_t ks_bigarray_map_bytes(size_t cap, size_t esz)
{
    return round_up(ks_mul(cap, esz), page_size());
}

#define out_of_memory ks_out_of_memory

/* Move the n elements of mapping p (old_len bytes) into a new mapping of new_len bytes. mremap
 * moves page tables, not bytes; it refuses a range made of several mappings (ready blocks moved
 * in), which is then copied. */
static void *remap_grow(void *p, size_t old_len, size_t new_len, size_t used, int huge)
{
    void *q = mremap(p, old_len, new_len, 0); /* in place when the address space after is free */
    if (q != MAP_FAILED)
        goto done;
    q = ks_huge_map(new_len, 1, huge);
    if (!q)
        q = ks_huge_map(new_len, 0, huge);
    if (!q)
        out_of_memory(new_len);
    if (mremap(p, old_len, new_len, MREMAP_MAYMOVE | MREMAP_FIXED, q) == MAP_FAILED) {
        memcpy(q, p, used);
        munmap(p, old_len);
    }
done:
    if (huge)
        (void)madvise(q, new_len, MADV_HUGEPAGE);
    return q;
}

void ks_bigarray_grow(void **p, size_t *cap, uint8_t *mapped, size_t n, size_t need, size_t esz)
{
    if (need <= *cap)
        return;
    if (*mapped) {
        size_t old_len = ks_bigarray_map_bytes(*cap, esz);
        size_t want = ks_mul(need, esz);
        size_t new_len = round_up(want > old_len * 2 ? want : old_len * 2, KS_BIGARRAY_BLOCK);
        *p = remap_grow(*p, old_len, new_len, n * esz, *mapped == 2);
        *cap = new_len / esz;
        return;
    }
    /* x1.5 growth, as before the arrays could be mapped */
    /* from one slot: a trace may have a million one-event tracks (2 slots were 64 B more each) */
    size_t c = *cap ? *cap + *cap / 2 + (*cap < 4) : 1;
    if (c < need)
        c = need;
    size_t bytes = ks_mul(c, esz);
    if (bytes >= KS_BIGARRAY_MAP_MIN) {
        size_t len = round_up(bytes, KS_BIGARRAY_BLOCK);
        void *m = len < KS_BIGARRAY_RESERVE ? ks_huge_map(KS_BIGARRAY_RESERVE, 1, 1) : NULL;
        uint8_t how = 2;
        if (m)
            len = KS_BIGARRAY_RESERVE;
        else {
            m = ks_huge_map(len, 0, 0);
            how = 1;
        }
        if (m) {
            if (n)
                memcpy(m, *p, n * esz);
            free(*p);
            *p = m;
            *cap = len / esz;
            *mapped = how;
            return;
        }
    }
    *p = ks_xrealloc(*p, bytes);
    *cap = c;
}

void ks_bigarray_shrink(void **p, size_t *cap, uint8_t *mapped, size_t n, size_t esz)
{
    if (*cap == n)
        return;
    if (!n) {
        ks_bigarray_free(*p, *cap, *mapped, esz);
        *p = NULL;
        *cap = 0;
        *mapped = 0;
        return;
    }
    if (*mapped) {
        size_t old_len = ks_bigarray_map_bytes(*cap, esz), new_len = ks_bigarray_map_bytes(n, esz);
        if (new_len < old_len)
            munmap((char *)*p + new_len, old_len - new_len);
    } else {
        *p = ks_xrealloc(*p, ks_mul(n, esz));
    }
    *cap = n;
}

void ks_bigarray_free(void *p, size_t cap, uint8_t mapped, size_t esz)
{
    if (!p)
        return;
    if (mapped)
        munmap(p, ks_bigarray_map_bytes(cap, esz));
    else
        free(p);
}

void ks_bigarray_prepare(void *p, size_t cap, uint8_t *mapped, size_t esz, size_t n,
                         size_t *ready, const ks_page_supply *s)
{
    size_t len = ks_bigarray_map_bytes(cap, esz);
    if ((n + 1) * esz <= KS_BIGARRAY_HUGE_MIN) {
        *ready = KS_BIGARRAY_HUGE_MIN + KS_BIGARRAY_BLOCK; /* look again past the threshold */
        return;
    }
    if (*mapped == 1) {
        (void)madvise(p, len, MADV_HUGEPAGE);
        *mapped = 2;
        *ready = n * esz;
    } else if (*ready < n * esz) {
        *ready = n * esz; /* advised since the move: blocks go above what is written */
    }
    size_t want = (n + 1) * esz + KS_BIGARRAY_BLOCK;
    if (want > len)
        want = len;
    while (*ready < want) {
        size_t at = *ready;
        if (at % KS_BIGARRAY_BLOCK || at + KS_BIGARRAY_BLOCK > len) {
            /* inside a block already written to, or the last partial one: the writer faults it */
            size_t next = round_up(at + 1, KS_BIGARRAY_BLOCK);
            *ready = next < len ? next : len;
            continue;
        }
        void *b = s->take(s->ctx);
        if (b && mremap(b, KS_BIGARRAY_BLOCK, KS_BIGARRAY_BLOCK, MREMAP_MAYMOVE | MREMAP_FIXED,
                        (char *)p + at) == MAP_FAILED)
            munmap(b, KS_BIGARRAY_BLOCK);
        *ready = at + KS_BIGARRAY_BLOCK;
    }
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void *ks_bigarray_ready_block(void)
{
    char *b = ks_huge_map(KS_BIGARRAY_BLOCK, 0, 1);
    if (!b)
        return NULL;
    if (madvise(b, KS_BIGARRAY_BLOCK, MADV_POPULATE_WRITE) != 0) {
        /* kernels before 5.14: write each page */
        size_t ps = page_size();
        for (size_t k = 0; k < KS_BIGARRAY_BLOCK; k += ps)
            ((volatile char *)b)[k] = 0;
    }
    return b;
}

void ks_bigarray_block_free(void *block)
{
    if (block)
        munmap(block, KS_BIGARRAY_BLOCK);
}
