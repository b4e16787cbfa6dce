/* insights/insights_int.h: what insights/ shares with the kinesift command beyond
 * kinesift/insights.h. Internal: not exported by libkinesift.so (tests/layout/check_exports.py).
 * The room's unit headers (steps' breakdown.h, telemetry's tzone.h) hold what only insights/
 * itself uses. */
#ifndef KS_INSIGHTS_INT_H
#define KS_INSIGHTS_INT_H

#include "algo/intervals.h"
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

/* Waits of one replayed thread on another (insights/waits.c, for whatif.c). */
#define KS_WAIT_MIN_NS 100000  /* shorter pauses are not looked at: 100 us */
#define KS_WAIT_TOL_NS 50000   /* a wait ends "when the work ends" within max(50 us, 1/10 of it) */

typedef struct ks_wait_thread {
    const ks_ivs *ops;         /* the thread's ops (not its labels), normalized */
    const ks_ivs *gpu;         /* the GPU work it launched, normalized */
    const ks_ns *marks;        /* starts and ends of its labels, sorted: the thread ran code there,
                                * so a wait ends at the first one after it began */
    size_t nmarks;
} ks_wait_thread;

typedef struct ks_wait {
    uint32_t thread, on;       /* the waiting thread and the one it waits on (replay indexes) */
    ks_ns start, end;          /* neither CPU work nor GPU work of its own runs in it */
    ks_ns done;                /* when the work waited on ended before end (end - done: the lag) */
    ks_ns done_cpu;            /* when the last op of `on` before end ended (INT64_MIN: none) */
    uint8_t gpu;               /* the work waited on includes the GPU work of `on` (else only its
                                * ops: the autograd engine returns once the backward is launched) */
    uint8_t modeled;           /* end - done is within the tolerance: the end follows that work */
} ks_wait;

/* Every wait of every thread, by thread then start; *out malloc'ed. */
size_t ks_waits_find(const ks_wait_thread *th, size_t n, ks_wait **out);

/* The memory_growth diagnosis (insights/diag_memory.c), one per device whose allocated memory
 * grows over the active steps, appended to out; a check of insights/diagnose.c. */
void ks_memory_growth_check(const ks_analysis *a, const ks_steps *st, ks_diagnoses *out);

#endif
