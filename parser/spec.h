/* parser/spec.h: a worker's parser (spec.c): the parser's state machine run by a worker thread
 * over the middle of a chunk it claimed, into a unit (unit.h) that the main parser replays. One
 * ks_spec per worker thread, used by that thread only. Internal to parser/ (split.c). */
#ifndef KS_SPEC_H
#define KS_SPEC_H

#include "parser/reader.h"
#include "parser/unit.h"

typedef struct ks_spec ks_spec;
ks_spec *ks_spec_new(void);
void ks_spec_free(ks_spec *s);
/* Parse the events between the first event boundary at or after run offset from and the last
 * one of c's run into u. */
void ks_spec_parse(ks_spec *s, const ks_rchunk *c, size_t from, ks_unit *u);

#endif
