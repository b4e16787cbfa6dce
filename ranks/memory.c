/* ranks/memory.c: memory across ranks, per device kind (Device Type: CPU, CUDA, HIP...). Each rank
 * carries its peaks per device (ks_rank.mem, exact bytes from the memory pass); over the (rank,
 * device) pairs of a kind whose events carry Total Allocated: the largest peak and where it is, the
 * median (the house median, ks_quantile_ns), their ratio (the imbalance: one card running out while
 * the others have room shows here, not in a sum), the same for Total Reserved, and the pair
 * closest to its capacity (the highest peak allocated / deviceProperties totalGlobalMem over the
 * pairs whose capacity is known). A rank without memory events takes no part (its reason says
 * why); a pair whose peak is not observed is counted, never taken as 0. */
#include <stdlib.h>
#include <string.h>

#include "algo/intervals.h"
#include "common/util.h"
#include "ranks/ranks_int.h"

static int cmp_i32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* max, median and max / median of v (n > 0 values, sorted here) */
static void spread(ks_ns *v, size_t n, int64_t *max, int64_t *median, double *ratio)
{
    ks_sort_ns(v, n);
    *max = v[n - 1];
    *median = ks_quantile_ns(v, n, 50);
    *ratio = *median > 0 ? (double)*max / (double)*median : -1.0;
}

static void one_kind(ks_ranks *r, ks_mem_kind *k, ks_ns *alloc, ks_ns *resv)
{
    size_t na = 0, nr = 0;
    k->max_rank = k->cap_rank = SIZE_MAX;
    k->max_reserved = k->median_reserved = -1;
    k->imbalance = k->reserved_imbalance = k->cap_share = -1.0;
    k->cap_allocated = k->cap_capacity = -1;
    for (size_t i = 0; i < r->n; i++) {
        const ks_rank *x = &r->v[i];
        int counted = 0;
        for (size_t j = 0; j < x->nmem; j++) {
            const ks_rank_mem *m = &x->mem[j];
            if (m->device_type != k->device_type)
                continue;
            if (!k->type_name && m->type_name)
                k->type_name = m->type_name;
            if (m->peak_reserved >= 0)
                resv[nr++] = m->peak_reserved;
            if (m->peak_allocated < 0) {
                k->no_peak++;
                continue;
            }
            alloc[na++] = m->peak_allocated;
            k->devices++;
            counted = 1;
            if (k->max_rank == SIZE_MAX || m->peak_allocated > k->max_allocated) {
                k->max_allocated = m->peak_allocated;
                k->max_rank = i;
                k->max_device = m->device_id;
            }
            if (m->capacity <= 0) {
                k->no_capacity++;
                continue;
            }
            double s = (double)m->peak_allocated / (double)m->capacity;
            if (k->cap_rank == SIZE_MAX || s > k->cap_share) {
                k->cap_share = s;
                k->cap_rank = i;
                k->cap_device = m->device_id;
                k->cap_allocated = m->peak_allocated;
                k->cap_capacity = m->capacity;
            }
        }
        k->ranks += counted;
    }
    if (na)
        spread(alloc, na, &k->max_allocated, &k->median_allocated, &k->imbalance);
    if (nr)
        spread(resv, nr, &k->max_reserved, &k->median_reserved, &k->reserved_imbalance);
}

void ks_ranks_memory(ks_ranks *r)
{
    size_t pairs = 0;
    for (size_t i = 0; i < r->n; i++) {
        pairs += r->v[i].nmem;
        r->mem_ranks += r->v[i].nmem > 0;
    }
    if (!pairs)
        return;
    int32_t *types = ks_xcalloc(pairs, sizeof *types);
    size_t nt = 0;
    for (size_t i = 0; i < r->n; i++)
        for (size_t j = 0; j < r->v[i].nmem; j++)
            types[nt++] = r->v[i].mem[j].device_type;
    qsort(types, nt, sizeof *types, cmp_i32);
    ks_ns *alloc = ks_xcalloc(pairs, sizeof *alloc), *resv = ks_xcalloc(pairs, sizeof *resv);
    r->mk = ks_xcalloc(nt, sizeof *r->mk);
    for (size_t a = 0; a < nt; a++) {
        if (a && types[a] == types[a - 1])
            continue;
        ks_mem_kind *k = &r->mk[r->nmk++];
        k->device_type = types[a];
        one_kind(r, k, alloc, resv);
    }
    free(types);
    free(alloc);
    free(resv);
}
