/* insights/diag_memory.c: the memory_growth diagnosis: a device's allocated memory at the end of
 * the active steps grows step after step, and the allocations the trace pairs with no free (by
 * Addr) name the op that keeps them. A hypothesis, as every diagnosis (insights/diagnose.c runs it
 * among its checks): the evidence, the next check and what refutes it.
 * The rule (docs/insights.md, "Memory growth"): at least KS_MEMGROW_MIN_STEPS active steps (not
 * warm-up, not cut by the capture); the level at the end of each (ks_mem_level_before at the
 * step's CPU annotation end) rises from one step to the next at least twice and in at least two
 * thirds of the steps, the last end is the highest and the first the lowest. A flat loop (every
 * step frees what it allocates) has equal ends and never matches; neither does a first step that
 * allocates once (optimizer state) and a flat loop after it, since the rises must repeat.
 * The op named: of the allocations made from the first considered step's start to the last one's
 * start, those still live at the last step's end, grouped by the op that made them (the largest
 * group). It claims no step time (impact -1: listed after the time diagnoses, never under the
 * floor), so its kind is still a diagnosis by its confidence (a caveat's is "n/a").
 * Who may use it: insights/diagnose.c (the check list). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/i64map.h"
#include "common/util.h"
#include "insights/diagnose_int.h"
#include "insights/insights_int.h"
#include "kinesift/insights.h"
#include "kinesift/memory.h"

#define KS_MEMGROW_MIN_STEPS 3

static const char *bytes(char *b, size_t n, int64_t v)
{
    if (v < 0) {
        b[0] = '-';
        ks_fmt_bytes(b + 1, n - 1, (uint64_t)-v);
    } else {
        ks_fmt_bytes(b, n, (uint64_t)v);
    }
    return b;
}

/* The allocations made in [from, to) still live at until, by op: the op holding most, its bytes
 * and the total. 0 when the device pairs nothing (no Addr). */
typedef struct kept {
    ks_str op;
    int64_t op_bytes, total;
    uint64_t count;
} kept;

static int kept_allocations(const ks_mem_device *d, ks_ns from, ks_ns to, ks_ns until, kept *k)
{
    memset(k, 0, sizeof *k);
    ks_i64map live; /* addr -> event index, UINT64_MAX once freed */
    ks_i64map_init(&live);
    int paired = 0;
    for (size_t i = 0; i < d->nev && d->ev[i].ts < until; i++) {
        const ks_mem_event *e = &d->ev[i];
        if (!(e->has & KS_MEM_ADDR) || !e->bytes)
            continue;
        paired = 1;
        if (e->bytes > 0) {
            if (e->ts >= from && e->ts < to)
                ks_i64map_put(&live, e->addr, i);
        } else {
            uint64_t *p = ks_i64map_get(&live, e->addr);
            if (p)
                *p = UINT64_MAX;
        }
    }
    ks_i64map ops; /* op -> bytes */
    ks_i64map_init(&ops);
    for (size_t s = 0; s < live.cap; s++) {
        if (!live.used[s] || live.vals[s] == UINT64_MAX)
            continue;
        const ks_mem_event *e = &d->ev[live.vals[s]];
        uint64_t *p = ks_i64map_get(&ops, (int64_t)e->op);
        if (!p) {
            ks_i64map_put(&ops, (int64_t)e->op, 0);
            p = ks_i64map_get(&ops, (int64_t)e->op);
        }
        *p += (uint64_t)e->bytes;
        k->total += e->bytes;
        k->count++;
        int64_t b = (int64_t)*p;
        if (b > k->op_bytes || (b == k->op_bytes && e->op < k->op)) {
            k->op_bytes = b;
            k->op = e->op;
        }
    }
    ks_i64map_free(&ops);
    ks_i64map_free(&live);
    return paired;
}

static void device_growth(const ks_analysis *a, const ks_steps *st, const ks_mem_device *d, ks_diagnoses *out)
{
    size_t n = 0;
    for (size_t i = 0; i < st->n; i++)
        n += (size_t)ks_step_active(&st->v[i]);
    if (n < KS_MEMGROW_MIN_STEPS || !d->nev)
        return;
    const ks_step **s = ks_xmalloc(ks_mul(n, sizeof *s));
    int64_t *end = ks_xmalloc(ks_mul(n, sizeof *end));
    size_t m = 0;
    for (size_t i = 0; i < st->n; i++)
        if (ks_step_active(&st->v[i]))
            s[m++] = &st->v[i];
    size_t rises = 0, falls = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t j = 0; j < n; j++) {
        end[j] = ks_mem_level_before(d, s[j]->host_end, NULL);
        if (j) {
            rises += end[j] > end[j - 1];
            falls += end[j] < end[j - 1];
        }
        lo = end[j] < lo ? end[j] : lo;
        hi = end[j] > hi ? end[j] : hi;
    }
    size_t deltas = n - 1;
    int grows = rises >= 2 && 3 * rises >= 2 * deltas && end[n - 1] == hi && end[0] == lo && hi > lo;
    if (grows) {
        char b1[32], b2[32], b3[32], b4[32], b5[32];
        const char *dev = d->type_name ? d->type_name : "device";
        int64_t growth = end[n - 1] - end[0];
        kept k;
        int paired = kept_allocations(d, s[0]->host_start, s[n - 1]->host_start, s[n - 1]->host_end, &k);
        out->v = ks_xrealloc(out->v, (out->n + 1) * sizeof *out->v);
        ks_diagnosis *x = &out->v[out->n++];
        memset(x, 0, sizeof *x);
        x->id = "memory_growth";
        x->impact_ns = -1;
        x->impact_heuristic_ns = -1;
        x->impact_basis = "memory, not time: no step time saving claimed";
        x->confidence = !falls && rises == deltas && n >= 5 ? "high" : !falls ? "medium" : "low";
        const char *op = k.total > 0 ? (k.op ? ks_trace_str(a->trace, k.op) : "[no op]") : NULL;
        x->subject = k.total > 0 && k.op ? ks_trace_str(a->trace, k.op) : NULL;
        x->hypothesis = ks_xasprintf("Allocated memory on %s %d grows step after step (%s per step): tensors made in "
                            "each step outlive it%s%s%s, a leak that ends in running out of memory.",
                            dev, (int)d->device_id, bytes(b1, sizeof b1, growth / (int64_t)deltas),
                            op ? " (most of them by " : "", op ? op : "", op ? ")" : "");
        char *kept_text;
        if (!paired)
            kept_text = ks_xasprintf("the trace does not pair allocations with frees (no Addr): the op is not named");
        else if (k.total > 0)
            kept_text = ks_xasprintf("%llu allocations (%s) made in steps %lld-%lld are still live at the end of step %lld, "
                            "%s of them by %s",
                            (unsigned long long)k.count, bytes(b4, sizeof b4, k.total), (long long)s[0]->number,
                            (long long)s[n - 2]->number, (long long)s[n - 1]->number,
                            bytes(b5, sizeof b5, k.op_bytes), op);
        else
            kept_text = ks_xasprintf("every allocation of steps %lld-%lld is freed by the end of step %lld: the growth "
                            "comes from memory allocated before them",
                            (long long)s[0]->number, (long long)s[n - 2]->number, (long long)s[n - 1]->number);
        x->evidence = ks_xasprintf("allocated on %s %d at the end of steps %lld-%lld: %s -> %s (%s; it rose in %zu of %zu "
                          "steps, fell in %zu; level basis %s); %s.",
                          dev, (int)d->device_id, (long long)s[0]->number, (long long)s[n - 1]->number,
                          bytes(b1, sizeof b1, end[0]), bytes(b2, sizeof b2, end[n - 1]),
                          bytes(b3, sizeof b3, growth), rises, deltas, falls,
                          d->basis == KS_MEM_BASIS_TOTAL ? "Total Allocated" : "the sum of Bytes", kept_text);
        free(kept_text);
        x->next_check = ks_xasprintf("Capture more steps with profile_memory=True and check whether the growth goes on; "
                            "look for tensors kept across iterations%s%s%s (a list of losses kept without "
                            ".item(), hooks or caches holding activations, a graph kept by retain_graph).",
                            op ? " by what " : "", op ? op : "", op ? " returns" : "");
        x->refuted_if = ks_xasprintf("allocated memory levels off in a longer capture, or the allocations still live at the "
                            "last step's end are freed in the steps after it.");
        for (size_t j = 0; j < n; j++)
            ks_dx_add_step(x, s[j]->number);
    }
    free(end);
    free(s);
}

void ks_memory_growth_check(const ks_analysis *a, const ks_steps *st, ks_diagnoses *out)
{
    const ks_memory *m = a->memory;
    if (!m || m->reason || !st)
        return;
    for (size_t i = 0; i < m->n; i++)
        device_growth(a, st, &m->dev[i], out);
}
