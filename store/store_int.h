/* store/store_int.h: what the rest of the library needs from the store beyond kinesift/store.h:
 * the parser's page supply, and read access to the bookkeeping the store keeps beside each public
 * track record (store.c's track_state). Internal to the library (parser/ writes through it,
 * analysis/ and the tests read). */
#ifndef KS_STORE_INT_H
#define KS_STORE_INT_H

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

#endif
