/* store/store.c: the event store (see kinesift/store.h): categories, processes and tracks keyed
 * by typed pid/tid, per-track event arrays, and the finishing pass that decides which tracks are
 * CPU threads and which are GPU streams. */
#include "kinesift/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/limits.h"
#include "common/util.h"
#include "store/bigarray.h"
#include "store/store_int.h"

/* ---- ids ----------------------------------------------------------------------------------- */

int ks_id_equal(ks_id a, ks_id b)
{
    return a.type == b.type && a.v == b.v;
}

void ks_id_format(const ks_strtab *st, ks_id id, char *buf, size_t n)
{
    switch (id.type) {
    case KS_ID_NONE: snprintf(buf, n, "-"); break;
    case KS_ID_INT: snprintf(buf, n, "%lld", (long long)id.v); break;
    case KS_ID_UINT: snprintf(buf, n, "%llu", (unsigned long long)(uint64_t)id.v); break;
    case KS_ID_STR:
    case KS_ID_NUM: snprintf(buf, n, "%s", ks_strtab_get(st, (ks_str)id.v)); break;
    default: snprintf(buf, n, "?"); break;
    }
}

/* ---- trace --------------------------------------------------------------------------------- */

/* track lookup: open addressing over (pid, tid) */
typedef struct track_index {
    uint32_t *slots; /* track index + 1; 0 = empty */
    size_t nslots;
} track_index;

/* The index lives behind the public struct so the header stays plain data. */
typedef struct trace_impl {
    ks_trace t;
    track_index tracks;
    track_index procs;
    ks_page_supply supply; /* ready memory for mapped event arrays (parser's reader thread) */
} trace_impl;

static void *no_supply(void *ctx)
{
    (void)ctx;
    return NULL;
}

void ks_trace_set_supply(ks_trace *t, const ks_page_supply *s)
{
    trace_impl *ti = (trace_impl *)t;
    ti->supply.take = s ? s->take : no_supply;
    ti->supply.ctx = s ? s->ctx : NULL;
}

ks_trace *ks_trace_new(const char *source)
{
    trace_impl *ti = ks_xcalloc(1, sizeof *ti);
    ks_trace *t = &ti->t;
    ti->supply.take = no_supply;
    t->source = ks_xstrdup(source ? source : "-");
    t->strings = ks_strtab_new();
    KS_GROW(t->cats, t->cats_cap, 16);
    t->by_cat = ks_xcalloc(t->cats_cap, sizeof *t->by_cat);
    t->cats[0] = 0;
    t->ncats = 1;
    ks_diag_init(&t->diag);
    return t;
}

void ks_trace_free(ks_trace *t)
{
    if (!t)
        return;
    trace_impl *ti = (trace_impl *)t;
    for (size_t i = 0; i < t->ntracks; i++)
        ks_bigarray_free(t->tracks[i].ev, t->tracks[i].cap, t->tracks[i].ev_mapped, sizeof(ks_event));
    free(t->tracks);
    free(t->procs);
    free(t->cats);
    free(t->by_cat);
    free(t->counters);
    free(t->series);
    free(t->colls);
    free(t->meta.devices);
    free(t->meta.entries);
    ks_diag_free(&t->diag);
    ks_strtab_free(t->strings);
    free(t->source);
    free(t->filter);
    free(ti->tracks.slots);
    free(ti->procs.slots);
    free(ti);
}

uint16_t ks_trace_cat(ks_trace *t, const char *s, size_t len)
{
    if (!len)
        return 0;
    ks_str id = ks_strtab_intern(t->strings, s, len);
    for (size_t i = 1; i < t->ncats; i++)
        if (t->cats[i] == id)
            return (uint16_t)i;
    if (t->ncats >= KS_LIMIT_CATEGORIES) {
        ks_diag_count(&t->diag, "parse.too_many_categories", KS_SEV_WARNING, 1);
        return (uint16_t)(KS_LIMIT_CATEGORIES - 1); /* the last slot collects the rest */
    }
    size_t old = t->cats_cap;
    KS_GROW(t->cats, t->cats_cap, t->ncats + 1);
    if (t->cats_cap != old) {
        t->by_cat = ks_xrealloc(t->by_cat, ks_mul(t->cats_cap, sizeof *t->by_cat));
        memset(t->by_cat + old, 0, (t->cats_cap - old) * sizeof *t->by_cat);
    }
    t->cats[t->ncats] = id;
    return (uint16_t)t->ncats++;
}

const char *ks_trace_cat_name(const ks_trace *t, uint16_t cat)
{
    return cat < t->ncats ? ks_strtab_get(t->strings, t->cats[cat]) : "";
}

const char *ks_trace_str(const ks_trace *t, ks_str id)
{
    return ks_strtab_get(t->strings, id);
}

static uint64_t id_hash(ks_id a)
{
    return ks_hash_u64((uint64_t)a.v * 31u + a.type);
}

static void index_rebuild(track_index *ix, size_t want, size_t n, uint64_t (*hash_of)(void *, size_t),
                          void *ctx)
{
    size_t ns = 64;
    while (ns < want * 2)
        ns *= 2;
    free(ix->slots);
    ix->slots = ks_xcalloc(ns, sizeof *ix->slots);
    ix->nslots = ns;
    for (size_t i = 0; i < n; i++) {
        size_t s = hash_of(ctx, i) & (ns - 1);
        while (ix->slots[s])
            s = (s + 1) & (ns - 1);
        ix->slots[s] = (uint32_t)i + 1;
    }
}

static uint64_t proc_hash(void *ctx, size_t i)
{
    return id_hash(((ks_trace *)ctx)->procs[i].pid);
}

static uint64_t track_hash2(ks_id pid, ks_id tid)
{
    return ks_hash_u64(id_hash(pid) ^ (id_hash(tid) * 0x9e3779b97f4a7c15ULL));
}

static uint64_t track_hash(void *ctx, size_t i)
{
    ks_trace *t = ctx;
    return track_hash2(t->tracks[i].pid, t->tracks[i].tid);
}

uint32_t ks_trace_process(ks_trace *t, ks_id pid)
{
    trace_impl *ti = (trace_impl *)t;
    track_index *ix = &ti->procs;
    if (ix->nslots) {
        size_t s = id_hash(pid) & (ix->nslots - 1);
        while (ix->slots[s]) {
            uint32_t i = ix->slots[s] - 1;
            if (ks_id_equal(t->procs[i].pid, pid))
                return i;
            s = (s + 1) & (ix->nslots - 1);
        }
    }
    KS_GROW(t->procs, t->procs_cap, t->nprocs + 1);
    ks_process *p = &t->procs[t->nprocs];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    uint32_t idx = (uint32_t)t->nprocs++;
    if (t->nprocs * 2 > ix->nslots)
        index_rebuild(ix, t->nprocs, t->nprocs, proc_hash, t);
    else {
        size_t s = id_hash(pid) & (ix->nslots - 1);
        while (ix->slots[s])
            s = (s + 1) & (ix->nslots - 1);
        ix->slots[s] = idx + 1;
    }
    return idx;
}

int ks_trace_track_find(const ks_trace *t, ks_id pid, ks_id tid, uint32_t *out)
{
    const trace_impl *ti = (const trace_impl *)t;
    const track_index *ix = &ti->tracks;
    if (!ix->nslots)
        return 0;
    size_t s = track_hash2(pid, tid) & (ix->nslots - 1);
    while (ix->slots[s]) {
        uint32_t i = ix->slots[s] - 1;
        if (ks_id_equal(t->tracks[i].pid, pid) && ks_id_equal(t->tracks[i].tid, tid)) {
            *out = i;
            return 1;
        }
        s = (s + 1) & (ix->nslots - 1);
    }
    return 0;
}

uint32_t ks_trace_track(ks_trace *t, ks_id pid, ks_id tid)
{
    trace_impl *ti = (trace_impl *)t;
    track_index *ix = &ti->tracks;
    uint64_t h = track_hash2(pid, tid);
    if (ix->nslots) {
        size_t s = h & (ix->nslots - 1);
        while (ix->slots[s]) {
            uint32_t i = ix->slots[s] - 1;
            if (ks_id_equal(t->tracks[i].pid, pid) && ks_id_equal(t->tracks[i].tid, tid))
                return i;
            s = (s + 1) & (ix->nslots - 1);
        }
    }
    uint32_t proc = ks_trace_process(t, pid);
    KS_GROW(t->tracks, t->tracks_cap, t->ntracks + 1);
    ks_track *k = &t->tracks[t->ntracks];
    memset(k, 0, sizeof *k);
    k->pid = pid;
    k->tid = tid;
    k->process = proc;
    k->device = -1;
    k->stream = -1;
    uint32_t idx = (uint32_t)t->ntracks++;
    if (t->ntracks * 2 > ix->nslots)
        index_rebuild(ix, t->ntracks, t->ntracks, track_hash, t);
    else {
        size_t s = h & (ix->nslots - 1);
        while (ix->slots[s])
            s = (s + 1) & (ix->nslots - 1);
        ix->slots[s] = idx + 1;
    }
    return idx;
}

/* Fold ev[span_n .. n) into the track's span. */
static void fold_span(ks_track *k)
{
    for (size_t j = k->span_n; j < k->n; j++) {
        const ks_event *e = &k->ev[j];
        ks_ns s = e->ts, en = ks_event_end(e);
        if (!j || s < k->span_first)
            k->span_first = s;
        if (!j || en > k->span_last)
            k->span_last = en;
    }
    k->span_n = k->n;
}

ks_event *ks_trace_append(ks_trace *t, uint32_t track, const ks_event *e)
{
    ks_track *k = &t->tracks[track];
    if (k->n == k->cap) {
        uint8_t was_mapped = k->ev_mapped;
        ks_bigarray_grow((void **)&k->ev, &k->cap, &k->ev_mapped, k->n, k->n + 1, sizeof *k->ev);
        if (!was_mapped && k->ev_mapped)
            k->ev_ready = 0;
    }
    if (k->ev_mapped && (k->n + 1) * sizeof *k->ev + KS_BIGARRAY_BLOCK > k->ev_ready) {
        /* every 2 MiB: huge pages, and ready blocks moved in ahead of the writes */
        trace_impl *ti = (trace_impl *)t;
        ks_bigarray_prepare(k->ev, k->cap, &k->ev_mapped, sizeof *k->ev, k->n, &k->ev_ready, &ti->supply);
    }
    /* the previous event is final now (the caller may edit the last one until the next append) */
    if (k->span_n < k->n)
        fold_span(k);
    k->ev[k->n] = *e;
    t->events++;
    if (ks_kind_is_device_side((ks_kind)e->kind)) {
        k->n_device_side++;
        if (k->device < 0 && (e->flags & KS_EF_DEVICE))
            k->device = e->device;
        if (k->stream < 0 && (e->flags & KS_EF_STREAM))
            k->stream = e->stream;
    } else if (ks_kind_is_cpu_side((ks_kind)e->kind)) {
        k->n_cpu_side++;
    }
    return &k->ev[k->n++];
}

/* ---- finishing ----------------------------------------------------------------------------- */

static int64_t stream_from_text(const char *s)
{
    /* "stream 7", "stream 7 ", "7" */
    while (*s && (*s < '0' || *s > '9'))
        s++;
    if (!*s)
        return -1;
    return strtoll(s, NULL, 10);
}

static void finish_track(ks_trace *t, ks_track *k)
{
    uint64_t dev_side = k->n_device_side, cpu_side = k->n_cpu_side;
    int64_t device = k->device, stream = k->stream;
    if (dev_side && dev_side >= cpu_side)
        k->kind = KS_TRACK_GPU;
    else if (cpu_side)
        k->kind = KS_TRACK_CPU;
    else
        k->kind = KS_TRACK_OTHER;
    if (k->kind == KS_TRACK_GPU) {
        if (device < 0) {
            const ks_process *p = &t->procs[k->process];
            const char *lab = ks_strtab_get(t->strings, p->labels);
            const char *g = strstr(lab, "GPU ");
            if (g)
                device = strtoll(g + 4, NULL, 10);
            else if (k->pid.type == KS_ID_INT)
                device = k->pid.v;
        }
        if (stream < 0) {
            if (k->tid.type == KS_ID_INT)
                stream = k->tid.v;
            else if (k->tid.type == KS_ID_STR)
                stream = stream_from_text(ks_strtab_get(t->strings, (ks_str)k->tid.v));
        }
        k->device = (int32_t)device;
        k->stream = stream;
    } else {
        k->device = -1;
        k->stream = -1;
    }
    if (k->span_n < k->n)
        fold_span(k);
    ks_bigarray_shrink((void **)&k->ev, &k->cap, &k->ev_mapped, k->n, sizeof *k->ev);
}

static int cmp_coll(const void *x, const void *y)
{
    const ks_coll_info *a = x, *b = y;
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    return (a->ev > b->ev) - (a->ev < b->ev);
}

void ks_trace_finish(ks_trace *t)
{
    for (size_t i = 0; i < t->ntracks; i++)
        finish_track(t, &t->tracks[i]);
    /* no more tracks: give back the growth slack (up to a third of a 136-byte record per track,
     * which for a million one-event tracks is as much as their events) */
    if (t->ntracks && t->tracks_cap > t->ntracks) {
        t->tracks = ks_xrealloc(t->tracks, ks_mul(t->ntracks, sizeof *t->tracks));
        t->tracks_cap = t->ntracks;
    }
    if (t->ncolls > 1)
        qsort(t->colls, t->ncolls, sizeof *t->colls, cmp_coll);
}

const ks_meta_entry *ks_meta_find(const ks_trace *t, const char *key)
{
    size_t kl = strlen(key);
    ks_str id = ks_strtab_find(t->strings, key, kl);
    if (!id)
        return NULL;
    for (size_t i = 0; i < t->meta.nentries; i++)
        if (t->meta.entries[i].key == id)
            return &t->meta.entries[i];
    return NULL;
}

int ks_trace_span(const ks_trace *t, ks_ns *first, ks_ns *last)
{
    int any = 0;
    ks_ns a = 0, b = 0;
    for (size_t i = 0; i < t->ntracks; i++) {
        const ks_track *k = &t->tracks[i];
        size_t from = 0;
        if (k->span_n && k->span_n <= k->n) {
            /* ev[0 .. span_n) was folded while appending */
            if (!any || k->span_first < a)
                a = k->span_first;
            if (!any || k->span_last > b)
                b = k->span_last;
            any = 1;
            from = k->span_n;
        }
        for (size_t j = from; j < k->n; j++) {
            const ks_event *e = &k->ev[j];
            ks_ns s = e->ts, en = ks_event_end(e);
            if (!any || s < a)
                a = s;
            if (!any || en > b)
                b = en;
            any = 1;
        }
    }
    if (first)
        *first = a;
    if (last)
        *last = b;
    return any;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

int ks_match_profiler_step_n(const char *s, size_t len, int64_t *n)
{
    static const char pfx[] = "ProfilerStep";
    const char *end = s + len;
    if (len < sizeof pfx - 1 || memcmp(s, pfx, sizeof pfx - 1))
        return 0;
    const char *p = skip_blanks(s + sizeof pfx - 1, end);
    if (p == end || *p != '#')
        return 0;
    p = skip_blanks(p + 1, end);
    if (p == end)
        return 0;
    int64_t v = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        int d = *p - '0';
        v = v > (INT64_MAX - d) / 10 ? INT64_MAX : v * 10 + d;
    }
    if (n)
        *n = v;
    return 1;
}

int ks_match_profiler_step(const char *name, int64_t *n)
{
    return ks_match_profiler_step_n(name, strlen(name), n);
}

size_t ks_trace_step_count(const ks_trace *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->ntracks; i++) {
        const ks_track *k = &t->tracks[i];
        if (k->kind != KS_TRACK_CPU)
            continue;
        ks_str last = 0;
        int last_match = 0;
        for (size_t j = 0; j < k->n; j++) {
            const ks_event *e = &k->ev[j];
            /* 2020-21 files wrote ProfilerStep#N as an "Operator" (cpu_op) */
            if ((e->kind != KS_K_USER_ANNOTATION && e->kind != KS_K_CPU_OP) || e->ph != 'X')
                continue;
            if (e->name != last) {
                last = e->name;
                last_match = ks_match_profiler_step(ks_strtab_get(t->strings, e->name), NULL);
            }
            n += (size_t)last_match;
        }
    }
    return n;
}

size_t ks_trace_memory(const ks_trace *t)
{
    size_t m = sizeof(trace_impl) + ks_strtab_bytes(t->strings);
    for (size_t i = 0; i < t->ntracks; i++)
        m += t->tracks[i].cap * sizeof(ks_event);
    m += t->tracks_cap * sizeof(ks_track) + t->procs_cap * sizeof(ks_process);
    m += t->cats_cap * (sizeof *t->cats + sizeof *t->by_cat);
    m += t->counters_cap * sizeof(ks_counter_sample) + t->series_cap * sizeof(ks_series);
    const trace_impl *ti = (const trace_impl *)t;
    m += (ti->tracks.nslots + ti->procs.nslots) * sizeof(uint32_t);
    return m;
}
