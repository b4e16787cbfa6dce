/* insights/waits.c: the waits of one thread on another, for the what-if replay (whatif.c).
 *
 * A thread waits on another when, between two of its busy pieces (its ops, not its labels, and the
 * GPU work it launched) and between two starts or ends of its labels (the thread ran code there:
 * `## backward ##` ends when backward() returns), it has neither CPU work nor GPU work running for
 * at least KS_WAIT_MIN_NS,
 * while another replayed thread is busy (ops or its GPU work) for at least a tenth of that time: the
 * main thread in `## backward ##` while the autograd thread launches the backward kernels. The
 * wait is *modelled* when it ends within the tolerance (max(KS_WAIT_TOL_NS, 1/10 of the wait))
 * after that other thread's work ended, the other thread doing nothing in between: the waiting
 * thread went on because that work was done. "That work" is the other thread's ops and GPU work
 * when both are over by then, else its ops alone when its GPU work still runs (the autograd
 * engine returns once the backward kernels are launched, not run). The replay then ends the wait at the projected end
 * of that work plus the measured lag. Otherwise it is an unmodelled wait, kept at its measured
 * length and reported.
 * Why it is correct: the busy sets are normalized unions, so "ended before the wait's end, with
 * nothing of that thread in between" is the last interval of its union starting before the end,
 * which must also end by then; every wait lies between two busy pieces of its thread, so waits of
 * one thread never overlap.
 * Who may use it: insights/whatif.c. */
#include <stdlib.h>

#include "common/util.h"
#include "insights/insights_int.h"

/* the last interval of v starting before t, or -1 */
static ptrdiff_t last_before(const ks_ivs *v, ks_ns t)
{
    size_t lo = 0, hi = v->n;
    KS_LOWER_BOUND(lo, hi, mid, v->v[mid].a < t);
    return (ptrdiff_t)lo - 1;
}

/* the first mark after t */
static size_t first_after(const ks_ns *m, size_t n, ks_ns t)
{
    size_t lo = 0, hi = n;
    KS_LOWER_BOUND(lo, hi, mid, m[mid] <= t);
    return lo;
}

/* when the work in v last ended before g1, nothing of it running from then to g1 (g1 when it
 * runs at g1, INT64_MIN when none of it ended after g0) */
static ks_ns ended(const ks_ivs *v, ks_ns g0, ks_ns g1)
{
    ptrdiff_t i = last_before(v, g1);
    if (i < 0 || v->v[i].b <= g0)
        return INT64_MIN;
    return v->v[i].b < g1 ? v->v[i].b : g1;
}

/* the wait [g0, g1) of thread a on the best other thread, if any thread is busy enough in it */
static int classify(const ks_ivs *busy, const ks_ivs *const *ops, size_t n, uint32_t a, ks_ns g0, ks_ns g1,
                    ks_wait *w)
{
    ks_ns len = ks_sat_sub(g1, g0), tol = len / 10 > KS_WAIT_TOL_NS ? len / 10 : KS_WAIT_TOL_NS;
    int found = 0;
    for (uint32_t b = 0; b < n; b++) {
        if (b == a || ks_ivs_covered(&busy[b], g0, g1) * 10 < len)
            continue;
        ks_ns all = ended(&busy[b], g0, g1), cpu = ended(ops[b], g0, g1);
        /* its ops and GPU work over by g1; else its ops alone, its GPU work still running */
        int gpu = all != INT64_MIN && all < g1;
        ks_ns done = gpu ? all : cpu != INT64_MIN ? cpu : g0;
        int ends = done > g0 && ks_sat_sub(g1, done) <= tol;
        /* a modelled wait beats an unmodelled one; among those, the shortest lag */
        if (found && (w->modeled > ends || (w->modeled == ends && ks_sat_sub(g1, w->done) <= ks_sat_sub(g1, done))))
            continue;
        ks_wait x = {a, b, g0, g1, done, cpu, (uint8_t)gpu, (uint8_t)ends};
        *w = x;
        found = 1;
    }
    return found;
}

size_t ks_waits_find(const ks_wait_thread *th, size_t n, ks_wait **out)
{
    ks_ivs *busy = ks_xcalloc(n ? n : 1, sizeof *busy);
    const ks_ivs **ops = ks_xcalloc(n ? n : 1, sizeof *ops);
    for (size_t j = 0; j < n; j++) {
        ks_ivs_merge(th[j].ops, th[j].gpu, &busy[j]);
        ops[j] = th[j].ops;
    }
    ks_wait *v = NULL;
    size_t nw = 0, cap = 0;
    for (uint32_t a = 0; a < n; a++)
        for (size_t i = 1; i < busy[a].n; i++) {
            ks_ns g0 = busy[a].v[i - 1].b, g1 = busy[a].v[i].a;
            /* the pieces between the label marks inside the gap */
            size_t m = first_after(th[a].marks, th[a].nmarks, g0);
            while (g0 < g1) {
                ks_ns e = m < th[a].nmarks && th[a].marks[m] < g1 ? th[a].marks[m++] : g1;
                ks_wait w;
                if (ks_sat_sub(e, g0) >= KS_WAIT_MIN_NS && classify(busy, ops, n, a, g0, e, &w))
                    KS_PUSH(v, nw, cap, w);
                g0 = e;
            }
        }
    for (size_t j = 0; j < n; j++)
        ks_ivs_free(&busy[j]);
    free(busy);
    free(ops);
    *out = v;
    return nw;
}
