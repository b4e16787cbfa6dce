/* report/memory_json.c: the "memory" section of "kinesift.analyze/1" (docs/schema-analyze.md):
 * one object per device of ks_analysis.memory (kinesift/memory.h), or null with memory_reason when
 * the trace has no allocator events. Bytes are exact integers; a figure the trace does not carry
 * (the peaks of a trace without Total Allocated, a capacity deviceProperties does not give) is
 * null. Writes only what the memory pass and ks_memory_steps computed. */
#include "common/jsonw.h"
#include "kinesift/memory.h"
#include "kinesift/report.h"
#include "report/report_int.h"

static void maybe(ks_jw *w, const char *k, int64_t v, int observed)
{
    if (observed)
        ks_jw_kint(w, k, v);
    else
        ks_jw_knull(w, k);
}

const char *ks_mem_op_text(const ks_trace *t, ks_str op)
{
    return op ? ks_trace_str(t, op) : "[no op]";
}

const char *ks_mem_kind_text(int kind)
{
    return kind == KS_K_OTHER ? "none" : ks_kind_name((ks_kind)kind);
}

const char *ks_mem_basis_text(const ks_mem_device *d)
{
    return d->basis == KS_MEM_BASIS_TOTAL ? "total_allocated" : "bytes_since_first_event";
}

static void ops_json(ks_jw *w, const ks_trace *t, const ks_mem_device *d)
{
    ks_jw_key(w, "ops");
    ks_jw_arr(w);
    for (size_t i = 0; i < d->nops; i++) {
        const ks_mem_op *r = &d->ops[i];
        ks_jw_obj(w);
        ks_jw_kstr(w, "name", ks_mem_op_text(t, r->name));
        ks_jw_kstr(w, "kind", ks_mem_kind_text(r->kind));
        ks_jw_kuint(w, "self_allocations", r->self_allocs);
        ks_jw_kint(w, "self_allocated_bytes", r->self_alloc_bytes);
        ks_jw_kint(w, "self_increase_bytes", r->self_net_bytes);
        ks_jw_kuint(w, "allocations", r->incl_allocs);
        ks_jw_kint(w, "allocated_bytes", r->incl_alloc_bytes);
        ks_jw_kint(w, "increase_bytes", r->incl_net_bytes);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

static void live_json(ks_jw *w, const ks_trace *t, const ks_mem_device *d)
{
    ks_jw_key(w, "live_at_peak");
    ks_jw_arr(w);
    for (size_t i = 0; i < d->nlive; i++) {
        const ks_mem_live *l = &d->live[i];
        ks_jw_obj(w);
        if (l->what == KS_MEM_LIVE_BEFORE) {
            ks_jw_kstr(w, "op", "[before the capture]");
            ks_jw_knull(w, "kind");
            ks_jw_knull(w, "allocations");
        } else {
            ks_jw_kstr(w, "op", ks_mem_op_text(t, l->op));
            ks_jw_kstr(w, "kind", ks_mem_kind_text(l->kind));
            ks_jw_kuint(w, "allocations", l->count);
        }
        ks_jw_kint(w, "bytes", l->bytes);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

static void steps_json(ks_jw *w, const ks_mem_device *d)
{
    ks_jw_key(w, "steps");
    ks_jw_arr(w);
    for (size_t i = 0; i < d->nsteps; i++) {
        const ks_mem_step *s = &d->steps[i];
        ks_jw_obj(w);
        ks_jw_kint(w, "number", s->number);
        ks_jw_kint(w, "start_bytes", s->start_level);
        ks_jw_kint(w, "end_bytes", s->end_level);
        ks_jw_kint(w, "growth_bytes", s->end_level - s->start_level);
        ks_jw_kint(w, "peak_bytes", s->peak_level);
        ks_jw_kint(w, "peak_ns", s->peak_ns);
        maybe(w, "peak_reserved_bytes", s->peak_reserved, s->peak_reserved >= 0);
        ks_jw_kuint(w, "events", s->events);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
}

static void device_json(ks_jw *w, const ks_trace *t, const ks_mem_device *d)
{
    int total = d->basis == KS_MEM_BASIS_TOTAL;
    ks_jw_obj(w);
    if (d->type_name)
        ks_jw_kstr(w, "device_type", d->type_name);
    else
        ks_jw_knull(w, "device_type");
    maybe(w, "device_type_id", d->device_type, d->device_type >= 0);
    maybe(w, "device", d->device_id, d->device_id != INT32_MIN);
    ks_jw_kuint(w, "events", d->events);
    ks_jw_kuint(w, "allocations", d->allocs);
    ks_jw_kuint(w, "frees", d->frees);
    ks_jw_kint(w, "allocated_bytes", d->alloc_bytes);
    ks_jw_kint(w, "freed_bytes", d->free_bytes);
    ks_jw_kint(w, "net_bytes", d->net_bytes);
    maybe(w, "peak_allocated_bytes", d->peak_allocated, total);
    maybe(w, "peak_reserved_bytes", d->peak_reserved, d->has_reserved);
    if (!total)
        ks_jw_kstr(w, "peak_reason", "not observed: the events carry no Total Allocated (PyTorch before 1.10); "
                                      "peak_level_bytes is the running sum of Bytes since the first event");
    ks_jw_kint(w, "peak_level_bytes", d->peak_level);
    ks_jw_kint(w, "peak_ns", d->peak_ns);
    maybe(w, "peak_reserved_ns", d->peak_reserved_ns, d->has_reserved);
    maybe(w, "peak_step", d->peak_step, d->has_peak_step);
    ks_jw_kstr(w, "peak_op", ks_mem_op_text(t, d->peak_op));
    ks_jw_kstr(w, "peak_op_kind", ks_mem_kind_text(d->peak_op_kind));
    ks_jw_key(w, "peak_op_path");
    ks_jw_arr(w);
    for (size_t i = 0; i < d->npeak_path; i++)
        ks_jw_str(w, ks_trace_str(t, d->peak_path[i]));
    ks_jw_end_arr(w);
    maybe(w, "reserved_at_peak_bytes", d->reserved_at_peak, d->reserved_at_peak >= 0);
    maybe(w, "reserved_minus_allocated_at_peak_bytes", d->reserved_at_peak - d->peak_allocated,
          total && d->reserved_at_peak >= 0);
    maybe(w, "capacity_bytes", d->capacity, d->capacity > 0);
    if (total && d->capacity > 0) {
        ks_jw_kdouble(w, "peak_share_of_capacity", (double)d->peak_allocated / (double)d->capacity);
        if (d->has_reserved)
            ks_jw_kdouble(w, "peak_reserved_share_of_capacity", (double)d->peak_reserved / (double)d->capacity);
        else
            ks_jw_knull(w, "peak_reserved_share_of_capacity");
    } else {
        ks_jw_knull(w, "peak_share_of_capacity");
        ks_jw_knull(w, "peak_reserved_share_of_capacity");
    }
    ks_jw_kstr(w, "level_basis", ks_mem_basis_text(d));
    ks_jw_kint(w, "start_level_bytes", d->start_level);
    ks_jw_kint(w, "end_level_bytes", d->end_level);
    ks_jw_key(w, "laws");
    ks_jw_obj(w);
    ks_jw_kuint(w, "checked", d->law_checked);
    ks_jw_kuint(w, "breaks", d->law_breaks);
    if (total)
        ks_jw_kbool(w, "bytes_follow_total_allocated", !d->law_breaks);
    else
        ks_jw_knull(w, "bytes_follow_total_allocated");
    ks_jw_kuint(w, "unpaired_frees", d->unpaired_frees);
    ks_jw_end_obj(w);
    live_json(w, t, d);
    ops_json(w, t, d);
    steps_json(w, d);
    ks_jw_key(w, "timeline");
    ks_jw_arr(w);
    for (size_t i = 0; i < d->ntimeline; i++) {
        const ks_mem_point *p = &d->timeline[i];
        ks_jw_arr(w);
        ks_jw_int(w, p->ts);
        ks_jw_int(w, p->allocated);
        if (p->reserved >= 0)
            ks_jw_int(w, p->reserved);
        else
            ks_jw_null(w);
        ks_jw_end_arr(w);
    }
    ks_jw_end_arr(w);
    ks_jw_kuint(w, "timeline_events", d->nev);
    ks_jw_end_obj(w);
}

void ks_memory_json(ks_jw *w, const ks_analysis *a)
{
    const ks_memory *m = a->memory;
    ks_jw_key(w, "memory");
    if (!m || m->reason || !m->n) {
        ks_jw_null(w);
        ks_jw_kstr(w, "memory_reason", m && m->reason ? m->reason : "not observed");
        return;
    }
    ks_jw_arr(w);
    for (size_t i = 0; i < m->n; i++)
        device_json(w, a->trace, &m->dev[i]);
    ks_jw_end_arr(w);
    ks_jw_knull(w, "memory_reason");
}
