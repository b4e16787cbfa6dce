/* kinesift/timings.h: where the time of a run went, per phase (`--timings`, docs/performance.md).
 * A caller that wants it points ks_parse_opts.timings and ks_analysis_opts.timings (ks_insights_opts
 * carries the latter) at one ks_timings; the parser and the passes then add the wall time of each
 * phase they run, read from the monotonic clock once at each phase's start and end (a call not
 * asked for reads no clock), and the process's peak resident set size at the end of each
 * sequential phase (one getrusage). Phases keep the order in which they first ran; a phase run again
 * (several traces, a window) adds to its row.
 *
 * Wall time per phase, not CPU time. Phases of kind KS_TIMING_SEQ follow one another on the
 * calling thread, so their sum is at most the wall time around them. A KS_TIMING_BESIDE phase ran
 * on another thread at the same time (the reader thread's reads, decompression and pre-filter run
 * beside the parse): it overlaps the others and is not part of their sum. A KS_TIMING_WITHIN phase
 * is a part of the sequential phase recorded before it (the parse's waits for the reader). A phase
 * that uses the analysis pool (passes side by side on its threads) is one row whose name lists
 * them; its wall time is that of the whole batch.
 *
 * Threads (kinesift/common.h): one ks_timings belongs to one call at a time (the library's own
 * threads hand their figures to the calling thread, which alone writes here). */
#ifndef KINESIFT_TIMINGS_H
#define KINESIFT_TIMINGS_H

#include "kinesift/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KS_TIMINGS_MAX 40

typedef struct ks_timing {
    const char *name;  /* a string with static storage ("parse", "analysis: links, CPU tables") */
    int64_t ns;        /* wall time, summed over the runs of the phase */
    uint64_t bytes;    /* input bytes the phase went through, for a rate; 0 when no rate applies */
    uint64_t peak_rss; /* the process's peak resident set size at the end of the phase (its last
                        * run), bytes: the high-water mark since the process began, so in a run of
                        * one input the first row where it reaches the final figure is the phase
                        * that set it; 0 for KS_TIMING_BESIDE and _WITHIN rows */
    uint32_t runs;     /* how many times it ran */
    int kind;          /* KS_TIMING_SEQ, KS_TIMING_BESIDE or KS_TIMING_WITHIN */
} ks_timing;

enum { KS_TIMING_SEQ = 0, KS_TIMING_BESIDE = 1, KS_TIMING_WITHIN = 2 };

typedef struct ks_timings {
    ks_timing phase[KS_TIMINGS_MAX];
    size_t n;
    uint32_t dropped;  /* phases not recorded because the table was full (never expected) */
} ks_timings;

KS_API void ks_timings_init(ks_timings *t);

/* The monotonic clock in ns (CLOCK_MONOTONIC). */
KS_API int64_t ks_timings_now(void);

/* Add ns (and bytes) to the phase called name (compared as text; name must outlive t), appending
 * it when new with the given kind. A NULL t does nothing. */
KS_API void ks_timings_add(ks_timings *t, const char *name, int64_t ns, uint64_t bytes, int kind);

/* The process's peak resident set size so far, bytes (getrusage; 0 when it cannot be read). */
KS_API uint64_t ks_timings_peak_rss(void);

/* The clock when t is not NULL, else 0 (no clock read): the start of a phase. */
static inline int64_t ks_timings_start(const ks_timings *t)
{
    return t ? ks_timings_now() : 0;
}

/* The end of a sequential phase begun at t0 (ks_timings_start): adds now - t0. A NULL t does
 * nothing (no clock read). Returns the clock read (0 when none), the start of a next phase. */
KS_API int64_t ks_timings_stop(ks_timings *t, const char *name, int64_t t0, uint64_t bytes);

/* The phase called name, or NULL. */
KS_API const ks_timing *ks_timings_find(const ks_timings *t, const char *name);

#ifdef __cplusplus
}
#endif
#endif
