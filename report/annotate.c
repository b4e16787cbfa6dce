/* report/annotate.c: `kinesift annotate`: the original trace with kinesift's findings added as
 * tracks that Perfetto UI and chrome://tracing show beside the profiler's.
 *
 * What: the input's decompressed bytes are copied unchanged, except that the added events are
 * inserted just before the `]` that closes the traceEvents array (or the top-level array of a
 * bare-array trace). The added events live in a pid of their own (an integer no process of the
 * trace uses, named "kinesift" by process_name metadata) with one thread per view: the steps
 * (active, warm-up, unfinished), the step breakdown (its phases laid end to end inside the step:
 * their lengths are the breakdown's, their order is the priority order, not when they happened),
 * the GPU idle gaps of each device named by their cause, and one thread per diagnosis with a
 * slice over each step it names (over the window when it names none), its evidence in args; and
 * a counter track per device of the memory pass ("memory CUDA 0": allocated and reserved bytes).
 * The critical path is also drawn as flows (cat kinesift.critical_path) between the trace's own
 * events where it passes from one thread or stream to another, like HTA's overlaid trace: those
 * events carry the pid and tid of the track they bind to (their JSON type kept).
 * Why correct: every figure is taken from the analysis results; times are the store's integer ns
 * written back as microseconds with three decimals (exact); on each added thread the slices are
 * disjoint (steps never overlap, the phases tile their step, gaps are disjoint), so they nest.
 * When not: a truncated trace (no closing bracket) is refused, as are archives and stdin (the
 * input is read twice). Who: cli/cmd_annotate.c. The output goes through common/afile.h (a
 * temporary file renamed into place, never the input). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonw.h"
#include "common/afile.h"
#include "common/util.h"
#include "kinesift/critpath.h"
#include "kinesift/report.h"
#include "kinesift/source.h"
#include "report/report_int.h"
#include "report/report_util.h"

enum { TID_STEPS = 1, TID_PHASES = 2, TID_PATH = 3, TID_GAPS = 10, TID_DIAG = 100 };

/* a ks_ns as Chrome-trace microseconds, exact */
static void us(ks_jw *w, const char *key, ks_ns v)
{
    char b[40];
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int n = snprintf(b, sizeof b, "%s%llu.%03llu", v < 0 ? "-" : "", (unsigned long long)(m / 1000),
                     (unsigned long long)(m % 1000));
    ks_jw_key(w, key);
    ks_jw_number_text(w, b, (size_t)n);
}

typedef struct added {
    ks_jw w;
    int64_t pid;
    uint64_t n;
} added;

static void head(added *x, char ph, const char *name, int64_t tid)
{
    ks_jw_obj(&x->w);
    char p[2] = {ph, 0};
    ks_jw_kstr(&x->w, "ph", p);
    ks_jw_kstr(&x->w, "name", name);
    ks_jw_kint(&x->w, "pid", x->pid);
    ks_jw_kint(&x->w, "tid", tid);
    x->n++;
}

static void meta(added *x, const char *what, int64_t tid, const char *name, int64_t sort)
{
    head(x, 'M', what, tid);
    ks_jw_key(&x->w, "args");
    ks_jw_obj(&x->w);
    if (name)
        ks_jw_kstr(&x->w, "name", name);
    else
        ks_jw_kint(&x->w, "sort_index", sort);
    ks_jw_end_obj(&x->w);
    ks_jw_end_obj(&x->w);
}

static void thread(added *x, int64_t tid, const char *name)
{
    meta(x, "thread_name", tid, name, 0);
    meta(x, "thread_sort_index", tid, NULL, tid);
}

/* an X event; the caller writes the args members, then calls end_slice */
static void slice(added *x, const char *name, int64_t tid, ks_ns ts, ks_ns dur)
{
    head(x, 'X', name, tid);
    ks_jw_kstr(&x->w, "cat", "kinesift");
    us(&x->w, "ts", ts);
    us(&x->w, "dur", dur);
    ks_jw_key(&x->w, "args");
    ks_jw_obj(&x->w);
}

static void end_slice(added *x)
{
    ks_jw_end_obj(&x->w);
    ks_jw_end_obj(&x->w);
}

static const char *step_state(const ks_step *s)
{
    return s->unfinished ? "unfinished" : s->warmup ? "warm-up" : "active";
}

static void steps(added *x, const ks_analysis *a, const ks_steps *st)
{
    if (!st || !st->n)
        return;
    thread(x, TID_STEPS, "steps");
    thread(x, TID_PHASES, "step breakdown (phases end to end)");
    for (size_t i = 0; i < st->n; i++) {
        const ks_step *s = &st->v[i];
        char name[200];
        snprintf(name, sizeof name, "%s%s", ks_trace_str(a->trace, s->name),
                 s->warmup ? " (warm-up)" : s->unfinished ? " (unfinished)" : "");
        slice(x, name, TID_STEPS, s->start, s->wall_ns);
        ks_jw_kint(&x->w, "step", s->number);
        ks_jw_kstr(&x->w, "state", step_state(s));
        ks_jw_kint(&x->w, "wall_ns", s->wall_ns);
        if (a->links.gpu_events) {
            ks_jw_kint(&x->w, "gpu_busy_ns", s->busy_ns);
            ks_jw_kint(&x->w, "gpu_idle_ns", s->idle_ns);
        }
        end_slice(x);
        ks_ns at = s->start;
        for (int r = 0; r < KS_ROLE_COUNT; r++) {
            if (s->breakdown[r] <= 0)
                continue;
            slice(x, ks_role_name((ks_role)r), TID_PHASES, at, s->breakdown[r]);
            ks_jw_kint(&x->w, "step", s->number);
            ks_jw_kint(&x->w, "ns", s->breakdown[r]);
            ks_jw_kstr(&x->w, "note", "the step's time in this phase; phases are laid end to end in "
                                      "priority order, not where they happened");
            end_slice(x);
            at += s->breakdown[r];
        }
    }
}

static void gaps(added *x, const ks_analysis *a, const ks_gaps *g)
{
    for (size_t d = 0; g && d < g->n; d++) {
        const ks_gap_device *dev = &g->dev[d];
        char tname[64];
        snprintf(tname, sizeof tname, "GPU %d idle gaps >= %lld ns", dev->device, (long long)dev->threshold_ns);
        thread(x, TID_GAPS + (int64_t)d, tname);
        for (size_t i = 0; i < dev->count; i++) {
            const ks_gap *gp = &dev->all[i];
            const char *cause = gp->cause ? ks_trace_str(a->trace, gp->cause) : "nothing (CPU thread idle)";
            char name[240];
            snprintf(name, sizeof name, "GPU idle: %s", cause);
            slice(x, name, TID_GAPS + (int64_t)d, gp->start, ks_sat_sub(gp->end, gp->start));
            ks_jw_kint(&x->w, "device", dev->device);
            ks_jw_kint(&x->w, "duration_ns", ks_sat_sub(gp->end, gp->start));
            ks_jw_kstr(&x->w, "cause", cause);
            ks_jw_kstr(&x->w, "cause_kind", gp->cause ? ks_kind_name((ks_kind)gp->cause_kind) : "none");
            ks_jw_kbool(&x->w, "data_loading", gp->data);
            end_slice(x);
        }
    }
}

static void diagnosis_args(added *x, const ks_analysis *a, const ks_diagnosis *dx)
{
    ks_jw_kstr(&x->w, "confidence", dx->confidence);
    ks_jw_kstr(&x->w, "hypothesis", dx->hypothesis);
    ks_jw_kstr(&x->w, "evidence", dx->evidence);
    ks_jw_kstr(&x->w, "next_check", dx->next_check);
    ks_jw_kstr(&x->w, "refuted_if", dx->refuted_if);
    char *by_hand = dx->validate_cmd ? ks_report_measure_by_hand(ks_analysis_platform(a), dx->validate_cmd) : NULL;
    if (by_hand)
        ks_jw_kstr(&x->w, "measure_by_hand", by_hand);
    else if (dx->validate_cmd)
        ks_jw_kstr(&x->w, "validate", dx->validate_cmd);
    free(by_hand);
}

static void diagnoses(added *x, const ks_analysis *a, const ks_insights_view *iv)
{
    const ks_diagnoses *d = iv->diagnoses;
    for (size_t i = 0; d && i < d->n; i++) {
        const ks_diagnosis *dx = &d->v[i];
        char tname[96];
        snprintf(tname, sizeof tname, "diagnosis: %s", dx->id);
        int64_t tid = TID_DIAG + (int64_t)i;
        thread(x, tid, tname);
        size_t drawn = 0;
        for (size_t j = 0; j < dx->nsteps && iv->steps; j++)
            for (size_t k = 0; k < iv->steps->n; k++)
                if (iv->steps->v[k].number == dx->steps[j]) {
                    const ks_step *s = &iv->steps->v[k];
                    slice(x, dx->id, tid, s->start, s->wall_ns);
                    ks_jw_kint(&x->w, "step", s->number);
                    diagnosis_args(x, a, dx);
                    end_slice(x);
                    drawn++;
                    break;
                }
        if (!drawn && (a->has_events || a->has_window)) {
            slice(x, dx->id, tid, a->win_start, a->window_ns);
            diagnosis_args(x, a, dx);
            end_slice(x);
        }
    }
}

/* Counter tracks of the memory pass: per device "memory CUDA 0" with its allocated and reserved
 * bytes (the levels after each point of its timeline: downsampled, every peak kept). */
static void memory_counters(added *x, const ks_analysis *a)
{
    const ks_memory *m = a->memory;
    for (size_t i = 0; m && i < m->n; i++) {
        const ks_mem_device *d = &m->dev[i];
        char lab[64], name[80];
        ks_mem_device_label(lab, sizeof lab, d);
        snprintf(name, sizeof name, "memory %s", lab);
        for (size_t j = 0; j < d->ntimeline; j++) {
            const ks_mem_point *p = &d->timeline[j];
            head(x, 'C', name, 0);
            ks_jw_kstr(&x->w, "cat", "kinesift");
            us(&x->w, "ts", p->ts);
            ks_jw_key(&x->w, "args");
            ks_jw_obj(&x->w);
            ks_jw_kint(&x->w, d->basis == KS_MEM_BASIS_TOTAL ? "allocated" : "bytes since the first event",
                       p->allocated);
            if (p->reserved >= 0)
                ks_jw_kint(&x->w, "reserved", p->reserved);
            ks_jw_end_obj(&x->w);
            ks_jw_end_obj(&x->w);
        }
    }
}

/* an integer pid no process of the trace has */
static int64_t free_pid(const ks_trace *t)
{
    int64_t pid = 0x7fff0000;
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; i < t->nprocs; i++)
            if (t->procs[i].pid.type == KS_ID_INT && t->procs[i].pid.v == pid) {
                pid++;
                again = 1;
            }
    }
    return pid;
}

/* The critical path of each step as a track: one slice per run of pieces of one kind, track and
 * name, where it happened (docs/analysis.md, "Critical path") */
static void critical_path(added *x, const ks_analysis *a, const ks_critpath *cp)
{
    if (!cp || !cp->n)
        return;
    thread(x, TID_PATH, "critical path (what each step waited for)");
    for (size_t i = 0; i < cp->n; i++) {
        const ks_cp_step *s = &cp->v[i];
        for (size_t k = 0; k < s->n;) {
            ks_cp_piece pc = ks_critpath_piece(cp, s, k), q = pc;
            const ks_cp_piece *p = &pc;
            size_t e = k + 1;
            ks_ns end = p->b;
            while (e < s->n && (q = ks_critpath_piece(cp, s, e)).kind == p->kind && q.track == p->track &&
                   q.name == p->name && q.inferred == p->inferred) {
                end = q.b;
                e++;
            }
            char name[200], tid[64], pid[64];
            snprintf(name, sizeof name, "%s%s%.150s", ks_cp_kind_name(p->kind), p->name ? ": " : "",
                     p->name ? ks_trace_str(a->trace, p->name) : "");
            slice(x, name, TID_PATH, p->a, ks_sat_sub(end, p->a));
            ks_jw_kint(&x->w, "step", s->number);
            ks_jw_kstr(&x->w, "kind", ks_cp_kind_name(p->kind));
            ks_id_format(a->trace->strings, a->trace->tracks[p->track].tid, tid, sizeof tid);
            ks_jw_kstr(&x->w, "on_tid", tid);
            ks_id_format(a->trace->strings, ks_track_pid(a->trace, &a->trace->tracks[p->track]), pid, sizeof pid);
            ks_jw_kstr(&x->w, "on_pid", pid);
            ks_jw_kbool(&x->w, "inferred", p->inferred);
            end_slice(x);
            k = e;
        }
    }
}

/* a pid or tid as the trace wrote it (its JSON type kept, so the event lands on that track) */
static void id_value(ks_jw *w, const char *key, const ks_trace *t, ks_id id)
{
    ks_jw_key(w, key);
    const char *s;
    switch (id.type) {
    case KS_ID_INT: ks_jw_int(w, id.v); break;
    case KS_ID_UINT: ks_jw_uint(w, (uint64_t)id.v); break;
    case KS_ID_STR: ks_jw_str(w, ks_trace_str(t, (ks_str)id.v)); break;
    case KS_ID_NUM:
        s = ks_trace_str(t, (ks_str)id.v);
        ks_jw_number_text(w, s, strlen(s));
        break;
    default: ks_jw_null(w); break;
    }
}

/* the flows' ids: far above any correlation id, exact in a double (a JS viewer) */
#define PATH_FLOW_ID0 ((uint64_t)1 << 40)

/* one end of a flow of the path, on the trace's own track */
static void flow_end(added *x, char ph, const ks_trace *t, uint32_t track, ks_ns ts, uint64_t id, int64_t step,
                     const char *edge, int inferred)
{
    const ks_track *tr = &t->tracks[track];
    ks_jw_obj(&x->w);
    char p[2] = {ph, 0};
    ks_jw_kstr(&x->w, "ph", p);
    ks_jw_kstr(&x->w, "name", "critical path");
    ks_jw_kstr(&x->w, "cat", "kinesift.critical_path");
    ks_jw_kuint(&x->w, "id", id);
    id_value(&x->w, "pid", t, ks_track_pid(t, tr));
    id_value(&x->w, "tid", t, tr->tid);
    us(&x->w, "ts", ts);
    if (ph == 'f')
        ks_jw_kstr(&x->w, "bp", "e");
    ks_jw_key(&x->w, "args");
    ks_jw_obj(&x->w);
    ks_jw_kint(&x->w, "step", step);
    ks_jw_kstr(&x->w, "edge", edge);
    ks_jw_kbool(&x->w, "inferred", inferred);
    ks_jw_end_obj(&x->w);
    ks_jw_end_obj(&x->w);
    x->n++;
}

/* The critical path as flows, the way HTA's overlaid trace shows it: an arrow from the end of each
 * run of work on the path (CPU or GPU) to the start of the next one when it is on another thread
 * or stream, on the trace's own tracks; args: the step, the kind of what lies between (the edge:
 * launch_latency, sync, stream_gap, thread_wait; "program" when nothing does), inferred */
static void critical_path_flows(added *x, const ks_analysis *a, const ks_critpath *cp)
{
    const ks_trace *t = a->trace;
    uint64_t id = PATH_FLOW_ID0;
    for (size_t i = 0; cp && i < cp->n; i++) {
        const ks_cp_step *s = &cp->v[i];
        ks_cp_piece lastp, pc;
        const ks_cp_piece *last = NULL;
        int between = -1, inferred = 0;
        for (size_t k = 0; k < s->n; k++) {
            pc = ks_critpath_piece(cp, s, k);
            const ks_cp_piece *p = &pc;
            if (p->kind != KS_CP_CPU && p->kind != KS_CP_GPU) {
                if (last) {
                    between = p->kind;
                    inferred |= p->inferred;
                }
                continue;
            }
            if (last && p->track != last->track && p->track < t->ntracks && last->track < t->ntracks &&
                t->tracks[p->track].tid.type != KS_ID_NONE && t->tracks[last->track].tid.type != KS_ID_NONE) {
                const char *edge = between >= 0 ? ks_cp_kind_name(between) : "program";
                int inf = inferred || p->inferred;
                flow_end(x, 's', t, last->track, ks_sat_sub(last->b, 1), id, s->number, edge, inf);
                flow_end(x, 'f', t, p->track, p->a, id, s->number, edge, inf);
                id++;
            }
            lastp = pc;
            last = &lastp;
            between = -1;
            inferred = 0;
        }
    }
}

/* The added events as "ev,ev,..." (no brackets) in a malloc'ed buffer. */
static char *added_events(const ks_analysis *a, const ks_insights_view *iv, size_t *len, uint64_t *count)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    added x = {{0}, free_pid(a->trace), 0};
    ks_jw_open(&x.w, f, 0);
    ks_jw_arr(&x.w);
    meta(&x, "process_name", 0, "kinesift", 0);
    steps(&x, a, iv->steps);
    critical_path(&x, a, iv->critpath);
    critical_path_flows(&x, a, iv->critpath);
    gaps(&x, a, iv->gaps);
    diagnoses(&x, a, iv);
    memory_counters(&x, a);
    ks_jw_end_arr(&x.w);
    int bad = ks_jw_close(&x.w);
    if (fclose(f) != 0 || bad || n < 2) {
        free(buf);
        return NULL;
    }
    memmove(buf, buf + 1, n - 2); /* drop [ and ] */
    *len = n - 2;
    *count = x.n;
    return buf;
}

/* Finds the closing bracket of the events array in a byte stream, outside strings. */
typedef struct scan {
    int depth, target;         /* target: depth inside the events array, 0 until known */
    int in_str, esc, key_depth;
    char last;                 /* last significant byte outside strings */
    char str[16];              /* start of the last string at depth 1 */
    size_t nstr;
    int events_key;            /* the last string at depth 1 was "traceEvents" */
} scan;

/* Bytes of p[0..n) before the closing bracket (n when not in this chunk); sets *comma to 1 when
 * the insertion needs a leading comma. */
static size_t scan_chunk(scan *s, const char *p, size_t n, int *found, int *comma)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (s->in_str) {
            if (s->esc)
                s->esc = 0;
            else if (c == '\\')
                s->esc = 1;
            else if (c == '"') {
                s->in_str = 0;
                if (s->depth == 1)
                    s->events_key = s->nstr == 11 && !memcmp(s->str, "traceEvents", 11);
            } else if (s->depth == 1 && s->nstr < sizeof s->str)
                s->str[s->nstr++] = c;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        if (c == '"') {
            s->in_str = 1;
            s->nstr = 0;
        } else if (c == '[' || c == '{') {
            s->depth++;
            if (!s->target && c == '[' &&
                (s->depth == 1 || (s->depth == 2 && s->last == ':' && s->events_key)))
                s->target = s->depth;
        } else if (c == ']' || c == '}') {
            if (c == ']' && s->target && s->depth == s->target) {
                *found = 1;
                *comma = s->last != '[' && s->last != ',';
                return i;
            }
            s->depth--;
        }
        s->last = c;
    }
    return n;
}

static int copy_with_events(ks_stream *in, ks_afile *sink, const char *ev, size_t nev, ks_error *err)
{
    char *buf = ks_xmalloc(1 << 16);
    scan s;
    memset(&s, 0, sizeof s);
    int found = 0, rc = KS_OK;
    for (;;) {
        ssize_t r = ks_stream_read(in, buf, 1 << 16, err);
        if (r < 0) {
            rc = KS_ERR;
            break;
        }
        if (r == 0)
            break;
        size_t at = (size_t)r;
        int comma = 0;
        if (!found)
            at = scan_chunk(&s, buf, (size_t)r, &found, &comma);
        if (ks_afile_write(sink, buf, at) != 0 ||
            (found && at < (size_t)r &&
             ((comma && ks_afile_write(sink, ",", 1) != 0) || (nev && ks_afile_write(sink, ev, nev) != 0) ||
              ks_afile_write(sink, buf + at, (size_t)r - at) != 0))) {
            rc = ks_error_set(err, "cannot write the output");
            break;
        }
    }
    free(buf);
    if (rc == KS_OK && !found)
        rc = ks_error_set(err, "cannot find the end of the traceEvents array (a truncated trace cannot be "
                               "annotated)");
    return rc;
}

static ks_compress compress_of_name(const char *path)
{
    static const ks_compress all[] = {KS_COMPRESS_GZIP, KS_COMPRESS_ZSTD, KS_COMPRESS_XZ, KS_COMPRESS_BZIP2};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        const char *suf = ks_redact_compress_suffix(all[i]);
        size_t m = strlen(suf);
        if (n >= m && !strcmp(path + n - m, suf))
            return all[i];
    }
    return KS_COMPRESS_NONE;
}

int ks_annotate_file(const char *input, const char *output, int force, const ks_analysis *a,
                     const ks_insights_view *iv, uint64_t *nadded, ks_error *err)
{
    if (ks_afile_check_target(output, force, input, NULL, 0, err) != KS_OK)
        return KS_ERR;
    size_t nev = 0;
    char *ev = added_events(a, iv, &nev, nadded);
    if (!ev)
        return ks_error_set(err, "cannot build the added events");
    ks_source *src = NULL;
    ks_stream *st = NULL;
    ks_afile *sink = NULL;
    int rc = ks_source_open(input, &src, err);
    if (rc == KS_OK && ks_source_is_archive(src))
        rc = ks_error_set(err, "an archive holds several traces: annotate one trace file");
    if (rc == KS_OK && ks_source_next(src, &st, err) != 1)
        rc = ks_error_set(err, "no trace to read");
    if (rc == KS_OK)
        rc = ks_afile_open(output, compress_of_name(output), &sink, err);
    if (rc == KS_OK) {
        rc = copy_with_events(st, sink, ev, nev, err);
        ks_error e2;
        if (ks_afile_close(sink, rc == KS_OK ? err : &e2) != KS_OK)
            rc = KS_ERR;
        if (rc == KS_OK)
            rc = ks_afile_commit(sink, force, err);
        else
            ks_afile_abort(sink);
    }
    if (src)
        ks_source_close(src);
    free(ev);
    return rc;
}
