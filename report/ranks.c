/* report/ranks.c: the `kinesift ranks` report in text, JSON (kinesift.ranks/1, docs/ranks.md),
 * CSV (one row per rank) and Markdown. Every figure comes from ks_ranks; nothing is recomputed
 * here but shares and per-(collective, group) totals. Not observed figures are null (JSON, CSV
 * empty) with their reason, "n/a" in text. Deterministic: same input, same bytes. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "algo/intervals.h"
#include "common/jsonw.h"
#include "common/util.h"
#include "kinesift/ranks.h"
#include "report/report_util.h"

static double share(ks_ns part, ks_ns whole)
{
    return whole > 0 ? (double)part / (double)whole : -1.0;
}

/* per (name, group): calls, transfer median, busbw median, waits */
typedef struct kind_row {
    const char *name, *pg;
    size_t calls;
    ks_ns after_median, wait;
    int64_t bytes_median;
    double busbw_median;
} kind_row;

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static kind_row *kind_rows(const ks_ranks *r, size_t *nrows)
{
    kind_row *rows = NULL;
    size_t n = 0, cap = 0;
    ks_ns *after = ks_xcalloc(r->nm + 1, sizeof *after), *bytes = ks_xcalloc(r->nm + 1, sizeof *bytes);
    double *bw = ks_xcalloc(r->nm + 1, sizeof *bw);
    for (size_t a = 0; a < r->nm;) {
        size_t b = a, nb = 0, nw = 0;
        kind_row k = {r->m[a].name, r->m[a].pg, 0, 0, 0, -1, -1};
        while (b < r->nm && !strcmp(r->m[b].name, k.name) && !strcmp(r->m[b].pg, k.pg)) {
            const ks_match *m = &r->m[b++];
            after[k.calls++] = m->after_ns;
            k.wait = ks_sat_add(k.wait, m->wait_ns);
            if (m->bytes >= 0)
                bytes[nb++] = m->bytes;
            if (m->busbw >= 0)
                bw[nw++] = m->busbw;
        }
        ks_sort_ns(after, k.calls);
        k.after_median = ks_quantile_ns(after, k.calls, 50);
        if (nb) {
            ks_sort_ns(bytes, nb);
            k.bytes_median = ks_quantile_ns(bytes, nb, 50);
        }
        if (nw) {
            qsort(bw, nw, sizeof *bw, cmp_dbl);
            k.busbw_median = nw % 2 ? bw[nw / 2] : (bw[nw / 2 - 1] + bw[nw / 2]) / 2;
        }
        KS_PUSH(rows, n, cap, k);
        a = b;
    }
    free(after);
    free(bytes);
    free(bw);
    *nrows = n;
    return rows;
}

static const char *fmt(char *b, size_t n, ks_ns v, int observed)
{
    if (!observed)
        return "n/a";
    ks_fmt_ns(b, n, v);
    return b;
}

static const char *pct(char *b, size_t n, double s)
{
    if (s < 0)
        return "n/a";
    snprintf(b, n, "%.1f%%", 100.0 * s);
    return b;
}

static ks_ns max_world(const ks_ranks *r)
{
    ks_ns w = -1;
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].world_size > w)
            w = r->v[i].world_size;
    return w;
}

/* high when the straggler caused most of the waiting and the clocks agree */
const char *ks_ranks_confidence(const ks_ranks *r)
{
    const ks_rank_stat *s = &r->st[r->straggler];
    return r->untrusted ? "low" : s->caused > r->total_wait / 2 ? "high" : "medium";
}

/* the straggler hypothesis, its evidence and the next check, as one paragraph each */
static void straggler_text(FILE *out, const ks_ranks *r, const char *bullet)
{
    char b1[32], b2[32];
    if (r->straggler == SIZE_MAX) {
        fprintf(out, "%sno straggler: no matched collective had a single last arrival\n", bullet);
        return;
    }
    const ks_rank *x = &r->v[r->straggler];
    const ks_rank_stat *s = &r->st[r->straggler];
    fprintf(out, "%shypothesis: rank %" PRId64 " is the straggler: it arrived last at %" PRIu64 " of %zu matched "
            "collectives and the others waited %s for it (%s of all waiting); confidence %s%s\n", bullet, x->rank,
            s->times_last, r->nm, fmt(b1, sizeof b1, s->caused, 1), pct(b2, sizeof b2, share(s->caused, r->total_wait)),
            ks_ranks_confidence(r), r->untrusted ? " [clocks disagree: see the alignment spread]" : "");
    if (r->evidence[0]) {
        fprintf(out, "%sevidence: before those collectives it ran", bullet);
        for (int t = 0; t < KS_RANK_TOP && r->evidence[t]; t++) {
            size_t len = strlen(r->evidence[t]);
            fprintf(out, "%s %.*s%s (%s)", t ? "," : "", len > 80 ? 77 : (int)len, r->evidence[t], len > 80 ? "..." : "",
                    fmt(b1, sizeof b1, r->evidence_ns[t], 1));
        }
        fputc('\n', out);
    }
    fprintf(out, "%snext check: kinesift diff %s %s (what it runs before the collective that the others do "
            "not, or longer); refuted if its kernels before the collectives take as long as the others' "
            "(then look at its host: data loading, CPU ops)\n", bullet, r->v[r->straggler == 0 && r->n > 1 ? 1 : 0].source,
            x->source);
}

/* the inputs not read, after the report (text and markdown) */
static void errors_text(FILE *out, const ks_ranks *r, const char *bullet)
{
    if (!r->nerrors)
        return;
    fprintf(out, "\n%zu input%s not read (the ranks above are the others; exit status 2):\n", r->nerrors,
            r->nerrors == 1 ? "" : "s");
    for (size_t i = 0; i < r->nerrors; i++)
        fprintf(out, "%s%s\n", bullet, r->error_message[i]);
}

static void text(FILE *out, const ks_ranks *r)
{
    char b[10][32];
    fprintf(out, "ranks: %zu traces", r->n);
    if (max_world(r) >= 0)
        fprintf(out, ", world size %" PRId64, max_world(r));
    fprintf(out, ", %zu collectives matched, %zu unmatched\n", r->nm, r->num);
    fprintf(out, "\nclock alignment (offset subtracted from each rank's times; spread = largest residual %s)%s\n",
            fmt(b[0], 32, r->spread, 1), r->untrusted ? ": WARNING the spread is above the tolerance, waits are not to be trusted" : "");
    for (size_t i = 0; i < r->n; i++) {
        const ks_rank_stat *s = &r->st[i];
        if (!s->aligned)
            fprintf(out, "  rank %-5" PRId64 " not aligned: no collective shared with the reference\n", r->v[i].rank);
        else
            fprintf(out, "  rank %-5" PRId64 " offset %+" PRId64 " ns, residual %s\n", r->v[i].rank, s->offset,
                    fmt(b[0], 32, s->residual, 1));
    }
    fprintf(out, "\n%-6s %-15s %5s %10s %10s %6s %10s %10s %10s %8s %10s %7s %10s %10s %4s  %s\n", "rank", "rule",
            "steps", "step_med", "step_p90", "busy", "compute", "comm", "exposed", "overlap", "host_wait", "kernels",
            "wait", "caused", "last", "source");
    for (size_t i = 0; i < r->n; i++) {
        const ks_rank *x = &r->v[i];
        const ks_rank_stat *s = &r->st[i];
        int g = !x->gpu_reason;
        fprintf(out, "%-6" PRId64 " %-15s %5zu %10s %10s %6s %10s %10s %10s %8s %10s %7" PRIu64 " %10s %10s %4" PRIu64 "  %s\n",
                x->rank, ks_rank_rule_name(x->rule), x->steps, fmt(b[0], 32, x->step_median, x->steps > 0),
                fmt(b[1], 32, x->step_p90, x->steps > 0), pct(b[2], 32, g ? share(x->gpu_busy, x->gpu_span) : -1),
                fmt(b[3], 32, x->compute, g), fmt(b[4], 32, x->comm, g), fmt(b[5], 32, x->exposed, g),
                pct(b[6], 32, g ? share(x->comm - x->exposed, x->comm) : -1), fmt(b[7], 32, x->host_wait, x->host_wait >= 0),
                x->kernels, fmt(b[8], 32, s->wait, x->ncolls > 0), fmt(b[9], 32, s->caused, x->ncolls > 0), s->times_last,
                x->source);
    }
    for (size_t i = 0; i < r->n; i++) {
        const ks_rank *x = &r->v[i];
        if (x->gpu_reason)
            fprintf(out, "  rank %" PRId64 ": GPU figures %s\n", x->rank, x->gpu_reason);
        else if (x->colls_reason)
            fprintf(out, "  rank %" PRId64 ": collectives %s\n", x->rank, x->colls_reason);
        if (x->steps_reason)
            fprintf(out, "  rank %" PRId64 ": steps %s\n", x->rank, x->steps_reason);
    }
    size_t nk;
    kind_row *k = kind_rows(r, &nk);
    if (nk) {
        fprintf(out, "\n%-24s %-10s %6s %12s %12s %10s %12s\n", "collective", "group", "calls", "bytes_med",
                "transfer_med", "busbw_med", "wait_total");
        for (size_t i = 0; i < nk; i++) {
            char bw[32];
            if (k[i].busbw_median >= 0)
                snprintf(bw, sizeof bw, "%.2f GB/s", k[i].busbw_median);
            else
                strcpy(bw, "n/a");
            char by[32];
            if (k[i].bytes_median >= 0)
                ks_fmt_bytes(by, sizeof by, (uint64_t)k[i].bytes_median);
            else
                strcpy(by, "n/a");
            fprintf(out, "%-24s %-10s %6zu %12s %12s %10s %12s\n", k[i].name, k[i].pg[0] ? k[i].pg : "?", k[i].calls,
                    by, fmt(b[0], 32, k[i].after_median, 1), bw, fmt(b[1], 32, k[i].wait, 1));
        }
    }
    free(k);
    for (size_t i = 0; i < r->num; i++)
        fprintf(out, "unmatched: rank %" PRId64 " made %" PRId64 " fewer call%s of %s on group %s than another rank\n",
                r->v[r->um[i].rank].rank, r->um[i].missing, r->um[i].missing == 1 ? "" : "s", r->um[i].name,
                r->um[i].pg[0] ? r->um[i].pg : "?");
    fputs("\ndiagnosis:\n", out);
    straggler_text(out, r, "  ");
    for (size_t i = 0; i < r->n; i++) {
        const ks_rank_stat *s = &r->st[i];
        if (s->slow_step)
            fprintf(out, "  rank %" PRId64 ": median step %s is more than %.4g%% above the ranks' median %s\n",
                    r->v[i].rank, fmt(b[0], 32, r->v[i].step_median, 1), r->o.straggler_pct, fmt(b[1], 32, r->step_median, 1));
        if (s->slow_compute)
            fprintf(out, "  rank %" PRId64 ": compute %s is more than %.4g%% above the ranks' median %s\n",
                    r->v[i].rank, fmt(b[0], 32, r->v[i].compute, 1), r->o.straggler_pct, fmt(b[1], 32, r->compute_median, 1));
    }
}

static void jn(ks_jw *w, const char *k, ks_ns v, int observed)
{
    if (observed)
        ks_jw_kint(w, k, v);
    else
        ks_jw_knull(w, k);
}

static void jshare(ks_jw *w, const char *k, double s)
{
    if (s >= 0)
        ks_jw_kdouble(w, k, s);
    else
        ks_jw_knull(w, k);
}

static void json_rank(ks_jw *w, const ks_ranks *r, size_t i)
{
    const ks_rank *x = &r->v[i];
    const ks_rank_stat *s = &r->st[i];
    int g = !x->gpu_reason;
    ks_jw_obj(w);
    ks_jw_kint(w, "rank", x->rank);
    ks_jw_kstr(w, "rule", ks_rank_rule_name(x->rule));
    ks_jw_kstr(w, "source", x->source);
    jn(w, "world_size", x->world_size, x->world_size >= 0);
    ks_jw_kuint(w, "steps", x->steps);
    jn(w, "step_median_ns", x->step_median, x->steps > 0);
    jn(w, "step_p90_ns", x->step_p90, x->steps > 0);
    if (x->step_ns) {
        ks_jw_kints(w, "step_ns", x->step_ns, x->steps);
    } else if (x->steps) {
        ks_jw_kstr(w, "step_ns_reason", "a kinesift.summary/1 keeps only the median and p90");
    }
    if (x->steps_reason)
        ks_jw_kstr(w, "steps_reason", x->steps_reason);
    jn(w, "gpu_span_ns", x->gpu_span, g);
    jn(w, "gpu_busy_ns", x->gpu_busy, g);
    jshare(w, "gpu_busy_share", g ? share(x->gpu_busy, x->gpu_span) : -1);
    jshare(w, "gpu_idle_share", g && x->gpu_span > 0 ? 1.0 - share(x->gpu_busy, x->gpu_span) : -1);
    jn(w, "compute_ns", x->compute, g);
    jn(w, "communication_ns", x->comm, g);
    jn(w, "exposed_communication_ns", x->exposed, g);
    jshare(w, "overlap_share", g ? share(x->comm - x->exposed, x->comm) : -1);
    if (x->gpu_reason)
        ks_jw_kstr(w, "gpu_reason", x->gpu_reason);
    jn(w, "host_wait_ns", x->host_wait, x->host_wait >= 0);
    ks_jw_kuint(w, "kernels", x->kernels);
    ks_jw_kuint(w, "collectives", x->ncolls);
    if (x->colls_reason)
        ks_jw_kstr(w, "collectives_reason", x->colls_reason);
    ks_jw_kbool(w, "aligned", s->aligned);
    ks_jw_kint(w, "clock_offset_ns", s->offset);
    ks_jw_kint(w, "clock_residual_ns", s->residual);
    jn(w, "wait_ns", s->wait, x->ncolls > 0);
    jn(w, "caused_wait_ns", s->caused, x->ncolls > 0);
    ks_jw_kuint(w, "times_last", s->times_last);
    ks_jw_kbool(w, "slow_step", s->slow_step);
    ks_jw_kbool(w, "slow_compute", s->slow_compute);
    ks_jw_end_obj(w);
}

static void json_match(ks_jw *w, const ks_ranks *r, const ks_match *m)
{
    ks_jw_obj(w);
    ks_jw_kstr(w, "name", m->name);
    ks_jw_kstr(w, "group", m->pg);
    ks_jw_kint(w, "index", m->index);
    if (m->last == SIZE_MAX)
        ks_jw_knull(w, "last_rank");
    else
        ks_jw_kint(w, "last_rank", r->v[m->last].rank);
    ks_jw_kint(w, "last_arrival_ns", m->last_arrival);
    ks_jw_kint(w, "transfer_ns", m->after_ns);
    ks_jw_kint(w, "wait_ns", m->wait_ns);
    jn(w, "bytes", m->bytes, m->bytes >= 0);
    ks_jw_kint(w, "group_size", m->group);
    jshare(w, "algbw_gbps", m->algbw);
    jshare(w, "busbw_gbps", m->busbw);
    ks_jw_key(w, "arrivals");
    ks_jw_arr(w);
    for (size_t j = 0; j < m->narr; j++) {
        ks_jw_obj(w);
        ks_jw_kint(w, "rank", r->v[m->arr[j].rank].rank);
        ks_jw_kint(w, "arrival_ns", m->arr[j].arrival);
        ks_jw_kint(w, "wait_ns", m->arr[j].wait);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_end_obj(w);
}

static void json(FILE *out, const ks_ranks *r)
{
    ks_jw w;
    ks_jw_open(&w, out, 1);
    ks_jw_obj(&w);
    ks_jw_kstr(&w, "schema", "kinesift.ranks/1");
    ks_jw_kuint(&w, "traces", r->n);
    ks_jw_key(&w, "alignment");
    ks_jw_obj(&w);
    ks_jw_kbool(&w, "applied", r->o.align);
    ks_jw_kint(&w, "spread_ns", r->spread);
    ks_jw_kint(&w, "tolerance_ns", r->o.align_tolerance);
    ks_jw_kbool(&w, "trusted", !r->untrusted);
    ks_jw_end_obj(&w);
    ks_jw_key(&w, "ranks");
    ks_jw_arr(&w);
    for (size_t i = 0; i < r->n; i++)
        json_rank(&w, r, i);
    ks_jw_end_arr(&w);
    ks_jw_kint(&w, "total_wait_ns", r->total_wait);
    ks_jw_key(&w, "straggler");
    if (r->straggler == SIZE_MAX)
        ks_jw_null(&w);
    else {
        const ks_rank_stat *s = &r->st[r->straggler];
        ks_jw_obj(&w);
        ks_jw_kint(&w, "rank", r->v[r->straggler].rank);
        ks_jw_kuint(&w, "times_last", s->times_last);
        ks_jw_kint(&w, "caused_wait_ns", s->caused);
        jshare(&w, "share", share(s->caused, r->total_wait));
        ks_jw_key(&w, "before");
        ks_jw_arr(&w);
        for (int t = 0; t < KS_RANK_TOP && r->evidence[t]; t++) {
            ks_jw_obj(&w);
            ks_jw_kstr(&w, "kernel", r->evidence[t]);
            ks_jw_kint(&w, "ns", r->evidence_ns[t]);
            ks_jw_end_obj(&w);
        }
        ks_jw_end_arr(&w);
        ks_jw_kstr(&w, "confidence", ks_ranks_confidence(r));
        ks_jw_end_obj(&w);
    }
    ks_jw_key(&w, "collectives");
    ks_jw_arr(&w);
    for (size_t i = 0; i < r->nm; i++)
        json_match(&w, r, &r->m[i]);
    ks_jw_end_arr(&w);
    ks_jw_key(&w, "unmatched");
    ks_jw_arr(&w);
    for (size_t i = 0; i < r->num; i++) {
        ks_jw_obj(&w);
        ks_jw_kint(&w, "rank", r->v[r->um[i].rank].rank);
        ks_jw_kstr(&w, "name", r->um[i].name);
        ks_jw_kstr(&w, "group", r->um[i].pg);
        ks_jw_kint(&w, "missing", r->um[i].missing);
        ks_jw_end_obj(&w);
    }
    ks_jw_end_arr(&w);
    ks_jw_key(&w, "errors");
    ks_jw_arr(&w);
    for (size_t i = 0; i < r->nerrors; i++) {
        ks_jw_obj(&w);
        ks_jw_kstr(&w, "input", r->error_input[i]);
        ks_jw_kstr(&w, "error", r->error_message[i]);
        ks_jw_end_obj(&w);
    }
    ks_jw_end_arr(&w);
    ks_jw_end_obj(&w);
    ks_jw_close(&w);
    fputc('\n', out);
}

static void csv_n(FILE *out, ks_ns v, int observed)
{
    if (observed)
        fprintf(out, ",%" PRId64, v);
    else
        fputc(',', out);
}

static void csv(FILE *out, const ks_ranks *r, int markdown)
{
    const char *sep = markdown ? " | " : ",";
    if (markdown) {
        fputs("| rank | rule | steps | step_median_ns | step_p90_ns | gpu_busy_ns | compute_ns | communication_ns | "
              "exposed_communication_ns | host_wait_ns | kernels | clock_offset_ns | wait_ns | caused_wait_ns | "
              "times_last | source |\n|", out);
        for (int i = 0; i < 16; i++)
            fputs("---|", out);
        fputc('\n', out);
    } else
        fputs("rank,rule,steps,step_median_ns,step_p90_ns,gpu_busy_ns,compute_ns,communication_ns,"
              "exposed_communication_ns,host_wait_ns,kernels,clock_offset_ns,wait_ns,caused_wait_ns,times_last,source\n", out);
    for (size_t i = 0; i < r->n; i++) {
        const ks_rank *x = &r->v[i];
        const ks_rank_stat *s = &r->st[i];
        int g = !x->gpu_reason;
        char line[1024];
        FILE *m = fmemopen(line, sizeof line, "w");
        fprintf(m, "%" PRId64 ",%s,%zu", x->rank, ks_rank_rule_name(x->rule), x->steps);
        csv_n(m, x->step_median, x->steps > 0);
        csv_n(m, x->step_p90, x->steps > 0);
        csv_n(m, x->gpu_busy, g);
        csv_n(m, x->compute, g);
        csv_n(m, x->comm, g);
        csv_n(m, x->exposed, g);
        csv_n(m, x->host_wait, x->host_wait >= 0);
        fprintf(m, ",%" PRIu64 ",%" PRId64, x->kernels, s->offset);
        csv_n(m, s->wait, x->ncolls > 0);
        csv_n(m, s->caused, x->ncolls > 0);
        fprintf(m, ",%" PRIu64 ",", s->times_last);
        fclose(m);
        if (markdown) {
            fputs("| ", out);
            for (const char *p = line; *p; p++)
                if (*p == ',')
                    fputs(sep, out);
                else
                    fputc(*p, out);
            fprintf(out, "%s |\n", x->source);
        } else {
            fputs(line, out);
            ks_csv_field(out, x->source);
            fputc('\n', out);
        }
    }
    if (markdown) {
        fputs("\n**Diagnosis**\n\n", out);
        straggler_text(out, r, "- ");
        errors_text(out, r, "- ");
    }
}

void ks_ranks_report(FILE *out, const ks_ranks *r, int format)
{
    if (format == 1)
        json(out, r);
    else if (format == 2)
        csv(out, r, 0);
    else if (format == 3)
        csv(out, r, 1);
    else {
        text(out, r);
        errors_text(out, r, "  ");
    }
}
