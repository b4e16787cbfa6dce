/* insights/insights_int.h: what insights/ shares with the kinesift command beyond
 * kinesift/insights.h. Internal: not exported by libkinesift.so (tests/layout/check_exports.py).
 * The room's unit headers (steps' breakdown.h, telemetry's tzone.h) hold what only insights/
 * itself uses. */
#ifndef KS_INSIGHTS_INT_H
#define KS_INSIGHTS_INT_H

#include "kinesift/insights.h"

/* 0 when name is a zone of the tz database ("Europe/Paris"; $TZDIR or /usr/share/zoneinfo). */
int ks_tz_zone_check(const char *name);

#endif
