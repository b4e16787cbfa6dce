/* insights/breakdown.h: the per-step time breakdown (see breakdown.c). Internal. */
#ifndef KS_BREAKDOWN_H
#define KS_BREAKDOWN_H

#include "kinesift/insights.h"

/* Fill breakdown[] of every step. */
void ks_breakdown_steps(const ks_analysis *a, ks_steps *st);

#endif
