/* common/i64map.c: int64 -> uint64 hash map with linear probing (see i64map.h). */
#include "common/i64map.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"

void ks_i64map_init(ks_i64map *m)
{
    memset(m, 0, sizeof *m);
}

void ks_i64map_free(ks_i64map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

static void rehash(ks_i64map *m, size_t nc)
{
    int64_t *k = ks_xmalloc(ks_mul(nc, sizeof *k));
    uint64_t *v = ks_xmalloc(ks_mul(nc, sizeof *v));
    uint8_t *u = ks_xcalloc(nc, 1);
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->used[i])
            continue;
        size_t s = ks_hash_u64((uint64_t)m->keys[i]) & (nc - 1);
        while (u[s])
            s = (s + 1) & (nc - 1);
        u[s] = 1;
        k[s] = m->keys[i];
        v[s] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    free(m->used);
    m->keys = k;
    m->vals = v;
    m->used = u;
    m->cap = nc;
}

void ks_i64map_reserve(ks_i64map *m, size_t n)
{
    size_t nc = m->cap ? m->cap : 64;
    while (nc < n * 2)
        nc *= 2;
    if (nc > m->cap)
        rehash(m, nc);
}

void ks_i64map_put(ks_i64map *m, int64_t key, uint64_t val)
{
    if ((m->n + 1) * 2 > m->cap)
        rehash(m, m->cap ? m->cap * 2 : 64);
    size_t s = ks_hash_u64((uint64_t)key) & (m->cap - 1);
    while (m->used[s]) {
        if (m->keys[s] == key) {
            m->vals[s] = val;
            return;
        }
        s = (s + 1) & (m->cap - 1);
    }
    m->used[s] = 1;
    m->keys[s] = key;
    m->vals[s] = val;
    m->n++;
}

uint64_t *ks_i64map_get(const ks_i64map *m, int64_t key)
{
    if (!m->cap)
        return NULL;
    size_t s = ks_hash_u64((uint64_t)key) & (m->cap - 1);
    while (m->used[s]) {
        if (m->keys[s] == key)
            return &m->vals[s];
        s = (s + 1) & (m->cap - 1);
    }
    return NULL;
}
