/* parser/unit.c: units of events parsed ahead by a worker (see unit.h): where a chunk's run is
 * cut, and the replay of a unit into the real store. */
#include "parser/unit.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "json/scan.h"

#define UNMAPPED UINT32_MAX

/* s[i] == '{': 1 and *brace when blanks ',' blanks '}' come before it. */
static int boundary(const char *s, size_t i, size_t *brace)
{
    size_t j = i;
    while (j && ks_jscan_blank((unsigned char)s[j - 1]))
        j--;
    if (!j || s[j - 1] != ',')
        return 0;
    j--;
    while (j && ks_jscan_blank((unsigned char)s[j - 1]))
        j--;
    if (!j || s[j - 1] != '}')
        return 0;
    *brace = j - 1;
    return 1;
}

int ks_unit_bounds(const char *s, size_t n, size_t from, size_t *x, size_t *xb, size_t *y, size_t *yb)
{
    size_t i = from;
    const char *q;
    for (;;) {
        if (i >= n || !(q = memchr(s + i, '{', n - i)))
            return 0;
        i = (size_t)(q - s);
        if (boundary(s, i, xb))
            break;
        i++;
    }
    *x = i;
    size_t k = n;
    while (k > *x + 1) {
        q = memrchr(s + *x + 1, '{', k - (*x + 1));
        if (!q)
            return 0;
        k = (size_t)(q - s);
        if (boundary(s, k, yb) && *yb > *x) {
            *y = k;
            return 1;
        }
    }
    return 0;
}

void ks_unit_reset(ks_unit *u)
{
    u->state = KS_UNIT_EMPTY;
    u->refused = 0;
    u->cut = 0;
    u->x = u->xb = u->y = u->yb = 0;
    u->nuse = u->ntr = u->nev = u->ndiag = u->ncat_count = u->ncoll = u->nshape = u->nlaunch = u->nwide = u->nmem = u->nsync = 0;
    memset(u->by_phase, 0, sizeof u->by_phase);
    u->events_read = 0;
    u->last_end = 0;
}

void ks_unit_free(ks_unit *u)
{
    free(u->use);
    free(u->tr);
    free(u->ev);
    free(u->coll);
    free(u->mem);
    free(u->shape);
    free(u->sync);
    free(u->launch);
    free(u->wide);
    free(u->cat_count);
    free(u->diag);
    memset(u, 0, sizeof *u);
}

void ks_unit_maps_free(ks_unit_maps *m)
{
    free(m->str);
    free(m->cat);
    free(m->track);
    memset(m, 0, sizeof *m);
}

/* Make map[0 .. need) addressable, new entries unmapped. */
static void map_reserve(uint32_t **map, size_t *cap, size_t need)
{
    if (need <= *cap)
        return;
    size_t old = *cap;
    KS_GROW(*map, *cap, need);
    for (size_t i = old; i < *cap; i++)
        (*map)[i] = UNMAPPED;
}

static void map_uses(ks_trace *t, const ks_unit *u, ks_unit_maps *m)
{
    for (size_t i = 0; i < u->nuse; i++) {
        const ks_unit_use *w = &u->use[i];
        if (w->is_cat) {
            map_reserve(&m->cat, &m->cat_cap, (size_t)w->local + 1);
            if (m->cat[w->local] == UNMAPPED)
                m->cat[w->local] = ks_trace_cat(t, w->text, w->len);
        } else {
            map_reserve(&m->str, &m->str_cap, (size_t)w->local + 1);
            if (m->str[w->local] == UNMAPPED)
                m->str[w->local] = ks_strtab_intern(t->strings, w->text, w->len);
        }
    }
}

/* A local pid/tid in real-store terms (string ids are mapped by now: first used in the unit). */
static ks_id map_id(const ks_unit_maps *m, ks_id id)
{
    if (id.type == KS_ID_STR || id.type == KS_ID_NUM)
        id.v = id.v ? m->str[id.v] : 0;
    return id;
}

static void map_tracks(ks_trace *t, const ks_unit *u, ks_unit_maps *m)
{
    for (size_t i = 0; i < u->ntr; i++) {
        const ks_unit_track *k = &u->tr[i];
        map_reserve(&m->track, &m->track_cap, (size_t)k->local + 1);
        /* local track ids are the unit's own (spec.c): every one is mapped afresh */
        m->track[k->local] = ks_trace_track(t, map_id(m, k->pid), map_id(m, k->tid));
    }
}

static ks_str map_str(const ks_unit_maps *m, ks_str id)
{
    return id ? m->str[id] : 0;
}

/* As commit.c's commit_coll for the event just appended to track. */
static void merge_coll(ks_trace *t, const ks_unit_maps *m, uint32_t track, const ks_coll_info *local)
{
    ks_coll_info c = *local;
    c.track = track;
    c.ev = (uint32_t)(t->tracks[track].n - 1);
    c.name = map_str(m, c.name);
    c.pg_name = map_str(m, c.pg_name);
    c.pg_ranks = map_str(m, c.pg_ranks);
    c.dtype = map_str(m, c.dtype);
    c.in_nelems--;
    c.out_nelems--;
    c.group_size--;
    c.seq--;
    ks_trace_add_coll(t, &c);
}

void ks_unit_merge(ks_trace *t, const ks_unit *u)
{
    ks_unit_maps *m = u->maps;
    map_reserve(&m->str, &m->str_cap, 1);
    m->str[0] = 0;
    map_reserve(&m->cat, &m->cat_cap, 1);
    m->cat[0] = 0;
    map_uses(t, u, m);
    map_tracks(t, u, m);
    size_t nc = 0; /* the next collective (an index: u->coll is NULL in most units) */
    size_t nm = 0; /* the next allocator event */
    size_t ns = 0; /* the next recorded shape */
    size_t nw = 0; /* the next recorded wait */
    size_t nl = 0; /* the next launch args */
    for (size_t i = 0; i < u->nev; i++) {
        ks_event e = u->ev[i].ev;
        e.name = m->str[e.name];
        e.cat = (uint16_t)m->cat[e.cat];
        uint32_t track = m->track[u->ev[i].track];
        if (e.flags & (KS_EF_EXT_WIDE | KS_EF_CORR_WIDE))
            ks_event_set_ids(t, &e, ks_event_id_in(u->wide, e.ext32, e.flags & KS_EF_EXT_WIDE),
                             ks_event_id_in(u->wide, e.corr32, e.flags & KS_EF_CORR_WIDE));
        ks_trace_append_device(t, track, &e, u->ev[i].stream, u->ev[i].device);
        if (e.flags & KS_EF_BYTES)
            ks_trace_set_bytes(t, track, u->ev[i].bytes);
        if (nc < u->ncoll && u->coll[nc].ev == i)
            merge_coll(t, m, track, &u->coll[nc++].c);
        if (nm < u->nmem && u->mem[nm].ev == i) {
            ks_mem_info mi = u->mem[nm++];
            mi.track = track;
            mi.ev = (uint32_t)(t->tracks[track].n - 1);
            ks_trace_add_mem(t, &mi);
        }
        if (nw < u->nsync && u->sync[nw].ev == i) {
            ks_sync_info w = u->sync[nw++];
            w.track = track;
            w.ev = (uint32_t)(t->tracks[track].n - 1);
            ks_trace_add_sync(t, &w);
        }
        if (nl < u->nlaunch && u->launch[nl].ev == i)
            ks_trace_add_launch(t, track, (uint32_t)(t->tracks[track].n - 1), &u->launch[nl++].a);
        if (ns < u->nshape && u->shape[ns].ev == i) {
            ks_shape_info s = u->shape[ns++];
            s.track = track;
            s.ev = (uint32_t)(t->tracks[track].n - 1);
            s.dims = map_str(m, s.dims);
            s.types = map_str(m, s.types);
            s.concrete = map_str(m, s.concrete);
            ks_trace_add_shape(t, &s);
        }
    }
    for (size_t c = 0; c < u->ncat_count; c++)
        if (u->cat_count[c])
            t->by_cat[m->cat[c]] += u->cat_count[c];
    for (int ph = 0; ph < 128; ph++)
        t->by_phase[ph] += u->by_phase[ph];
    for (size_t i = 0; i < u->ndiag; i++)
        ks_diag_count(&t->diag, u->diag[i].id, u->diag[i].sev, u->diag[i].n);
}
