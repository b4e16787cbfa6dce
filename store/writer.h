/* store/writer.h: what the rest of the library needs from the store beyond kinesift/store.h:
 * the parser's page supply, and read access to the bookkeeping the store keeps beside each public
 * track record (store.c's track_state). Internal to the library (parser/ writes through it,
 * analysis/ and the tests read). */
#ifndef KS_STORE_WRITER_H
#define KS_STORE_WRITER_H

#include "kinesift/store.h"
#include "store/bigarray.h"

/* Ready memory for the big event arrays while the trace is being written (the reader thread's
 * blocks, see bigarray.h); NULL to stop using it. */
void ks_trace_set_supply(ks_trace *t, const ks_page_supply *s);

/* Forget every track and process (a worker's table between units, parser/spec.c): the trace
 * keeps its strings, categories and counts, and the memory of its tables for reuse. */
void ks_trace_clear_tracks(ks_trace *t);

/* Room of the track's event array, in events (== n once the trace is finished). */
size_t ks_trace_track_cap(const ks_trace *t, uint32_t track);
/* 1 when the track's event array lives in its own mapping rather than in malloc (bigarray.h). */
int ks_trace_track_mapped(const ks_trace *t, uint32_t track);

/* Append an id that does not fit to a table of wide ids (*v, *n, *cap) and return its index. */
uint32_t ks_wide_id_add(int64_t **v, size_t *n, size_t *cap, int64_t id);
/* One id into its 32-bit field: the id itself when it fits int32, else its index in the table
 * (*v, *n, *cap), with wide_flag set in *flags (cleared otherwise). */
static inline int32_t ks_event_pack_id(int64_t id, uint16_t wide_flag, uint16_t *flags, int64_t **v, size_t *n,
                                       size_t *cap)
{
    if (id >= INT32_MIN && id <= INT32_MAX) {
        *flags = (uint16_t)(*flags & ~wide_flag);
        return (int32_t)id;
    }
    *flags |= wide_flag;
    return (int32_t)ks_wide_id_add(v, n, cap, id);
}
/* Put ext and corr into e (kinesift/store.h): ks_event_set_ids with the trace's table, the
 * parser's units with their own (re-packed into the trace's when merged). */
static inline void ks_event_pack_ids(ks_event *e, int64_t ext, int64_t corr, int64_t **v, size_t *n, size_t *cap)
{
    e->ext32 = ks_event_pack_id(ext, KS_EF_EXT_WIDE, &e->flags, v, n, cap);
    e->corr32 = ks_event_pack_id(corr, KS_EF_CORR_WIDE, &e->flags, v, n, cap);
}

#endif
