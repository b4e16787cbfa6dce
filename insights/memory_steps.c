/* insights/memory_steps.c: the memory of every device step by step (ks_memory_steps,
 * kinesift/memory.h): the level before the step, at its end, the most inside it, and the step that
 * holds each device's peak. A step is its CPU annotation [host_start, host_end): allocator events
 * are the CPU thread's, so the widened end (the step's GPU work) is not theirs.
 * Why it is correct: levels are read from the device's events in time order (ks_mem_level_before,
 * a binary search), so a step without events keeps the level it began with, and the growth of a
 * step is end - start exactly.
 * Who may use it: ks_insights_run (run.c), after the steps are restricted to the window. */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/insights.h"
#include "kinesift/memory.h"

static void step_row(const ks_mem_device *d, const ks_step *s, ks_mem_step *r)
{
    memset(r, 0, sizeof *r);
    r->number = s->number;
    size_t i;
    r->start_level = ks_mem_level_before(d, s->host_start, &i);
    r->peak_level = r->start_level;
    r->peak_ns = s->host_start;
    r->peak_reserved = i ? d->ev[i - 1].reserved : -1;
    r->end_level = r->start_level;
    for (; i < d->nev && d->ev[i].ts < s->host_end; i++) {
        const ks_mem_event *e = &d->ev[i];
        r->events++;
        r->end_level = e->level;
        if (e->level > r->peak_level) {
            r->peak_level = e->level;
            r->peak_ns = e->ts;
        }
        if (e->reserved > r->peak_reserved)
            r->peak_reserved = e->reserved;
    }
}

void ks_memory_steps(ks_memory *m, const ks_steps *st)
{
    for (size_t k = 0; m && k < m->n; k++) {
        ks_mem_device *d = &m->dev[k];
        free(d->steps);
        d->steps = NULL;
        d->nsteps = 0;
        d->has_peak_step = 0;
        if (!st || !st->n || !d->nev)
            continue;
        d->steps = ks_xmalloc(ks_mul(st->n, sizeof *d->steps));
        d->nsteps = st->n;
        for (size_t j = 0; j < st->n; j++) {
            const ks_step *s = &st->v[j];
            step_row(d, s, &d->steps[j]);
            if (!d->has_peak_step && d->peak_ns >= s->host_start && d->peak_ns < s->host_end) {
                d->has_peak_step = 1;
                d->peak_step = s->number;
            }
        }
    }
}
