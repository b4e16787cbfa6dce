/* store/bigarray.h: growable arrays for the event store's big per-track arrays. Small arrays live
 * in malloc; once an array passes 512 KiB it moves to its own anonymous mapping, a 2 MiB-aligned
 * reservation of address space (1 GiB or more, MAP_NORESERVE: untouched pages cost nothing), so
 * it grows without being copied. The reservation is advised for transparent huge pages before the
 * array is copied in, so that it faults once per 2 MiB instead of once per 4 KiB from its first
 * byte (a 4 KiB page fault costs ~10 us in a VM: the 2 MiB after the move were ~500 of them; a
 * 2 MiB page holding 512 KiB to 2 MiB costs at most 1.5 MiB an array, and only arrays of 512 KiB
 * or more). Where such a reservation is refused it gets an exact-size mapping grown by mremap,
 * advised past 4 MiB (a partly used 2 MiB page in each of many such mappings would cost more
 * memory than it saves), and where mmap is refused it stays in malloc.
 *
 * Page faults still zero each page on the thread that first writes it. A page supply (the
 * parser's reader thread) can take that off the writer: past 4 MiB it hands over 2 MiB blocks
 * already faulted in, and ks_bigarray_prepare moves them (mremap, no copy) to the spot the writer
 * reaches next. Internal to parser/. */
#ifndef KS_BIGARRAY_H
#define KS_BIGARRAY_H

#include <stddef.h>
#include <stdint.h>

#include "common/hugemem.h"

/* Size (bytes) at which an array moves from malloc to a mapping, and at which ready blocks come
 * from the page supply (and an exact-size mapping is advised for huge pages). */
#define KS_BIGARRAY_MAP_MIN (512u << 10)
#define KS_BIGARRAY_HUGE_MIN (4u << 20)
/* The unit of ready memory, and the alignment of mappings (common/hugemem.h's huge page). */
#define KS_BIGARRAY_BLOCK KS_HUGE_PAGE
/* Address space reserved for a mapped array at first (it grows beyond by moving). */
#define KS_BIGARRAY_RESERVE ((size_t)1 << 30)

/* An array: *p with *cap elements of esz bytes (esz < 4096), n of them used; *mapped is 0
 * (malloc), 1 (a mapping of round_up(*cap * esz, page size) bytes) or 2 (the same, advised for
 * huge pages). */

/* Grow to at least need elements (geometric growth). Keeps the first n elements. */
void ks_bigarray_grow(void **p, size_t *cap, uint8_t *mapped, size_t n, size_t need, size_t esz);

/* Release spare capacity: afterwards *cap == n (and *p == NULL when n == 0). */
void ks_bigarray_shrink(void **p, size_t *cap, uint8_t *mapped, size_t n, size_t esz);

/* Free the array. */
void ks_bigarray_free(void *p, size_t cap, uint8_t mapped, size_t esz);

/* Bytes of the mapping that holds cap elements (page-rounded). */
size_t ks_bigarray_map_bytes(size_t cap, size_t esz);

/* A source of ready memory: take() returns a KS_BIGARRAY_BLOCK-sized, aligned mapping whose pages
 * are already faulted in, or NULL when none is ready. Called on the writer's thread. */
typedef struct ks_page_supply {
    void *(*take)(void *ctx);
    void *ctx;
} ks_page_supply;

/* Before element n of a mapped array is written (the first n are): once past
 * KS_BIGARRAY_HUGE_MIN, advise huge pages (where the move did not) and bring ready blocks from s
 * into the array's own mapping, up to one block ahead. *ready is the array's bookkeeping, 0 when
 * it became mapped: the bytes from its start that may already be written (blocks only ever go
 * above it and above the n elements), or, below KS_BIGARRAY_HUGE_MIN, where to look again. Call
 * it when (n + 1) * esz + KS_BIGARRAY_BLOCK > *ready. */
void ks_bigarray_prepare(void *p, size_t cap, uint8_t *mapped, size_t esz, size_t n,
                         size_t *ready, const ks_page_supply *s);

/* A ready block for a supply (faulted in here, on the caller's thread), or NULL; and its release
 * when it was not used. */
void *ks_bigarray_ready_block(void);
void ks_bigarray_block_free(void *block);

#endif
