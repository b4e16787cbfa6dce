/* store/strtab.c: interned strings (see kinesift/strtab.h). Texts live in 64 KiB arena chunks
 * so their addresses never move; an open-addressing table of ids finds them by hash. */
#include "kinesift/strtab.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define CHUNK (64 * 1024)

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    char data[];
} chunk;

/* One entry per id, text pointer, length and hash together: a lookup touches one cache line. */
typedef struct entry {
    const char *text;
    uint32_t len;
    uint32_t hash;
} entry;

struct ks_strtab {
    entry *e;          /* by id */
    size_t n, cap;     /* ids handed out (id 0 = "") */
    uint32_t *slots;   /* 0 = empty, else id */
    size_t nslots;     /* power of two */
    chunk *chunks;
    size_t bytes;
};

static char *arena_alloc(ks_strtab *t, size_t n)
{
    chunk *c = t->chunks;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > CHUNK / 4 ? n : CHUNK;
        c = ks_xmalloc(sizeof *c + cap);
        c->used = 0;
        c->cap = cap;
        if (n > CHUNK / 4 && t->chunks) {
            /* a big string gets its own chunk behind the current one */
            c->next = t->chunks->next;
            t->chunks->next = c;
        } else {
            c->next = t->chunks;
            t->chunks = c;
        }
        t->bytes += sizeof *c + cap;
    }
    char *p = c->data + c->used;
    c->used += n;
    return p;
}

ks_strtab *ks_strtab_new(void)
{
    ks_strtab *t = ks_xcalloc(1, sizeof *t);
    t->cap = 256;
    t->e = ks_xmalloc(t->cap * sizeof *t->e);
    t->e[0].text = "";
    t->e[0].len = 0;
    t->e[0].hash = 0;
    t->n = 1;
    t->nslots = 512;
    t->slots = ks_xcalloc(t->nslots, sizeof *t->slots);
    return t;
}

void ks_strtab_free(ks_strtab *t)
{
    if (!t)
        return;
    chunk *c = t->chunks;
    while (c) {
        chunk *n = c->next;
        free(c);
        c = n;
    }
    free(t->e);
    free(t->slots);
    free(t);
}

static void rehash(ks_strtab *t)
{
    size_t ns = t->nslots * 2;
    uint32_t *s = ks_xcalloc(ns, sizeof *s);
    for (uint32_t id = 1; id < t->n; id++) {
        size_t i = t->e[id].hash & (ns - 1);
        while (s[i])
            i = (i + 1) & (ns - 1);
        s[i] = id;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = ns;
}

static uint32_t lookup(const ks_strtab *t, const char *s, size_t len, uint32_t h, size_t *slot)
{
    size_t i = h & (t->nslots - 1);
    for (;;) {
        uint32_t id = t->slots[i];
        if (!id) {
            *slot = i;
            return 0;
        }
        const entry *e = &t->e[id];
        if (e->hash == h && e->len == len && !memcmp(e->text, s, len))
            return id;
        i = (i + 1) & (t->nslots - 1);
    }
}

/* the library's one string hash (common/util.h); ids do not depend on it */
static uint32_t str_hash(const char *s, size_t len)
{
    return (uint32_t)ks_hash(s, len);
}

ks_str ks_strtab_intern(ks_strtab *t, const char *s, size_t len)
{
    if (!len)
        return 0;
    if (len > UINT32_MAX)
        len = UINT32_MAX;
    uint32_t h = str_hash(s, len);
    size_t slot;
    uint32_t id = lookup(t, s, len, h, &slot);
    if (id)
        return id;
    if (t->n >= UINT32_MAX - 1)
        abort(); /* 4 billion distinct strings */
    if (t->n == t->cap) {
        t->cap *= 2;
        t->e = ks_xrealloc(t->e, ks_mul(t->cap, sizeof *t->e));
    }
    char *p = arena_alloc(t, len + 1);
    memcpy(p, s, len);
    p[len] = 0;
    id = (uint32_t)t->n++;
    t->e[id].text = p;
    t->e[id].len = (uint32_t)len;
    t->e[id].hash = h;
    t->slots[slot] = id;
    if (t->n * 2 > t->nslots)
        rehash(t);
    return id;
}

ks_str ks_strtab_find(const ks_strtab *t, const char *s, size_t len)
{
    if (!len)
        return 0;
    size_t slot;
    return lookup(t, s, len, str_hash(s, len), &slot);
}

const char *ks_strtab_get(const ks_strtab *t, ks_str id)
{
    return (t && id < t->n) ? t->e[id].text : "";
}

size_t ks_strtab_len(const ks_strtab *t, ks_str id)
{
    return (t && id < t->n) ? t->e[id].len : 0;
}

uint32_t ks_strtab_count(const ks_strtab *t)
{
    return (uint32_t)t->n;
}

size_t ks_strtab_bytes(const ks_strtab *t)
{
    return t->bytes + t->cap * sizeof *t->e +
           t->nslots * sizeof *t->slots;
}
