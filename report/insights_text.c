/* report/insights_text.c: the text sections for steps, GPU idle gaps, diagnoses and telemetry. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/critpath.h"
#include "kinesift/report.h"
#include "report/report_util.h"

static const char *fmt(char *b, size_t n, ks_ns v)
{
    ks_fmt_ns(b, n, v);
    return b;
}

/* the steps the table shows when it has more than top rows (top 0: all): the first
 * max(1, top/5) and the last max(1, top/5) (none with top 1), and the slowest of the others
 * (longest wall time, earlier step first on a tie) for the rest: shown[i] set for each */
static void steps_shown(const ks_steps *st, size_t top, unsigned char *shown)
{
    size_t n = st->n;
    if (!top || n <= top) {
        memset(shown, 1, n);
        return;
    }
    memset(shown, 0, n);
    size_t edge = top / 5 ? top / 5 : 1, first = edge, last = top >= 2 ? edge : 0;
    for (size_t i = 0; i < first; i++)
        shown[i] = 1;
    for (size_t i = 0; i < last; i++)
        shown[n - 1 - i] = 1;
    for (size_t k = first + last; k < top; k++) {
        size_t best = n;
        for (size_t i = 0; i < n; i++)
            if (!shown[i] && (best == n || st->v[i].wall_ns > st->v[best].wall_ns))
                best = i;
        if (best == n)
            break;
        shown[best] = 1;
    }
}

/* "step wall times: N steps in B equal bins from MIN to MAX: c1 c2 ..." over every step: bin of a
 * step = (wall - min) * B / (max - min + 1), so the bins have equal width and cover [min, max] */
enum { STEP_BINS = 10 };

static void steps_histogram(FILE *out, const ks_steps *st)
{
    char b1[32], b2[32];
    if (st->n < 2)
        return;
    ks_ns lo = st->v[0].wall_ns, hi = lo;
    for (size_t i = 1; i < st->n; i++) {
        lo = st->v[i].wall_ns < lo ? st->v[i].wall_ns : lo;
        hi = st->v[i].wall_ns > hi ? st->v[i].wall_ns : hi;
    }
    uint64_t count[STEP_BINS] = {0};
    uint64_t range = (uint64_t)hi - (uint64_t)lo + 1;
    for (size_t i = 0; i < st->n; i++) {
        uint64_t off = (uint64_t)st->v[i].wall_ns - (uint64_t)lo;
        /* off * BINS / range without overflow: off < range <= 2^63 */
        uint64_t bin = range <= UINT64_MAX / STEP_BINS ? off * STEP_BINS / range : off / (range / STEP_BINS + 1);
        count[bin < STEP_BINS ? bin : STEP_BINS - 1]++;
    }
    fprintf(out, "  step wall times: %zu steps in %d equal bins from %s to %s:", st->n, STEP_BINS,
            fmt(b1, sizeof b1, lo), fmt(b2, sizeof b2, hi));
    for (int i = 0; i < STEP_BINS; i++)
        fprintf(out, " %llu", (unsigned long long)count[i]);
    fputc('\n', out);
}

static void step_row(FILE *out, const ks_analysis *a, const ks_step *s)
{
    char b1[32], busy[16], idle[16];
    if (a->links.gpu_events > 0) {
        ks_text_share(busy, sizeof busy, s->busy_ns, s->wall_ns, 0, 1);
        ks_text_share(idle, sizeof idle, s->idle_ns, s->wall_ns, 0, 1);
    } else {
        snprintf(busy, sizeof busy, "n/a");
        snprintf(idle, sizeof idle, "n/a");
    }
    fprintf(out, "  %lld\t%s\t%s\t%s", (long long)s->number, fmt(b1, sizeof b1, s->wall_ns), busy, idle);
    for (int r = 0; r < KS_ROLE_COUNT; r++) {
        char cell[16];
        if (ks_report_role_observed(a, r)) /* as in the JSON */
            fprintf(out, "\t%s", ks_text_share(cell, sizeof cell, s->breakdown[r], s->wall_ns, 1, 0));
        else
            fprintf(out, "\tn/a");
    }
    fprintf(out, "\t%s%s%s\n", s->warmup ? "warm-up" : "", s->warmup && s->unfinished ? ", " : "",
            s->unfinished ? "unfinished" : "");
}

static void steps_text(FILE *out, const ks_analysis *a, const ks_steps *st, size_t top)
{
    char b1[32], b2[32], b3[32], b4[32];
    if (!st)
        return;
    /* the steps the window left out, as the window line counts them */
    size_t out_n = st->outside_warmup + st->outside_unfinished + st->outside_active;
    if (!st->n && !out_n) {
        fprintf(out, "\n  Steps: %s\n", st->source);
        return;
    }
    if (st->n)
        fprintf(out, "\n  Steps (%s): %zu, %zu warm-up", st->source, st->n, st->nwarmup);
    else /* steps in the trace, none in the window: said, as JSON's steps_summary.outside_window */
        fprintf(out, "\n  Steps (%s): none in the window", st->source);
    if (out_n) {
        fprintf(out, " (and %zu outside the window:", out_n);
        const char *sep = " ";
        if (st->outside_warmup)
            fprintf(out, "%s%zu warm-up", sep, st->outside_warmup), sep = ", ";
        if (st->outside_unfinished)
            fprintf(out, "%s%zu unfinished", sep, st->outside_unfinished), sep = ", ";
        if (st->outside_active)
            fprintf(out, "%s%zu active", sep, st->outside_active);
        fprintf(out, ")");
    }
    if (!st->n) {
        fputc('\n', out);
        return;
    }
    if (st->nactive)
        fprintf(out, "; active window: median %s, mean %s, min %s, max %s over %zu steps\n",
                fmt(b1, sizeof b1, st->active_median), fmt(b2, sizeof b2, st->active_mean),
                fmt(b3, sizeof b3, st->active_min), fmt(b4, sizeof b4, st->active_max), st->nactive);
    else
        fprintf(out, "; no active step\n");
    steps_histogram(out, st);
    unsigned char *shown = ks_xmalloc(st->n);
    steps_shown(st, top, shown);
    size_t nshown = 0;
    for (size_t i = 0; i < st->n; i++)
        nshown += shown[i];
    if (nshown < st->n)
        fprintf(out, "  %zu of %zu steps shown (--top %zu: the first, the slowest and the last; --top 0 for "
                     "all)\n", nshown, st->n, top);
    fprintf(out, "  (busy, idle and the breakdown: %% of the step's wall)\n");
    static const char *const roles[KS_ROLE_COUNT] = {"kernel", "memcpy", "memset", "comm", "runtime", "data", "cpu",
                                                     "other"};
    fprintf(out, "  step\twall\tbusy\tidle");
    for (int r = 0; r < KS_ROLE_COUNT; r++)
        fprintf(out, "\t%s", roles[r]);
    fprintf(out, "\t\n");
    for (size_t i = 0; i < st->n;) {
        if (shown[i]) {
            step_row(out, a, &st->v[i++]);
            continue;
        }
        size_t j = i;
        while (j < st->n && !shown[j])
            j++;
        fprintf(out, "  ...\t%zu step%s not shown\n", j - i, j - i == 1 ? "" : "s");
        i = j;
    }
    free(shown);
}

/* The critical path over the steps (or the window without steps): its kinds as shares of the
 * steps' wall time, the part on inferred edges, and the names with most time on it */
static void critpath_text(FILE *out, const ks_analysis *a, const ks_critpath *cp)
{
    if (!cp || !cp->n)
        return;
    ks_ns by[KS_CP_NKINDS] = {0}, wall = 0, inferred = 0, coll = 0;
    ks_cp_item top[KS_CP_TOP * 4];
    size_t ntop = 0;
    for (size_t i = 0; i < cp->n; i++) {
        const ks_cp_step *s = &cp->v[i];
        wall = ks_sat_add(wall, ks_sat_sub(s->end, s->start));
        inferred = ks_sat_add(inferred, s->inferred_ns);
        coll = ks_sat_add(coll, s->collective_ns);
        for (int k = 0; k < KS_CP_NKINDS; k++)
            by[k] = ks_sat_add(by[k], s->by_kind[k]);
        for (size_t j = 0; j < s->ntop; j++) {
            size_t q = 0;
            while (q < ntop && (top[q].kind != s->top[j].kind || top[q].name != s->top[j].name))
                q++;
            if (q == ntop && ntop < sizeof top / sizeof *top)
                top[ntop++] = s->top[j];
            else if (q < ntop)
                top[q].ns = ks_sat_add(top[q].ns, s->top[j].ns);
        }
    }
    char b1[32], s1[16];
    fprintf(out, "\n  Critical path (%s %s: what ended each; docs/analysis.md, \"Critical path\"):",
            cp->v[0].number < 0 ? "the window," : "steps,", fmt(b1, sizeof b1, wall));
    for (int k = 0; k < KS_CP_NKINDS; k++)
        if (by[k])
            fprintf(out, " %s %s", ks_cp_kind_name(k), ks_text_pct(s1, sizeof s1, by[k], wall));
    fprintf(out, "; on inferred edges %s\n", ks_text_pct(s1, sizeof s1, inferred, wall));
    if (coll) /* a share of the path's whole time, as gpu's: said, lest it read as a share of gpu */
        fprintf(out, "    part of gpu: collectives %s of the %s above: their time includes waiting for the other "
                     "ranks, so it may be theirs (compare the ranks: kinesift ranks)\n",
                ks_text_pct(s1, sizeof s1, coll, wall), fmt(b1, sizeof b1, wall));
    /* the names with most time (of those in some step's top list) */
    for (size_t i = 1; i < ntop; i++)
        for (size_t j = i; j > 0 && top[j].ns > top[j - 1].ns; j--) {
            ks_cp_item x = top[j];
            top[j] = top[j - 1];
            top[j - 1] = x;
        }
    for (size_t i = 0; i < ntop && i < 5; i++)
        fprintf(out, "    %6s  %-3s %.100s%s\n", ks_text_pct(s1, sizeof s1, top[i].ns, wall), ks_cp_kind_name(top[i].kind),
                top[i].name ? ks_trace_str(a->trace, top[i].name) : "(CPU time under no slice)",
                top[i].collective ? " (collective: may be waiting for peers)" : "");
}

/* a cause as ks_gap_cause_text words it, its name and kind kept on one line */
static void cause_text(char *buf, size_t n, const ks_trace *t, const ks_gap_cause *c)
{
    ks_gap_cause_text(buf, n, t, c, 70, KS_TEXT_KEEP " ");
}

/* every CPU thread of the launching process during the gaps: its states and top activities */
static void threads_in_gaps(FILE *out, const ks_trace *t, const ks_gap_device *d)
{
    char b1[32], b2[32], b3[32], b4[32], id[64], s1[16];
    if (!d->nthreads)
        return;
    fprintf(out, "    launching thread waiting on another thread: %s (%s of the gaps): idle or in a blocking "
                 "call while another thread of its process ran an op or a label, or in a label's own time "
                 "while another thread ran an op\n",
            fmt(b1, sizeof b1, d->waiting_ns), ks_text_pct(s1, sizeof s1, d->waiting_ns, d->total_ns));
    fprintf(out, "    every CPU thread of the process during the gaps (working / blocking call / label's own time / idle; "
                 "%% of the gaps' time):\n");
    for (size_t i = 0; i < d->nthreads; i++) {
        const ks_gap_thread *th = &d->threads[i];
        const ks_track *tr = &t->tracks[th->track];
        ks_id_format(t->strings, tr->tid, id, sizeof id);
        const char *nm = tr->name ? ks_trace_str(t, tr->name) : "";
        fprintf(out, "      tid %s%s%s%s: %s / %s / %s / %s; launching thread of %llu gaps\n", id, *nm ? " (" : "", nm,
                *nm ? ")" : "", fmt(b1, sizeof b1, th->state_ns[KS_TS_WORK]),
                fmt(b2, sizeof b2, th->state_ns[KS_TS_BLOCKING]), fmt(b3, sizeof b3, th->state_ns[KS_TS_LABEL]),
                fmt(b4, sizeof b4, th->state_ns[KS_TS_IDLE]), (unsigned long long)th->launching);
        for (size_t j = 0; j < th->nby_cpu && j < 3; j++) {
            char what[200];
            cause_text(what, sizeof what, t, &th->by_cpu[j]);
            fprintf(out, "        %s\t%s\t%s\n", fmt(b1, sizeof b1, th->by_cpu[j].total_ns),
                    ks_text_pct(s1, sizeof s1, th->by_cpu[j].total_ns, d->total_ns), what);
        }
    }
}

static void gaps_text(FILE *out, const ks_analysis *a, const ks_gaps *g)
{
    const ks_trace *t = a->trace;
    char b1[32], b2[32], b3[32], b4[32], s1[16];
    if (!g)
        return;
    if (!g->dev) {
        fprintf(out, "\n  GPU idle gaps: %s\n", g->reason ? g->reason : "not computed");
        return;
    }
    for (size_t i = 0; i < g->n; i++) {
        const ks_gap_device *d = &g->dev[i];
        fprintf(out, "\n  GPU %d idle gaps >= %s: %llu, %s (of %s idle in all)\n", d->device,
                fmt(b1, sizeof b1, d->threshold_ns), (unsigned long long)d->count, fmt(b2, sizeof b2, d->total_ns),
                fmt(b3, sizeof b3, d->idle_ns));
        fprintf(out, "    HTA classes: host wait %s, kernel wait %s, other %s\n",
                fmt(b1, sizeof b1, d->hta_host_wait_ns), fmt(b2, sizeof b2, d->hta_kernel_wait_ns),
                fmt(b4, sizeof b4, d->hta_other_ns));
        if (!d->count)
            continue;
        fprintf(out, "    GPU idle while the launching CPU thread was in (%% of the gaps' time):\n");
        for (size_t j = 0; j < d->nby_cpu && j < 10; j++) {
            const ks_gap_cause *c = &d->by_cpu[j];
            char what[200];
            cause_text(what, sizeof what, t, c);
            fprintf(out, "    %s\t%s\t%llu\t%s\n", fmt(b1, sizeof b1, c->total_ns),
                    ks_text_pct(s1, sizeof s1, c->total_ns, d->total_ns),
                    (unsigned long long)c->count, what);
        }
        threads_in_gaps(out, t, d);
        fprintf(out, "    ... by innermost label (%% of the gaps' time):");
        for (size_t j = 0; j < d->nby_label && j < 5; j++) {
            const ks_gap_cause *c = &d->by_label[j];
            fprintf(out, "%s %s %s", j ? "," : "", c->name ? ks_trace_str(t, c->name) : "(no label)",
                    ks_text_pct(s1, sizeof s1, c->total_ns, d->total_ns));
        }
        fputc('\n', out);
    }
}

static void diagnoses_text(FILE *out, const ks_analysis *a, const ks_diagnoses *d)
{
    char b1[32], b2[32], s1[16];
    if (!d)
        return;
    const char *platform = d->n ? ks_analysis_platform(a) : NULL;
    const char *den = d->denominator ? d->denominator : "window";
    fprintf(out, "\n  Diagnoses (hypotheses to check, not conclusions): %zu, ranked by the step time they could "
                 "save (an upper bound) in the %s (%s",
            d->n, den, fmt(b1, sizeof b1, d->denominator_ns));
    /* the active steps' union is the default window less the gaps between steps: said where the
     * two differ, since the window line names the window "the active steps" too */
    if (ks_report_diagnoses_union(a, d))
        fprintf(out, ": their union, the window (%s) less the gaps between steps", fmt(b2, sizeof b2, a->window_ns));
    fprintf(out, ")\n");
    if (d->hidden)
        fprintf(out, "  (%zu below the floor of %.4g%% of the %s not shown: --all-diagnoses lists them)\n", d->hidden,
                100.0 * d->min_impact, den);
    for (size_t i = 0; i < d->n; i++) {
        const ks_diagnosis *x = &d->v[i];
        if (x->impact_ns >= 0)
            fprintf(out, "  [%s, confidence %s, could save at most %s = %s of the %s%s]\n", x->id, x->confidence,
                    fmt(b2, sizeof b2, x->impact_ns), ks_text_pct(s1, sizeof s1, x->impact_ns, d->denominator_ns), den,
                    x->below_floor ? ", below the floor" : "");
        else if (strcmp(x->confidence, "n/a"))
            fprintf(out, "  [%s, confidence %s, %s]\n", x->id, x->confidence, x->impact_basis);
        else
            fprintf(out, "  [%s, caveat]\n", x->id);
        fprintf(out, "    hypothesis: %s\n", x->hypothesis);
        fprintf(out, "    evidence:   %s\n", x->evidence);
        if (x->nsteps) {
            fprintf(out, "    steps:     ");
            for (size_t j = 0; j < x->nsteps && j < 12; j++)
                fprintf(out, " %lld", (long long)x->steps[j]);
            fprintf(out, "%s\n", x->nsteps > 12 ? " ..." : "");
        }
        if (x->impact_ns >= 0 && x->impact_source && !strcmp(x->impact_source, "critical_path"))
            fprintf(out, "    impact:     its time on the critical path of the %s (without the path: %s, %s)\n",
                    den, fmt(b2, sizeof b2, x->impact_heuristic_ns), x->impact_basis);
        else if (x->impact_ns >= 0)
            fprintf(out, "    impact:     %s\n", x->impact_basis);
        fprintf(out, "    next check: %s\n", x->next_check);
        fprintf(out, "    refuted if: %s\n", x->refuted_if);
        char *by_hand = ks_report_measure_by_hand(platform, x->validate_cmd);
        if (by_hand)
            fprintf(out, "    measure:    %s\n", by_hand);
        else if (x->validate_cmd)
            fprintf(out, "    measure:    %s\n", x->validate_cmd);
        free(by_hand);
    }
}

static void smi_line(FILE *out, const char *what, const ks_smi_stats *s, const char *unit)
{
    if (!s->n) {
        fprintf(out, "    %-10s no sample\n", what);
        return;
    }
    if (s->util_known)
        fprintf(out, "    %-10s %zu samples: utilization min %.0f mean %.1f max %.0f %s", what, s->n, s->util_min,
                s->util_mean, s->util_max, unit);
    else
        fprintf(out, "    %-10s %zu samples: utilization unknown (N/A)", what, s->n);
    if (s->mem_known)
        fprintf(out, "; memory used %.0f..%.0f MiB\n", s->mem_used_min, s->mem_used_max);
    else
        fprintf(out, "; memory unknown\n");
}

static void telemetry_text(FILE *out, const ks_analysis *a, const ks_insights_view *iv)
{
    const ks_telemetry *tm = iv->telemetry;
    if (!tm)
        return;
    fprintf(out, "\n  nvidia-smi: %zu samples of GPU %s (%s), %llu unknown values (N/A)\n", tm->n,
            tm->gpu && *tm->gpu ? tm->gpu : "-", tm->gpu_match, (unsigned long long)tm->unknown_values);
    if (tm->reason) {
        fprintf(out, "    %s\n", tm->reason);
        return;
    }
    smi_line(out, "window", &tm->window, tm->units_util);
    if (a->gpu && a->ngpu) {
        char b1[32], b2[32], sh[16];
        /* of a zero span the share is not observed: n/a, as the JSON's null trace_busy_share */
        ks_text_pct(sh, sizeof sh, a->gpu[0].busy_ns, a->gpu[0].span_ns);
        /* the trace's first device (JSON's trace_busy_share): named, since the samples' GPU is
         * matched by its own rule and a trace of several devices has other figures */
        fprintf(out, "    trace: GPU %d busy %s of its span (%s busy in a %s span)\n", a->gpu[0].device, sh,
                fmt(b1, sizeof b1, a->gpu[0].busy_ns), fmt(b2, sizeof b2, a->gpu[0].span_ns));
    }
    for (size_t i = 0; iv->steps && i < tm->nsteps && i < iv->steps->n; i++) {
        char what[32];
        snprintf(what, sizeof what, "step %lld", (long long)iv->steps->v[i].number);
        smi_line(out, what, &tm->per_step[i], tm->units_util);
    }
    fprintf(out, "    (utilization.gpu is the share of sample time with at least one kernel running, not "
                 "efficiency)\n");
}

static void thread_label(char *buf, size_t n, const ks_trace *t, uint32_t track, int shared)
{
    char id[140];
    const ks_track *tr = &t->tracks[track];
    ks_text_thread(id, sizeof id, t, track, shared);
    const char *nm = tr->name ? ks_trace_str(t, tr->name) : "";
    snprintf(buf, n, "%s%s%.60s%s", id, *nm ? " (" : "", nm, *nm ? ")" : "");
}

static void named_list(FILE *out, const ks_trace *t, const ks_named_ns *v, size_t n, ks_ns total)
{
    char b1[32], prev[100], s1[16];
    for (size_t i = 0; i < n && i < 8; i++) {
        const char *nm = ks_trace_str(t, v[i].name);
        ks_fmt_preview(prev, sizeof prev, nm, strlen(nm), 70);
        fprintf(out, "      %s\t%s\t%llu\t%s\n", fmt(b1, sizeof b1, v[i].gpu_ns), ks_text_pct(s1, sizeof s1, v[i].gpu_ns, total),
                (unsigned long long)v[i].count, prev);
    }
}

/* who launched the GPU work, and how it is tied to the steps and the forward ops */
static void threads_text(FILE *out, const ks_analysis *a, const ks_threads *th, const ks_steps *st)
{
    const ks_trace *t = a->trace;
    char b1[32], b2[32], b3[32], b4[32], who[220], s1[16];
    if (!th || th->reason || !th->n)
        return;
    int shared = ks_text_tids_shared(t);
    ks_ns other = 0;
    for (size_t i = 0; i < th->n; i++)
        if (strcmp(th->v[i].role, "steps") && strcmp(th->v[i].role, "main"))
            for (int k = 0; k < KS_TIE_COUNT; k++)
                other = ks_sat_add(other, th->v[i].gpu_ns[k]);
    fprintf(out, "\n  Threads: GPU busy %s by the thread that launched it (each ns counted once); %s (%s of it) launched "
                 "by threads other than the %s thread; %llu fwdbwd flows tie backward ops to forward ops\n",
            fmt(b1, sizeof b1, th->busy_ns), fmt(b2, sizeof b2, other), ks_text_pct(s1, sizeof s1, other, th->busy_ns),
            st && st->n ? "stepping" : "main", (unsigned long long)th->flows);
    fprintf(out, "    " KS_TEXT_LEFT "%s\t%s\t%s\t%s\t%s\t%s\n", "role", "own thread", "via flow", "via time", "not tied",
            "thread");
    for (size_t i = 0; i < th->n; i++) {
        const ks_thread_row *r = &th->v[i];
        thread_label(who, sizeof who, t, r->track, shared);
        fprintf(out, "    " KS_TEXT_LEFT "%s\t%s\t%s\t%s\t%s\t%s\n", r->role, fmt(b1, sizeof b1, r->gpu_ns[KS_TIE_OWN]),
                fmt(b2, sizeof b2, r->gpu_ns[KS_TIE_FLOW]), fmt(b3, sizeof b3, r->gpu_ns[KS_TIE_TIME]),
                fmt(b4, sizeof b4, r->gpu_ns[KS_TIE_NONE]), who);
    }
    if (th->no_launch_ns)
        fprintf(out, "    " KS_TEXT_LEFT "%s\t%s\t%s\t%s\t%s\t%s\n", "-", "-", "-", "-", fmt(b1, sizeof b1, th->no_launch_ns),
                "(no launch call in the trace)");
    fprintf(out, "    tied to steps: own thread %s, via flow %s, via time %s; not tied %s (sum = GPU busy)\n",
            fmt(b1, sizeof b1, th->tied_ns[KS_TIE_OWN]), fmt(b2, sizeof b2, th->tied_ns[KS_TIE_FLOW]),
            fmt(b3, sizeof b3, th->tied_ns[KS_TIE_TIME]), fmt(b4, sizeof b4, th->tied_ns[KS_TIE_NONE]));
    if (st && st->n && th->nsteps == st->n) {
        fprintf(out, "    GPU time tied to each step: by its own thread, by other threads via flow, via time\n");
        fprintf(out, "    %s\t%s\t%s\t%s\t\n", "step", "own thread", "via flow", "via time");
        for (size_t i = 0; i < st->n; i++)
            fprintf(out, "    %lld\t%s\t%s\t%s\t\n", (long long)st->v[i].number, fmt(b1, sizeof b1, th->step_ns[i][KS_TIE_OWN]),
                    fmt(b2, sizeof b2, th->step_ns[i][KS_TIE_FLOW]), fmt(b3, sizeof b3, th->step_ns[i][KS_TIE_TIME]));
    }
    if (th->nby_forward_op) {
        fprintf(out, "    GPU time of other threads' backward work, by the forward op that caused it (fwdbwd flows; %% "
                     "of the GPU busy time above):\n");
        named_list(out, t, th->by_forward_op, th->nby_forward_op, th->busy_ns);
    }
    if (th->nlabels) {
        fprintf(out, "    ... by label enclosing that forward op (not in the labels table's GPU columns, which count "
                     "the label's own thread; %% of the GPU busy time above):\n");
        named_list(out, t, th->labels, th->nlabels, th->busy_ns);
    } else if (other) {
        fprintf(out, "    GPU time launched by other threads is not attributed to labels (%s): the labels table's GPU "
                     "columns count only work launched on the label's own thread\n",
                th->flows ? "no flow reaches a forward op under a label" : "the trace has no fwdbwd flows");
    }
}

void ks_insights_text_to(FILE *out, const ks_analysis *a, const ks_insights_view *iv, const ks_report_opts *o)
{
    if (!iv)
        return;
    steps_text(out, a, iv->steps, o ? o->top : 0);
    critpath_text(out, a, iv->critpath);
    threads_text(out, a, iv->threads, iv->steps);
    gaps_text(out, a, iv->gaps);
    telemetry_text(out, a, iv);
    diagnoses_text(out, a, iv->diagnoses);
}

void ks_insights_text(FILE *final, const ks_analysis *a, const ks_insights_view *iv, const ks_report_opts *o)
{
    ks_text_buf tb;
    FILE *out = ks_text_begin(&tb, final);
    ks_insights_text_to(out, a, iv, o);
    ks_text_end(&tb, final, o ? o->width : 0);
}
