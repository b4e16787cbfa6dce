/* tests/parser/trace_digest.h: a complete text rendering of a parse result (the whole store: every
 * event field, string texts, tracks, processes, counters, metadata, diagnostics with their
 * positions and texts, or the error with its position), so two ways of reading the same input
 * can be compared with one string comparison. */
#ifndef KS_TRACE_DIGEST_H
#define KS_TRACE_DIGEST_H

#include <inttypes.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/parse.h"

static inline void digest_id(ks_buf *b, const ks_trace *t, ks_id id)
{
    char s[256];
    ks_id_format(t->strings, id, s, sizeof s);
    ks_buf_printf(b, "%u:%s", id.type, s);
}

static inline void digest_trace(ks_buf *b, const ks_trace *t)
{
    ks_buf_printf(b, "source %s filter %s bytes %" PRIu64 " container %d truncated %d at %" PRIu64
                     " events %" PRIu64 " other %" PRIu64 " strings %u memory %zu\n",
                  t->source, t->filter, t->bytes, t->container, t->truncated, t->truncated_at,
                  t->events, t->phase_other, ks_strtab_count(t->strings), ks_trace_memory(t));
    for (int i = 0; i < 128; i++)
        if (t->by_phase[i])
            ks_buf_printf(b, "phase %d %" PRIu64 "\n", i, t->by_phase[i]);
    for (size_t i = 0; i < t->ncats; i++)
        ks_buf_printf(b, "cat %zu %s %" PRIu64 "\n", i, ks_trace_cat_name(t, (uint16_t)i), t->by_cat[i]);
    for (size_t i = 0; i < t->nprocs; i++) {
        const ks_process *p = &t->procs[i];
        ks_buf_puts(b, "proc ");
        digest_id(b, t, p->pid);
        ks_buf_printf(b, " %s|%s %d %d\n", ks_trace_str(t, p->name), ks_trace_str(t, p->labels),
                      p->sort_index, p->has_sort_index);
    }
    for (size_t i = 0; i < t->ntracks; i++) {
        const ks_track *k = &t->tracks[i];
        ks_buf_puts(b, "track ");
        digest_id(b, t, ks_track_pid(t, k));
        ks_buf_putc(b, ' ');
        digest_id(b, t, k->tid);
        ks_buf_printf(b, " p%u %s %d %d kind %d dev %d stream %" PRId64 " n %zu\n", k->process,
                      ks_trace_str(t, k->name), k->sort_index, k->has_sort_index, k->kind, k->device,
                      k->stream, k->n);
        for (size_t j = 0; j < k->n; j++) {
            const ks_event *e = &k->ev[j];
            int64_t bytes = -1;
            ks_event_bytes(t, (uint32_t)i, (uint32_t)j, &bytes);
            ks_buf_printf(b, " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %s %s %c %d %u\n",
                          e->ts, ks_event_dur(e), ks_event_ext(t, e), ks_event_corr(t, e), bytes,
                          ks_trace_str(t, e->name), ks_trace_cat_name(t, e->cat), e->ph, e->kind, e->flags);
        }
    }
    for (size_t i = 0; i < t->nseries; i++)
        ks_buf_printf(b, "series %u %s\n", t->series[i].track, ks_trace_str(t, t->series[i].name));
    for (size_t i = 0; i < t->ncounters; i++)
        ks_buf_printf(b, "counter %" PRId64 " %u %.17g\n", t->counters[i].ts, t->counters[i].series,
                      t->counters[i].value);
    for (size_t i = 0; i < t->ncolls; i++) {
        const ks_coll_info *c = &t->colls[i];
        ks_buf_printf(b, "coll %u %u %s|%s|%s|%s %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n", c->track, c->ev,
                      ks_trace_str(t, c->name), ks_trace_str(t, c->pg_name), ks_trace_str(t, c->pg_ranks),
                      ks_trace_str(t, c->dtype), c->in_nelems, c->out_nelems, c->group_size, c->seq);
    }
    for (size_t i = 0; i < t->nmems; i++) {
        const ks_mem_info *mi = &t->mems[i];
        ks_buf_printf(b, "mem %u %u %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %d %d %u\n", mi->track, mi->ev,
                      mi->bytes, mi->allocated, mi->reserved, mi->addr, mi->device_type, mi->device_id, mi->has);
    }
    for (size_t i = 0; i < t->nsyncs; i++) {
        const ks_sync_info *w = &t->syncs[i];
        ks_buf_printf(b, "sync %u %u %" PRId64 " %" PRId64 " %u\n", w->track, w->ev, w->wait_stream, w->record_corr,
                      w->has);
    }
    for (size_t i = 0; i < t->nshapes; i++) {
        const ks_shape_info *h = &t->shapes[i];
        ks_buf_printf(b, "shape %u %u %s|%s|%s\n", h->track, h->ev, ks_trace_str(t, h->dims),
                      ks_trace_str(t, h->types), ks_trace_str(t, h->concrete));
    }
    for (size_t i = 0; i < t->nlaunches; i++) {
        const ks_launch_info *r = &t->launches[i];
        const ks_launch_args *l = &t->launch_args[r->args];
        ks_buf_printf(b, "launch %u %u %u %d %" PRId64 " %.17g %.17g %.17g %" PRId64 " %" PRId64 " %" PRId64
                         " %" PRId64 " %" PRId64 " %" PRId64 "\n",
                      r->track, r->ev, l->has, l->registers, l->shared_mem, l->blocks_per_sm, l->warps_per_sm,
                      l->occupancy_pct, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2]);
    }
    const ks_meta *m = &t->meta;
    ks_buf_printf(b, "meta %s|%s|%s %d %" PRId64 " %d %" PRId64 " %d %" PRId64 " %s\n",
                  ks_trace_str(t, m->schema_version), ks_trace_str(t, m->display_time_unit),
                  ks_trace_str(t, m->trace_name), m->has_base_time, m->base_time_ns, m->has_rank,
                  m->rank, m->has_world_size, m->world_size, ks_trace_str(t, m->backend));
    for (size_t i = 0; i < m->ndevices; i++)
        ks_buf_printf(b, "device %" PRId64 " %s %" PRId64 "\n", m->devices[i].id,
                      ks_trace_str(t, m->devices[i].name), m->devices[i].num_sms);
    for (size_t i = 0; i < m->nentries; i++)
        ks_buf_printf(b, "entry %s=%s %d\n", ks_trace_str(t, m->entries[i].key),
                      ks_trace_str(t, m->entries[i].value), m->entries[i].is_string);
    for (size_t i = 0; i < t->diag.n; i++) {
        const ks_diag_kind *k = &t->diag.kinds[i];
        ks_buf_printf(b, "diag %s %d %" PRIu64 "\n", k->id, k->severity, k->count);
        for (size_t j = 0; j < k->nexamples; j++)
            ks_buf_printf(b, "  %d %" PRIu64 ":%" PRIu64 ":%" PRIu64 " %s\n", k->ex[j].has_pos,
                          k->ex[j].byte, k->ex[j].line, k->ex[j].column, k->ex[j].text);
    }
    ks_ns a = 0, z = 0;
    int any = ks_trace_span(t, &a, &z);
    ks_buf_printf(b, "span %d %" PRId64 " %" PRId64 " steps %zu\n", any, a, z, ks_trace_step_count(t));
}

/* Parse buf with o and render the result (or the error) into a new string (free it). */
/* The 1-based number of the first line where two renderings differ. */
static inline size_t digest_first_diff_line(const char *one, const char *two)
{
    size_t at = 0, line = 1;
    while (one[at] && one[at] == two[at])
        if (one[at++] == '\n')
            line++;
    return line;
}

static inline char *digest_parse(const void *buf, size_t len, const ks_parse_opts *o)
{
    ks_buf b = {0};
    ks_trace *t = NULL;
    ks_error err;
    memset(&err, 0, sizeof err);
    if (ks_parse_buffer("input", buf, len, o, &t, &err) == KS_OK) {
        digest_trace(&b, t);
        ks_trace_free(t);
    } else {
        ks_buf_printf(&b, "error %d %" PRIu64 ":%" PRIu64 ":%" PRIu64 " %s\n", err.has_pos, err.byte,
                      err.line, err.column, err.msg);
    }
    ks_buf_cstr(&b);
    return b.p ? b.p : ks_xstrdup("");
}

#endif
