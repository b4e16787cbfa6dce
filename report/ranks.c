/* report/ranks.c: the `kinesift ranks` report in text, JSON (kinesift.ranks/3, docs/ranks.md),
 * CSV (one row per rank) and Markdown. Every figure comes from ks_ranks; nothing is recomputed
 * here but shares and per-(collective, group) totals. Memory: each rank's peaks per device (exact
 * bytes) and, per device kind, the max, median, imbalance and the device closest to its capacity
 * (ks_ranks.mk, ranks/memory.c). Not observed figures are null (JSON, CSV
 * empty) with their reason, "n/a" in text. Deterministic: same input, same bytes. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "algo/intervals.h"
#include "common/jsonw.h"
#include "common/limits.h"
#include "common/util.h"
#include "kinesift/ranks.h"
#include "report/report_int.h"
#include "report/report_util.h"

/* a name or path longer than this is shortened in the middle in text tables (whole in JSON) */
enum { CELL_MAX = 500 };

/* a name or path in a text table: control characters written \xNN (a tab would split the row) */
static const char *cellname(char *buf, size_t n, const char *s)
{
    return ks_text_short_name(s, CELL_MAX, 0, buf, n);
}

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
    return r->untrusted || !r->waits_trusted ? "low" : s->caused > r->total_wait / 2 ? "high" : "medium";
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
    if (r->nevidence) {
        fprintf(out, "%sevidence: longer on it than on the median rank%s:", bullet,
                r->evidence[0].ns != r->evidence[0].median_ns && x->steps ? " (per step)" : "");
        for (size_t t = 0; t < r->nevidence; t++) {
            const ks_evidence *e = &r->evidence[t];
            size_t len = strlen(e->name);
            fprintf(out, "%s %s %.*s%s %s vs %s", t ? ";" : "", e->op ? "op" : "kernel", len > 80 ? 77 : (int)len, e->name,
                    len > 80 ? "..." : "", fmt(b1, sizeof b1, e->ns, 1), fmt(b2, sizeof b2, e->median_ns, 1));
        }
        fputc('\n', out);
    } else
        fprintf(out, "%sevidence: no kernel or op of it takes more than %.4g%% longer than on the median rank\n", bullet,
                r->o.straggler_pct);
    fprintf(out, "%snext check: kinesift diff %s %s (what it runs before the collective that the others do "
            "not, or longer); refuted if its kernels before the collectives take as long as the others' "
            "(then look at its host: data loading, CPU ops)\n", bullet, r->v[r->straggler == 0 && r->n > 1 ? 1 : 0].source,
            x->source);
}


/* "allreduce #3 of step 5" (the call-th of its name in its step) */
static const char *call_text(char *b, size_t n, const char *name, int64_t step, int64_t call)
{
    if (step >= 0)
        snprintf(b, n, "%s #%" PRId64 " of step %" PRId64, name, call, step);
    else
        snprintf(b, n, "%s #%" PRId64 " (outside the steps)", name, call);
    return b;
}

/* ranks as ranges, "0-2, 5" */
static void rank_ranges(FILE *out, const int64_t *v, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        fprintf(out, "%s%" PRId64, i ? ", " : "", v[i]);
        if (j > i)
            fprintf(out, "-%" PRId64, v[j]);
        i = j + 1;
    }
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* the ranks of [0, world) with no trace, read or not (r->absent of them) */
static int64_t *absent_ranks(const ks_ranks *r, size_t *na)
{
    *na = 0;
    if (r->world <= 0 || !r->absent)
        return NULL;
    size_t listed = r->absent < KS_LIMIT_ABSENT_LISTED ? r->absent : KS_LIMIT_ABSENT_LISTED;
    int64_t *have = ks_xcalloc(r->n + r->nerrors + 1, sizeof *have), *v = ks_xcalloc(listed + 1, sizeof *v);
    size_t nh = 0;
    for (size_t i = 0; i < r->n; i++)
        have[nh++] = r->v[i].rank;
    for (size_t i = 0; i < r->nerrors; i++)
        if (r->error_rank && r->error_rank[i] >= 0)
            have[nh++] = r->error_rank[i];
    qsort(have, nh, sizeof *have, cmp_i64);
    size_t h = 0;
    for (int64_t k = 0; k < r->world && *na < listed; k++) {
        while (h < nh && have[h] < k)
            h++;
        if (h >= nh || have[h] != k)
            v[(*na)++] = k;
    }
    free(have);
    return v;
}

static void world_text(FILE *out, const ks_ranks *r)
{
    size_t na;
    int64_t *v = absent_ranks(r, &na);
    if (na) {
        fprintf(out, "\nworld size %" PRId64 " (distributedInfo): %zu rank%s of the job %s no trace here: ", r->world,
                r->absent, r->absent == 1 ? "" : "s", r->absent == 1 ? "has" : "have");
        rank_ranges(out, v, na);
        if (na < r->absent)
            fputs(", ...", out);
        fputs(" (their waits and figures are not observed)\n", out);
    }
    free(v);
}

/* cut ranks: where each ends */
static void cut_text(FILE *out, const ks_ranks *r, const char *bullet)
{
    char b[64], c[96];
    for (size_t i = 0; i < r->n; i++) {
        const ks_rank *x = &r->v[i];
        if (!x->truncated)
            continue;
        fprintf(out, "%srank %" PRId64 " is INCOMPLETE: its trace %s is cut at byte %" PRIu64 " (killed mid-write?); its "
                "recorded work ends at t0+%s", bullet, x->rank, x->source, x->cut_byte,
                fmt(b, sizeof b, x->last_ns - r->st[i].offset - r->t0, 1));
        if (r->st[i].last_match != SIZE_MAX) {
            const ks_match *m = &r->m[r->st[i].last_match];
            fprintf(out, ", after its last collective %s", call_text(c, sizeof c, m->name, m->step, m->call));
        }
        if (r->st[i].unrecorded)
            fprintf(out, "; %zu call%s of the others in its steps %s not in it (cut away or never made: a cut "
                    "trace cannot tell)", r->st[i].unrecorded, r->st[i].unrecorded == 1 ? "" : "s",
                    r->st[i].unrecorded == 1 ? "is" : "are");
        fputs("; it is kept out of the straggler, and those calls are not called missed\n", out);
    }
}

static void missing_text(FILE *out, const ks_ranks *r, const char *bullet)
{
    char c[96], b[32];
    size_t shown = r->num < KS_LIMIT_MISSED_TEXT ? r->num : KS_LIMIT_MISSED_TEXT;
    for (size_t i = 0; i < shown; i++) {
        const ks_unmatched *u = &r->um[i];
        call_text(c, sizeof c, u->name, u->step, u->call);
        if (u->kind == KS_MISS_SKIPPED)
            fprintf(out, "%srank %" PRId64 " never entered %s (group %s), which the others entered at t0+%s; its later "
                    "calls still match\n", bullet, r->v[u->rank].rank, c, u->pg[0] ? u->pg : "?", fmt(b, sizeof b, u->at - r->t0, 1));
        else if (u->kind == KS_MISS_NEVER_ARRIVED)
            fprintf(out, "%srank %" PRId64 " never arrived at %s (group %s), which the others entered at t0+%s: it made no "
                    "later call of the group (a hang, or its capture ended first)\n", bullet, r->v[u->rank].rank, c,
                    u->pg[0] ? u->pg : "?", fmt(b, sizeof b, u->at - r->t0, 1));
        else
            fprintf(out, "%srank %" PRId64 " made a call the others did not: %s (group %s) at t0+%s\n", bullet,
                    r->v[u->rank].rank, c, u->pg[0] ? u->pg : "?", fmt(b, sizeof b, u->at - r->t0, 1));
    }
    if (r->num > shown)
        fprintf(out, "%s... and %zu more (--format json lists them all)\n", bullet, r->num - shown);
}

/* the hang view: the last collective each rank entered, ranks grouped by it, latest first */
static void hang_text(FILE *out, const ks_ranks *r)
{
    size_t *order = ks_xcalloc(r->n + 1, sizeof *order), no = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->st[i].last_match != SIZE_MAX)
            order[no++] = i;
    if (!no) {
        free(order);
        return;
    }
    /* sort by the last match's last arrival, latest first, then rank */
    for (size_t a = 1; a < no; a++)
        for (size_t b = a; b > 0; b--) {
            const ks_match *p = &r->m[r->st[order[b - 1]].last_match], *q = &r->m[r->st[order[b]].last_match];
            if (p->last_arrival > q->last_arrival || (p == q && order[b - 1] < order[b]) ||
                (p != q && p->last_arrival == q->last_arrival && r->st[order[b - 1]].last_match < r->st[order[b]].last_match))
                break;
            size_t t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    char c[96], b[32];
    int64_t *rk = ks_xcalloc(r->n + 1, sizeof *rk);
    fputs("\nlast collective entered (the hang view; latest first):\n", out);
    for (size_t a = 0; a < no;) {
        size_t e = a, nk = 0;
        while (e < no && r->st[order[e]].last_match == r->st[order[a]].last_match)
            rk[nk++] = r->v[order[e++]].rank;
        const ks_match *m = &r->m[r->st[order[a]].last_match];
        fprintf(out, "  %s (group %s, last arrival t0+%s): rank%s ", call_text(c, sizeof c, m->name, m->step, m->call),
                m->pg[0] ? m->pg : "?", fmt(b, sizeof b, m->last_arrival - r->t0, 1), nk == 1 ? "" : "s");
        qsort(rk, nk, sizeof *rk, cmp_i64);
        rank_ranges(out, rk, nk);
        fputc('\n', out);
        a = e;
    }
    for (size_t i = 0; i < r->n; i++)
        if (r->st[i].last_match == SIZE_MAX && r->v[i].ncolls == 0)
            fprintf(out, "  none: rank %" PRId64 " (%s)\n", r->v[i].rank,
                    r->v[i].colls_reason ? r->v[i].colls_reason : "no matched collective");
    free(rk);
    free(order);
}

static void bw_text(FILE *out, const ks_ranks *r)
{
    char b[32], lo[32], hi[32], al[32], bu[32];
    if (r->nbw) {
        fprintf(out, "\nbandwidth by message size (time outside waiting = the last arrival's kernel):\n"
                     KS_TEXT_LEFT "collective\tbytes\tcalls\ttransfer_med\talgbw_med\tbusbw_med\t\n");
        for (size_t i = 0; i < r->nbw; i++) {
            const ks_bw_row *w = &r->bw[i];
            ks_fmt_bytes(lo, sizeof lo, (uint64_t)w->lo);
            ks_fmt_bytes(hi, sizeof hi, (uint64_t)w->hi);
            char range[64];
            snprintf(range, sizeof range, "%s-%s", lo, hi);
            if (w->algbw_median >= 0)
                snprintf(al, sizeof al, "%.2f GB/s", w->algbw_median);
            else
                strcpy(al, "n/a");
            if (w->busbw_median >= 0)
                snprintf(bu, sizeof bu, "%.2f GB/s", w->busbw_median);
            else
                strcpy(bu, "n/a");
            char nb[CELL_MAX * 4 + 16];
            fprintf(out, KS_TEXT_LEFT "%s\t%s\t%zu\t%s\t%s\t%s\t\n", cellname(nb, sizeof nb, w->name), range, w->calls,
                    fmt(b, sizeof b, w->transfer_median, 1), al, bu);
        }
    }
    const ks_dur_matrix *d = &r->dm;
    if (!d->ncols)
        return;
    fputs("\ncollective time by rank (sum of its kernels over the matched calls, waits included):\n", out);
    fprintf(out, KS_TEXT_LEFT "rank");
    for (size_t c = 0; c < d->ncols; c++) {
        char nb[CELL_MAX * 4 + 16], pg[CELL_MAX * 4 + 16];
        fprintf(out, "\t%s@%s", cellname(nb, sizeof nb, d->name[c]), cellname(pg, sizeof pg, d->pg[c][0] ? d->pg[c] : "?"));
    }
    fputs("\t\n", out);
    for (size_t i = 0; i < r->n; i++) {
        fprintf(out, KS_TEXT_LEFT "%" PRId64, r->v[i].rank);
        for (size_t c = 0; c < d->ncols; c++)
            fprintf(out, "\t%s", fmt(b, sizeof b, d->ns[i * d->ncols + c], d->ns[i * d->ncols + c] >= 0));
        fputs("\t\n", out);
    }
}

void ks_rank_mem_label(char *b, size_t n, const ks_rank_mem *m)
{
    if (m->device_type == 0 && m->device_id == -1)
        snprintf(b, n, "CPU");
    else if (m->type_name)
        snprintf(b, n, "%s %d", m->type_name, (int)m->device_id);
    else
        snprintf(b, n, "device type %d id %d", (int)m->device_type, (int)m->device_id);
}

void ks_mem_kind_device_label(char *b, size_t n, const ks_mem_kind *k, int32_t device)
{
    ks_rank_mem m = {.device_type = k->device_type, .device_id = device, .type_name = (char *)k->type_name};
    ks_rank_mem_label(b, n, &m);
}

void ks_mem_kind_label(char *b, size_t n, const ks_mem_kind *k)
{
    if (k->type_name)
        snprintf(b, n, "%s", k->type_name);
    else
        snprintf(b, n, "device type %d", (int)k->device_type);
}

static const char *bytes_or(char *b, size_t n, int64_t v)
{
    if (v < 0)
        return "n/a";
    ks_fmt_bytes(b, n, (uint64_t)v);
    return b;
}

static double mem_share(int64_t v, int64_t capacity)
{
    return v >= 0 && capacity > 0 ? (double)v / (double)capacity : -1.0;
}

/* each rank's peaks per device, then per device kind the spread and the device closest to its capacity */
static void memory_text(FILE *out, const ks_ranks *r)
{
    char lab[64], dev[64], b[5][32];
    if (!r->mem_ranks) {
        fprintf(out, "\nmemory: not observed on any rank (%s)\n",
                r->n && r->v[0].mem_reason ? r->v[0].mem_reason : "no [memory] events");
        return;
    }
    fprintf(out, "\nmemory peaks per device (exact bytes: --format json):\n" KS_TEXT_LEFT "rank\t" KS_TEXT_LEFT
                 "device\tpeak_allocated\tpeak_reserved\tcapacity\talloc%%\tresv%%\t\n");
    for (size_t i = 0; i < r->n; i++) {
        const ks_rank *x = &r->v[i];
        for (size_t j = 0; j < x->nmem; j++) {
            const ks_rank_mem *m = &x->mem[j];
            ks_rank_mem_label(lab, sizeof lab, m);
            fprintf(out, KS_TEXT_LEFT "%" PRId64 "\t" KS_TEXT_LEFT "%s\t%s\t%s\t%s\t%s\t%s\t\n", x->rank, lab,
                    bytes_or(b[0], 32, m->peak_allocated), bytes_or(b[1], 32, m->peak_reserved),
                    m->capacity > 0 ? bytes_or(b[2], 32, m->capacity) : "unknown",
                    pct(b[3], 32, mem_share(m->peak_allocated, m->capacity)),
                    pct(b[4], 32, mem_share(m->peak_reserved, m->capacity)));
        }
    }
    for (size_t i = 0; i < r->n; i++)
        if (!r->v[i].nmem)
            fprintf(out, "  rank %" PRId64 ": memory %s\n", r->v[i].rank, r->v[i].mem_reason ? r->v[i].mem_reason : "not observed");
    for (size_t i = 0; i < r->nmk; i++) {
        const ks_mem_kind *k = &r->mk[i];
        ks_mem_kind_label(lab, sizeof lab, k);
        if (!k->devices) {
            fprintf(out, "%s: peaks not observed on its %zu device%s (the events carry no Total Allocated)\n", lab,
                    k->no_peak, k->no_peak == 1 ? "" : "s");
            continue;
        }
        ks_mem_kind_device_label(dev, sizeof dev, k, k->max_device);
        fprintf(out, "%s: peak allocated max %s (rank %" PRId64 ", %s), median %s", lab,
                bytes_or(b[0], 32, k->max_allocated), r->v[k->max_rank].rank, dev,
                bytes_or(b[1], 32, k->median_allocated));
        if (k->imbalance >= 0)
            fprintf(out, ", imbalance %.3fx (max/median)", k->imbalance);
        else
            fputs(", imbalance n/a (median 0)", out);
        fprintf(out, " over %zu device%s of %zu rank%s", k->devices, k->devices == 1 ? "" : "s", k->ranks,
                k->ranks == 1 ? "" : "s");
        if (k->no_peak)
            fprintf(out, " (%zu more without Total Allocated)", k->no_peak);
        if (k->max_reserved >= 0) {
            fprintf(out, "; reserved max %s, median %s", bytes_or(b[0], 32, k->max_reserved),
                    bytes_or(b[1], 32, k->median_reserved));
            if (k->reserved_imbalance >= 0)
                fprintf(out, ", %.3fx", k->reserved_imbalance);
        }
        fputc('\n', out);
        if (k->cap_rank == SIZE_MAX)
            fprintf(out, "  closest to its capacity: not observed (capacity unknown: deviceProperties gives no "
                    "totalGlobalMem for %s)\n", k->device_type == 0 ? "the CPU" : "these devices");
        else {
            ks_mem_kind_device_label(dev, sizeof dev, k, k->cap_device);
            fprintf(out, "  closest to its capacity: rank %" PRId64 ", %s: %s of %s (%s)", r->v[k->cap_rank].rank,
                    dev, bytes_or(b[0], 32, k->cap_allocated), bytes_or(b[1], 32, k->cap_capacity),
                    pct(b[2], 32, k->cap_share));
            if (k->no_capacity)
                fprintf(out, "; capacity unknown for %zu device%s", k->no_capacity, k->no_capacity == 1 ? "" : "s");
            fputc('\n', out);
        }
    }
}

static void verdict_text(FILE *out, const ks_ranks *r)
{
    if (r->waits_trusted)
        fprintf(out, "\nwaits: trusted (clocks agree, every rank aligned)");
    else
        fprintf(out, "\nwaits: NOT trusted: %s", r->trust_reason ? r->trust_reason : "");
    fprintf(out, "; %s; exit status %d\n",
            r->truncated || r->nerrors ? (r->allow_incomplete ? "incomplete job (--allow-incomplete)" : "incomplete job")
                                       : "every rank read whole", r->exit_status);
}

/* the inputs not read, after the report (text and markdown) */
static void errors_text(FILE *out, const ks_ranks *r, const char *bullet)
{
    if (!r->nerrors)
        return;
    fprintf(out, "\n%zu input%s not read (the ranks above are the others%s):\n", r->nerrors,
            r->nerrors == 1 ? "" : "s", r->allow_incomplete ? "; --allow-incomplete" : "; exit status 2");
    for (size_t i = 0; i < r->nerrors; i++) {
        if (r->error_rank && r->error_rank[i] >= 0)
            fprintf(out, "%srank %" PRId64 " (file name): unreadable: %s\n", bullet, r->error_rank[i], r->error_message[i]);
        else
            fprintf(out, "%s%s\n", bullet, r->error_message[i]);
    }
}

static void text(FILE *out, const ks_ranks *r)
{
    char b[10][32], src[CELL_MAX * 4 + 16];
    fprintf(out, "ranks: %zu traces", r->n);
    if (max_world(r) >= 0)
        fprintf(out, ", world size %" PRId64, max_world(r));
    fprintf(out, ", %zu collectives matched, %zu call%s missed\n", r->nm, r->num, r->num == 1 ? "" : "s");
    cut_text(out, r, "  ");
    world_text(out, r);
    fprintf(out, "\nclock alignment (offset at t0, the reference's first collective end, and drift subtracted from each "
            "rank's times; spread = largest residual %s)%s\n",
            fmt(b[0], 32, r->spread, 1), r->untrusted ? ": WARNING the spread is above the tolerance, waits are not to be trusted" : "");
    for (size_t i = 0; i < r->n; i++) {
        const ks_rank_stat *s = &r->st[i];
        if (!s->aligned)
            fprintf(out, "  rank %-5" PRId64 " not aligned: no collective shared with the reference\n", r->v[i].rank);
        else if (s->slope_ppm != 0)
            fprintf(out, "  rank %-5" PRId64 " offset %+" PRId64 " ns, drift not fitted (the ends' slope, %+.3f ppm, is "
                    "no clock's drift: calls that do not synchronise, or paired wrongly), residual %s\n", r->v[i].rank,
                    s->offset, s->slope_ppm, fmt(b[0], 32, s->residual, 1));
        else
            fprintf(out, "  rank %-5" PRId64 " offset %+" PRId64 " ns, drift %+.3f ppm, residual %s\n", r->v[i].rank,
                    s->offset, s->drift_ppm, fmt(b[0], 32, s->residual, 1));
    }
    fprintf(out, "\n" KS_TEXT_LEFT "rank\t" KS_TEXT_LEFT "rule\tsteps\tstep_med\tstep_p90\tbusy\tcompute\tcomm\texposed\t"
                 "overlap\thost_wait\tkernels\twait\tcaused\tlast\tsource\n");
    for (size_t i = 0; i < r->n; i++) {
        const ks_rank *x = &r->v[i];
        const ks_rank_stat *s = &r->st[i];
        int g = !x->gpu_reason;
        fprintf(out, KS_TEXT_LEFT "%" PRId64 "\t" KS_TEXT_LEFT "%s\t%zu\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%" PRIu64
                     "\t%s\t%s\t%" PRIu64 "\t%s\n",
                x->rank, ks_rank_rule_name(x->rule), x->steps, fmt(b[0], 32, x->step_median, x->steps > 0),
                fmt(b[1], 32, x->step_p90, x->steps > 0), pct(b[2], 32, g ? share(x->gpu_busy, x->gpu_span) : -1),
                fmt(b[3], 32, x->compute, g), fmt(b[4], 32, x->comm, g), fmt(b[5], 32, x->exposed, g),
                pct(b[6], 32, g ? share(x->comm - x->exposed, x->comm) : -1), fmt(b[7], 32, x->host_wait, x->host_wait >= 0),
                x->kernels, fmt(b[8], 32, s->wait, x->ncolls > 0), fmt(b[9], 32, s->caused, x->ncolls > 0), s->times_last,
                cellname(src, sizeof src, x->source));
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
        fprintf(out, "\n" KS_TEXT_LEFT "collective\t" KS_TEXT_LEFT "group\tcalls\tbytes_med\ttransfer_med\tbusbw_med\t"
                     "wait_total\t\n");
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
            char nb[CELL_MAX * 4 + 16], pg[CELL_MAX * 4 + 16];
            fprintf(out, KS_TEXT_LEFT "%s\t" KS_TEXT_LEFT "%s\t%zu\t%s\t%s\t%s\t%s\t\n", cellname(nb, sizeof nb, k[i].name),
                    cellname(pg, sizeof pg, k[i].pg[0] ? k[i].pg : "?"),
                    k[i].calls,
                    by, fmt(b[0], 32, k[i].after_median, 1), bw, fmt(b[1], 32, k[i].wait, 1));
        }
    }
    free(k);
    bw_text(out, r);
    memory_text(out, r);
    if (r->num) {
        fputs("\ncalls missed:\n", out);
        missing_text(out, r, "  ");
    }
    hang_text(out, r);
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

/* a rank's "memory": one object per device, exact bytes, or null with "memory_reason" */
static void json_rank_memory(ks_jw *w, const ks_rank *x)
{
    ks_jw_key(w, "memory");
    if (!x->nmem) {
        ks_jw_null(w);
        ks_jw_kstr(w, "memory_reason", x->mem_reason ? x->mem_reason : "not observed");
        return;
    }
    ks_jw_arr(w);
    for (size_t j = 0; j < x->nmem; j++) {
        const ks_rank_mem *m = &x->mem[j];
        ks_jw_obj(w);
        if (m->type_name)
            ks_jw_kstr(w, "device_type", m->type_name);
        else
            ks_jw_knull(w, "device_type");
        jn(w, "device_type_id", m->device_type, m->device_type >= 0);
        jn(w, "device", m->device_id, m->device_id != INT32_MIN);
        jn(w, "peak_allocated_bytes", m->peak_allocated, m->peak_allocated >= 0);
        if (m->peak_allocated < 0)
            ks_jw_kstr(w, "peak_reason", "not observed: the events carry no Total Allocated (PyTorch before 1.10)");
        jn(w, "peak_reserved_bytes", m->peak_reserved, m->peak_reserved >= 0);
        jn(w, "capacity_bytes", m->capacity, m->capacity > 0);
        jshare(w, "peak_share_of_capacity", mem_share(m->peak_allocated, m->capacity));
        jshare(w, "peak_reserved_share_of_capacity", mem_share(m->peak_reserved, m->capacity));
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_knull(w, "memory_reason");
}

/* "memory" across ranks: per device kind, or null with "memory_reason" when no rank has any */
static void json_memory(ks_jw *w, const ks_ranks *r)
{
    ks_jw_key(w, "memory");
    if (!r->mem_ranks) {
        ks_jw_null(w);
        ks_jw_kstr(w, "memory_reason", r->n && r->v[0].mem_reason ? r->v[0].mem_reason : "not observed");
        return;
    }
    ks_jw_obj(w);
    ks_jw_kuint(w, "ranks_with_memory", r->mem_ranks);
    ks_jw_key(w, "ranks_without_memory");
    ks_jw_arr(w);
    for (size_t i = 0; i < r->n; i++)
        if (!r->v[i].nmem)
            ks_jw_int(w, r->v[i].rank);
    ks_jw_end_arr(w);
    ks_jw_key(w, "kinds");
    ks_jw_arr(w);
    for (size_t i = 0; i < r->nmk; i++) {
        const ks_mem_kind *k = &r->mk[i];
        int has = k->devices > 0;
        ks_jw_obj(w);
        if (k->type_name)
            ks_jw_kstr(w, "device_type", k->type_name);
        else
            ks_jw_knull(w, "device_type");
        jn(w, "device_type_id", k->device_type, k->device_type >= 0);
        ks_jw_kuint(w, "devices", k->devices);
        ks_jw_kuint(w, "ranks", k->ranks);
        ks_jw_kuint(w, "peak_not_observed", k->no_peak);
        jn(w, "max_allocated_bytes", k->max_allocated, has);
        jn(w, "max_rank", has ? r->v[k->max_rank].rank : 0, has);
        jn(w, "max_device", k->max_device, has && k->max_device != INT32_MIN);
        jn(w, "median_allocated_bytes", k->median_allocated, has);
        jshare(w, "imbalance", k->imbalance);
        jn(w, "max_reserved_bytes", k->max_reserved, k->max_reserved >= 0);
        jn(w, "median_reserved_bytes", k->median_reserved, k->max_reserved >= 0);
        jshare(w, "reserved_imbalance", k->reserved_imbalance);
        ks_jw_key(w, "closest_to_capacity");
        if (k->cap_rank == SIZE_MAX) {
            ks_jw_null(w);
            ks_jw_kstr(w, "closest_to_capacity_reason", !has ? "not observed: no peak (no Total Allocated)"
                 : k->device_type == 0 ? "not observed: capacity unknown (deviceProperties gives no totalGlobalMem for the CPU)"
                                       : "not observed: capacity unknown (deviceProperties gives no totalGlobalMem for these devices)");
        } else {
            ks_jw_obj(w);
            ks_jw_kint(w, "rank", r->v[k->cap_rank].rank);
            jn(w, "device", k->cap_device, k->cap_device != INT32_MIN);
            ks_jw_kint(w, "peak_allocated_bytes", k->cap_allocated);
            ks_jw_kint(w, "capacity_bytes", k->cap_capacity);
            ks_jw_kdouble(w, "share", k->cap_share);
            ks_jw_end_obj(w);
            ks_jw_knull(w, "closest_to_capacity_reason");
        }
        ks_jw_kuint(w, "capacity_unknown_devices", k->no_capacity);
        ks_jw_end_obj(w);
    }
    ks_jw_end_arr(w);
    ks_jw_end_obj(w);
    ks_jw_knull(w, "memory_reason");
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
    jn(w, "first_step", x->first_step, x->first_step >= 0);
    jn(w, "last_step", x->last_step, x->last_step >= 0);
    ks_jw_kbool(w, "truncated", x->truncated);
    if (x->truncated) {
        ks_jw_kuint(w, "cut_byte", x->cut_byte);
        ks_jw_kint(w, "last_ns", x->last_ns - s->offset);
        ks_jw_kuint(w, "unrecorded_calls", s->unrecorded);
    }
    ks_jw_kbool(w, "aligned", s->aligned);
    ks_jw_kint(w, "clock_offset_ns", s->offset);
    ks_jw_kdouble(w, "clock_drift_ppm", s->drift_ppm);
    if (s->slope_ppm != 0)
        ks_jw_kdouble(w, "clock_slope_rejected_ppm", s->slope_ppm);
    else
        ks_jw_knull(w, "clock_slope_rejected_ppm");
    ks_jw_kint(w, "clock_residual_ns", s->residual);
    jn(w, "wait_ns", s->wait, x->ncolls > 0);
    jn(w, "caused_wait_ns", s->caused, x->ncolls > 0);
    ks_jw_kuint(w, "times_last", s->times_last);
    ks_jw_key(w, "last_collective");
    if (s->last_match == SIZE_MAX)
        ks_jw_null(w);
    else {
        const ks_match *m = &r->m[s->last_match];
        ks_jw_obj(w);
        ks_jw_kstr(w, "name", m->name);
        ks_jw_kstr(w, "group", m->pg);
        ks_jw_kint(w, "index", m->index);
        jn(w, "step", m->step, m->step >= 0);
        ks_jw_kint(w, "call", m->call);
        ks_jw_end_obj(w);
    }
    ks_jw_kbool(w, "slow_step", s->slow_step);
    ks_jw_kbool(w, "slow_compute", s->slow_compute);
    json_rank_memory(w, x);
    ks_jw_end_obj(w);
}

static void json_match(ks_jw *w, const ks_ranks *r, const ks_match *m)
{
    ks_jw_obj(w);
    ks_jw_kstr(w, "name", m->name);
    ks_jw_kstr(w, "group", m->pg);
    ks_jw_kint(w, "index", m->index);
    jn(w, "step", m->step, m->step >= 0);
    ks_jw_kint(w, "call", m->call);
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
        ks_jw_kint(w, "duration_ns", m->arr[j].c->end - m->arr[j].c->start);
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
    ks_jw_kstr(&w, "schema", "kinesift.ranks/3");
    ks_jw_kuint(&w, "traces", r->n);
    jn(&w, "world_size", r->world, r->world >= 0);
    size_t na;
    int64_t *abs = absent_ranks(r, &na);
    ks_jw_kuint(&w, "absent", r->absent);
    ks_jw_kints(&w, "absent_ranks", abs, na);
    free(abs);
    ks_jw_key(&w, "verdict");
    ks_jw_obj(&w);
    ks_jw_kbool(&w, "complete", !r->truncated && !r->nerrors);
    ks_jw_kbool(&w, "allow_incomplete", r->allow_incomplete);
    ks_jw_kbool(&w, "waits_trusted", r->waits_trusted);
    if (r->trust_reason)
        ks_jw_kstr(&w, "reason", r->trust_reason);
    else
        ks_jw_knull(&w, "reason");
    ks_jw_kint(&w, "exit_status", r->exit_status);
    ks_jw_end_obj(&w);
    ks_jw_key(&w, "alignment");
    ks_jw_obj(&w);
    ks_jw_kbool(&w, "applied", r->o.align);
    ks_jw_kint(&w, "t0_ns", r->t0);
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
        ks_jw_key(&w, "evidence");
        ks_jw_arr(&w);
        for (size_t t = 0; t < r->nevidence; t++) {
            ks_jw_obj(&w);
            ks_jw_kstr(&w, "name", r->evidence[t].name);
            ks_jw_kstr(&w, "kind", r->evidence[t].op ? "op" : "kernel");
            ks_jw_kint(&w, "ns", r->evidence[t].ns);
            ks_jw_kint(&w, "median_ns", r->evidence[t].median_ns);
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
        jn(&w, "step", r->um[i].step, r->um[i].step >= 0);
        ks_jw_kint(&w, "call", r->um[i].call);
        ks_jw_kstr(&w, "kind", ks_miss_kind_name(r->um[i].kind));
        ks_jw_kint(&w, "at_ns", r->um[i].at);
        ks_jw_end_obj(&w);
    }
    ks_jw_end_arr(&w);
    ks_jw_key(&w, "bandwidth");
    ks_jw_arr(&w);
    for (size_t i = 0; i < r->nbw; i++) {
        const ks_bw_row *b = &r->bw[i];
        ks_jw_obj(&w);
        ks_jw_kstr(&w, "name", b->name);
        ks_jw_kint(&w, "bytes_from", b->lo);
        ks_jw_kint(&w, "bytes_to", b->hi);
        ks_jw_kuint(&w, "calls", b->calls);
        ks_jw_kint(&w, "transfer_median_ns", b->transfer_median);
        jshare(&w, "algbw_median_gbps", b->algbw_median);
        jshare(&w, "busbw_median_gbps", b->busbw_median);
        ks_jw_end_obj(&w);
    }
    ks_jw_end_arr(&w);
    ks_jw_key(&w, "duration_matrix");
    ks_jw_obj(&w);
    ks_jw_key(&w, "columns");
    ks_jw_arr(&w);
    for (size_t c = 0; c < r->dm.ncols; c++) {
        ks_jw_obj(&w);
        ks_jw_kstr(&w, "name", r->dm.name[c]);
        ks_jw_kstr(&w, "group", r->dm.pg[c]);
        ks_jw_end_obj(&w);
    }
    ks_jw_end_arr(&w);
    ks_jw_key(&w, "ranks");
    ks_jw_arr(&w);
    for (size_t i = 0; i < r->n && r->dm.ncols; i++) {
        ks_jw_obj(&w);
        ks_jw_kint(&w, "rank", r->v[i].rank);
        ks_jw_key(&w, "ns");
        ks_jw_arr(&w);
        for (size_t c = 0; c < r->dm.ncols; c++) {
            ks_ns v = r->dm.ns[i * r->dm.ncols + c];
            if (v >= 0)
                ks_jw_int(&w, v);
            else
                ks_jw_null(&w);
        }
        ks_jw_end_arr(&w);
        ks_jw_end_obj(&w);
    }
    ks_jw_end_arr(&w);
    ks_jw_end_obj(&w);
    json_memory(&w, r);
    ks_jw_key(&w, "errors");
    ks_jw_arr(&w);
    for (size_t i = 0; i < r->nerrors; i++) {
        ks_jw_obj(&w);
        ks_jw_kstr(&w, "input", r->error_input[i]);
        jn(&w, "rank", r->error_rank ? r->error_rank[i] : -1, r->error_rank && r->error_rank[i] >= 0);
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
              "times_last | truncated | source |\n|", out);
        for (int i = 0; i < 17; i++)
            fputs("---|", out);
        fputc('\n', out);
    } else
        fputs("rank,rule,steps,step_median_ns,step_p90_ns,gpu_busy_ns,compute_ns,communication_ns,"
              "exposed_communication_ns,host_wait_ns,kernels,clock_offset_ns,wait_ns,caused_wait_ns,times_last,truncated,source\n", out);
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
        fprintf(m, ",%" PRIu64 ",%d,", s->times_last, x->truncated);
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
        cut_text(out, r, "- ");
        missing_text(out, r, "- ");
        straggler_text(out, r, "- ");
        errors_text(out, r, "- ");
        verdict_text(out, r);
    }
}

void ks_ranks_report(FILE *out, const ks_ranks *r, int format, size_t width)
{
    if (format == KS_FORMAT_JSON)
        json(out, r);
    else if (format == KS_FORMAT_CSV)
        csv(out, r, 0);
    else if (format == KS_FORMAT_MARKDOWN)
        csv(out, r, 1);
    else {
        ks_text_buf tb;
        FILE *t = ks_text_begin(&tb, out); /* fitted to the width at the end (report/textfit.c) */
        text(t, r);
        errors_text(t, r, "  ");
        verdict_text(t, r);
        ks_text_end(&tb, out, width);
    }
}
