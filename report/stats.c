/* report/stats.c: the `kinesift stats` report, in text and as JSON "kinesift.stats/1"
 * (docs/schema-stats.md): what was read, how it is organised, and every diagnostic. */
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "common/util.h"
#include "kinesift/report.h"
#include "report/report_util.h"

/* a track's names longer than this are shortened in the middle in text (JSON keeps them whole) */
enum { NAME_TEXT_MAX = 200 };

struct ks_stats_json {
    ks_jw w;
    ks_input_error_list errors;
};

static const char *track_kind_name(int k)
{
    return k == KS_TRACK_CPU ? "cpu" : k == KS_TRACK_GPU ? "gpu" : "other";
}

ks_stats_json *ks_stats_json_begin(FILE *out)
{
    ks_stats_json *s = ks_xcalloc(1, sizeof *s);
    ks_jw_open(&s->w, out, 1);
    ks_jw_obj(&s->w);
    ks_jw_kstr(&s->w, "schema", "kinesift.stats/1");
    ks_jw_kstr(&s->w, "version", ks_version());
    ks_jw_key(&s->w, "traces");
    ks_jw_arr(&s->w);
    return s;
}

void ks_stats_json_trace(ks_stats_json *s, const ks_trace *t)
{
    ks_jw *w = &s->w;
    ks_jw_obj(w);
    ks_jw_kstr(w, "source", t->source);
    ks_jw_kstr(w, "filter", t->filter ? t->filter : "none");
    ks_jw_kuint(w, "bytes", t->bytes);
    ks_jw_kstr(w, "container", t->container == '{' ? "object" : t->container == '[' ? "array" : "none");
    ks_jw_kbool(w, "truncated", t->truncated);
    ks_jw_kuint(w, "events", ks_trace_events_read(t));
    ks_jw_kuint(w, "stored", t->events);
    ks_jw_kuint(w, "counter_samples", t->ncounters);
    ks_jw_kuint(w, "memory_bytes", ks_trace_memory(t));

    ks_jw_key(w, "by_phase");
    ks_jw_obj(w);
    for (int c = 0; c < 128; c++)
        if (t->by_phase[c]) {
            char k[2] = {(char)c, 0};
            ks_jw_kuint(w, k, t->by_phase[c]);
        }
    if (t->phase_other)
        ks_jw_kuint(w, "(other)", t->phase_other);
    ks_jw_end_obj(w);

    ks_jw_key(w, "by_category");
    ks_jw_obj(w);
    for (size_t c = 0; c < t->ncats; c++)
        if (t->by_cat[c])
            ks_jw_kuint(w, c ? ks_trace_cat_name(t, (uint16_t)c) : "(none)", t->by_cat[c]);
    ks_jw_end_obj(w);

    ks_jw_key(w, "tracks");
    ks_jw_arr(w);
    for (size_t i = 0; i < t->ntracks; i++) {
        const ks_track *k = &t->tracks[i];
        const ks_process *p = &t->procs[k->process];
        ks_jw_obj(w);
        ks_report_json_id(w, "pid", t, p->pid);
        ks_report_json_id(w, "tid", t, k->tid);
        ks_jw_kstr(w, "kind", track_kind_name(k->kind));
        ks_jw_kstr(w, "name", ks_trace_str(t, k->name));
        ks_jw_kstr(w, "process_name", ks_trace_str(t, p->name));
        if (p->labels)
            ks_jw_kstr(w, "process_labels", ks_trace_str(t, p->labels));
        if (k->kind == KS_TRACK_GPU) {
            ks_jw_kint(w, "device", k->device);
            ks_jw_kint(w, "stream", k->stream);
        }
        ks_jw_kuint(w, "events", k->n);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);

    ks_ns first, last;
    if (ks_trace_span(t, &first, &last)) {
        ks_jw_kint(w, "span_ns", ks_sat_sub(last, first));
        ks_jw_kint(w, "first_ts_ns", first);
        ks_jw_kint(w, "last_end_ns", last);
    } else {
        ks_jw_knull(w, "span_ns");
        ks_jw_kstr(w, "span_reason", "no timed events");
    }
    ks_jw_kuint(w, "steps", ks_trace_step_count(t));

    const ks_meta *m = &t->meta;
    if (m->has_rank) ks_jw_kint(w, "rank", m->rank); else ks_jw_knull(w, "rank");
    if (m->has_world_size) ks_jw_kint(w, "world_size", m->world_size); else ks_jw_knull(w, "world_size");
    if (m->backend) ks_jw_kstr(w, "backend", ks_trace_str(t, m->backend)); else ks_jw_knull(w, "backend");
    ks_jw_key(w, "devices");
    ks_jw_arr(w);
    for (size_t i = 0; i < m->ndevices; i++) {
        const ks_device_prop *d = &m->devices[i];
        ks_jw_obj(w);
        ks_jw_kint(w, "id", d->id);
        ks_jw_kstr(w, "name", ks_trace_str(t, d->name));
        ks_jw_kint(w, "total_global_mem", d->total_global_mem);
        char cc[48];
        snprintf(cc, sizeof cc, "%lld.%lld", (long long)d->compute_major, (long long)d->compute_minor);
        ks_jw_kstr(w, "compute_capability", cc);
        ks_jw_kint(w, "num_sms", d->num_sms);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);

    ks_jw_key(w, "metadata");
    ks_jw_obj(w);
    if (m->schema_version) ks_jw_kstr(w, "schemaVersion", ks_trace_str(t, m->schema_version));
    if (m->display_time_unit) ks_jw_kstr(w, "displayTimeUnit", ks_trace_str(t, m->display_time_unit));
    if (m->has_base_time) ks_jw_kint(w, "baseTimeNanoseconds", m->base_time_ns);
    if (m->trace_name) ks_jw_kstr(w, "traceName", ks_trace_str(t, m->trace_name));
    for (size_t i = 0; i < m->nentries; i++)
        ks_jw_kstr(w, ks_trace_str(t, m->entries[i].key), ks_trace_str(t, m->entries[i].value));
    ks_jw_end_obj(w);

    ks_jw_key(w, "diagnostics");
    ks_report_json_diagnostics(w, &t->diag, NULL);
    ks_jw_end_obj(w);
}

void ks_stats_json_error(ks_stats_json *s, const char *input, const char *message)
{
    ks_input_error_list_add(&s->errors, input, message);
}

int ks_stats_json_end(ks_stats_json *s)
{
    ks_jw_end_arr(&s->w);
    ks_input_error_list_json(&s->w, &s->errors);
    ks_jw_end_obj(&s->w);
    int r = ks_jw_close(&s->w);
    fputc('\n', s->w.out);
    free(s);
    return r;
}

/* ---- text ---------------------------------------------------------------------------------- */

static int cmp_u64_desc(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? 1 : x[0] > y[0] ? -1 : (x[1] > y[1]) - (x[1] < y[1]);
}

void ks_stats_text(FILE *final, const ks_trace *t, size_t width)
{
    char b1[64], b2[64];
    ks_text_buf tb;
    FILE *out = ks_text_begin(&tb, final); /* fitted to the width at the end (report/textfit.c) */
    ks_fmt_bytes(b1, sizeof b1, t->bytes);
    fprintf(out, "== %s\n", t->source);
    fprintf(out, "  read          %s decompressed (%s), JSON %s%s\n", b1, t->filter ? t->filter : "none",
            t->container == '{' ? "object" : "array", t->truncated ? ", TRUNCATED" : "");
    fprintf(out, "  events        %llu read, %llu stored on tracks, %zu counter samples\n",
            (unsigned long long)ks_trace_events_read(t), (unsigned long long)t->events, t->ncounters);
    fprintf(out, "  by phase     ");
    for (int c = 0; c < 128; c++)
        if (t->by_phase[c])
            fprintf(out, " %c:%llu", c, (unsigned long long)t->by_phase[c]);
    if (t->phase_other)
        fprintf(out, " other:%llu", (unsigned long long)t->phase_other);
    fprintf(out, "\n  by category  ");
    /* most frequent first */
    uint64_t(*order)[2] = ks_xmalloc((t->ncats + 1) * sizeof *order);
    size_t n = 0;
    for (size_t c = 0; c < t->ncats; c++)
        if (t->by_cat[c]) {
            order[n][0] = t->by_cat[c];
            order[n][1] = c;
            n++;
        }
    qsort(order, n, sizeof *order, cmp_u64_desc);
    for (size_t i = 0; i < n; i++)
        fprintf(out, " %s:%llu", order[i][1] ? ks_trace_cat_name(t, (uint16_t)order[i][1]) : "(none)",
                (unsigned long long)order[i][0]);
    free(order);
    size_t kinds[3] = {0, 0, 0};
    for (size_t i = 0; i < t->ntracks; i++)
        kinds[t->tracks[i].kind]++;
    fprintf(out, "\n  tracks        %zu (cpu %zu, gpu %zu, other %zu)\n", t->ntracks, kinds[0], kinds[1],
            kinds[2]);
    if (t->ntracks)
        fprintf(out, "    " KS_TEXT_LEFT "kind\t" KS_TEXT_LEFT "pid\t" KS_TEXT_LEFT "tid\tevents\tdevice\tstream\tname\n");
    for (size_t i = 0; i < t->ntracks; i++) {
        const ks_track *k = &t->tracks[i];
        char pid[64], tid[64];
        ks_id_format(t->strings, ks_track_pid(t, k), pid, sizeof pid);
        ks_id_format(t->strings, k->tid, tid, sizeof tid);
        /* a table row (report/textfit.c): its cells, then the names, shortened in the middle
         * when the width is short; control characters written \xNN */
        char name[NAME_TEXT_MAX * 4 + 16], pname[NAME_TEXT_MAX * 4 + 16], epid[64 * 4 + 16], etid[64 * 4 + 16];
        ks_text_short_name(ks_trace_str(t, k->name), NAME_TEXT_MAX, 0, name, sizeof name);
        ks_text_short_name(ks_trace_str(t, t->procs[k->process].name), NAME_TEXT_MAX, 0, pname, sizeof pname);
        ks_text_short_name(pid, 64, 0, epid, sizeof epid);
        ks_text_short_name(tid, 64, 0, etid, sizeof etid);
        fprintf(out, "    " KS_TEXT_LEFT "%s\t" KS_TEXT_LEFT "%s\t" KS_TEXT_LEFT "%s\t%zu\t", track_kind_name(k->kind),
                epid, etid, k->n);
        if (k->kind == KS_TRACK_GPU)
            fprintf(out, "%d\t%lld\t", k->device, (long long)k->stream);
        else
            fprintf(out, "\t\t");
        if (*name || *pname)
            fprintf(out, "%s%s%s", pname, *pname && *name ? " / " : "", name);
        fputc('\n', out);
    }
    ks_ns first, last;
    if (ks_trace_span(t, &first, &last)) {
        ks_fmt_ns(b1, sizeof b1, ks_sat_sub(last, first));
        fprintf(out, "  span          %s (%lld .. %lld ns)\n", b1, (long long)first, (long long)last);
    } else {
        fprintf(out, "  span          not observed (no timed events)\n");
    }
    fprintf(out, "  steps         %zu ProfilerStep#N\n", ks_trace_step_count(t));
    const ks_meta *m = &t->meta;
    if (m->has_rank)
        snprintf(b1, sizeof b1, "%lld", (long long)m->rank);
    else
        snprintf(b1, sizeof b1, "not recorded");
    if (m->has_world_size)
        snprintf(b2, sizeof b2, "%lld", (long long)m->world_size);
    else
        snprintf(b2, sizeof b2, "not recorded");
    fprintf(out, "  rank          %s, world size %s%s%s\n", b1, b2, m->backend ? ", backend " : "",
            m->backend ? ks_trace_str(t, m->backend) : "");
    if (m->ndevices) {
        fprintf(out, "  devices      ");
        for (size_t i = 0; i < m->ndevices; i++)
            fprintf(out, " [%lld] %s (sm %lld.%lld, %lld SMs)", (long long)m->devices[i].id,
                    ks_trace_str(t, m->devices[i].name), (long long)m->devices[i].compute_major,
                    (long long)m->devices[i].compute_minor, (long long)m->devices[i].num_sms);
        fputc('\n', out);
    } else {
        fprintf(out, "  devices       none recorded\n");
    }
    fprintf(out, "  diagnostics%s", t->diag.n ? "\n" : "   ");
    ks_report_text_diagnostics(out, &t->diag, NULL, t->diag.n ? "    " : "");
    ks_text_end(&tb, final, width);
}
