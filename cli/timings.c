/* cli/timings.c: the `--timings` table (cli/timings.h). Why it is correct: it prints what the
 * library recorded, unchanged, in the order the phases first ran (the peak resident memory of the
 * total row is read when the table is printed); the only figure it makes is "other", the total
 * less the sum of the sequential phases (floored at 0), which is exactly the time no sequential
 * phase covers because those phases never overlap one another. */
#include "cli/timings.h"

#include "cli/heap.h"

static const char *kind_label(int kind)
{
    return kind == KS_TIMING_BESIDE ? "beside" : kind == KS_TIMING_WITHIN ? "within" : "";
}

static void row(FILE *out, const char *name, int64_t ns, int64_t total_ns, uint64_t bytes, uint64_t rss,
                const char *kind)
{
    double ms = (double)ns / 1e6;
    double pct = total_ns > 0 ? 100.0 * (double)ns / (double)total_ns : 0.0;
    char rate[32] = "-";
    if (bytes && ns > 0)
        snprintf(rate, sizeof rate, "%.1f", (double)bytes / ((double)ns / 1e9) / 1e6);
    char peak[32] = "-";
    if (rss)
        snprintf(peak, sizeof peak, "%.1f", (double)rss / 1e6);
    fprintf(out, "  %-42s %10.3f %6.1f%% %9s %9s%s%s\n", name, ms, pct, rate, peak, *kind ? "  " : "", kind);
}

void ks_cli_timings_print(FILE *out, const char *cmd, const ks_timings *t, int64_t total_ns)
{
    int64_t seq = 0;
    uint64_t parsed = 0;
    const ks_timing *parse = ks_timings_find(t, "parse");
    if (parse)
        parsed = parse->bytes;
    fprintf(out, "kinesift %s --timings: wall time per phase (docs/performance.md, \"--timings\")\n", cmd);
    fprintf(out, "  rows follow one another on the main thread; 'a | b': passes side by side on the\n"
                 "  threads (the longest's time); 'beside': on another thread at the same time as the rows\n"
                 "  (not in their sum); 'within': part of the row its name starts with; peak MB: the\n"
                 "  process's peak resident memory at the end of the row (it rises in the row that set it)\n");
    fprintf(out, "  %-42s %10s %7s %9s %9s\n", "phase", "ms", "% wall", "MB/s", "peak MB");
    for (size_t i = 0; i < t->n; i++) {
        const ks_timing *p = &t->phase[i];
        if (p->kind == KS_TIMING_SEQ)
            seq += p->ns;
        row(out, p->name, p->ns, total_ns, p->bytes, p->peak_rss, kind_label(p->kind));
    }
    row(out, "other (options, opening inputs, unlisted)", total_ns > seq ? total_ns - seq : 0, total_ns, 0, 0, "");
    row(out, "total", total_ns, total_ns, parsed, ks_timings_peak_rss(), "");
    fprintf(out, "  heap: %s\n", ks_cli_heap_state());
    if (t->dropped)
        fprintf(out, "  (%u phases not recorded: the table was full)\n", (unsigned)t->dropped);
}
