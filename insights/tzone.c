/* insights/tzone.c: local wall-clock times of a named IANA time zone ("Europe/Paris") to Unix
 * time, with daylight saving, for the nvidia-smi timestamps of `analyze --smi` (they carry no
 * zone). Correct because the conversion is the C library's own reading of the tz database
 * (mktime under TZ=<zone>), checked both ways: a candidate counts only when localtime_r gives back
 * the same wall-clock fields, so a time skipped by a DST change (02:30 on a spring-forward night)
 * is reported as nonexistent instead of being shifted silently, and the hour repeated when DST
 * ends has two candidates, of which the caller's monotonic order picks one (the first at or after
 * the previous sample).
 *
 * Does not apply to fixed offsets (UTC, +HH:MM: ks_tz_parse) nor to zones missing from the
 * database: ks_tz_zone_check refuses those rather than let the C library fall back to UTC in
 * silence. Needs the tz database files (Debian: tzdata; scripts/deps.sh installs it), in $TZDIR
 * or /usr/share/zoneinfo.
 *
 * Not thread-safe: TZ is process-wide state. ks_tz_enter sets it (and calls tzset) and
 * ks_tz_leave restores the previous value; no other thread may read or set the time zone in
 * between (localtime, mktime, strftime, setenv). The CLI calls it from its main thread while no
 * other thread runs. Internal to analysis/ (telemetry.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "insights/tzone.h"
#include "common/util.h"

static const char *tz_dir(void)
{
    const char *d = getenv("TZDIR");
    return d && *d ? d : "/usr/share/zoneinfo";
}

int ks_tz_zone_check(const char *name)
{
    /* names are letters, digits, '_', '-', '+' and '/' separated parts; no absolute or .. path */
    if (!*name || *name == '/' || strstr(name, "..") || strlen(name) > 200)
        return -1;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_-+/", *p))
            return -1;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tz_dir(), name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char magic[4];
    size_t n = fread(magic, 1, sizeof magic, f);
    fclose(f);
    return n == 4 && !memcmp(magic, "TZif", 4) ? 0 : -1;
}

void ks_tz_enter(ks_tz_scope *s, const char *zone)
{
    const char *old = getenv("TZ");
    s->saved = old ? ks_xstrdup(old) : NULL;
    setenv("TZ", zone, 1);
    tzset();
}

void ks_tz_leave(ks_tz_scope *s)
{
    if (s->saved)
        setenv("TZ", s->saved, 1);
    else
        unsetenv("TZ");
    tzset();
    free(s->saved);
    s->saved = NULL;
}

/* mktime with this DST flag, kept only when it maps back to the same wall clock */
static int candidate(const struct tm *local, int isdst, time_t *out)
{
    struct tm in = *local, back;
    in.tm_isdst = isdst;
    time_t t = mktime(&in);
    if (t == (time_t)-1 || !localtime_r(&t, &back))
        return 0;
    if (back.tm_year != local->tm_year || back.tm_mon != local->tm_mon || back.tm_mday != local->tm_mday ||
        back.tm_hour != local->tm_hour || back.tm_min != local->tm_min || back.tm_sec != local->tm_sec)
        return 0;
    *out = t;
    return 1;
}

int ks_tz_local_to_unix(const struct tm *local, int have_prev, time_t prev, time_t *out)
{
    time_t c[2];
    int n = 0;
    for (int isdst = 0; isdst <= 1; isdst++) {
        time_t t;
        if (candidate(local, isdst, &t) && !(n == 1 && c[0] == t))
            c[n++] = t;
    }
    if (!n)
        return -1;
    if (n == 2 && c[1] < c[0]) {
        time_t x = c[0];
        c[0] = c[1];
        c[1] = x;
    }
    /* the repeated hour: the earlier reading unless the samples already went past it */
    *out = n == 2 && have_prev && c[0] < prev ? c[1] : c[0];
    return 0;
}
