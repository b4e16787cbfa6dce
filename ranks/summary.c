/* ranks/summary.c: a ks_rank on disk, schema kinesift.summary/2, two JSON lines. Line 1 holds
 * everything `ranks` needs from one trace (identity inputs, per-rank figures, every collective
 * with its times, metadata and the kernels before it), kilobytes where the trace is megabytes;
 * reading it back gives the same ks_rank, field for field (ns integers, strings as written;
 * reasons mapped back onto the static texts), so a report from summaries equals the report from
 * the traces. Line 2 holds the report `analyze` prints for the trace with its default options
 * (the JSON trace object as a tree, written back token for token by ks_jw_tree; the text and the
 * CSV rows as strings), so `analyze` of a summary prints the bytes `analyze` of the trace prints.
 * `ranks` reads line 1 only: its cost over thousands of summaries does not grow with line 2.
 * Reading streams (ranks/summary_stream.c): a tree of the fields read here is built as the bytes
 * come, the rest dropped as it passes, and the checks below run on that tree.
 * kinesift.summary/1 (line 1 alone) is still read by `ranks`; line 1 without "memory" (written
 * before memory peaks were kept) reads as memory not observed. The map step of a job bigger than
 * one machine (docs/scale-out.md): `summarize` per rank, `ranks` over the summaries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "algo/intervals.h"
#include "common/jsontree.h"
#include "common/jsonw.h"
#include "common/afile.h"
#include "common/limits.h"
#include "common/util.h"
#include "kinesift/ranks.h"
#include "kinesift/redact.h"
#include "kinesift/source.h"
#include "ranks/ranks_int.h"

#define SCHEMA "kinesift.summary/2"
#define SCHEMA_1 "kinesift.summary/1" /* line 1 alone, still read by ranks */

int ks_rank_is_summary(const char *name)
{
    return strstr(name, ".kss.json") != NULL;
}

static void opt_int(ks_jw *w, const char *k, int64_t v, int present)
{
    if (present)
        ks_jw_kint(w, k, v);
    else
        ks_jw_knull(w, k);
}

static void opt_str(ks_jw *w, const char *k, const char *s)
{
    if (s)
        ks_jw_kstr(w, k, s);
    else
        ks_jw_knull(w, k);
}

static void write_coll(ks_jw *w, const ks_rank_coll *c)
{
    ks_jw_obj(w);
    ks_jw_kstr(w, "name", c->name);
    ks_jw_kstr(w, "group", c->pg);
    ks_jw_kint(w, "seq", c->seq);
    ks_jw_kint(w, "bytes", c->bytes);
    ks_jw_kint(w, "group_size", c->group_size);
    ks_jw_kint(w, "step", c->step);
    ks_jw_kint(w, "start_ns", c->start);
    ks_jw_kint(w, "end_ns", c->end);
    ks_jw_key(w, "before");
    ks_jw_arr(w);
    for (int t = 0; t < KS_RANK_TOP && c->before[t]; t++) {
        ks_jw_arr(w);
        ks_jw_str(w, c->before[t]);
        ks_jw_int(w, c->before_ns[t]);
        ks_jw_end_arr(w);
    }
    ks_jw_end_arr(w);
    ks_jw_end_obj(w);
}

/* "memory": null with "memory_reason", or one object per device with its exact peaks */
static void write_memory(ks_jw *w, const ks_rank *r)
{
    ks_jw_key(w, "memory");
    if (!r->nmem) {
        ks_jw_null(w);
        opt_str(w, "memory_reason", r->mem_reason ? r->mem_reason : "not observed");
        return;
    }
    ks_jw_arr(w);
    for (size_t i = 0; i < r->nmem; i++) {
        const ks_rank_mem *m = &r->mem[i];
        ks_jw_obj(w);
        opt_str(w, "device_type", m->type_name);
        opt_int(w, "device_type_id", m->device_type, m->device_type >= 0);
        opt_int(w, "device", m->device_id, m->device_id != INT32_MIN);
        opt_int(w, "peak_allocated_bytes", m->peak_allocated, m->peak_allocated >= 0);
        opt_int(w, "peak_reserved_bytes", m->peak_reserved, m->peak_reserved >= 0);
        opt_int(w, "capacity_bytes", m->capacity, m->capacity > 0);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_knull(w, "memory_reason");
}

static void write_json(FILE *f, const ks_rank *r)
{
    ks_jw w;
    ks_jw_open(&w, f, 0);
    ks_jw_obj(&w);
    ks_jw_kstr(&w, "schema", SCHEMA);
    ks_jw_kstr(&w, "source", r->source);
    opt_int(&w, "distributed_rank", r->rank, r->rank >= 0);
    opt_int(&w, "world_size", r->world_size, r->world_size >= 0);
    ks_jw_kuint(&w, "steps", r->steps);
    ks_jw_kint(&w, "step_median_ns", r->step_median);
    ks_jw_kint(&w, "step_p90_ns", r->step_p90);
    if (r->step_ns)
        ks_jw_kints(&w, "step_ns", r->step_ns, r->steps);
    opt_str(&w, "steps_reason", r->steps_reason);
    opt_str(&w, "gpu_reason", r->gpu_reason);
    ks_jw_kint(&w, "gpu_span_ns", r->gpu_span);
    ks_jw_kint(&w, "gpu_busy_ns", r->gpu_busy);
    ks_jw_kint(&w, "compute_ns", r->compute);
    ks_jw_kint(&w, "communication_ns", r->comm);
    ks_jw_kint(&w, "exposed_communication_ns", r->exposed);
    ks_jw_kint(&w, "host_wait_ns", r->host_wait);
    ks_jw_kuint(&w, "kernels", r->kernels);
    opt_str(&w, "collectives_reason", r->colls_reason);
    ks_jw_kint(&w, "first_step", r->first_step);
    ks_jw_kint(&w, "last_step", r->last_step);
    ks_jw_kbool(&w, "truncated", r->truncated);
    ks_jw_kuint(&w, "cut_byte", r->cut_byte);
    ks_jw_kint(&w, "last_ns", r->last_ns);
    ks_jw_key(&w, "names");
    ks_jw_arr(&w);
    for (size_t i = 0; i < r->nnames; i++) {
        ks_jw_arr(&w);
        ks_jw_str(&w, r->names[i].name);
        ks_jw_int(&w, r->names[i].op);
        ks_jw_int(&w, r->names[i].ns);
        ks_jw_end_arr(&w);
    }
    ks_jw_end_arr(&w);
    write_memory(&w, r);
    ks_jw_key(&w, "collectives");
    ks_jw_arr(&w);
    for (size_t i = 0; i < r->ncolls; i++)
        write_coll(&w, &r->colls[i]);
    ks_jw_end_arr(&w);
    ks_jw_end_obj(&w);
    ks_jw_close(&w);
    fputc('\n', f);
}

/* the trace object of a whole `analyze --format json` document of one trace */
static yajl_val report_trace(yajl_val doc)
{
    const char *path[] = {"traces", NULL};
    yajl_val t = doc ? yajl_tree_get(doc, path, yajl_t_array) : NULL;
    return t && t->u.array.len == 1 && YAJL_IS_OBJECT(t->u.array.values[0]) ? t->u.array.values[0] : NULL;
}

static int write_report(FILE *f, const ks_summary_report *rep, const char *path, ks_error *err)
{
    char msg[256];
    yajl_val doc = ks_json_tree_parse(rep->json, strlen(rep->json), msg, sizeof msg);
    yajl_val tr = report_trace(doc);
    if (!tr) {
        yajl_tree_free(doc);
        return ks_error_set(err, "%s: the analyze report to keep is not one trace's", path);
    }
    ks_jw w;
    ks_jw_open(&w, f, 0);
    ks_jw_obj(&w);
    ks_jw_key(&w, "analyze");
    ks_jw_obj(&w);
    opt_str(&w, "step_label", rep->step_label);
    ks_jw_key(&w, "json");
    ks_jw_tree(&w, tr);
    ks_jw_kstr(&w, "text", rep->text);
    ks_jw_kstr(&w, "csv", rep->csv);
    ks_jw_end_obj(&w);
    ks_jw_end_obj(&w);
    ks_jw_close(&w);
    fputc('\n', f);
    yajl_tree_free(doc);
    return KS_OK;
}

static size_t ends_gz(const char *p)
{
    size_t n = strlen(p);
    return n > 3 && !strcmp(p + n - 3, ".gz");
}

int ks_rank_summary_write(const ks_rank *r, const ks_summary_report *rep, const char *path, int force,
                          ks_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return ks_error_set(err, "%s: out of memory", path);
    write_json(m, r);
    int rc = rep ? write_report(m, rep, path, err) : KS_OK;
    fclose(m);
    if (rc != KS_OK) {
        free(buf);
        return rc;
    }
    ks_afile *s;
    rc = ks_afile_open(path, ends_gz(path) ? KS_COMPRESS_GZIP : KS_COMPRESS_NONE, &s, err);
    if (rc == KS_OK) {
        ks_afile_write(s, buf, len);
        if (ks_afile_close(s, err) != KS_OK) {
            ks_afile_abort(s);
            rc = KS_ERR;
        } else
            rc = ks_afile_commit(s, force, err);
    }
    free(buf);
    return rc;
}

/* ---- reading ------------------------------------------------------------------------------- */

static yajl_val get(yajl_val o, const char *k)
{
    const char *path[] = {k, NULL};
    return yajl_tree_get(o, path, yajl_t_any);
}

/* an integer field: 1 and *v; a null field: 1 and *v = dflt when nullable; else 0 */
static int int_of(yajl_val o, const char *k, int nullable, int64_t dflt, int64_t *v)
{
    yajl_val x = get(o, k);
    if (x && YAJL_IS_INTEGER(x)) {
        *v = YAJL_GET_INTEGER(x);
        return 1;
    }
    if (nullable && (!x || YAJL_IS_NULL(x))) {
        *v = dflt;
        return 1;
    }
    return 0;
}

static int str_of(yajl_val o, const char *k, int nullable, const char **s)
{
    yajl_val x = get(o, k);
    if (x && YAJL_IS_STRING(x)) {
        *s = YAJL_GET_STRING(x);
        return 1;
    }
    *s = NULL;
    return nullable && (!x || YAJL_IS_NULL(x));
}

static int read_coll(yajl_val o, ks_rank_coll *c)
{
    const char *name, *pg;
    memset(c, 0, sizeof *c);
    if (!YAJL_IS_OBJECT(o) || !str_of(o, "name", 0, &name) || !str_of(o, "group", 0, &pg) ||
        !int_of(o, "seq", 0, 0, &c->seq) || !int_of(o, "bytes", 0, 0, &c->bytes) ||
        !int_of(o, "group_size", 0, 0, &c->group_size) || !int_of(o, "step", 1, -1, &c->step) ||
        !int_of(o, "start_ns", 0, 0, &c->start) ||
        !int_of(o, "end_ns", 0, 0, &c->end))
        return 0;
    c->name = ks_xstrdup(name);
    c->pg = ks_xstrdup(pg);
    yajl_val b = get(o, "before");
    if (!b || !YAJL_IS_ARRAY(b) || b->u.array.len > KS_RANK_TOP)
        return 0;
    for (size_t t = 0; t < b->u.array.len; t++) {
        yajl_val e = b->u.array.values[t];
        if (!YAJL_IS_ARRAY(e) || e->u.array.len != 2 || !YAJL_IS_STRING(e->u.array.values[0]) ||
            !YAJL_IS_INTEGER(e->u.array.values[1]))
            return 0;
        c->before[t] = ks_xstrdup(YAJL_GET_STRING(e->u.array.values[0]));
        c->before_ns[t] = YAJL_GET_INTEGER(e->u.array.values[1]);
    }
    return 1;
}

static const char *reason_of(const char *s)
{
    return s ? ks_rank_reason(s) : NULL;
}

/* "step_ns" (summary/2, optional): the active steps' wall times, one per step */
static int read_step_ns(yajl_val root, ks_rank *r)
{
    yajl_val s = get(root, "step_ns");
    if (!s)
        return 1;
    if (!YAJL_IS_ARRAY(s) || s->u.array.len != r->steps)
        return 0;
    r->step_ns = ks_xcalloc(r->steps + 1, sizeof *r->step_ns);
    for (size_t i = 0; i < r->steps; i++) {
        yajl_val v = s->u.array.values[i];
        if (!YAJL_IS_INTEGER(v) || YAJL_GET_INTEGER(v) < 0)
            return 0;
        r->step_ns[i] = YAJL_GET_INTEGER(v);
    }
    return 1;
}

/* the fields added to summary/2 later (absent in older ones: steps and the cut unknown, no names) */
static int read_later(yajl_val root, ks_rank *r)
{
    int64_t cut;
    yajl_val tr = get(root, "truncated"), nm = get(root, "names");
    if (!int_of(root, "first_step", 1, -1, &r->first_step) || !int_of(root, "last_step", 1, -1, &r->last_step) ||
        !int_of(root, "cut_byte", 1, 0, &cut) || !int_of(root, "last_ns", 1, 0, &r->last_ns) || cut < 0 ||
        (tr && !YAJL_IS_TRUE(tr) && !YAJL_IS_FALSE(tr)) || (nm && !YAJL_IS_ARRAY(nm)) ||
        (nm && nm->u.array.len > 2 * KS_RANK_NAMES))
        return 0;
    r->truncated = tr && YAJL_IS_TRUE(tr);
    r->cut_byte = (uint64_t)cut;
    r->names = ks_xcalloc((nm ? nm->u.array.len : 0) + 1, sizeof *r->names);
    for (size_t i = 0; nm && i < nm->u.array.len; i++) {
        yajl_val e = nm->u.array.values[i];
        if (!YAJL_IS_ARRAY(e) || e->u.array.len != 3 || !YAJL_IS_STRING(e->u.array.values[0]) ||
            !YAJL_IS_INTEGER(e->u.array.values[1]) || !YAJL_IS_INTEGER(e->u.array.values[2]))
            return 0;
        r->names[r->nnames].name = ks_xstrdup(YAJL_GET_STRING(e->u.array.values[0]));
        r->names[r->nnames].op = YAJL_GET_INTEGER(e->u.array.values[1]) != 0;
        r->names[r->nnames++].ns = YAJL_GET_INTEGER(e->u.array.values[2]);
    }
    return 1;
}

/* an int32 field: null (or absent) = dflt */
static int i32_of(yajl_val o, const char *k, int32_t dflt, int32_t *v)
{
    int64_t x;
    if (!int_of(o, k, 1, dflt, &x) || x < INT32_MIN || x > INT32_MAX)
        return 0;
    *v = (int32_t)x;
    return 1;
}

/* "memory" (optional: absent in summaries written before peaks were kept, then not observed) */
static int read_memory(yajl_val root, ks_rank *r)
{
    yajl_val m = get(root, "memory");
    const char *why;
    if (!m) {
        r->mem_reason = KS_RANK_MEM_OLD_SUMMARY;
        return 1;
    }
    if (YAJL_IS_NULL(m)) {
        if (!str_of(root, "memory_reason", 0, &why))
            return 0;
        r->mem_reason = ks_rank_reason(why);
        return 1;
    }
    if (!YAJL_IS_ARRAY(m) || !m->u.array.len)
        return 0;
    r->mem = ks_xcalloc(m->u.array.len, sizeof *r->mem);
    for (size_t i = 0; i < m->u.array.len; i++) {
        yajl_val e = m->u.array.values[i];
        ks_rank_mem *x = &r->mem[r->nmem++];
        const char *tn;
        if (!YAJL_IS_OBJECT(e) || !str_of(e, "device_type", 1, &tn) || !i32_of(e, "device_type_id", -1, &x->device_type) ||
            !i32_of(e, "device", INT32_MIN, &x->device_id) ||
            !int_of(e, "peak_allocated_bytes", 1, -1, &x->peak_allocated) ||
            !int_of(e, "peak_reserved_bytes", 1, -1, &x->peak_reserved) ||
            !int_of(e, "capacity_bytes", 1, -1, &x->capacity))
            return 0;
        x->type_name = tn ? ks_xstrdup(tn) : NULL;
    }
    return 1;
}

static int read_rank(yajl_val root, ks_rank *r)
{
    const char *schema, *src, *sr, *gr, *cr;
    int64_t steps, kernels;
    if (!YAJL_IS_OBJECT(root) || !str_of(root, "schema", 0, &schema) || (strcmp(schema, SCHEMA) && strcmp(schema, SCHEMA_1)) ||
        !str_of(root, "source", 0, &src) || !int_of(root, "distributed_rank", 1, -1, &r->rank) ||
        !int_of(root, "world_size", 1, -1, &r->world_size) || !int_of(root, "steps", 0, 0, &steps) ||
        !int_of(root, "step_median_ns", 0, 0, &r->step_median) || !int_of(root, "step_p90_ns", 0, 0, &r->step_p90) ||
        !str_of(root, "steps_reason", 1, &sr) || !str_of(root, "gpu_reason", 1, &gr) ||
        !int_of(root, "gpu_span_ns", 0, 0, &r->gpu_span) || !int_of(root, "gpu_busy_ns", 0, 0, &r->gpu_busy) ||
        !int_of(root, "compute_ns", 0, 0, &r->compute) || !int_of(root, "communication_ns", 0, 0, &r->comm) ||
        !int_of(root, "exposed_communication_ns", 0, 0, &r->exposed) ||
        !int_of(root, "host_wait_ns", 0, 0, &r->host_wait) || !int_of(root, "kernels", 0, 0, &kernels) ||
        !str_of(root, "collectives_reason", 1, &cr) || steps < 0 || kernels < 0)
        return 0;
    r->source = ks_xstrdup(src);
    r->name_rank = ks_rank_from_name(src);
    r->steps = (size_t)steps;
    r->kernels = (uint64_t)kernels;
    if (!read_step_ns(root, r) || !read_later(root, r) || !read_memory(root, r))
        return 0;
    r->steps_reason = reason_of(sr);
    r->gpu_reason = reason_of(gr);
    r->colls_reason = reason_of(cr);
    yajl_val c = get(root, "collectives");
    if (!c || !YAJL_IS_ARRAY(c))
        return 0;
    r->colls = ks_xcalloc(c->u.array.len + 1, sizeof *r->colls);
    for (size_t i = 0; i < c->u.array.len; i++) {
        r->ncolls++;
        if (!read_coll(c->u.array.values[i], &r->colls[i]))
            return 0;
    }
    return 1;
}

/* The laws ks_rank_from_trace obeys, so that a tampered summary cannot pass for an honest one
 * (busy 5e20 % of the span, a collective moved onto another rank's clock): NULL, or the first
 * law broken. Per device busy <= span, compute and communication are unions inside busy and
 * exposed communication is communication outside compute, so compute + exposed <= busy; a
 * collective is one communication kernel; the step median and p90 are the quantiles of the
 * step times. */
static const char *broken_law(const ks_rank *r, char *buf, size_t n)
{
    if (r->rank < -1 || (r->world_size != -1 && r->world_size < 1) ||
        (r->rank >= 0 && r->world_size >= 1 && r->rank >= r->world_size))
        return "distributed_rank outside 0..world_size-1";
    if (r->gpu_span < 0 || r->gpu_busy < 0 || r->compute < 0 || r->comm < 0 || r->exposed < 0)
        return "a negative GPU time";
    if (r->gpu_busy > r->gpu_span)
        return "gpu_busy_ns larger than gpu_span_ns";
    if (r->compute > r->gpu_busy || r->comm > r->gpu_busy || r->exposed > r->comm ||
        ks_sat_add(r->compute, r->exposed) > r->gpu_busy)
        return "compute, communication and exposed communication do not fit in gpu_busy_ns";
    if (r->host_wait < -1)
        return "a negative host_wait_ns";
    if (r->gpu_reason && (r->gpu_span || r->kernels || r->ncolls))
        return "GPU figures given with a reason they were not observed";
    if ((uint64_t)r->ncolls > r->kernels)
        return "more collectives than kernels";
    if (r->steps == 0 && (r->step_median || r->step_p90 || !r->steps_reason))
        return "step times without steps";
    if (r->steps && r->steps_reason)
        return "steps with a reason they were not observed";
    if (r->step_median < 0 || r->step_p90 < r->step_median)
        return "step_median_ns and step_p90_ns out of order";
    if (r->step_ns) {
        ks_ns *w = ks_xcalloc(r->steps + 1, sizeof *w);
        memcpy(w, r->step_ns, r->steps * sizeof *w);
        ks_sort_ns(w, r->steps);
        int ok = ks_quantile_ns(w, r->steps, 50) == r->step_median && ks_quantile_ns(w, r->steps, 90) == r->step_p90;
        free(w);
        if (!ok)
            return "step_median_ns or step_p90_ns is not the quantile of step_ns";
    }
    for (size_t i = 0; i < r->nmem; i++) {
        const ks_rank_mem *m = &r->mem[i];
        if (m->peak_allocated < -1 || m->peak_reserved < -1 || m->capacity == 0 || m->capacity < -1)
            return "a negative memory peak or capacity";
        if (i && (m->device_type < m[-1].device_type ||
                  (m->device_type == m[-1].device_type && m->device_id <= m[-1].device_id)))
            return "memory devices out of order or repeated";
    }
    for (size_t i = 0; i < r->ncolls; i++) {
        const ks_rank_coll *c = &r->colls[i];
        const char *why = NULL;
        if (c->start > c->end || ks_sat_sub(c->end, c->start) > r->comm)
            why = "its kernel is longer than the communication time, or ends before it starts";
        else if (c->seq < -1 || c->bytes < -1 || c->group_size == 0 || c->group_size < -1)
            why = "a negative seq, bytes or group_size";
        else if (i && (c->start < r->colls[i - 1].start ||
                       (c->start == r->colls[i - 1].start && c->end < r->colls[i - 1].end)))
            why = "collectives out of start order";
        for (int t = 0; !why && t < KS_RANK_TOP && c->before[t]; t++)
            if (c->before_ns[t] < 0)
                why = "a negative time of a kernel before it";
        if (why) {
            snprintf(buf, n, "collective %zu: %s", i, why);
            return buf;
        }
    }
    return NULL;
}

/* the ks_rank of a summary's line 1, read by rd: its fields checked, then its laws */
static int read_line1(ks_sum_reader *rd, const char *name, ks_rank *out, ks_error *err)
{
    memset(out, 0, sizeof *out);
    yajl_val root;
    if (ks_sum_read_line(rd, 0, &root, err) != KS_OK)
        return KS_ERR;
    int ok = read_rank(root, out);
    yajl_tree_free(root);
    if (!ok) {
        ks_rank_free(out);
        return ks_error_set(err, "%s: not a %s summary (missing or mistyped field)", name, SCHEMA);
    }
    char buf[160];
    const char *why = broken_law(out, buf, sizeof buf);
    if (why) {
        ks_rank_free(out);
        return ks_error_set(err, "%s: not a %s summary kinesift wrote (tampered?): %s", name, SCHEMA, why);
    }
    return KS_OK;
}

int ks_rank_summary_stream(ks_stream *st, ks_rank *out, ks_error *err)
{
    ks_sum_reader *rd = ks_sum_reader_open(ks_stream_name(st), st, NULL, 0);
    int rc = read_line1(rd, ks_stream_name(st), out, err);
    ks_sum_reader_close(rd);
    return rc;
}

int ks_rank_summary_read(const char *name, const char *text, size_t len, ks_rank *out, ks_error *err)
{
    ks_sum_reader *rd = ks_sum_reader_open(name, NULL, text, len);
    int rc = read_line1(rd, name, out, err);
    ks_sum_reader_close(rd);
    return rc;
}

static int read_report(yajl_val root, ks_summary_report *out)
{
    const char *path[] = {"analyze", NULL};
    yajl_val a = yajl_tree_get(root, path, yajl_t_object);
    if (!a || !str_of(a, "step_label", 1, &out->step_label) || !str_of(a, "text", 0, &out->text) ||
        !str_of(a, "csv", 0, &out->csv))
        return 0;
    yajl_val j = get(a, "json");
    out->trace = j && YAJL_IS_OBJECT(j) ? j : NULL;
    return out->trace != NULL;
}

/* line 1 read and checked, then the analyze report of line 2 */
static int report_of(ks_sum_reader *rd, const char *name, ks_summary_report *out, ks_error *err)
{
    memset(out, 0, sizeof *out);
    ks_rank r;
    if (read_line1(rd, name, &r, err) != KS_OK)
        return KS_ERR;
    ks_rank_free(&r);
    int more = ks_sum_reader_more(rd, err);
    if (more < 0)
        return KS_ERR;
    if (!more)
        return ks_error_set(err, "%s: a %s summary carries no analyze report (summarize the trace again "
                                 "with this kinesift, or analyze the trace)", name, SCHEMA_1);
    if (ks_sum_read_line(rd, 1, &out->root, err) != KS_OK)
        return KS_ERR;
    if (!read_report(out->root, out)) {
        ks_summary_report_free(out);
        return ks_error_set(err, "%s: not a %s summary (its analyze report misses a field)", name, SCHEMA);
    }
    return KS_OK;
}

int ks_summary_report_read(const char *name, const char *text, size_t len, ks_summary_report *out, ks_error *err)
{
    ks_sum_reader *rd = ks_sum_reader_open(name, NULL, text, len);
    int rc = report_of(rd, name, out, err);
    ks_sum_reader_close(rd);
    return rc;
}

int ks_summary_report_stream(ks_stream *st, ks_summary_report *out, ks_error *err)
{
    ks_sum_reader *rd = ks_sum_reader_open(ks_stream_name(st), st, NULL, 0);
    int rc = report_of(rd, ks_stream_name(st), out, err);
    ks_sum_reader_close(rd);
    return rc;
}

void ks_summary_report_free(ks_summary_report *r)
{
    yajl_tree_free(r->root);
    memset(r, 0, sizeof *r);
}
