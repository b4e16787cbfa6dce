/* parser/unit.h: a unit is a run of complete events that a worker thread parsed on its own,
 * ahead of the main parser, into local tables (its own strings, categories and tracks), and that
 * the main parser later replays into the real store as if it had read the events itself.
 *
 * The worker cuts a chunk's filtered run at two likely event boundaries, `}` blanks `,` blanks
 * `{`: x (the first) and y (the last). It parses run[x, y) as the elements of an array. The main
 * parser feeds run[0, x) itself; when its own state there proves x an event boundary (its last
 * event ended exactly at the `}` before x, it is in the traceEvents array, nothing skipped or
 * failed), it replays the unit and goes on at y; otherwise it parses run[x, ...) itself. Since
 * yajl is in the same state at x either way, and the unit ends after a `,` at the array level, the
 * replay is exact: the same strings, categories, tracks and processes are created in the same
 * order, the same events appended in the same order (with their collective metadata and allocator args), the same
 * counts added. A unit that met anything needing a position or touching other tables (metadata,
 * counters, a skipped or broken event, any positioned diagnostic) is marked unclean and the main
 * parser reads it itself.
 * Internal to parser/. */
#ifndef KS_UNIT_H
#define KS_UNIT_H

#include <stddef.h>
#include <stdint.h>

#include "kinesift/store.h"

enum ks_unit_state {
    KS_UNIT_EMPTY = 0, /* no two boundaries in the run: nothing to replay */
    KS_UNIT_CLEAN,     /* parsed completely: replay it */
    KS_UNIT_UNCLEAN    /* the main parser must read run[x, ...) itself */
};

/* First use, in this unit, of a local string or category (in the order of use). */
typedef struct ks_unit_use {
    uint32_t local;
    uint32_t len;
    const char *text; /* in the worker's string arena: never moves, never changes */
    uint8_t is_cat;
} ks_unit_use;

/* Local track ids are the unit's own (the worker forgets its tracks between units, spec.c), so
 * every track of a unit is here; strings and categories keep their local ids across units. */
typedef struct ks_unit_track {
    uint32_t local;
    ks_id pid, tid; /* string ids local */
} ks_unit_track;

typedef struct ks_unit_event {
    ks_event ev;    /* name and cat local; wide ids index the unit's wide[] */
    uint32_t track; /* local */
    int32_t stream; /* args.stream, args.device (KS_EF_STREAM, KS_EF_DEVICE: ks_trace_append_device) */
    int64_t bytes;  /* "bytes" when ev.flags has KS_EF_BYTES (ks_trace_set_bytes) */
    int16_t device;
} ks_unit_event;

/* The collective metadata of one of the unit's events (string ids local, numbers plus one as in
 * the parser's cur_event; track and ev are set at the replay). */
typedef struct ks_unit_coll {
    size_t ev;      /* index in the unit's events */
    ks_coll_info c;
} ks_unit_coll;

/* The launch args of one of the unit's events. */
typedef struct ks_unit_launch {
    uint32_t ev;    /* index in the unit's events */
    ks_launch_args a;
} ks_unit_launch;

typedef struct ks_unit_count {
    const char *id;
    ks_severity sev;
    uint64_t n;
} ks_unit_count;

/* The worker's local ids -> ids of the real store. Owned and written by the main parser only. */
typedef struct ks_unit_maps {
    uint32_t *str, *cat, *track; /* UINT32_MAX: not mapped yet (track: of the unit replayed) */
    size_t str_cap, cat_cap, track_cap;
} ks_unit_maps;

typedef struct ks_unit {
    int state;
    int refused;                  /* the fast scanner refused the run: yajl read it (spec.c) */
    int cut;                      /* the unit ends early, before the event at y, which only the main
                                   * parser may read (metadata, a counter); y == x: no event */
    size_t x, xb, y, yb;          /* run offsets: event starts and the `}` before each */
    ks_unit_use *use;             /* strings and categories, first use in the unit */
    size_t nuse, use_cap;
    ks_unit_track *tr;            /* tracks, first use in the unit */
    size_t ntr, tr_cap;
    ks_unit_event *ev;            /* events in file order */
    size_t nev, ev_cap;
    int64_t *wide;                /* ids of its events that do not fit 32 bits (ks_event_pack_ids) */
    size_t nwide, wide_cap;
    ks_unit_coll *coll;           /* collective metadata, in the order of the events */
    size_t ncoll, coll_cap;
    ks_mem_info *mem;             /* allocator args, in the order of the events (ev: the index in
                                   * the unit's events; track set at the replay) */
    size_t nmem, mem_cap;
    ks_shape_info *shape;         /* recorded shapes, in the order of the events (ev: index in the
                                   * unit's events, string ids local) */
    size_t nshape, shape_cap;
    ks_sync_info *sync;           /* recorded waits, in the order of the events (ev: index in the
                                   * unit's events; track set at the replay) */
    size_t nsync, sync_cap;
    ks_unit_launch *launch;       /* kernel launch args, in the order of the events */
    size_t nlaunch, launch_cap;
    uint64_t *cat_count;          /* events per local category id (by_cat) */
    size_t ncat_count, cat_count_cap;
    uint64_t by_phase[128];
    ks_unit_count *diag;          /* unpositioned diagnostic counts, in order of first use */
    size_t ndiag, diag_cap;
    uint64_t events_read;
    uint64_t last_end;            /* input offset after the last event's `}` */
    ks_unit_maps *maps;           /* of the worker that made it */
    void *owner;                  /* the worker (split.c) */
} ks_unit;

/* Find x < y in run text s[0..n): the first `{` at or after from and the last one, each preceded by
 * blanks `,` blanks `}`. Returns 0 when there are not two of them. */
int ks_unit_bounds(const char *s, size_t n, size_t from, size_t *x, size_t *xb, size_t *y, size_t *yb);

/* Empty the unit for reuse (keeps its memory). */
void ks_unit_reset(ks_unit *u);
void ks_unit_free(ks_unit *u);

/* Replay a clean unit into t: strings and categories, tracks, events, counts (main parser). */
void ks_unit_merge(ks_trace *t, const ks_unit *u);

void ks_unit_maps_free(ks_unit_maps *m);

#endif
