/* parser/shapememo.c: the shape args handed over whole (ks_ps_cap_raw) remembered by their bytes
 * as the trace writes them, with the string id of their compact text. An op's Input Dims, Input
 * type and Concrete Inputs come back call after call byte for byte: a text met before is neither
 * compacted nor interned again; one hash of its bytes and one comparison find its id (its first
 * use in a worker's unit is logged as the intern logs it, ks_ps_use). Each parser has its own: the
 * ids are those of its string table, which lives as long as the parser. Bounded: once the texts
 * kept reach KS_LIMIT_SHAPE_MEMO bytes, new ones are compacted and interned each time, as before.
 * Internal to parser/. */
#include "parser/parser_int.h"

#include <stdlib.h>
#include <string.h>

#include "common/limits.h"
#include "common/util.h"

void ks_ps_memo_free(ks_shape_memo *m)
{
    free(m->slot);
    free(m->e);
    ks_buf_free(&m->text);
    memset(m, 0, sizeof *m);
}

/* the slot of the text (s, n) with hash h: its entry's (entry + 1), or the empty one where it goes */
static uint32_t *slot_of(const ks_shape_memo *m, const char *s, size_t n, uint64_t h)
{
    for (size_t i = (size_t)h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        uint32_t x = m->slot[i];
        if (!x)
            return &m->slot[i];
        const ks_memo_entry *e = &m->e[x - 1];
        if (e->h == h && e->len == n && !memcmp(m->text.p + e->off, s, n))
            return &m->slot[i];
    }
}

int ks_ps_memo_find(ks_parser *p, const char *s, size_t n, uint64_t *h, ks_str *id)
{
    ks_shape_memo *m = &p->memo;
    *h = ks_hash(s, n);
    if (!m->n)
        return 0;
    uint32_t x = *slot_of(m, s, n, *h);
    if (!x)
        return 0;
    const ks_memo_entry *e = &m->e[x - 1];
    *id = e->id;
    ks_ps_use(p, e->id, e->clen);
    return 1;
}

void ks_ps_memo_add(ks_parser *p, const char *s, size_t n, uint64_t h, ks_str id, size_t clen)
{
    ks_shape_memo *m = &p->memo;
    if (m->text.n + n > KS_LIMIT_SHAPE_MEMO)
        return;
    if (2 * (m->n + 1) > m->cap) { /* at most half full */
        size_t cap = m->cap ? 2 * m->cap : 1024;
        free(m->slot);
        m->slot = ks_xcalloc(cap, sizeof *m->slot);
        m->cap = cap;
        for (size_t k = 0; k < m->n; k++)
            *slot_of(m, m->text.p + m->e[k].off, m->e[k].len, m->e[k].h) = (uint32_t)k + 1;
    }
    uint32_t *sl = slot_of(m, s, n, h);
    if (*sl)
        return;
    KS_GROW(m->e, m->ecap, m->n + 1);
    m->e[m->n] = (ks_memo_entry){h, (uint32_t)m->text.n, (uint32_t)n, id, (uint32_t)clen};
    ks_buf_put(&m->text, s, n);
    *sl = (uint32_t)++m->n;
}
