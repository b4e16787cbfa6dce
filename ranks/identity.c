/* ranks/identity.c: which rank each trace is. distributedInfo.rank first, else the file name
 * (rank-3, rank_3, rank3, or _3. as in trace_3.json), else the input order (the smallest rank no
 * other trace took, so a trace without rank information is never refused). Two traces with the
 * same rank, or world sizes that disagree, are an error naming both files unless allow_mixed. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/ranks.h"

/* The rule that gave a rank its number (here, beside the rules themselves). */
const char *ks_rank_rule_name(ks_rank_rule r)
{
    return r == KS_RANK_DIST ? "distributedInfo" : r == KS_RANK_FILENAME ? "file name" : "input order";
}

static const char *base_name(const char *s)
{
    const char *b = s;
    for (const char *p = s; *p; p++)
        if (*p == '/' || *p == ':')
            b = p + 1;
    return b;
}

static int64_t digits_at(const char *p, const char **end)
{
    int64_t v = 0;
    const char *q = p;
    while (isdigit((unsigned char)*q) && q - p < 12)
        v = v * 10 + (*q++ - '0');
    *end = q;
    return q > p && !isdigit((unsigned char)*q) ? v : -1;
}

int64_t ks_rank_from_name(const char *source)
{
    const char *b = base_name(source), *end;
    for (const char *p = b; *p; p++) {
        if (strncasecmp(p, "rank", 4))
            continue;
        const char *q = p + 4;
        if (*q == '-' || *q == '_')
            q++;
        int64_t v = digits_at(q, &end);
        if (v >= 0)
            return v;
    }
    for (const char *p = b; *p; p++)
        if (*p == '_' && isdigit((unsigned char)p[1])) {
            int64_t v = digits_at(p + 1, &end);
            if (v >= 0 && *end == '.')
                return v;
        }
    return -1;
}

static int cmp_rank(const void *x, const void *y)
{
    const ks_rank *a = x, *b = y;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* A rank a trace asks for (distributedInfo, else its file name) and the trace's input index. */
typedef struct wanted {
    int64_t rank;
    size_t i;
} wanted;

static int cmp_wanted(const void *x, const void *y)
{
    const wanted *a = x, *b = y;
    if (a->rank != b->rank)
        return (a->rank > b->rank) - (a->rank < b->rank);
    return (a->i > b->i) - (a->i < b->i);
}

/* first[i]: the first trace in input order that asks for the rank trace i asks for, when that is
 * an earlier one; -1 otherwise. One sort of the wanted ranks (a search of the earlier traces for
 * each was quadratic in ranks: 16 000 tiny ranks spent 0.6 G instructions there). */
static long *first_asking(const ks_rank *v, size_t n)
{
    wanted *w = ks_xcalloc(n + 1, sizeof *w);
    long *first = ks_xcalloc(n + 1, sizeof *first);
    size_t nw = 0;
    for (size_t i = 0; i < n; i++) {
        first[i] = -1;
        int64_t want = v[i].rank >= 0 ? v[i].rank : v[i].name_rank;
        if (want >= 0)
            w[nw++] = (wanted){want, i};
    }
    ks_qsort(w, nw, sizeof *w, cmp_wanted); /* by rank, then input order: a group's head asked first */
    for (size_t k = 1, head = 0; k < nw; k++) {
        if (w[k].rank != w[head].rank)
            head = k;
        else
            first[w[k].i] = (long)w[head].i;
    }
    free(w);
    return first;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* the traces without a rank take the smallest free ranks, in input order: one pass over the
 * sorted taken ranks (linear after the sort, for thousands of ranks) */
static void fill_free(ks_rank *v, size_t n)
{
    int64_t *taken = ks_xcalloc(n + 1, sizeof *taken);
    size_t nt = 0, t = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].rank >= 0)
            taken[nt++] = v[i].rank;
    ks_qsort(taken, nt, sizeof *taken, cmp_i64);
    int64_t next = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].rank >= 0)
            continue;
        while (t < nt && taken[t] <= next) {
            if (taken[t] == next)
                next++;
            t++;
        }
        v[i].rule = KS_RANK_ORDER;
        v[i].rank = next++;
    }
    free(taken);
}

int ks_ranks_identify(ks_rank *v, size_t n, int allow_mixed, ks_error *err)
{
    /* distributedInfo and file names first, in input order; duplicates found as they come: the
     * first trace asking for a rank takes it */
    long *taker = first_asking(v, n);
    for (size_t i = 0; i < n; i++) {
        int64_t want = v[i].rank >= 0 ? v[i].rank : v[i].name_rank;
        v[i].rule = v[i].rank >= 0 ? KS_RANK_DIST : KS_RANK_FILENAME;
        v[i].rank = -1;
        if (want < 0)
            continue;
        long j = taker[i];
        if (j >= 0 && !allow_mixed) {
            free(taker);
            return ks_error_set(err, "%s and %s are both rank %lld (%s, %s); --allow-mixed to read them anyway",
                                v[j].source, v[i].source, (long long)want, ks_rank_rule_name(v[j].rule),
                                ks_rank_rule_name(v[i].rule));
        }
        if (j < 0)
            v[i].rank = want;
    }
    free(taker);
    fill_free(v, n);
    /* the first pair (by the later one, then the earlier) whose known world sizes differ: until
     * one does, every known size equals the first, so the earlier one is the first known (a
     * scan of every pair was quadratic in ranks) */
    size_t first = 0;
    while (first < n && v[first].world_size < 0)
        first++;
    for (size_t i = first + 1; i < n && !allow_mixed; i++) {
        size_t j = first;
        if (v[i].world_size >= 0 && v[i].world_size != v[j].world_size)
            return ks_error_set(err, "%s (world size %lld) and %s (world size %lld) are not from one job; "
                                "--allow-mixed to read them anyway", v[j].source, (long long)v[j].world_size,
                                v[i].source, (long long)v[i].world_size);
    }
    ks_qsort(v, n, sizeof *v, cmp_rank);
    return KS_OK;
}
