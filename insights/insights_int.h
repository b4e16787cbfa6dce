/* insights/insights_int.h: what insights/ shares with the kinesift command beyond
 * kinesift/insights.h. Internal: not exported by libkinesift.so (tests/layout/check_exports.py).
 * The room's unit headers (steps' breakdown.h, telemetry's tzone.h) hold what only insights/
 * itself uses. */
#ifndef KS_INSIGHTS_INT_H
#define KS_INSIGHTS_INT_H

#include "algo/intervals.h"
#include "kinesift/critpath.h"
#include "kinesift/insights.h"

/* 0 when name is a zone of the tz database ("Europe/Paris"; $TZDIR or /usr/share/zoneinfo). */
int ks_tz_zone_check(const char *name);

/* The default analysis window (insights/window.c): [start, end), its basis (the denominator's
 * name: "active steps", "GPU span", "device span", "CPU span") and how it was chosen. */
typedef struct ks_window_choice {
    ks_ns start, end;          /* end: the last row's end */
    int span;                  /* a span of rows (not steps): a zero-length row at end lies inside */
    const char *basis;
    char why[192];
} ks_window_choice;

/* 0 when the trace has no event at all (no window to choose). */
int ks_window_default(const ks_analysis *a, const ks_steps *st, ks_window_choice *w);

/* Waits of one replayed thread on another (insights/depgraph.c). */
#define KS_WAIT_MIN_NS 100000  /* shorter pauses are not looked at: 100 us */
#define KS_WAIT_TOL_NS 50000   /* a wait ends "when the work ends" within max(50 us, 1/10 of it) */
#define KS_WAIT_START_TOL_NS 10000000 /* a thread's first slice within 10 ms after a slice of another
                                      * thread began or ended was started by it (depgraph.c) */
/* GPU work's latency after the dependency that released it (its launch call, the work before it
 * on its stream) is, on the critical path, a launch latency or a stream gap up to
 * max(KS_LATENCY_MIN_NS, KS_LATENCY_TYPICAL x the graph's median launch latency); a longer delay
 * waited for something the trace does not show (GPU work it does not record, a wait it lacks,
 * launches it lost): the rest is unmodeled (critpath.c). */
#define KS_LATENCY_MIN_NS 100000 /* 100 us */
#define KS_LATENCY_TYPICAL 10

/* The memory_growth diagnosis (insights/diag_memory.c), one per device whose allocated memory
 * grows over the active steps, appended to out; a check of insights/diagnose.c. */
void ks_memory_growth_check(const ks_analysis *a, const ks_steps *st, ks_diagnoses *out);

/* ks_gaps_find, and in splits how many times it split a gap on one thread: a gap is split on the
 * threads whose slices start or end in it, the launching thread, and every thread in the five
 * longest gaps; a thread steady across a run of gaps once for the run (insights/gaps.c) */
int ks_gaps_find_counted(const ks_analysis *a, const ks_steps *steps, const ks_gap_opts *o, ks_gaps *out,
                         ks_error *err, uint64_t *splits);

/* The pieces of one step of a critical path, one after another, each decoded from the one before
 * (what ks_critpath_piece gives for k = 0, 1, ... without finding the piece before each time):
 *     ks_cp_cursor cu = ks_cp_cursor_of(cp, s);
 *     ks_cp_piece p;
 *     while (ks_cp_next(&cu, &p)) ...                                                            */
typedef struct ks_cp_cursor {
    const ks_critpath *cp;
    const ks_cp_step *s;
    size_t k;
    uint64_t end;          /* packed: the end of the piece before, from the step's start */
} ks_cp_cursor;

static inline ks_cp_cursor ks_cp_cursor_of(const ks_critpath *cp, const ks_cp_step *s)
{
    ks_cp_cursor c = {cp, s, 0, 0};
    return c;
}

static inline int ks_cp_next(ks_cp_cursor *c, ks_cp_piece *p)
{
    if (c->k >= c->s->n)
        return 0;
    size_t i = c->s->first + c->k++;
    if (c->cp->wide) {
        *p = c->cp->wide[i];
        return 1;
    }
    const ks_cp_packed *x = &c->cp->packed[i];
    uint64_t end = x->end | (c->cp->end_hi ? (uint64_t)c->cp->end_hi[i] << 32 : 0);
    /* (unsigned, as ks_critpath_piece: a step may span more than INT64_MAX ns on a hostile trace) */
    p->a = (ks_ns)((uint64_t)c->s->start + c->end);
    p->b = (ks_ns)((uint64_t)c->s->start + end);
    p->track = x->tk >> 4;
    p->kind = (uint8_t)(x->tk & 7);
    p->inferred = (uint8_t)(x->tk >> 3 & 1);
    p->name = x->name;
    c->end = end;
    return 1;
}

#endif
