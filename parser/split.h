/* parser/split.h: parsing on more than one core. Worker threads claim chunks from the reader
 * thread's queue ahead of the main parser (reader.h: every chunk whose number is not the main
 * parser's share), parse the complete events in the middle of each into a unit with a parser of
 * their own (unit.h), and hand the unit back through the chunk. The main parser still takes every
 * chunk in order: it reads the edges of a claimed chunk itself and replays the unit in between,
 * so the store is exactly the one a single parser makes. Internal to parser/. */
#ifndef KS_SPLIT_H
#define KS_SPLIT_H

#include "parser/reader.h"
#include "parser/unit.h"

typedef struct ks_split ks_split;

/* Start workers over r; NULL when none could be started (the main parser then reads alone).
 * leave_to_workers: ks_reader_share's; hold (tests): a worker starts on a chunk it claimed only
 * once the main parser waits for it, so that the main parser reads ahead (ks_split_unit). */
ks_split *ks_split_start(ks_reader *r, int workers, int leave_to_workers, int hold);
/* The main parser, for each chunk it takes: the unit a worker made of it (waiting for the worker
 * when it is not done yet), or NULL when the chunk was not claimed. With read_ahead (the parser's
 * state would let it scan a chunk of its own, own_unit in parse.c), it reads the next chunks of
 * its own share into units of its own while the worker is not done, rather than wait; such a
 * chunk then comes with that unit (ks_split_own). */
ks_unit *ks_split_unit(ks_split *s, ks_rchunk *c, int read_ahead);
/* 1 when u is one of the main parser's own units (read ahead while it waited). */
int ks_split_own(const ks_split *s, const ks_unit *u);
/* A unit replayed or not needed: back to its worker. */
void ks_split_release(ks_split *s, ks_unit *u);
/* No more claims; wait for the workers and free them. NULL is fine. */
void ks_split_stop(ks_split *s);
/* The same, and, when the reader is timed (KS_READER_TIMED) and t is not NULL, add the workers'
 * parse time (summed over the workers, beside the main parser) to t once they are joined. */
struct ks_timings;
void ks_split_stop_timed(ks_split *s, struct ks_timings *t);

#endif
