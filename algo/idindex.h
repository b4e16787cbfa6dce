/* algo/idindex.h: a read-only index from int64 ids (CUPTI correlation ids) to one uint64 value
 * each, kept as an array of (id, value) pairs sorted by id. It is filled with pairs in any order,
 * then built once: an id given more than once keeps its smallest value, so the caller chooses
 * which pair wins through the value (e.g. a rank in its top bit). 16 bytes per pair and sorted
 * memory, where a growing hash map spends 34 bytes per pair in random memory and page faults.
 * Pairs are usually added as a few ascending runs (one per thread), which the build merges in
 * log2(runs) passes (msort.h); lookups in nearly ascending id order (GPU work in launch order)
 * cost O(1) each through a cursor. Internal. */
#ifndef KS_IDINDEX_H
#define KS_IDINDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct ks_id_pair {
    int64_t id;
    uint64_t val;
} ks_id_pair;

typedef struct ks_idindex {
    ks_id_pair *v;
    size_t n, cap;
    int built;
} ks_idindex;

void ks_idindex_init(ks_idindex *x);
void ks_idindex_free(ks_idindex *x);
/* Room for n more pairs. */
void ks_idindex_reserve(ks_idindex *x, size_t n);
/* Add a pair (before ks_idindex_build). */
void ks_idindex_add(ks_idindex *x, int64_t id, uint64_t val);
/* Sort by id and keep, per id, the smallest value. */
void ks_idindex_build(ks_idindex *x);
/* The value of id, or NULL. *cursor (start it at 0) remembers where the last lookup ended: the
 * next one searches outward from there, so ascending lookups are O(1). */
const uint64_t *ks_idindex_find(const ks_idindex *x, int64_t id, size_t *cursor);

#endif
