/* report/memory_text.c: the "Memory" section of analyze's text report: per device the peak of
 * allocated and reserved bytes with its time, step and ops, the share of the device's capacity,
 * what was live at the peak, the laws, the steps and the ops that allocate most (the same figures
 * as the JSON's memory list, docs/schema-analyze.md). Times are from the window's start, as the
 * diagnostics print them. */
#include <stdio.h>

#include "common/util.h"
#include "kinesift/report.h"
#include "report/report_int.h"

static const char *by(char *b, size_t n, int64_t v)
{
    if (v < 0) {
        b[0] = '-';
        ks_fmt_bytes(b + 1, n - 1, (uint64_t)-v);
    } else {
        ks_fmt_bytes(b, n, (uint64_t)v);
    }
    return b;
}

static const char *at(char *b, size_t n, const ks_analysis *a, ks_ns t)
{
    if (t >= a->win_start) {
        ks_fmt_ns(b, n, t - a->win_start);
    } else {
        b[0] = '-';
        ks_fmt_ns(b + 1, n - 1, a->win_start - t);
    }
    return b;
}

void ks_mem_device_label(char *b, size_t n, const ks_mem_device *d)
{
    if (d->device_type == 0 && d->device_id == -1)
        snprintf(b, n, "CPU");
    else if (d->type_name)
        snprintf(b, n, "%s %d", d->type_name, (int)d->device_id);
    else
        snprintf(b, n, "device type %d id %d", (int)d->device_type, (int)d->device_id);
}

static void device_text(FILE *out, const ks_analysis *a, const ks_mem_device *d, size_t top)
{
    const ks_trace *t = a->trace;
    char lab[64], b1[32], b2[32], b3[32], b4[32];
    ks_mem_device_label(lab, sizeof lab, d);
    if (d->basis == KS_MEM_BASIS_TOTAL)
        fprintf(out, "    %s: peak %s allocated", lab, by(b1, sizeof b1, d->peak_allocated));
    else
        fprintf(out, "    %s: peak not observed (no Total Allocated: PyTorch before 1.10); the sum of Bytes rose "
                     "at most %s above the first event's level", lab, by(b1, sizeof b1, d->peak_level));
    fprintf(out, " at %s", at(b2, sizeof b2, a, d->peak_ns));
    if (d->has_peak_step)
        fprintf(out, " (step %lld)", (long long)d->peak_step);
    fprintf(out, " in ");
    if (!d->npeak_path)
        fprintf(out, "[no op]");
    for (size_t i = 0; i < d->npeak_path; i++)
        fprintf(out, "%s%s", i ? " > " : "", ks_trace_str(t, d->peak_path[i]));
    fputc('\n', out);
    if (d->has_reserved) {
        fprintf(out, "      reserved: peak %s", by(b1, sizeof b1, d->peak_reserved));
        if (d->basis == KS_MEM_BASIS_TOTAL && d->reserved_at_peak >= 0)
            fprintf(out, "; at the allocated peak %s, of which %s cached or fragmented", by(b2, sizeof b2, d->reserved_at_peak),
                    by(b3, sizeof b3, d->reserved_at_peak - d->peak_allocated));
        fputc('\n', out);
    }
    if (d->capacity > 0 && d->basis == KS_MEM_BASIS_TOTAL) {
        fprintf(out, "      capacity %s (deviceProperties): the allocated peak is %.2f%% of it",
                by(b1, sizeof b1, d->capacity), 100.0 * (double)d->peak_allocated / (double)d->capacity);
        if (d->has_reserved)
            fprintf(out, ", the reserved peak %.2f%%", 100.0 * (double)d->peak_reserved / (double)d->capacity);
        fputc('\n', out);
    }
    if (d->nlive) {
        size_t nshown = top && top < d->nlive ? top : d->nlive;
        fprintf(out, "      live at the peak:");
        for (size_t i = 0; i < nshown; i++) {
            const ks_mem_live *l = &d->live[i];
            if (l->what == KS_MEM_LIVE_BEFORE)
                fprintf(out, "%s %s allocated before the capture", i ? "," : "", by(b1, sizeof b1, l->bytes));
            else
                fprintf(out, "%s %s by %s (%llu)", i ? "," : "", by(b1, sizeof b1, l->bytes),
                        ks_mem_op_text(t, l->op), (unsigned long long)l->count);
        }
        if (nshown < d->nlive) /* not the whole list: said, as the step table does */
            fprintf(out, ", and %zu more (--top 0 lists them)", d->nlive - nshown);
        fputc('\n', out);
    }
    fprintf(out, "      %llu events: %llu allocations (%s), %llu frees (%s), net %s; ", (unsigned long long)d->events,
            (unsigned long long)d->allocs, by(b1, sizeof b1, d->alloc_bytes), (unsigned long long)d->frees,
            by(b2, sizeof b2, d->free_bytes), by(b3, sizeof b3, d->net_bytes));
    if (d->basis == KS_MEM_BASIS_TOTAL)
        fprintf(out, "Bytes follow Total Allocated in %llu of %llu events%s\n",
                (unsigned long long)(d->law_checked - d->law_breaks), (unsigned long long)d->law_checked,
                d->law_breaks ? " (the others: events the profiler dropped, or tied timestamps)" : "");
    else
        fprintf(out, "no Total Allocated to check Bytes against\n");
    for (size_t i = 0; i < d->nsteps && i < (top ? top : d->nsteps); i++) {
        const ks_mem_step *s = &d->steps[i];
        fprintf(out, "      step %lld: %s -> %s (%s%s), peak %s\n", (long long)s->number, by(b1, sizeof b1, s->start_level),
                by(b2, sizeof b2, s->end_level), s->end_level >= s->start_level ? "+" : "",
                by(b3, sizeof b3, s->end_level - s->start_level), by(b4, sizeof b4, s->peak_level));
    }
    if (top && d->nsteps > top)
        fprintf(out, "      ... %zu more step%s (--top 0 lists them)\n", d->nsteps - top, d->nsteps - top == 1 ? "" : "s");
    if (d->nops) {
        fprintf(out, "      ops by allocated bytes (inclusive; self in brackets):");
        size_t shown = 0;
        for (size_t i = 0; i < d->nops && shown < (top && top < 5 ? top : 5); i++) {
            const ks_mem_op *o = &d->ops[i];
            if (!o->incl_allocs)
                continue;
            fprintf(out, "%s %s %s in %llu [%s]", shown ? "," : "", ks_mem_op_text(t, o->name),
                    by(b1, sizeof b1, o->incl_alloc_bytes), (unsigned long long)o->incl_allocs,
                    by(b2, sizeof b2, o->self_alloc_bytes));
            shown++;
        }
        fputc('\n', out);
    }
}

void ks_memory_text(FILE *out, const ks_analysis *a, size_t top)
{
    const ks_memory *m = a->memory;
    fprintf(out, "\n  Memory (allocator events over the whole trace)\n");
    if (!m || m->reason || !m->n) {
        fprintf(out, "    %s\n", m && m->reason ? m->reason : "not observed");
        return;
    }
    for (size_t i = 0; i < m->n; i++)
        device_text(out, a, &m->dev[i], top);
}
