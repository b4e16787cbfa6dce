/* parser/commit.c: committing an event. An event counts only at its closing '}' (the container
 * callbacks call ks_ps_commit_event there): what its keys said is checked as a whole (no "ph", no
 * "ts", an 'X' event without "dur" or with a negative one, ts + dur out of the int64 ns range:
 * skipped with a diagnostic) and the event goes to the store (or to the worker's unit), with its
 * counter samples and its collective information; metadata events set process and thread names
 * and sort indexes. Nothing is stored for an event cut or broken before its '}'.
 * Internal to parser/ (callbacks.c). */
#include "parser/parser_int.h"

#include <string.h>

static void apply_metadata(ks_parser *p)
{
    cur_event *e = &p->ev;
    ks_trace *t = p->t;
    const char *n = ks_strtab_get(t->strings, e->name);
    if (!strcmp(n, "process_name") || !strcmp(n, "process_labels") ||
        !strcmp(n, "process_sort_index")) {
        uint32_t pi = ks_trace_process(t, e->pid);
        ks_process *pr = &t->procs[pi];
        if (n[8] == 'n' && e->has_arg_name)
            pr->name = e->arg_name;
        else if (n[8] == 'l' && e->has_arg_labels)
            pr->labels = e->arg_labels;
        else if (n[8] == 's' && e->has_arg_sort) {
            pr->sort_index = (int32_t)e->arg_sort;
            pr->has_sort_index = 1;
        }
        return;
    }
    if (!strcmp(n, "thread_name") || !strcmp(n, "thread_sort_index")) {
        KS_GROW(p->pt, p->pt_cap, p->npt + 1);
        pending_thread *q = &p->pt[p->npt++];
        memset(q, 0, sizeof *q);
        q->pid = e->pid;
        q->tid = e->tid;
        if (n[7] == 'n' && e->has_arg_name) {
            q->name = e->arg_name;
            q->has_name = 1;
        } else if (n[7] == 's' && e->has_arg_sort) {
            q->sort_index = (int32_t)e->arg_sort;
            q->has_sort = 1;
        }
        return;
    }
    ks_diag_count(&t->diag, "parse.ignored_metadata", KS_SEV_INFO, 1);
}

static void commit_counter(ks_parser *p, uint32_t track)
{
    cur_event *e = &p->ev;
    ks_trace *t = p->t;
    const char *name = ks_strtab_get(t->strings, e->name);
    for (size_t i = 0; i < e->ncounters; i++) {
        counter_kv *kv = &p->kv[i];
        uint32_t s = ks_ps_series_of(p, track, name, p->kvkeys.p + kv->key_off, kv->key_len);
        ks_trace_add_counter(t, e->ts, s, kv->value);
    }
}

/* Keep the collective metadata of the event just appended to track (a unit keeps it with the
 * event: unit.c adds it the same way at the replay). */
static void commit_coll(ks_parser *p, uint32_t track)
{
    ks_trace *t = p->t;
    ks_coll_info c = p->ev.coll;
    c.track = track;
    c.ev = (uint32_t)(t->tracks[track].n - 1);
    c.in_nelems--;
    c.out_nelems--;
    c.group_size--;
    c.seq--;
    ks_trace_add_coll(t, &c);
}

/* The allocator args of an instant are kept ([memory], [OutOfMemory]); another event's are not. */
static int keeps_mem(const cur_event *e)
{
    return e->mem.has && (e->ph == 'i' || e->ph == 'I');
}

/* The allocator args of the event just appended to track (a unit keeps them with the event:
 * unit.c adds them the same way at the replay). */
static ks_mem_info mem_of(const cur_event *e, uint32_t track, uint32_t ev)
{
    ks_mem_info m = e->mem;
    m.track = track;
    m.ev = ev;
    if (e->flags & KS_EF_BYTES) {
        m.bytes = e->aux;
        m.has |= KS_MEM_BYTES;
    }
    return m;
}

void ks_ps_commit_event(ks_parser *p)
{
    cur_event *e = &p->ev;
    ks_trace *t = p->t;
    p->events_read++;
    if (!e->nkeys) {
        ks_diag_count(&t->diag, "parse.empty_event", KS_SEV_INFO, 1);
        return;
    }
    if (!e->has_ph) {
        ks_ps_diag_at(p, "parse.missing_ph", KS_SEV_WARNING, e->start, "event without \"ph\" skipped");
        return;
    }
    if (e->ph_bad || (unsigned char)e->ph >= 128) {
        t->phase_other++;
        ks_ps_diag_at(p, "parse.ignored_phase", KS_SEV_INFO, e->start, "phase not a single ASCII character");
        return;
    }
    char ph = e->ph;
    if (p->wk.unit && (ph == 'M' || ph == 'C')) {
        p->wk.bad = 1; /* process/thread tables and counters: the main parser's */
        return;
    }
    if (ks_ps_own_event(p)) { /* what kinesift annotate added: not the profiler's */
        ks_diag_count(&t->diag, "parse.kinesift_annotation", KS_SEV_INFO, 1);
        return;
    }
    t->by_phase[(unsigned char)ph]++;
    t->by_cat[e->cat]++;
    if (ph == 'M') {
        apply_metadata(p);
        return;
    }
    switch (ph) {
    case 'X': case 'B': case 'E': case 'i': case 'I': case 'R': case 's': case 't': case 'f':
    case 'b': case 'n': case 'e': case 'S': case 'T': case 'p': case 'F': case 'C':
        break; /* the phases the store keeps */
    default:
        ks_diag_count(&t->diag, "parse.ignored_phase", KS_SEV_INFO, 1);
        return;
    }
    if (!e->has_ts) {
        ks_ps_diag_at(p, "parse.missing_ts", KS_SEV_WARNING, e->start,
                      "'%c' event without \"ts\" skipped", ph);
        return;
    }
    if (e->ts_status < 0) {
        ks_ps_diag_at(p, "parse.bad_ts", KS_SEV_WARNING, e->start, "\"ts\" %s: event skipped",
                      e->ts_status == KS_NUM_RANGE ? "out of the int64 ns range" : "is not a number");
        return;
    }
    int64_t dur = KS_NO_DUR;
    if (ph == 'X') {
        if (!e->has_dur) {
            ks_ps_diag_at(p, "parse.x_without_dur", KS_SEV_WARNING, e->start,
                          "'X' event without \"dur\" skipped");
            return;
        }
        if (e->dur_status < 0) {
            ks_ps_diag_at(p, "parse.bad_dur", KS_SEV_WARNING, e->start, "\"dur\" %s: event skipped",
                          e->dur_status == KS_NUM_RANGE ? "out of the int64 ns range" : "is not a number");
            return;
        }
        if (e->dur < 0) {
            ks_ps_diag_at(p, "parse.negative_dur", KS_SEV_WARNING, e->start,
                          "'X' event with negative \"dur\" skipped");
            return;
        }
        if (e->ts > INT64_MAX - e->dur) {
            ks_ps_diag_at(p, "parse.bad_dur", KS_SEV_WARNING, e->start,
                          "ts + dur beyond the int64 ns range: event skipped");
            return;
        }
        if (e->dur > KS_EVENT_MAX_DUR) {
            ks_ps_diag_at(p, "parse.bad_dur", KS_SEV_WARNING, e->start,
                          "\"dur\" longer than 78 hours (2^48 ns, what an event keeps): event skipped");
            return;
        }
        dur = e->dur;
    }
    if (e->ts_status == KS_NUM_ROUNDED || (ph == 'X' && e->dur_status == KS_NUM_ROUNDED)) {
        e->flags |= KS_EF_TS_INEXACT;
        ks_diag_count(&t->diag, "parse.ts_rounded", KS_SEV_INFO, 1);
    }
    if (e->ts < 0) {
        e->flags |= KS_EF_NEG_TS;
        ks_diag_count(&t->diag, "parse.negative_ts", KS_SEV_INFO, 1);
    }
    uint32_t track = ks_ps_track_of(p, e->pid, e->tid);
    if (ph == 'C') {
        commit_counter(p, track);
        return;
    }
    ks_event rec;
    rec.ts = e->ts;
    (void)ks_event_set_dur(&rec, dur); /* in range: checked above */
    rec.name = e->name;
    rec.cat = e->cat;
    rec.ph = (uint8_t)ph;
    rec.kind = (uint8_t)ks_classify_event(ks_ps_kind_of(p, e->cat, e->name, ph), ph, e->flags);
    rec.flags = e->flags;
    if (p->wk.unit) {
        ks_unit *u = p->wk.unit;
        ks_event_pack_ids(&rec, e->ext, e->corr, &u->wide, &u->nwide, &u->wide_cap);
        KS_GROW(u->ev, u->ev_cap, u->nev + 1);
        u->ev[u->nev].ev = rec;
        u->ev[u->nev].track = track;
        u->ev[u->nev].bytes = e->aux;
        u->ev[u->nev].stream = e->stream;
        u->ev[u->nev].device = e->device;
        if (e->has_coll) {
            KS_GROW(u->coll, u->coll_cap, u->ncoll + 1);
            u->coll[u->ncoll].ev = u->nev;
            u->coll[u->ncoll].c = e->coll;
            u->ncoll++;
        }
        if (keeps_mem(e)) {
            KS_GROW(u->mem, u->mem_cap, u->nmem + 1);
            u->mem[u->nmem++] = mem_of(e, 0, (uint32_t)u->nev);
        }
        if (e->sync.has) {
            KS_GROW(u->sync, u->sync_cap, u->nsync + 1);
            u->sync[u->nsync] = e->sync;
            u->sync[u->nsync].ev = (uint32_t)u->nev;
            u->nsync++;
        }
        if (e->launch.has) {
            KS_GROW(u->launch, u->launch_cap, u->nlaunch + 1);
            u->launch[u->nlaunch].ev = (uint32_t)u->nev;
            u->launch[u->nlaunch].a = e->launch;
            u->nlaunch++;
        }
        if (e->has_shape) {
            KS_GROW(u->shape, u->shape_cap, u->nshape + 1);
            u->shape[u->nshape] = e->shape;
            u->shape[u->nshape].ev = (uint32_t)u->nev;
            u->nshape++;
        }
        u->nev++;
        return;
    }
    ks_event_set_ids(t, &rec, e->ext, e->corr);
    ks_trace_append_device(t, track, &rec, e->stream, e->device);
    if (rec.flags & KS_EF_BYTES)
        ks_trace_set_bytes(t, track, e->aux);
    if (e->has_coll)
        commit_coll(p, track);
    if (keeps_mem(e)) {
        ks_mem_info m = mem_of(e, track, (uint32_t)(t->tracks[track].n - 1));
        ks_trace_add_mem(t, &m);
    }
    if (e->sync.has) {
        ks_sync_info w = e->sync;
        w.track = track;
        w.ev = (uint32_t)(t->tracks[track].n - 1);
        ks_trace_add_sync(t, &w);
    }
    if (e->launch.has)
        ks_trace_add_launch(t, track, (uint32_t)(t->tracks[track].n - 1), &e->launch);
    if (e->has_shape) {
        ks_shape_info s = e->shape;
        s.track = track;
        s.ev = (uint32_t)(t->tracks[track].n - 1);
        ks_trace_add_shape(t, &s);
    }
}
