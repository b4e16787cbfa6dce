/* common/i64map.h: an open-addressing hash map from int64 keys to uint64 values, for id lookups
 * (correlation ids, External ids). Internal. */
#ifndef KS_I64MAP_H
#define KS_I64MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ks_i64map {
    int64_t *keys;
    uint64_t *vals;
    uint8_t *used;
    size_t n, cap; /* cap: power of two */
} ks_i64map;

void ks_i64map_init(ks_i64map *m);
void ks_i64map_free(ks_i64map *m);
/* Make room for n entries without rehashing. */
void ks_i64map_reserve(ks_i64map *m, size_t n);
/* Insert or replace. */
void ks_i64map_put(ks_i64map *m, int64_t key, uint64_t val);
/* Pointer to the value, or NULL. Valid until the next put. */
uint64_t *ks_i64map_get(const ks_i64map *m, int64_t key);

#endif
