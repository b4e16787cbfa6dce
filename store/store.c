/* store/store.c: the event store (see kinesift/store.h): categories, processes and tracks keyed
 * by typed pid/tid, per-track event arrays, counter series and samples, collective metadata, and
 * the finishing pass that decides which tracks are CPU threads and which are GPU streams.
 *
 * The public structs are plain data; everything the store needs to grow them lives in trace_impl
 * behind the public ks_trace: the capacities, the lookup indexes, and one track_state per track
 * (same index as ks_trace.tracks). A trace may hold a million one-event tracks, so a track costs
 * 64 public bytes plus 32 here while the trace is written, and the time span is folded into one
 * trace-wide span rather than kept per track. Once finished, every event array is exactly its
 * events and the track_states go: what is left of them is the list of the tracks whose array is a
 * mapping (few: arrays past 512 KiB). Written by the parser only, on one thread, and not after
 * ks_trace_finish (kinesift/store.h). */
#include "kinesift/store.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/msort.h"
#include "common/hugemem.h"
#include "common/i64map.h"
#include "common/jsonw.h"
#include "common/limits.h"
#include "common/util.h"
#include "store/bigarray.h"
#include "store/writer.h"

/* ---- ids ----------------------------------------------------------------------------------- */

int ks_id_equal(ks_id a, ks_id b)
{
    return a.type == b.type && a.v == b.v;
}

/* What snprintf(buf, n, "%lld" / "%llu" / "%s", ...) writes, without printf: writers ask for a
 * track's pid and tid per row (annotate's overlay per piece), where two snprintf calls cost ~1 000
 * instructions each. */
void ks_id_format(const ks_strtab *st, ks_id id, char *buf, size_t n)
{
    char num[24];
    const char *s;
    size_t len;
    switch (id.type) {
    case KS_ID_NONE: s = "-", len = 1; break;
    case KS_ID_INT: s = num, len = ks_jw_int_text(num, id.v); break;
    case KS_ID_UINT: s = num, len = ks_jw_uint_text(num, (uint64_t)id.v); break;
    case KS_ID_STR:
    case KS_ID_NUM: s = ks_strtab_get(st, (ks_str)id.v), len = strlen(s); break;
    default: s = "?", len = 1; break;
    }
    if (!n)
        return;
    if (len > n - 1) /* cut as snprintf cuts */
        len = n - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
}

/* ---- trace --------------------------------------------------------------------------------- */

/* track lookup: open addressing over (pid, tid) */
typedef struct track_index {
    uint32_t *slots; /* track index + 1; 0 = empty */
    size_t nslots;
} track_index;

_Static_assert(sizeof(ks_track) <= 64, "ks_track is plain data: its bookkeeping is track_state");

/* What the store keeps of a track beside the public record. */
typedef struct track_state {
    size_t cap;                         /* ev has room for cap events */
    uint64_t n_device_side, n_cpu_side; /* counted while appending; decide the kind */
    uint32_t ready;                     /* mapped ev: 1 + its index in trace_impl.ready, 0 none */
    uint8_t mapped;                     /* ev lives in its own mapping, not in malloc (bigarray.h) */
    uint8_t last_folded;                /* ev[n - 1] is in the trace's span (else only ev[0 .. n-1)) */
} track_state;

/* The "bytes" of one event: key = track << 32 | event. 16 bytes each, in one array sorted when
 * the trace is finished (a hash map took twice that and more). */
typedef struct bytes_entry {
    uint64_t key;
    int64_t bytes;
} bytes_entry;

/* The bookkeeping lives behind the public struct so the header stays plain data. */
typedef struct trace_impl {
    ks_trace t;
    size_t cats_cap, procs_cap, tracks_cap, counters_cap, series_cap, colls_cap, wide_ids_cap, shapes_cap, mems_cap, syncs_cap,
        launches_cap, launch_args_cap;
    uint32_t *launch_slot; /* the distinct launch args by hash: 1 + their index, 0 empty (a power
                            * of two of slots, at most half full); freed once finished */
    size_t launch_slots;
    track_state *ts;       /* per track, same index as t.tracks (tracks_cap of them); NULL once
                            * finished */
    uint32_t *mapped;      /* finished: the tracks whose event array is a mapping, ascending */
    size_t nmapped;
    int finished;          /* ks_trace_finish ran: the arrays hold exactly their events */
    size_t *ready;         /* per mapped event array: bytes from its start that may have been
                            * written (bigarray.h); few: one per array past 512 KiB */
    size_t nready, ready_cap;
    track_index tracks;
    track_index procs;
    ks_i64map series;      /* track << 32 | name -> series index */
    bytes_entry *bytes;    /* "bytes" of the events flagged KS_EF_BYTES (few: copies and sets), by
                            * key once finished (ks_event_bytes) */
    size_t nbytes, bytes_cap;
    int bytes_unsorted;    /* an entry came after one with a greater key (another track's) */
    int span_any;          /* the span of every event appended except each track's last */
    ks_ns span_first, span_last;
    ks_page_supply supply; /* ready memory for mapped event arrays (parser's reader thread) */
} trace_impl;

static trace_impl *impl(ks_trace *t)
{
    return (trace_impl *)t;
}

static const trace_impl *cimpl(const ks_trace *t)
{
    return (const trace_impl *)t;
}

static void *no_supply(void *ctx)
{
    (void)ctx;
    return NULL;
}

void ks_trace_set_supply(ks_trace *t, const ks_page_supply *s)
{
    trace_impl *ti = impl(t);
    ti->supply.take = s ? s->take : no_supply;
    ti->supply.ctx = s ? s->ctx : NULL;
}

ks_trace *ks_trace_new(const char *source)
{
    trace_impl *ti = ks_xcalloc(1, sizeof *ti);
    ks_trace *t = &ti->t;
    ti->supply.take = no_supply;
    ks_i64map_init(&ti->series);
    t->source = ks_xstrdup(source ? source : "-");
    t->strings = ks_strtab_new();
    KS_GROW(t->cats, ti->cats_cap, 16);
    t->by_cat = ks_xcalloc(ti->cats_cap, sizeof *t->by_cat);
    t->cats[0] = 0;
    t->ncats = 1;
    ks_diag_init(&t->diag);
    return t;
}

/* The room of track i's event array and whether it is a mapping, before or after finishing. */
static size_t track_cap(const trace_impl *ti, size_t i)
{
    return ti->finished ? ti->t.tracks[i].n : ti->ts[i].cap;
}

static int track_mapped(const trace_impl *ti, size_t i)
{
    if (!ti->finished)
        return ti->ts[i].mapped;
    size_t lo = 0, hi = ti->nmapped;
    KS_LOWER_BOUND(lo, hi, mid, ti->mapped[mid] < i);
    return lo < ti->nmapped && ti->mapped[lo] == i;
}

static void free_events(trace_impl *ti)
{
    for (size_t i = 0; i < ti->t.ntracks; i++)
        ks_bigarray_free(ti->t.tracks[i].ev, track_cap(ti, i), (uint8_t)track_mapped(ti, i), sizeof(ks_event));
}

void ks_trace_free(ks_trace *t)
{
    if (!t)
        return;
    trace_impl *ti = impl(t);
    free_events(ti);
    free(t->tracks);
    free(ti->ts);
    free(ti->mapped);
    free(ti->ready);
    ks_i64map_free(&ti->series);
    free(ti->bytes);
    free(t->procs);
    free(t->cats);
    free(t->by_cat);
    free(t->counters);
    free(t->series);
    free(t->colls);
    free(t->mems);
    free(t->syncs);
    free(t->shapes);
    free(t->launches);
    free(t->launch_args);
    free(ti->launch_slot);
    free(t->wide_ids);
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
    trace_impl *ti = impl(t);
    size_t old = ti->cats_cap;
    KS_GROW(t->cats, ti->cats_cap, t->ncats + 1);
    if (ti->cats_cap != old) {
        t->by_cat = ks_xrealloc(t->by_cat, ks_mul(ti->cats_cap, sizeof *t->by_cat));
        memset(t->by_cat + old, 0, (ti->cats_cap - old) * sizeof *t->by_cat);
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
    return track_hash2(ks_track_pid(t, &t->tracks[i]), t->tracks[i].tid);
}

static int track_is(const ks_trace *t, uint32_t i, ks_id pid, ks_id tid)
{
    const ks_track *k = &t->tracks[i];
    return ks_id_equal(k->tid, tid) && ks_id_equal(ks_track_pid(t, k), pid);
}

uint32_t ks_trace_process(ks_trace *t, ks_id pid)
{
    trace_impl *ti = impl(t);
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
    KS_GROW(t->procs, ti->procs_cap, t->nprocs + 1);
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
    const trace_impl *ti = cimpl(t);
    const track_index *ix = &ti->tracks;
    if (!ix->nslots)
        return 0;
    size_t s = track_hash2(pid, tid) & (ix->nslots - 1);
    while (ix->slots[s]) {
        uint32_t i = ix->slots[s] - 1;
        if (track_is(t, i, pid, tid)) {
            *out = i;
            return 1;
        }
        s = (s + 1) & (ix->nslots - 1);
    }
    return 0;
}

uint32_t ks_trace_track(ks_trace *t, ks_id pid, ks_id tid)
{
    trace_impl *ti = impl(t);
    track_index *ix = &ti->tracks;
    uint64_t h = track_hash2(pid, tid);
    if (ix->nslots) {
        size_t s = h & (ix->nslots - 1);
        while (ix->slots[s]) {
            uint32_t i = ix->slots[s] - 1;
            if (track_is(t, i, pid, tid))
                return i;
            s = (s + 1) & (ix->nslots - 1);
        }
    }
    if (ti->finished)
        abort(); /* a finished trace is read only (kinesift/store.h) */
    uint32_t proc = ks_trace_process(t, pid);
    size_t cap = ti->tracks_cap;
    KS_GROW(t->tracks, ti->tracks_cap, t->ntracks + 1);
    if (ti->tracks_cap != cap)
        ti->ts = ks_xrealloc(ti->ts, ks_mul(ti->tracks_cap, sizeof *ti->ts));
    memset(&ti->ts[t->ntracks], 0, sizeof *ti->ts);
    ks_track *k = &t->tracks[t->ntracks];
    memset(k, 0, sizeof *k);
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

/* Fold one event into the trace-wide span. */
static void fold_span(trace_impl *ti, const ks_event *e)
{
    ks_ns s = e->ts, en = ks_event_end(e);
    if (!ti->span_any || s < ti->span_first)
        ti->span_first = s;
    if (!ti->span_any || en > ti->span_last)
        ti->span_last = en;
    ti->span_any = 1;
}

/* Make room for one more event on track k (state st). */
static void room_for_one(trace_impl *ti, ks_track *k, track_state *st)
{
    if (k->n == st->cap) {
        ks_bigarray_grow((void **)&k->ev, &st->cap, &st->mapped, k->n, k->n + 1, sizeof *k->ev);
        if (st->mapped && !st->ready) {
            KS_GROW(ti->ready, ti->ready_cap, ti->nready + 1);
            ti->ready[ti->nready++] = 0;
            st->ready = (uint32_t)ti->nready;
        }
    }
    if (st->mapped) {
        size_t *ready = &ti->ready[st->ready - 1];
        if ((k->n + 1) * sizeof *k->ev + KS_BIGARRAY_BLOCK > *ready)
            /* every 2 MiB: huge pages, and ready blocks moved in ahead of the writes */
            ks_bigarray_prepare(k->ev, st->cap, &st->mapped, sizeof *k->ev, k->n, ready, &ti->supply);
    }
}

static ks_event *append(ks_trace *t, uint32_t track, const ks_event *e, int64_t stream, int32_t device)
{
    trace_impl *ti = impl(t);
    if (ti->finished)
        abort(); /* no event after ks_trace_finish (kinesift/store.h) */
    assert(track < t->ntracks && e); /* a track of this trace (ks_trace_track) */
    ks_track *k = &t->tracks[track];
    track_state *st = &ti->ts[track];
    room_for_one(ti, k, st);
    /* the previous event is final now (the caller may edit the last one until the next append) */
    if (k->n && !st->last_folded)
        fold_span(ti, &k->ev[k->n - 1]);
    st->last_folded = 0;
    k->ev[k->n] = *e;
    t->events++;
    if (ks_kind_is_device_side((ks_kind)e->kind)) {
        st->n_device_side++;
        if (k->device < 0 && (e->flags & KS_EF_DEVICE))
            k->device = device;
        if (k->stream < 0 && (e->flags & KS_EF_STREAM))
            k->stream = stream;
    } else if (ks_kind_is_cpu_side((ks_kind)e->kind)) {
        st->n_cpu_side++;
    }
    return &k->ev[k->n++];
}

ks_event *ks_trace_append(ks_trace *t, uint32_t track, const ks_event *e)
{
    return append(t, track, e, -1, -1);
}

ks_event *ks_trace_append_device(ks_trace *t, uint32_t track, const ks_event *e, int64_t stream, int32_t device)
{
    return append(t, track, e, stream, device);
}

_Static_assert(sizeof(ks_event) == 32, "ks_event: 32 bytes (docs/performance.md)");

uint32_t ks_wide_id_add(int64_t **v, size_t *n, size_t *cap, int64_t id)
{
    if (*n >= UINT32_MAX)
        ks_out_of_memory(SIZE_MAX); /* past what a 32-bit index names: 4 billion wide ids */
    KS_PUSH(*v, *n, *cap, id);
    return (uint32_t)(*n - 1);
}

void ks_event_set_ids(ks_trace *t, ks_event *e, int64_t ext, int64_t corr)
{
    ks_event_pack_ids(e, ext, corr, &t->wide_ids, &t->nwide_ids, &impl(t)->wide_ids_cap);
}

static uint64_t event_key(uint32_t track, size_t ev)
{
    return ((uint64_t)track << 32) | (uint32_t)ev;
}

/* The entry of key: binary search once finished (sorted), else a scan from the newest (the parser
 * never reads them back; a hand-built store in a test may). */
static const bytes_entry *bytes_find(const trace_impl *ti, uint64_t key)
{
    if (ti->finished || !ti->bytes_unsorted) {
        size_t lo = 0, hi = ti->nbytes;
        KS_LOWER_BOUND(lo, hi, mid, ti->bytes[mid].key < key);
        return lo < ti->nbytes && ti->bytes[lo].key == key ? &ti->bytes[lo] : NULL;
    }
    for (size_t i = ti->nbytes; i-- > 0;)
        if (ti->bytes[i].key == key)
            return &ti->bytes[i];
    return NULL;
}

void ks_trace_set_bytes(ks_trace *t, uint32_t track, int64_t bytes)
{
    trace_impl *ti = impl(t);
    ks_track *k = &t->tracks[track];
    if (!k->n || k->n > UINT32_MAX)
        return; /* no event, or past what a slice can name (4 billion on one track) */
    uint64_t key = event_key(track, k->n - 1);
    if (ti->nbytes && ti->bytes[ti->nbytes - 1].key == key) { /* set again: the last value stands */
        ti->bytes[ti->nbytes - 1].bytes = bytes;
        return;
    }
    k->ev[k->n - 1].flags |= KS_EF_BYTES;
    if (ti->nbytes && ti->bytes[ti->nbytes - 1].key > key)
        ti->bytes_unsorted = 1;
    KS_GROW(ti->bytes, ti->bytes_cap, ti->nbytes + 1);
    ti->bytes[ti->nbytes++] = (bytes_entry){key, bytes};
}

int ks_event_bytes(const ks_trace *t, uint32_t track, uint32_t ev, int64_t *bytes)
{
    if (track >= t->ntracks || ev >= t->tracks[track].n || !(t->tracks[track].ev[ev].flags & KS_EF_BYTES))
        return 0;
    const bytes_entry *b = bytes_find(cimpl(t), event_key(track, ev));
    if (!b)
        return 0;
    if (bytes)
        *bytes = b->bytes;
    return 1;
}

static inline int bytes_before(const bytes_entry *a, const bytes_entry *b)
{
    return a->key < b->key;
}

KS_MSORT_DEFINE(sort_bytes, bytes_entry, bytes_before)

/* Sorted by key (the keys are distinct: one entry per event), without growth slack. */
static void bytes_finish(trace_impl *ti)
{
    if (ti->bytes_unsorted)
        sort_bytes(ti->bytes, ti->nbytes); /* runs in file order, one per track */
    ti->bytes_unsorted = 0;
    if (ti->bytes_cap > ti->nbytes) {
        ti->bytes = ks_xrealloc(ti->bytes, ks_mul(ti->nbytes ? ti->nbytes : 1, sizeof *ti->bytes));
        ti->bytes_cap = ti->nbytes ? ti->nbytes : 1;
    }
}

uint32_t ks_trace_series(ks_trace *t, uint32_t track, ks_str name)
{
    trace_impl *ti = impl(t);
    int64_t key = (int64_t)(((uint64_t)track << 32) | name);
    const uint64_t *v = ks_i64map_get(&ti->series, key);
    if (v)
        return (uint32_t)*v;
    KS_GROW(t->series, ti->series_cap, t->nseries + 1);
    t->series[t->nseries].track = track;
    t->series[t->nseries].name = name;
    ks_i64map_put(&ti->series, key, t->nseries);
    return (uint32_t)t->nseries++;
}

void ks_trace_add_counter(ks_trace *t, ks_ns ts, uint32_t series, double value)
{
    trace_impl *ti = impl(t);
    KS_GROW(t->counters, ti->counters_cap, t->ncounters + 1);
    ks_counter_sample *c = &t->counters[t->ncounters++];
    c->ts = ts;
    c->series = series;
    c->value = value;
}

void ks_trace_add_coll(ks_trace *t, const ks_coll_info *c)
{
    trace_impl *ti = impl(t);
    KS_PUSH_BIG(t->colls, t->ncolls, ti->colls_cap, *c);
}

void ks_trace_add_mem(ks_trace *t, const ks_mem_info *m)
{
    trace_impl *ti = impl(t);
    KS_PUSH_BIG(t->mems, t->nmems, ti->mems_cap, *m);
}

/* ---- side records of events (shapes, launch args, waits, memory, collectives) ------------- */

/* Every side record begins with the event it belongs to, (track, ev); the arrays are sorted by it
 * at the end (sort_*, below) and searched by it (find_track_ev). */
typedef struct track_ev {
    uint32_t track, ev;
} track_ev;
#define KS_TRACK_EV_FIRST(T)                                                                    \
    _Static_assert(offsetof(T, track) == offsetof(track_ev, track) &&                            \
                       offsetof(T, ev) == offsetof(track_ev, ev),                                \
                   #T " begins with its (track, ev)")
KS_TRACK_EV_FIRST(ks_mem_info);
KS_TRACK_EV_FIRST(ks_coll_info);
KS_TRACK_EV_FIRST(ks_sync_info);
KS_TRACK_EV_FIRST(ks_launch_info);
KS_TRACK_EV_FIRST(ks_shape_info);

static track_ev key_of(const void *rec)
{
    track_ev k;
    memcpy(&k, rec, sizeof k);
    return k;
}

/* The side records come in parse order: each track's in event order, the tracks interleaved as
 * the file interleaves them. So a stable counting sort by track is the whole sort: one pass counts
 * each track's records and checks that they come in event order, one moves them into a new array
 * of the same capacity (on huge pages when big) that replaces the old one. A merge sort made
 * log2(runs) passes over an array of many threads' records and wrote a buffer of fresh pages: on
 * the MTIA trace inflated 14 times (170 000 shape records) the store's finish took 11 ms, now
 * 1 ms. Where the check fails (records added out of order by a library caller), the natural
 * merge sort (algo/msort.h) does it. (track, ev) is unique in each array, so both give the same
 * result. Out of line: bench/kernels_cost.sh counts the shapes' and launches' sorts. */
#define TRACK_EV_SORT(T)                                                                          \
    static inline int T##_before(const T *a, const T *b)                                          \
    {                                                                                             \
        return a->track != b->track ? a->track < b->track : a->ev < b->ev;                        \
    }                                                                                             \
    KS_MSORT_DEFINE(msort_##T, T, T##_before)                                                     \
    KS_NOINLINE static void sort_##T(T **v, size_t n, size_t cap, size_t ntracks)                 \
    {                                                                                             \
        T *a = *v;                                                                                \
        size_t i = 1;                                                                             \
        while (i < n && T##_before(&a[i - 1], &a[i]))                                             \
            i++;                                                                                  \
        if (i >= n)                                                                               \
            return; /* sorted already (one thread) */                                             \
        size_t *at = ks_xcalloc(ntracks + 1, sizeof *at);                                         \
        uint32_t *last = ks_xmalloc(ks_mul(ntracks ? ntracks : 1, sizeof *last));                 \
        int ok = 1;                                                                               \
        for (i = 0; i < n && ok; i++) {                                                           \
            uint32_t tr = a[i].track;                                                             \
            if (tr >= ntracks || (at[tr + 1] && last[tr] >= a[i].ev))                             \
                ok = 0;                                                                           \
            else {                                                                                \
                at[tr + 1]++;                                                                     \
                last[tr] = a[i].ev;                                                               \
            }                                                                                     \
        }                                                                                         \
        free(last);                                                                               \
        if (!ok) {                                                                                \
            free(at);                                                                             \
            msort_##T(a, n);                                                                      \
            return;                                                                               \
        }                                                                                         \
        for (size_t k = 0; k < ntracks; k++)                                                      \
            at[k + 1] += at[k];                                                                   \
        T *b = ks_xmalloc_big(ks_mul(cap, sizeof *b)); /* fresh pages: huge ones when big */      \
        for (i = 0; i < n; i++)                                                                   \
            b[at[a[i].track]++] = a[i];                                                           \
        free(at);                                                                                 \
        free(a);                                                                                  \
        *v = b;                                                                                   \
    }
TRACK_EV_SORT(ks_mem_info)
TRACK_EV_SORT(ks_coll_info)
TRACK_EV_SORT(ks_sync_info)
TRACK_EV_SORT(ks_launch_info)
TRACK_EV_SORT(ks_shape_info)

/* the record of (track, ev) in base[0 .. n) of records of size bytes, sorted by it; NULL if none */
static const void *find_track_ev(const void *base, size_t n, size_t size, uint32_t track, uint32_t ev)
{
    const char *b = base;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        track_ev k = key_of(b + mid * size);
        if (k.track < track || (k.track == track && k.ev < ev))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n) {
        track_ev k = key_of(b + lo * size);
        if (k.track == track && k.ev == ev)
            return b + lo * size;
    }
    return NULL;
}

void ks_trace_add_sync(ks_trace *t, const ks_sync_info *w)
{
    trace_impl *ti = impl(t);
    KS_PUSH_BIG(t->syncs, t->nsyncs, ti->syncs_cap, *w);
}

const ks_sync_info *ks_trace_sync(const ks_trace *t, uint32_t track, uint32_t ev)
{
    return find_track_ev(t->syncs, t->nsyncs, sizeof *t->syncs, track, ev);
}

void ks_trace_add_shape(ks_trace *t, const ks_shape_info *s)
{
    trace_impl *ti = impl(t);
    KS_PUSH_BIG(t->shapes, t->nshapes, ti->shapes_cap, *s);
}

const ks_shape_info *ks_trace_shape(const ks_trace *t, uint32_t track, uint32_t ev)
{
    return find_track_ev(t->shapes, t->nshapes, sizeof *t->shapes, track, ev);
}

void ks_trace_clear_tracks(ks_trace *t)
{
    trace_impl *ti = impl(t);
    if (ti->finished)
        abort(); /* a finished trace is read only (kinesift/store.h) */
    free_events(ti);
    t->ntracks = t->nprocs = 0;
    if (ti->tracks.nslots)
        memset(ti->tracks.slots, 0, ti->tracks.nslots * sizeof *ti->tracks.slots);
    if (ti->procs.nslots)
        memset(ti->procs.slots, 0, ti->procs.nslots * sizeof *ti->procs.slots);
}

size_t ks_trace_track_cap(const ks_trace *t, uint32_t track)
{
    return track_cap(cimpl(t), track);
}

int ks_trace_track_mapped(const ks_trace *t, uint32_t track)
{
    return track_mapped(cimpl(t), track);
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

static void finish_track(ks_trace *t, ks_track *k, track_state *st)
{
    uint64_t dev_side = st->n_device_side, cpu_side = st->n_cpu_side;
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
            else if (p->pid.type == KS_ID_INT)
                device = p->pid.v;
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
    if (k->n && !st->last_folded)
        fold_span(impl(t), &k->ev[k->n - 1]);
    st->last_folded = 1;
    ks_bigarray_shrink((void **)&k->ev, &st->cap, &st->mapped, k->n, sizeof *k->ev);
}

/* The args compared and hashed as bytes: copied field by field into zeroed memory, so that the
 * padding is zero and equal args are equal bytes (the doubles bit for bit: -0.0 and 0.0 stay
 * apart, each kept as written). */
static ks_launch_args launch_args_bytes(const ks_launch_args *a)
{
    ks_launch_args c;
    memset(&c, 0, sizeof c);
    c.has = a->has;
    c.registers = a->registers;
    c.shared_mem = a->shared_mem;
    c.blocks_per_sm = a->blocks_per_sm;
    c.warps_per_sm = a->warps_per_sm;
    c.occupancy_pct = a->occupancy_pct;
    memcpy(c.grid, a->grid, sizeof c.grid);
    memcpy(c.block, a->block, sizeof c.block);
    return c;
}

static void launch_slots_grow(trace_impl *ti)
{
    size_t ns = ti->launch_slots ? ti->launch_slots * 2 : 64;
    uint32_t *v = ks_xcalloc(ns, sizeof *v);
    const ks_launch_args *args = ti->t.launch_args;
    for (size_t i = 0; i < ti->t.nlaunch_args; i++) {
        size_t h = (size_t)ks_hash(&args[i], sizeof args[i]) & (ns - 1);
        while (v[h])
            h = (h + 1) & (ns - 1);
        v[h] = (uint32_t)(i + 1);
    }
    free(ti->launch_slot);
    ti->launch_slot = v;
    ti->launch_slots = ns;
}

/* the index of args a in t->launch_args, added when new */
static uint32_t launch_args_index(trace_impl *ti, const ks_launch_args *a)
{
    ks_trace *t = &ti->t;
    ks_launch_args c = launch_args_bytes(a);
    if (2 * (t->nlaunch_args + 1) > ti->launch_slots)
        launch_slots_grow(ti);
    size_t mask = ti->launch_slots - 1, h = (size_t)ks_hash(&c, sizeof c) & mask;
    for (; ti->launch_slot[h]; h = (h + 1) & mask) {
        uint32_t i = ti->launch_slot[h] - 1;
        if (!memcmp(&t->launch_args[i], &c, sizeof c))
            return i;
    }
    /* (an index fits 32 bits: 2^32 distinct args would be 380 GB) */
    KS_PUSH(t->launch_args, t->nlaunch_args, ti->launch_args_cap, c);
    ti->launch_slot[h] = (uint32_t)t->nlaunch_args;
    return (uint32_t)(t->nlaunch_args - 1);
}

void ks_trace_add_launch(ks_trace *t, uint32_t track, uint32_t ev, const ks_launch_args *a)
{
    trace_impl *ti = impl(t);
    ks_launch_info l = {track, ev, launch_args_index(ti, a)};
    KS_PUSH_BIG(t->launches, t->nlaunches, ti->launches_cap, l);
}

const ks_launch_args *ks_trace_launch(const ks_trace *t, uint32_t track, uint32_t ev)
{
    const ks_launch_info *l = find_track_ev(t->launches, t->nlaunches, sizeof *t->launches, track, ev);
    return l ? &t->launch_args[l->args] : NULL;
}

void ks_trace_finish(ks_trace *t)
{
    trace_impl *ti = impl(t);
    if (ti->finished)
        return;
    size_t nmapped = 0;
    for (size_t i = 0; i < t->ntracks; i++) {
        finish_track(t, &t->tracks[i], &ti->ts[i]);
        nmapped += ti->ts[i].mapped;
    }
    /* no more tracks: give back the growth slack, and the track states (96 bytes a track while
     * writing, 64 after: a million one-event tracks weigh less than their events) */
    if (t->ntracks && ti->tracks_cap > t->ntracks) {
        t->tracks = ks_xrealloc(t->tracks, ks_mul(t->ntracks, sizeof *t->tracks));
        ti->tracks_cap = t->ntracks;
    }
    ti->mapped = ks_xmalloc(ks_mul(nmapped ? nmapped : 1, sizeof *ti->mapped));
    for (size_t i = 0; i < t->ntracks; i++)
        if (ti->ts[i].mapped)
            ti->mapped[ti->nmapped++] = (uint32_t)i;
    free(ti->ts);
    ti->ts = NULL;
    free(ti->ready);
    ti->ready = NULL;
    ti->nready = ti->ready_cap = 0;
    bytes_finish(ti);
    ti->finished = 1;
    sort_ks_coll_info(&t->colls, t->ncolls, ti->colls_cap, t->ntracks);
    sort_ks_mem_info(&t->mems, t->nmems, ti->mems_cap, t->ntracks);
    sort_ks_shape_info(&t->shapes, t->nshapes, ti->shapes_cap, t->ntracks);
    sort_ks_sync_info(&t->syncs, t->nsyncs, ti->syncs_cap, t->ntracks);
    sort_ks_launch_info(&t->launches, t->nlaunches, ti->launches_cap, t->ntracks);
    if (t->nlaunches && ti->launches_cap > t->nlaunches) { /* kept as long as the trace: exact */
        t->launches = ks_xrealloc(t->launches, ks_mul(t->nlaunches, sizeof *t->launches));
        ti->launches_cap = t->nlaunches;
    }
    free(ti->launch_slot); /* no more launch args: the lookup of the distinct ones goes */
    ti->launch_slot = NULL;
    ti->launch_slots = 0;
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
    const trace_impl *ti = cimpl(t);
    int any = ti->span_any;
    ks_ns a = ti->span_first, b = ti->span_last;
    /* every event is in the trace's span but each track's last one before ks_trace_finish */
    for (size_t i = 0; i < t->ntracks && !ti->finished; i++) {
        const ks_track *k = &t->tracks[i];
        if (!k->n || ti->ts[i].last_folded)
            continue;
        const ks_event *e = &k->ev[k->n - 1];
        ks_ns s = e->ts, en = ks_event_end(e);
        if (!any || s < a)
            a = s;
        if (!any || en > b)
            b = en;
        any = 1;
    }
    if (!any)
        a = b = 0;
    if (first)
        *first = a;
    if (last)
        *last = b;
    return any;
}

size_t ks_trace_step_count(const ks_trace *t)
{
    size_t n = 0;
    const ks_track *k;
    for (size_t i = 0; (k = ks_track_next(t, KS_TRACK_CPU, &i)); i++) {
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
    const trace_impl *ti = cimpl(t);
    size_t m = sizeof(trace_impl) + ks_strtab_bytes(t->strings);
    for (size_t i = 0; i < t->ntracks; i++)
        m += track_cap(ti, i) * sizeof(ks_event);
    m += ti->tracks_cap * (sizeof(ks_track) + (ti->finished ? 0 : sizeof(track_state))) +
         ti->nmapped * sizeof *ti->mapped + ti->procs_cap * sizeof(ks_process);
    m += ti->cats_cap * (sizeof *t->cats + sizeof *t->by_cat);
    m += ti->counters_cap * sizeof(ks_counter_sample) + ti->series_cap * sizeof(ks_series);
    m += ti->colls_cap * sizeof(ks_coll_info) + ti->shapes_cap * sizeof(ks_shape_info) + ti->launches_cap * sizeof(ks_launch_info) +
         ti->launch_args_cap * sizeof(ks_launch_args) + ti->launch_slots * sizeof *ti->launch_slot +
         ti->ready_cap * sizeof *ti->ready;
    m += ti->wide_ids_cap * sizeof *t->wide_ids + ti->mems_cap * sizeof *t->mems +
         ti->syncs_cap * sizeof *t->syncs;
    m += ti->series.cap * (sizeof(int64_t) + sizeof(uint64_t) + 1) + ti->bytes_cap * sizeof *ti->bytes;
    m += (ti->tracks.nslots + ti->procs.nslots) * sizeof(uint32_t);
    return m;
}
