/* parser/blanks.c: drop the indentation yajl would skip (see blanks.h). memchr finds each line
 * break; the blanks around it are one candidate run; the bytes between the runs that go are
 * copied, and the offset map gets one entry per run. Without repairs in the run (the usual case)
 * output offsets map straight to input offsets plus what was dropped before them; with repairs the
 * repair filter's map is composed in. */
#include "parser/blanks.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

void ks_blanks_buf_free(ks_blanks_buf *b)
{
    free(b->out);
    free(b->map);
    memset(b, 0, sizeof *b);
}

static const unsigned char blank[256] = {[' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 1};

static inline int is_blank(char c)
{
    return blank[(unsigned char)c];
}

/* The output being built. */
typedef struct builder {
    const ks_run *in;
    ks_blanks_buf *b;
    size_t copied;  /* input bytes [0, copied) are copied or dropped */
    size_t o;       /* output length */
    size_t nmap;
    size_t k;       /* next input map entry to carry over */
    size_t dropped;
} builder;

static inline void emit(builder *w, size_t out, size_t in)
{
    ks_repair_map *m = w->b->map;
    if (m[w->nmap - 1].out == out) {
        m[w->nmap - 1].in = in; /* the later entry is the one that counts */
        return;
    }
    if (w->nmap == w->b->map_cap) {
        KS_GROW(w->b->map, w->b->map_cap, w->nmap + 1);
        m = w->b->map;
    }
    m[w->nmap].out = out;
    m[w->nmap].in = in;
    w->nmap++;
}

/* Carry over the input map entries at input offsets <= upto. */
static void carry_map(builder *w, size_t upto)
{
    const ks_repair_map *m = w->in->map;
    while (w->k < w->in->nmap && m[w->k].out <= upto) {
        emit(w, m[w->k].out - w->dropped, m[w->k].in);
        w->k++;
    }
}

/* Drop input bytes [x, y), y < n. The output position where they were keeps mapping to x (by the
 * entry before it); the next one maps to y + 1. */
static void drop_range(builder *w, size_t x, size_t y)
{
    memcpy(w->b->out + w->o, w->in->res + w->copied, x - w->copied);
    w->o += x - w->copied;
    w->dropped += y - x;
    w->copied = y;
    if (w->in->nmap == 1) {
        emit(w, y + 1 - w->dropped, y + 1); /* no repairs: input offsets are output offsets */
        return;
    }
    size_t before = w->dropped - (y - x);
    const ks_repair_map *m = w->in->map;
    while (w->k < w->in->nmap && m[w->k].out <= x) {
        emit(w, m[w->k].out - before, m[w->k].in);
        w->k++;
    }
    size_t j = w->k;
    while (j < w->in->nmap && m[j].out <= y + 1)
        j++;
    const ks_repair_map *last = &m[j - 1]; /* map[0] = {0, 0} is always <= y + 1 */
    size_t in_next = last->in + (y + 1 - last->out);
    while (w->k < w->in->nmap && m[w->k].out <= y)
        w->k++; /* entries inside the run (none in practice) are overtaken */
    emit(w, y + 1 - w->dropped, in_next);
}

void ks_blanks_run(const ks_run *in, ks_blanks_buf *b, ks_run *out)
{
    *out = *in;
    const char *s = in->res;
    size_t n = in->len;
    const char *q = n ? memchr(s, '\n', n) : NULL;
    if (!q)
        return;
    KS_GROW(b->out, b->cap, n);
    KS_GROW(b->map, b->map_cap, 1024);
    builder w = {in, b, 0, 0, 1, 1, 0};
    b->map[0].out = b->map[0].in = 0;
    while (q) {
        size_t nl = (size_t)(q - s), x = nl, y = nl + 1;
        while (x > 0 && is_blank(s[x - 1]))
            x--;
        for (;;) {
            /* indentation: spaces 8 at a time, then any blank byte by byte */
            while (y + 8 <= n) {
                uint64_t v;
                memcpy(&v, s + y, 8);
                v ^= 0x2020202020202020ULL;
                if (v) {
                    y += (size_t)__builtin_ctzll(v) / 8;
                    break;
                }
                y += 8;
            }
            if (y >= n || !is_blank(s[y]))
                break;
            y++;
        }
        if (x > 0 && y < n && y - x >= KS_BLANKS_MIN && s[y] != '/') {
            char a = s[x - 1];
            if (a == '{' || a == '[' || a == ':' || a == ',')
                drop_range(&w, x, y);
        }
        q = y < n ? memchr(s + y, '\n', n - y) : NULL;
    }
    if (!w.dropped)
        return;
    memcpy(b->out + w.o, s + w.copied, n - w.copied);
    w.o += n - w.copied;
    carry_map(&w, n);
    out->res = b->out;
    out->len = w.o;
    out->map = b->map;
    out->nmap = w.nmap;
}
