/* parser/blanks.c: drop the indentation yajl would skip (see blanks.h). memchr finds each line
 * break; the blanks around it are one candidate run; the bytes between the runs that go are
 * copied, and the offset map gets one entry per run. Without repairs in the run (the usual case)
 * output offsets map straight to input offsets plus what was dropped before them; with repairs the
 * repair filter's map is composed in, its runs of one shape kept as runs. */
#include "parser/blanks.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

void ks_blanks_buf_free(ks_blanks_buf *b)
{
    if (!b->out_lent)
        free(b->out);
    if (!b->map_lent)
        free(b->map);
    memset(b, 0, sizeof *b);
}

/* Room for need map entries, the first keep of them kept (a lent map too small: one of our own) */
static void map_room(ks_blanks_buf *b, size_t keep, size_t need)
{
    if (need <= b->map_cap)
        return;
    if (b->map_lent) {
        ks_repair_map *lent = b->map;
        b->map = NULL;
        b->map_cap = 0;
        b->map_lent = 0;
        KS_GROW(b->map, b->map_cap, need);
        if (keep)
            memcpy(b->map, lent, keep * sizeof *lent);
        return;
    }
    KS_GROW(b->map, b->map_cap, need);
}

static const unsigned char blank[256] = {[' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 1};

static inline int is_blank(char c)
{
    return blank[(unsigned char)c];
}

/* The output being built. The input map is walked as the repair filter would have written it
 * with one point per repair: a run of one shape (ks_repair_map, gin > 0) stands for one point per
 * group, the g-th at (out + g * gout, in + g * gin); (k, g) is the next of those to carry over. A
 * run no dropped range touches is carried over whole, one point; one that a range cuts is carried
 * over in pieces around it, each piece a run again. */
typedef struct builder {
    const ks_run *in;
    ks_blanks_buf *b;
    size_t copied;  /* input bytes [0, copied) are copied or dropped */
    size_t o;       /* output length */
    size_t nmap;
    size_t k, g;    /* next input map point (and group of a run) to carry over */
    size_t dropped;
} builder;

static inline void emit(builder *w, size_t out, size_t in, uint32_t gin, uint32_t gout)
{
    ks_repair_map *m = w->b->map;
    if (m[w->nmap - 1].out == out) {
        m[w->nmap - 1] = (ks_repair_map){out, in, gin, gout}; /* the later entry is the one that counts */
        return;
    }
    if (w->nmap == w->b->map_cap) {
        map_room(w->b, w->nmap, w->nmap + 1);
        m = w->b->map;
    }
    m[w->nmap++] = (ks_repair_map){out, in, gin, gout};
}

/* Groups of input map point k (1 for a plain point). */
static inline size_t groups(const ks_run *in, size_t k)
{
    const ks_repair_map *m = &in->map[k];
    return m->gin ? (m[1].in - m->in) / m->gin : 1;
}

/* Move (*k, *g) past the per-repair points at output offsets <= q. */
static void skip_to(const ks_run *in, size_t *k, size_t *g, size_t q)
{
    while (*k < in->nmap) {
        const ks_repair_map *m = &in->map[*k];
        if (m->out + *g * m->gout > q)
            return;
        if (m->gin) {
            size_t last = (q - m->out) / m->gout; /* the last group starting at or before q */
            if (last + 1 < groups(in, *k)) {
                *g = last + 1;
                return;
            }
        }
        (*k)++;
        *g = 0;
    }
}

/* Carry over the input map points at input offsets <= upto, their output offsets less shift. */
static void carry(builder *w, size_t upto, size_t shift)
{
    const ks_run *in = w->in;
    while (w->k < in->nmap) {
        const ks_repair_map *m = &in->map[w->k];
        size_t o0 = m->out + w->g * m->gout;
        if (o0 > upto)
            return;
        emit(w, o0 - shift, m->in + w->g * m->gin, m->gin, m->gout);
        if (m->gin) {
            size_t last = (upto - m->out) / m->gout; /* the last group starting at or before upto */
            if (last + 1 < groups(in, w->k)) {
                w->g = last + 1; /* a run cut at upto: the rest comes after it */
                return;
            }
        }
        w->k++;
        w->g = 0;
    }
}

/* Carry over the input map entries at input offsets <= upto. */
static void carry_map(builder *w, size_t upto)
{
    carry(w, upto, w->dropped);
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
        emit(w, y + 1 - w->dropped, y + 1, 0, 0); /* no repairs: input offsets are output offsets */
        return;
    }
    size_t before = w->dropped - (y - x);
    carry(w, x, before);
    /* the last per-repair point at or before y + 1 (map[0] = {0, 0} always is) */
    size_t k = w->k, g = w->g;
    skip_to(w->in, &k, &g, y + 1);
    if (g)
        g--;
    else {
        k--;
        g = groups(w->in, k) - 1;
    }
    const ks_repair_map *last = &w->in->map[k];
    size_t in_next = last->in + g * last->gin + (y + 1 - (last->out + g * last->gout));
    skip_to(w->in, &w->k, &w->g, y); /* points inside the run (none in practice) are overtaken */
    emit(w, y + 1 - w->dropped, in_next, 0, 0);
}

void ks_blanks_run(const ks_run *in, ks_blanks_buf *b, ks_run *out)
{
    *out = *in;
    const char *s = in->res;
    size_t n = in->len;
    const char *q = n ? memchr(s, '\n', n) : NULL;
    if (!q)
        return;
    if (n > b->cap && b->out_lent) { /* nothing of it is kept: one of our own */
        b->out = NULL;
        b->cap = 0;
        b->out_lent = 0;
    }
    KS_GROW(b->out, b->cap, n);
    map_room(b, 0, 1024);
    /* map[0] = {0, 0}: the output's first point, unless it starts a run (carried over then) */
    builder w = {in, b, 0, 0, 1, in->map[0].gin ? 0 : 1, 0, 0};
    b->map[0] = (ks_repair_map){0, 0, 0, 0};
    while (q) {
        size_t nl = (size_t)(q - s), x = nl, y = nl + 1;
        while (x > 0 && is_blank(s[x - 1]))
            x--;
        for (;;) {
            /* indentation: spaces 8 at a time, then any blank byte by byte */
            y = ks_skip_spaces(s, y, n);
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
