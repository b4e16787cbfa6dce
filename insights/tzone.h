/* insights/tzone.h: wall-clock times of an IANA time zone to Unix time (see tzone.c for why it is
 * correct, when it does not apply and its thread-safety limits). Internal to analysis/. */
#ifndef KS_TZONE_H
#define KS_TZONE_H

#include <time.h>

#include "insights/insights_int.h" /* ks_tz_zone_check */

/* TZ set to a zone for a while, then put back as it was. Not thread-safe (process-wide). */
typedef struct ks_tz_scope {
    char *saved;
} ks_tz_scope;
void ks_tz_enter(ks_tz_scope *s, const char *zone);
void ks_tz_leave(ks_tz_scope *s);

/* The wall-clock fields of local (tm_isdst ignored) in the entered zone -> Unix seconds. A time
 * repeated when DST ends resolves to the first reading at or after prev (when have_prev), else the
 * earlier one. -1 when the time does not exist there (skipped by a DST change). */
int ks_tz_local_to_unix(const struct tm *local, int have_prev, time_t prev, time_t *out);

#endif
