/* stats/ptext.c: a p value as text, never "p = 0". A computed p of 0 is a bound, not a value:
 * the block bootstrap's p is 2·min(below, above)/R, so 0 means no resample fell on the other
 * side of the null and p < 2/R (one such resample would give 2/R); a t or normal tail that
 * underflows a double is below the smallest normal double. */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "kinesift/stats.h"

double ks_compare_p_bound(const ks_compare *c, const ks_compare_params *p)
{
    if (c->method == KS_METHOD_SINGLE_RUN)
        return 2.0 / (double)(p->resamples ? p->resamples : 1);
    return DBL_MIN;
}

const char *ks_p_text(char *buf, size_t n, double p, double bound)
{
    if (isnan(p))
        snprintf(buf, n, "p = -");
    else if (p > 0)
        snprintf(buf, n, "p = %.3g", p);
    else
        snprintf(buf, n, "p < %.2g", bound > 0 ? bound : DBL_MIN);
    return buf;
}
