/* common/timings.c: the per-phase wall times of a run (kinesift/timings.h). A fixed table of
 * named rows, looked up by name (a few dozen phases at most, each added once per trace or pass,
 * so a linear search costs nothing next to the phase itself). Who may use it: every room that
 * times a phase, through the public header. */
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "kinesift/timings.h"

void ks_timings_init(ks_timings *t)
{
    memset(t, 0, sizeof *t);
}

int64_t ks_timings_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t ks_timings_peak_rss(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) || ru.ru_maxrss < 0)
        return 0;
    return (uint64_t)ru.ru_maxrss * 1024; /* kilobytes on Linux */
}

const ks_timing *ks_timings_find(const ks_timings *t, const char *name)
{
    for (size_t i = 0; t && i < t->n; i++)
        if (!strcmp(t->phase[i].name, name))
            return &t->phase[i];
    return NULL;
}

void ks_timings_add(ks_timings *t, const char *name, int64_t ns, uint64_t bytes, int kind)
{
    if (!t)
        return;
    ks_timing *p = (ks_timing *)ks_timings_find(t, name);
    if (!p) {
        if (t->n == KS_TIMINGS_MAX) {
            t->dropped++;
            return;
        }
        p = &t->phase[t->n++];
        p->name = name;
        p->kind = kind;
    }
    p->ns += ns > 0 ? ns : 0;
    p->bytes += bytes;
    if (p->kind == KS_TIMING_SEQ) {
        uint64_t rss = ks_timings_peak_rss();
        if (rss > p->peak_rss)
            p->peak_rss = rss;
    }
    p->runs++;
}

int64_t ks_timings_stop(ks_timings *t, const char *name, int64_t t0, uint64_t bytes)
{
    if (!t)
        return 0;
    int64_t t1 = ks_timings_now();
    ks_timings_add(t, name, t1 - t0, bytes, KS_TIMING_SEQ);
    return t1;
}
