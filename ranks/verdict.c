/* ranks/verdict.c: what a `ranks` run may be trusted for, and its exit status. The waits are
 * trusted when the clocks agree within the tolerance (or were declared one clock, --no-align),
 * every rank with collectives was aligned, and some collective matched. The job is complete when
 * every rank's trace was read whole. Exit status (docs/ranks.md): 2 a rank cut or unreadable
 * (unless allow_incomplete), else 3 the waits not trusted, else 0. Ranks of the world
 * (distributedInfo.world_size) with no trace at all are counted (absent) but fail nothing: a
 * sample of ranks is a normal input. */
#include <stdlib.h>

#include "common/util.h"
#include "ranks/ranks_int.h"

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

int ks_ranks_verdict(ks_ranks *r)
{
    /* absent: ranks of [0, world) that no trace (read or not) claims */
    r->absent = 0;
    if (r->world > 0) {
        int64_t *have = ks_xcalloc(r->n + r->nerrors + 1, sizeof *have);
        size_t nh = 0;
        for (size_t i = 0; i < r->n; i++)
            have[nh++] = r->v[i].rank;
        for (size_t i = 0; i < r->nerrors; i++)
            if (r->error_rank && r->error_rank[i] >= 0)
                have[nh++] = r->error_rank[i];
        ks_qsort(have, nh, sizeof *have, cmp_i64);
        size_t distinct = 0;
        for (size_t i = 0; i < nh; i++)
            if (have[i] >= 0 && have[i] < r->world && (!i || have[i] != have[i - 1]))
                distinct++;
        r->absent = (size_t)r->world - distinct;
        free(have);
    }
    int colls = 0;
    size_t unaligned = SIZE_MAX;
    for (size_t i = 0; i < r->n; i++) {
        colls |= r->v[i].ncolls > 0;
        if (r->v[i].ncolls && !r->st[i].aligned && unaligned == SIZE_MAX)
            unaligned = i;
    }
    r->waits_trusted = 1;
    r->trust_reason = NULL;
    if (!colls) {
        r->waits_trusted = 0;
        r->trust_reason = "no rank has collectives: no wait was measured";
    } else if (!r->nm) {
        r->waits_trusted = 0;
        r->trust_reason = "no collective matched across ranks";
    } else if (r->o.align && unaligned != SIZE_MAX) {
        r->waits_trusted = 0;
        r->trust_reason = "a rank shares no collective with the reference: its clock is not aligned";
    } else if (r->untrusted) {
        r->waits_trusted = 0;
        r->trust_reason = "the clocks disagree by more than the tolerance (alignment spread)";
    }
    if ((r->truncated || r->nerrors) && !r->allow_incomplete)
        r->exit_status = 2; /* the usage or input error status of every command */
    else
        r->exit_status = r->waits_trusted ? 0 : 3; /* inconclusive */
    return r->exit_status;
}
