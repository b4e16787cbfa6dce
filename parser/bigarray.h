/* parser/bigarray.h: growable arrays for the event store's big per-track arrays. Small arrays live
 * in malloc; once an array passes a few MiB it moves to its own anonymous mapping, 2 MiB aligned
 * with MADV_HUGEPAGE (one page fault per 2 MiB instead of per 4 KiB where transparent huge pages
 * are enabled in "madvise" or "always" mode), and later growth moves the mapping with mremap (no
 * copy). Where mmap is refused the array stays in malloc. Internal to parser/. */
#ifndef KS_BIGARRAY_H
#define KS_BIGARRAY_H

#include <stddef.h>
#include <stdint.h>

/* Size (bytes) at which an array moves from malloc to a mapping. */
#define KS_BIGARRAY_MAP_MIN (4u << 20)

/* An array: *p with *cap elements of esz bytes, n of them used; *mapped is 0 (malloc) or 1 (a
 * mapping of round_up(*cap * esz, page size) bytes). */

/* Grow to at least need elements (geometric growth). Keeps the first n elements. */
void ks_bigarray_grow(void **p, size_t *cap, uint8_t *mapped, size_t n, size_t need, size_t esz);

/* Release spare capacity: afterwards *cap == n (and *p == NULL when n == 0). */
void ks_bigarray_shrink(void **p, size_t *cap, uint8_t *mapped, size_t n, size_t esz);

/* Free the array. */
void ks_bigarray_free(void *p, size_t cap, uint8_t mapped, size_t esz);

/* Bytes of the mapping that holds cap elements (page-rounded); for tests. */
size_t ks_bigarray_map_bytes(size_t cap, size_t esz);

#endif
