/* store/store_int.h: what the parser needs from the store beyond kinesift/store.h. Internal to
 * parser/. */
#ifndef KS_STORE_INT_H
#define KS_STORE_INT_H

#include "kinesift/store.h"
#include "store/bigarray.h"

/* Ready memory for the big event arrays while the trace is being written (the reader thread's
 * blocks, see bigarray.h); NULL to stop using it. */
void ks_trace_set_supply(ks_trace *t, const ks_page_supply *s);

#endif
