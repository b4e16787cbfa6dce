/* ranks/sequence.c: sequence alignment of two ranks' calls, Myers' O(ND) difference algorithm
 * (E. Myers, "An O(ND) Difference Algorithm and Its Variations", 1986): the longest common
 * subsequence under a caller's equality, found by extending furthest-reaching paths one
 * difference at a time. A rank that skipped one call is one difference from the others, so the
 * cost is about the length of the calls; every other call still pairs with its own. The paths of
 * every d are kept to walk back the script (O(D^2) memory, D bounded by KS_LIMIT_SEQ_MAX_D). */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "ranks/ranks_int.h"

static long index_pairs(size_t n, size_t m, int (*eq)(void *, size_t, size_t), void *ctx, long *pair)
{
    for (size_t j = 0; j < m; j++)
        pair[j] = j < n && eq(ctx, j, j) ? (long)j : -1;
    return -1;
}

long ks_seq_align(size_t n, size_t m, int (*eq)(void *ctx, size_t i, size_t j), void *ctx, long *pair)
{
    for (size_t j = 0; j < m; j++)
        pair[j] = -1;
    if (!n || !m)
        return (long)(n + m);
    long N = (long)n, M = (long)m, max = N + M;
    long dmax = max < KS_LIMIT_SEQ_MAX_D ? max : KS_LIMIT_SEQ_MAX_D;
    /* trace[d] holds V for k in [-d, d] after step d (x of the furthest path on diagonal k) */
    long **trace = ks_xcalloc((size_t)dmax + 1, sizeof *trace);
    long *v = ks_xcalloc((size_t)(2 * dmax + 3), sizeof *v), off = dmax + 1;
    long found = -1;
    for (long d = 0; d <= dmax && found < 0; d++) {
        for (long k = -d; k <= d; k += 2) {
            long x;
            if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
                x = v[off + k + 1]; /* down: b[y] inserted */
            else
                x = v[off + k - 1] + 1; /* right: a[x] deleted */
            long y = x - k;
            while (x < N && y < M && eq(ctx, (size_t)x, (size_t)y))
                x++, y++;
            v[off + k] = x;
            if (x >= N && y >= M) {
                found = d;
                break;
            }
        }
        trace[d] = ks_xcalloc((size_t)(2 * d + 1), sizeof *trace[d]);
        memcpy(trace[d], &v[off - d], (size_t)(2 * d + 1) * sizeof *v);
    }
    if (found < 0) {
        for (long d = 0; d <= dmax; d++)
            free(trace[d]);
        free(trace);
        free(v);
        return index_pairs(n, m, eq, ctx, pair);
    }
    /* walk back from (N, M) */
    long x = N, y = M;
    for (long d = found; d >= 0; d--) {
        long k = x - y, px, py;
        if (d == 0) {
            px = py = 0;
        } else {
            const long *pv = trace[d - 1]; /* index k + (d - 1) */
            long pk = (k == -d || (k != d && pv[k - 1 + d - 1] < pv[k + 1 + d - 1])) ? k + 1 : k - 1;
            px = pv[pk + d - 1];
            py = px - pk;
        }
        /* the move (down: b[py] inserted; right: a[px] deleted), then the snake to (x, y) */
        long mx = d == 0 ? 0 : (k == (px - py) + 1 ? px + 1 : px);
        long my = mx - k;
        while (x > mx && y > my) {
            x--, y--;
            pair[y] = x;
        }
        x = px;
        y = py;
    }
    for (long d = 0; d <= found; d++)
        free(trace[d]);
    free(trace);
    free(v);
    return found;
}
