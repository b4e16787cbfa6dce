/* parser/bigarray.c: growable arrays that move to huge-page mappings when they get big (see
 * bigarray.h). A 1 GiB trace puts ~150 MB of event records into a few per-track arrays; grown
 * through malloc in 4 KiB pages that is ~40 000 page faults (each one costly in a VM), with
 * 2 MiB pages ~75. Growth of a mapping is an mremap: page tables move, bytes do not. */
#include "parser/bigarray.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/util.h"

#define HUGE_PAGE ((size_t)2 << 20)

static size_t page_size(void)
{
    static size_t ps;
    if (!ps) {
        long v = sysconf(_SC_PAGESIZE);
        ps = v > 0 ? (size_t)v : 4096;
    }
    return ps;
}

static size_t round_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

size_t ks_bigarray_map_bytes(size_t cap, size_t esz)
{
    return round_up(ks_mul(cap, esz), page_size());
}

static void out_of_memory(size_t n)
{
    fprintf(stderr, "kinesift: out of memory (%zu bytes)\n", n);
    abort();
}

/* A fresh read/write mapping of len bytes (a multiple of HUGE_PAGE) starting on a 2 MiB
 * boundary, advised for huge pages; NULL when refused. */
static void *map_aligned(size_t len)
{
    size_t span = len + HUGE_PAGE;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *a = (char *)round_up((size_t)(uintptr_t)raw, HUGE_PAGE);
    size_t head = (size_t)(a - raw), tail = span - head - len;
    if (head)
        munmap(raw, head);
    if (tail)
        munmap(a + len, tail);
    (void)madvise(a, len, MADV_HUGEPAGE); /* advisory: fails harmlessly without THP */
    return a;
}

/* Move or extend the mapping p (old_len bytes) to new_len bytes, keeping its contents and a
 * 2 MiB-aligned start. */
static void *remap_grow(void *p, size_t old_len, size_t new_len)
{
    void *q = mremap(p, old_len, new_len, 0); /* in place when the address space after is free */
    if (q != MAP_FAILED)
        goto done;
    void *target = map_aligned(new_len);
    if (target) {
        q = mremap(p, old_len, new_len, MREMAP_MAYMOVE | MREMAP_FIXED, target);
        if (q != MAP_FAILED)
            goto done;
        munmap(target, new_len);
    }
    q = mremap(p, old_len, new_len, MREMAP_MAYMOVE);
    if (q == MAP_FAILED)
        out_of_memory(new_len);
done:
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
        size_t new_len = round_up(want > old_len * 2 ? want : old_len * 2, HUGE_PAGE);
        *p = remap_grow(*p, old_len, new_len);
        *cap = new_len / esz;
        return;
    }
    /* x1.5 growth, as before the arrays could be mapped */
    size_t c = *cap ? *cap + *cap / 2 : 16;
    if (c < need)
        c = need;
    size_t bytes = ks_mul(c, esz);
    if (bytes >= KS_BIGARRAY_MAP_MIN) {
        size_t len = round_up(bytes, HUGE_PAGE);
        void *m = map_aligned(len);
        if (m) {
            if (n)
                memcpy(m, *p, n * esz);
            free(*p);
            *p = m;
            *cap = len / esz;
            *mapped = 1;
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
