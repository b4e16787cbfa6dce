/* algo/pool.h: running independent pieces of the analysis on a few threads. The pieces write
 * to disjoint places and every result is merged by the caller in a fixed order afterwards, so the
 * output never depends on the number of threads or on which thread ran what. Internal. */
#ifndef KS_POOL_H
#define KS_POOL_H

#include <stddef.h>

#include "common/limits.h"

/* The number of threads to use for `requested` (ks_analysis_opts.threads): 0 = the online CPUs,
 * at most KS_POOL_MAX_AUTO; otherwise requested, at most KS_POOL_MAX. Always >= 1. */
#define KS_POOL_MAX_AUTO KS_LIMIT_THREADS_AUTO
#define KS_POOL_MAX KS_LIMIT_THREADS
int ks_pool_threads(int requested);

/* Call fn(ctx, i) once for every i in [0, n), on up to `threads` threads (the calling one
 * included); items are handed out in the order 0, 1, 2... to whichever thread is free, so put the
 * longest first. Returns when all are done. threads <= 1 or n <= 1: a plain loop in the caller. */
void ks_pool_run(size_t n, int threads, void (*fn)(void *ctx, size_t i), void *ctx);

#endif
