/* insights/steps.c: training/inference steps.
 *
 * Steps are the ProfilerStep#N user annotations of the thread that called profiler.step() (or
 * the user annotations matching --step-label). As in the TensorBoard plugin, a step ends when the
 * GPU work it launched ends: the work launched by runtime calls lying inside the host step widens
 * it, and a step starts no earlier than the previous one ended. Per step: wall, GPU busy (union
 * of all GPU work in it) and idle, and the priority breakdown (breakdown.c). Warm-up: leading
 * steps that are outliers (above median + max(3 x 1.4826 MAD, 25 % of the median)) are reported
 * apart, or the first --warmup N. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insights/breakdown.h"
#include "algo/intervals.h"
#include "analysis/gpuwork_index.h"
#include "common/regex.h"
#include "common/util.h"
#include "kinesift/insights.h"

void ks_step_opts_init(ks_step_opts *o)
{
    memset(o, 0, sizeof *o);
    o->warmup = -1;
}

typedef struct cand {
    uint32_t tl;
    int32_t s;
    int64_t number;
} cand;

/* Candidate step slices per track; returns the track with the most. */
static int collect(const ks_analysis *a, ks_regex *re, cand **out, size_t *nout, uint32_t *best_track)
{
    const ks_trace *t = a->trace;
    size_t *per = ks_xcalloc(a->ntl ? a->ntl : 1, sizeof *per);
    cand *v = NULL;
    size_t n = 0, cap = 0;
    const ks_timeline *tl;
    for (size_t k = 0; (tl = ks_timeline_next(a, KS_TRACK_CPU, &k)); k++) {
        const ks_track *tr = &t->tracks[tl->track];
        ks_str last = 0;
        int last_ok = 0;
        int64_t last_num = 0;
        for (size_t i = 0; i < tl->n; i++) {
            const ks_event *e = &tr->ev[tl->s[i].ev];
            /* 2020-21 files wrote ProfilerStep#N as an "Operator" (cpu_op) */
            if ((e->kind != KS_K_USER_ANNOTATION && (re || e->kind != KS_K_CPU_OP)) || (tl->s[i].flags & KS_SF_SPILLED))
                continue;
            if (e->name != last) {
                const char *nm = ks_trace_str(t, e->name);
                last = e->name;
                last_num = -1;
                last_ok = re ? ks_regex_match(re, nm, strlen(nm), &last_num)
                             : ks_match_profiler_step(nm, &last_num);
            }
            if (!last_ok)
                continue;
            cand c = {(uint32_t)k, (int32_t)i, last_num};
            KS_PUSH(v, n, cap, c);
            per[k]++;
        }
    }
    size_t best = 0;
    int found = 0;
    for (size_t k = 0; k < a->ntl; k++)
        if (per[k] > best) {
            best = per[k];
            *best_track = (uint32_t)k;
            found = 1;
        }
    free(per);
    *out = v;
    *nout = n;
    return found;
}

static void widen(const ks_analysis *a, ks_steps *st)
{
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    ks_ns *gpu_end = ks_xmalloc(ks_mul(st->n, sizeof *gpu_end));
    for (size_t i = 0; i < st->n; i++)
        gpu_end[i] = INT64_MIN;
    /* GPU work whose launch call lies inside a host step belongs to it */
    for (size_t j = 0; j < gw->n; j++) {
        const ks_gpuwork_item *g = &gw->v[j];
        ks_slice_ref r = ks_gpuwork_launcher(a, g);
        if (r.s < 0)
            continue;
        const ks_slice *ls = &a->tl[r.tl].s[r.s];
        ks_ns ls_ts = ks_slice_ts(&a->tl[r.tl], ls), ls_end = ks_slice_end(&a->tl[r.tl], ls);
        /* last step with host_start <= launch start */
        size_t lo = 0, hi = st->n;
        KS_LOWER_BOUND(lo, hi, mid, st->v[mid].host_start <= ls_ts);
        if (!lo)
            continue;
        ks_step *s = &st->v[lo - 1];
        if (ls_end > s->host_end)
            continue;
        s->gpu_events++;
        const ks_event *e = ks_gpuwork_event(a->trace, g);
        if (e->ts + ks_event_dur(e) > gpu_end[lo - 1])
            gpu_end[lo - 1] = e->ts + ks_event_dur(e);
    }
    ks_ns prev_end = INT64_MIN;
    for (size_t i = 0; i < st->n; i++) {
        ks_step *s = &st->v[i];
        s->start = s->host_start > prev_end ? s->host_start : prev_end;
        ks_ns e = s->host_end > s->start ? s->host_end : s->start;
        if (gpu_end[i] > e)
            e = gpu_end[i];
        s->end = e;
        s->wall_ns = ks_sat_sub(s->end, s->start); /* epoch-scale extremes saturate */
        prev_end = s->end;
    }
    free(gpu_end);
}

static void busy_idle(const ks_analysis *a, ks_steps *st)
{
    const ks_gpuwork *gw = ks_gpuwork_of(a);
    ks_ivs work = {0};
    ks_ivs_reserve(&work, gw->n);
    for (size_t j = 0; j < gw->n; j++) {
        const ks_event *e = ks_gpuwork_event(a->trace, &gw->v[j]);
        ks_ivs_add_merge(&work, e->ts, e->ts + ks_event_dur(e));
    }
    ks_ivs_normalize(&work);
    for (size_t i = 0; i < st->n; i++) {
        ks_step *s = &st->v[i];
        s->busy_ns = ks_ivs_covered(&work, s->start, s->end);
        s->idle_ns = s->wall_ns - s->busy_ns;
    }
    ks_ivs_free(&work);
}

static int cmp_ns_q(const void *x, const void *y)
{
    ks_ns a = *(const ks_ns *)x, b = *(const ks_ns *)y;
    return (a > b) - (a < b);
}

static ks_ns median_of(ks_ns *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_ns_q);
    return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

static void warmup(ks_steps *st, int forced)
{
    size_t n = st->n;
    if (forced >= 0) {
        st->warmup_forced = 1;
        for (size_t i = 0; i < n && i < (size_t)forced; i++)
            st->v[i].warmup = 1;
    } else if (n >= 3) {
        ks_ns *w = ks_xmalloc(n * sizeof *w);
        for (size_t i = 0; i < n; i++)
            w[i] = st->v[i].wall_ns;
        ks_ns med = median_of(w, n);
        for (size_t i = 0; i < n; i++)
            w[i] = st->v[i].wall_ns > med ? st->v[i].wall_ns - med : med - st->v[i].wall_ns;
        ks_ns mad = median_of(w, n);
        free(w);
        double margin = 3.0 * 1.4826 * (double)mad;
        if (margin < 0.25 * (double)med)
            margin = 0.25 * (double)med;
        /* leading outliers only, and never all but one step */
        for (size_t i = 0; i + 2 < n && (double)st->v[i].wall_ns > (double)med + margin; i++)
            st->v[i].warmup = 1;
    }
    st->nwarmup = 0;
    for (size_t i = 0; i < n; i++)
        st->nwarmup += (size_t)st->v[i].warmup;
}

static void active_stats(ks_steps *st)
{
    ks_ns *w = ks_xmalloc(ks_mul(st->n ? st->n : 1, sizeof *w));
    size_t m = 0;
    __int128 sum = 0; /* exact: n walls of up to INT64_MAX each cannot overflow 128 bits */
    for (size_t i = 0; i < st->n; i++)
        if (ks_step_active(&st->v[i])) {
            w[m++] = st->v[i].wall_ns;
            sum += st->v[i].wall_ns;
        }
    st->nactive = m;
    if (m) {
        st->active_median = median_of(w, m);
        st->active_min = w[0];
        st->active_max = w[m - 1];
        st->active_mean = (ks_ns)(sum / (__int128)m); /* a mean lies between min and max */
    }
    free(w);
}

int ks_steps_find(const ks_analysis *a, const ks_step_opts *o, ks_steps *st, ks_error *err)
{
    ks_step_opts defaults;
    if (!o) {
        ks_step_opts_init(&defaults);
        o = &defaults;
    }
    memset(st, 0, sizeof *st);
    ks_regex *re = NULL;
    if (o->label_regex) {
        re = ks_regex_new(o->label_regex, KS_REGEX_UTF, err);
        if (!re)
            return KS_ERR;
    }
    cand *c;
    size_t nc;
    uint32_t track = 0;
    int found = collect(a, re, &c, &nc, &track);
    ks_regex_free(re);
    if (!found) {
        snprintf(st->source, sizeof st->source, "none: no %s; the window has no step",
                 o->label_regex ? "user annotation matches --step-label" : "ProfilerStep#N annotation");
        free(c);
        return KS_OK;
    }
    if (o->label_regex)
        snprintf(st->source, sizeof st->source, "label /%s/", o->label_regex);
    else
        snprintf(st->source, sizeof st->source, "ProfilerStep#N");
    const ks_timeline *tl = &a->tl[track];
    const ks_track *tr = &a->trace->tracks[tl->track];
    st->track = track;
    st->v = ks_xcalloc(nc, sizeof *st->v);
    int32_t open_end_slice = -1;
    for (size_t i = 0; i < nc; i++) {
        if (c[i].tl != track)
            continue;
        const ks_slice *s = &tl->s[c[i].s];
        /* a step nested in another step (same label) is not a step of its own */
        if (open_end_slice >= 0 && ks_slice_ts(tl, s) < ks_slice_end(tl, &tl->s[open_end_slice]))
            continue;
        open_end_slice = c[i].s;
        ks_step *p = &st->v[st->n];
        p->number = c[i].number >= 0 ? c[i].number : (int64_t)st->n;
        p->name = tr->ev[s->ev].name;
        p->host_start = tr->ev[s->ev].ts; /* the slice's start is its event's */
        p->host_end = ks_slice_end(tl, s);
        p->unfinished = (s->flags & (KS_SF_UNFINISHED | KS_SF_UNCLOSED)) != 0;
        st->n++;
    }
    free(c);
    widen(a, st);
    busy_idle(a, st);
    ks_breakdown_steps(a, st);
    warmup(st, o->warmup);
    active_stats(st);
    return KS_OK;
}

void ks_steps_free(ks_steps *s)
{
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

void ks_steps_restrict(ks_steps *s, ks_ns w0, ks_ns w1)
{
    size_t o = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i].start >= w0 && s->v[i].start < w1)
            s->v[o++] = s->v[i];
        else if (s->v[i].warmup)
            s->outside_warmup++;
        else if (s->v[i].unfinished)
            s->outside_unfinished++;
        else
            s->outside_active++;
    }
    s->n = o;
    s->nwarmup = 0;
    for (size_t i = 0; i < o; i++)
        s->nwarmup += (size_t)s->v[i].warmup;
    active_stats(s);
}
