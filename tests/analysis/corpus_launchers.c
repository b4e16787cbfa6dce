/* tests/analysis/corpus_launchers.c: laws of the thread attribution that must hold on any trace
 * (run once per corpus file and on the hand-written fixtures):
 *  - for every GPU idle gap, each thread's pieces lie inside the gap, are disjoint and in time
 *    order, and add up to at most the gap's length (exactly the gap's length: a thread is always
 *    in some state); the launching thread's causes add up to the gap total of the device;
 *  - by default only the longest gaps keep their pieces: the same pieces as with
 *    ks_gap_opts.all_pieces, the same gaps, tables and per-thread figures, every other gap none;
 *  - the GPU time tied to steps (own thread, flow, time) plus the time not tied equals the GPU
 *    busy time of the window, recomputed here as the union of each device's work (sorting,
 *    independent of algo/intervals.c), summed over devices: every ns counted once;
 *  - per step, per thread, per forward op the figures are never negative and never exceed that
 *    busy time; the per-step ties add up to the tied totals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinesift/analysis.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"
#include "kinesift/store.h"

#include "corpus_laws.h"


/* the window's GPU busy time: per device the union of its clipped work, summed */
static ks_ns busy_by_union(const ks_analysis *a)
{
    const ks_trace *t = a->trace;
    ks_ns total = 0;
    for (size_t d = 0; d < a->ngpu; d++) {
        size_t n = 0;
        for (size_t k = 0; k < t->ntracks; k++)
            if (t->tracks[k].kind == KS_TRACK_GPU && t->tracks[k].device == a->gpu[d].device)
                n += t->tracks[k].n;
        iv *v = malloc((n ? n : 1) * sizeof *v);
        n = 0;
        for (size_t k = 0; k < t->ntracks; k++) {
            const ks_track *tr = &t->tracks[k];
            if (tr->kind != KS_TRACK_GPU || tr->device != a->gpu[d].device)
                continue;
            for (size_t i = 0; i < tr->n; i++) {
                const ks_event *e = &tr->ev[i];
                if (!ks_kind_is_gpu_work((ks_kind)e->kind) || e->ph != 'X')
                    continue;
                ks_ns s = e->ts > a->win_start ? e->ts : a->win_start;
                ks_ns en = e->ts + ks_event_dur(e) < a->win_end ? e->ts + ks_event_dur(e) : a->win_end;
                if (en > s)
                    v[n++] = (iv){s, en};
            }
        }
        total += union_length(v, n);
        free(v);
    }
    return total;
}

static void check_gaps(const char *path, const ks_gaps *g)
{
    for (size_t d = 0; d < g->n; d++) {
        const ks_gap_device *dev = &g->dev[d];
        ks_ns causes = 0;
        for (size_t i = 0; i < dev->nby_cpu; i++)
            causes += dev->by_cpu[i].total_ns;
        CHECK(causes == dev->total_ns, "%s: causes %lld != gaps %lld", path, (long long)causes, (long long)dev->total_ns);
        CHECK(dev->waiting_ns <= dev->total_ns, "%s: waiting %lld > gaps", path, (long long)dev->waiting_ns);
        for (size_t j = 0; j < dev->count; j++) {
            const ks_gap *gp = &dev->all[j];
            CHECK(gp->piece0 + gp->npieces <= dev->npieces, "%s: gap %zu pieces out of range", path, j);
            if (gp->piece0 + gp->npieces > dev->npieces)
                continue;
            /* per thread: the pieces in order, disjoint, inside the gap, adding up to its length */
            for (size_t p = gp->piece0; p < gp->piece0 + gp->npieces; p++) {
                const ks_gap_piece *pc = &dev->pieces[p];
                CHECK(pc->start >= gp->start && pc->end <= gp->end && pc->start < pc->end,
                      "%s: gap %zu [%lld, %lld): piece [%lld, %lld) outside", path, j, (long long)gp->start,
                      (long long)gp->end, (long long)pc->start, (long long)pc->end);
                int seen = 0;
                for (size_t q = gp->piece0; q < p; q++)
                    seen |= dev->pieces[q].track == pc->track;
                if (seen)
                    continue;
                ks_ns sum = 0, last = gp->start;
                for (size_t q = p; q < gp->piece0 + gp->npieces; q++) {
                    const ks_gap_piece *x = &dev->pieces[q];
                    if (x->track != pc->track)
                        continue;
                    CHECK(x->start >= last, "%s: gap %zu: pieces of a thread overlap or are out of order", path, j);
                    last = x->end;
                    sum += x->end - x->start;
                }
                CHECK(sum <= gp->end - gp->start, "%s: gap %zu: a thread's pieces sum %lld > gap %lld", path, j,
                      (long long)sum, (long long)(gp->end - gp->start));
                CHECK(sum == gp->end - gp->start, "%s: gap %zu: a thread's pieces sum %lld != gap %lld", path, j,
                      (long long)sum, (long long)(gp->end - gp->start));
            }
        }
    }
}

static int same_piece(const ks_gap_piece *x, const ks_gap_piece *y)
{
    return x->start == y->start && x->end == y->end && x->track == y->track && x->name == y->name &&
           x->kind == y->kind && x->state == y->state;
}

static int same_causes(const ks_gap_cause *x, size_t nx, const ks_gap_cause *y, size_t ny)
{
    if (nx != ny)
        return 0;
    for (size_t i = 0; i < nx; i++)
        if (x[i].name != y[i].name || x[i].kind != y[i].kind || x[i].waiting != y[i].waiting ||
            x[i].total_ns != y[i].total_ns || x[i].count != y[i].count || x[i].data != y[i].data)
            return 0;
    return 1;
}

/* k: the gaps found keeping the longest gaps' pieces only; all: every gap's */
static void check_kept(const char *path, const ks_gaps *all, const ks_gaps *k)
{
    CHECK(all->n == k->n, "%s: %zu devices with every gap's pieces, %zu without", path, all->n, k->n);
    for (size_t d = 0; d < all->n && d < k->n; d++) {
        const ks_gap_device *x = &all->dev[d], *y = &k->dev[d];
        CHECK(x->count == y->count && x->total_ns == y->total_ns && x->idle_ns == y->idle_ns &&
                  x->waiting_ns == y->waiting_ns && x->data_loading_ns == y->data_loading_ns &&
                  x->nlongest == y->nlongest && x->nthreads == y->nthreads,
              "%s: device %zu: the gaps' figures depend on keeping every gap's pieces", path, d);
        CHECK(same_causes(x->by_cpu, x->nby_cpu, y->by_cpu, y->nby_cpu) &&
                  same_causes(x->by_label, x->nby_label, y->by_label, y->nby_label),
              "%s: device %zu: the gap tables depend on keeping every gap's pieces", path, d);
        for (size_t i = 0; i < x->nthreads && i < y->nthreads; i++)
            CHECK(x->threads[i].track == y->threads[i].track && x->threads[i].launching == y->threads[i].launching &&
                      !memcmp(x->threads[i].state_ns, y->threads[i].state_ns, sizeof x->threads[i].state_ns) &&
                      same_causes(x->threads[i].by_cpu, x->threads[i].nby_cpu, y->threads[i].by_cpu,
                                  y->threads[i].nby_cpu),
                  "%s: device %zu thread %zu: its figures depend on keeping every gap's pieces", path, d, i);
        size_t kept = 0;
        for (size_t j = 0; j < x->nlongest && j < y->nlongest; j++) {
            const ks_gap *a = &x->longest[j], *b = &y->longest[j];
            CHECK(a->start == b->start && a->end == b->end && a->cause == b->cause && a->npieces == b->npieces,
                  "%s: device %zu: longest gap %zu differs", path, d, j);
            CHECK(b->piece0 == kept, "%s: device %zu: longest gap %zu's pieces at %zu, not %zu", path, d, j, b->piece0,
                  kept);
            for (size_t p = 0; p < a->npieces && p < b->npieces && b->piece0 + p < y->npieces; p++)
                CHECK(same_piece(&x->pieces[a->piece0 + p], &y->pieces[b->piece0 + p]),
                      "%s: device %zu: longest gap %zu: piece %zu differs", path, d, j, p);
            kept += b->npieces;
        }
        CHECK(y->npieces == kept, "%s: device %zu: %zu pieces kept, the longest gaps have %zu", path, d, y->npieces,
              kept);
        for (size_t i = 0; i < x->count && i < y->count; i++) {
            const ks_gap *a = &x->all[i], *b = &y->all[i];
            CHECK(a->start == b->start && a->end == b->end && a->cause == b->cause && a->cause_kind == b->cause_kind &&
                      a->data == b->data && a->cause_waiting == b->cause_waiting && a->launch_track == b->launch_track,
                  "%s: device %zu: gap %zu differs", path, d, i);
            size_t j = 0;
            while (j < y->nlongest && !(y->longest[j].start == b->start && y->longest[j].end == b->end))
                j++;
            if (j < y->nlongest)
                CHECK(b->piece0 == y->longest[j].piece0 && b->npieces == y->longest[j].npieces,
                      "%s: device %zu: gap %zu, among the longest, without their pieces", path, d, i);
            else
                CHECK(b->piece0 == 0 && b->npieces == 0, "%s: device %zu: gap %zu kept pieces", path, d, i);
        }
    }
}

static void check_threads(const char *path, const ks_analysis *a, const ks_steps *st, const ks_threads *th)
{
    if (th->reason) {
        CHECK(!a->gpu, "%s: threads not observed with GPU work", path);
        return;
    }
    ks_ns busy = busy_by_union(a), sum = 0;
    for (int k = 0; k < KS_TIE_COUNT; k++) {
        CHECK(th->tied_ns[k] >= 0, "%s: negative tie", path);
        sum += th->tied_ns[k];
    }
    CHECK(th->busy_ns == busy, "%s: busy %lld != union %lld", path, (long long)th->busy_ns, (long long)busy);
    CHECK(sum == busy, "%s: tied + not tied %lld != busy %lld", path, (long long)sum, (long long)busy);
    ks_ns steps[KS_TIE_COUNT] = {0};
    for (size_t i = 0; i < th->nsteps; i++)
        for (int k = 0; k < KS_TIE_COUNT; k++) {
            CHECK(th->step_ns[i][k] >= 0 && th->step_ns[i][k] <= busy, "%s: step %zu tie %d", path, i, k);
            steps[k] += th->step_ns[i][k];
        }
    for (int k = 0; k < KS_TIE_NONE; k++)
        CHECK(steps[k] == th->tied_ns[k], "%s: steps' %s %lld != %lld", path, ks_tie_name((ks_tie)k),
              (long long)steps[k], (long long)th->tied_ns[k]);
    if (!st || !st->n)
        CHECK(th->tied_ns[KS_TIE_NONE] == busy, "%s: no steps, yet GPU time tied", path);
    ks_ns rows = th->no_launch_ns;
    for (size_t i = 0; i < th->n; i++)
        for (int k = 0; k < KS_TIE_COUNT; k++)
            rows += th->v[i].gpu_ns[k];
    CHECK(rows == busy, "%s: threads' rows %lld != busy %lld", path, (long long)rows, (long long)busy);
    ks_ns ops = 0;
    for (size_t i = 0; i < th->nby_forward_op; i++)
        ops += th->by_forward_op[i].gpu_ns;
    CHECK(ops <= busy, "%s: forward ops %lld > busy", path, (long long)ops);
    for (size_t i = 0; i < th->nlabels; i++)
        CHECK(th->labels[i].gpu_ns <= ops, "%s: label above the flow-tied total", path);
}

static void check_file(const char *path)
{
    ks_source *src;
    ks_stream *stream;
    ks_trace *t = NULL;
    ks_error err;
    if (ks_source_open(path, &src, &err) != KS_OK || ks_source_next(src, &stream, &err) != 1 ||
        ks_parse_stream(stream, NULL, &t, &err) != KS_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        exit(2);
    }
    ks_source_close(src);
    ks_analysis *a = NULL;
    ks_steps st = {0};
    ks_gaps g = {0}, kept = {0};
    ks_threads th = {0};
    ks_gap_opts every;
    ks_gap_opts_init(&every);
    every.all_pieces = 1;
    if (ks_analyze(t, NULL, &a, &err) != KS_OK || ks_steps_find(a, NULL, &st, &err) != KS_OK ||
        ks_gaps_find(a, &st, &every, &g, &err) != KS_OK || ks_gaps_find(a, &st, NULL, &kept, &err) != KS_OK ||
        ks_threads_find(a, &st, &th) != KS_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        exit(2);
    }
    check_gaps(path, &g);
    check_kept(path, &g, &kept);
    check_threads(path, a, &st, &th);
    ks_threads_free(&th);
    ks_gaps_free(&kept);
    ks_gaps_free(&g);
    ks_steps_free(&st);
    ks_analysis_free(a);
    ks_trace_free(t);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        check_file(argv[i]);
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
