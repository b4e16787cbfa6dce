/* analysis/telemetry.c: nvidia-smi samples beside the trace. Reads the CSV of
 * `nvidia-smi --query-gpu=timestamp,uuid,utilization.gpu,memory.used,memory.total --format=csv
 * --loop=1` (or -lms; columns found by their header, units kept), converts its local timestamps
 * to Unix time with the time zone the user gives (nvidia-smi writes none) plus a skew correction,
 * and aligns them on the trace's clock (baseTimeNanoseconds + ts, or absolute ts). N/A and
 * [Not Supported] stay unknown (NaN), never 0. Per window and per step: utilization min/mean/max
 * and memory used. utilization.gpu is the share of sample time with at least one kernel running,
 * not efficiency. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"

enum { COL_TS, COL_UUID, COL_UTIL, COL_MEM_USED, COL_MEM_TOTAL, NCOLS };

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

/* split a CSV line in place on commas (nvidia-smi never quotes) */
static size_t split(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (n < max) {
        char *c = strchr(p, ',');
        if (c)
            *c = 0;
        f[n++] = trim(p);
        if (!c)
            break;
        p = c + 1;
    }
    return n;
}

/* "utilization.gpu [%]" -> column id, and the unit */
static int column_of(const char *h, char *unit, size_t un)
{
    static const char *const names[NCOLS] = {"timestamp", "uuid", "utilization.gpu", "memory.used",
                                             "memory.total"};
    for (int c = 0; c < NCOLS; c++) {
        size_t l = strlen(names[c]);
        if (strncmp(h, names[c], l) || (h[l] && h[l] != ' '))
            continue;
        const char *b = strchr(h, '['), *e = b ? strchr(b, ']') : NULL;
        if (unit && b && e && (size_t)(e - b - 1) < un) {
            memcpy(unit, b + 1, (size_t)(e - b - 1));
            unit[e - b - 1] = 0;
        }
        return c;
    }
    return -1;
}

static int unknown_value(const char *v)
{
    return !*v || !strcmp(v, "N/A") || v[0] == '[';
}

/* "45 %", "1234 MiB", "45": the number; NaN when unknown */
static int number(const char *v, double *out, uint64_t *unknown)
{
    if (unknown_value(v)) {
        *out = NAN;
        (*unknown)++;
        return 0;
    }
    char *end;
    *out = strtod(v, &end);
    if (end == v)
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    /* a unit may follow */
    return 0;
}

/* "2024/05/01 12:00:00.123" (local time of the machine) -> ns since the epoch in that local time */
static int parse_stamp(const char *s, ks_ns *out)
{
    int Y, M, D, h, m, sec, n = 0;
    if (sscanf(s, "%4d/%2d/%2d %2d:%2d:%2d%n", &Y, &M, &D, &h, &m, &sec, &n) != 6)
        return -1;
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    tm.tm_year = Y - 1900;
    tm.tm_mon = M - 1;
    tm.tm_mday = D;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = sec;
    /* years int64 ns since the epoch can hold (1678..2261) with room for the offsets */
    if (Y < 1700 || Y > 2200)
        return -1;
    time_t t = timegm(&tm);
    if (t == (time_t)-1 || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60)
        return -1;
    ks_ns frac = 0;
    const char *p = s + n;
    if (*p == '.') {
        p++;
        ks_ns scale = 100000000;
        while (isdigit((unsigned char)*p)) {
            frac += (*p - '0') * scale;
            scale /= 10;
            p++;
        }
    }
    while (isspace((unsigned char)*p))
        p++;
    if (*p)
        return -1;
    *out = (ks_ns)t * 1000000000LL + frac;
    return 0;
}

static void stats(const ks_telemetry *tm, ks_ns t0, ks_ns t1, ks_smi_stats *s)
{
    memset(s, 0, sizeof *s);
    double sum = 0;
    s->util_min = s->util_max = s->util_mean = NAN;
    s->mem_used_min = s->mem_used_max = NAN;
    for (size_t i = 0; i < tm->n; i++) {
        const ks_smi_sample *x = &tm->s[i];
        if (x->t < t0 || x->t >= t1)
            continue;
        s->n++;
        if (!isnan(x->util)) {
            if (!s->util_known++ || x->util < s->util_min)
                s->util_min = x->util;
            if (s->util_known == 1 || x->util > s->util_max)
                s->util_max = x->util;
            sum += x->util;
        }
        if (!isnan(x->mem_used)) {
            if (!s->mem_known++ || x->mem_used < s->mem_used_min)
                s->mem_used_min = x->mem_used;
            if (s->mem_known == 1 || x->mem_used > s->mem_used_max)
                s->mem_used_max = x->mem_used;
        }
    }
    if (s->util_known)
        s->util_mean = sum / (double)s->util_known;
}

static uint32_t uuid_index(ks_telemetry *tm, const char *u)
{
    for (size_t i = 0; i < tm->nuuids; i++)
        if (!strcmp(tm->uuids[i], u))
            return (uint32_t)i;
    tm->uuids = ks_xrealloc(tm->uuids, (tm->nuuids + 1) * sizeof *tm->uuids);
    tm->uuids[tm->nuuids] = ks_xstrdup(u);
    return (uint32_t)tm->nuuids++;
}

static int read_csv(const ks_smi_opts *o, ks_telemetry *tm, ks_error *err)
{
    FILE *f = fopen(o->path, "r");
    if (!f)
        return ks_error_set(err, "%s: cannot open: %m", o->path);
    char line[4096];
    int col[NCOLS];
    for (int c = 0; c < NCOLS; c++)
        col[c] = -1;
    size_t lineno = 0, cap = 0;
    int header = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *l = trim(line);
        if (!*l || *l == '#')
            continue;
        char *fld[32];
        size_t nf = split(l, fld, 32);
        if (!header) {
            for (size_t i = 0; i < nf; i++) {
                char unit[16] = "";
                int c = column_of(fld[i], unit, sizeof unit);
                if (c < 0)
                    continue;
                col[c] = (int)i;
                if (c == COL_UTIL)
                    snprintf(tm->units_util, sizeof tm->units_util, "%s", unit);
                if (c == COL_MEM_USED)
                    snprintf(tm->units_mem, sizeof tm->units_mem, "%s", unit);
            }
            if (col[COL_TS] < 0) {
                fclose(f);
                return ks_error_set_at(err, 0, lineno, 1, "%s: not an nvidia-smi CSV: no timestamp column "
                                       "(expected --query-gpu=timestamp,... --format=csv)", o->path);
            }
            header = 1;
            continue;
        }
        ks_smi_sample x;
        memset(&x, 0, sizeof x);
        if ((size_t)col[COL_TS] >= nf || parse_stamp(fld[col[COL_TS]], &x.t) != 0) {
            fclose(f);
            return ks_error_set_at(err, 0, lineno, 1, "%s: line %zu: bad timestamp (expected YYYY/MM/DD HH:MM:SS.mmm)",
                                   o->path, lineno);
        }
        x.t = ks_sat_add(ks_sat_sub(x.t, o->tz_offset_ns), o->offset_ns);
        x.gpu = uuid_index(tm, col[COL_UUID] >= 0 && (size_t)col[COL_UUID] < nf ? fld[col[COL_UUID]] : "");
        x.util = x.mem_used = x.mem_total = NAN;
        double *dst[NCOLS] = {NULL, NULL, &x.util, &x.mem_used, &x.mem_total};
        for (int c = COL_UTIL; c < NCOLS; c++) {
            if (col[c] < 0 || (size_t)col[c] >= nf)
                continue;
            if (number(fld[col[c]], dst[c], &tm->unknown_values) != 0) {
                fclose(f);
                return ks_error_set_at(err, 0, lineno, 1, "%s: line %zu: '%s' is not a number", o->path, lineno,
                                       fld[col[c]]);
            }
        }
        KS_PUSH(tm->s, tm->n, cap, x);
    }
    fclose(f);
    if (!header)
        return ks_error_set(err, "%s: empty CSV", o->path);
    return KS_OK;
}

static void keep_gpu(ks_telemetry *tm, const char *sel)
{
    char *end;
    long idx = strtol(sel, &end, 10);
    int by_index = end != sel && !*end;
    size_t o = 0;
    for (size_t i = 0; i < tm->n; i++) {
        int keep = by_index ? (long)tm->s[i].gpu == idx : !strcmp(tm->uuids[tm->s[i].gpu], sel);
        if (keep)
            tm->s[o++] = tm->s[i];
    }
    tm->n = o;
}

int ks_telemetry_load(const ks_smi_opts *o, const ks_analysis *a, const ks_steps *st, ks_telemetry *tm, ks_error *err)
{
    memset(tm, 0, sizeof *tm);
    if (!o->tz_set)
        return ks_error_set(err, "--smi needs --smi-tz: nvidia-smi timestamps carry no time zone (give UTC or "
                                 "the offset of the machine that ran it, e.g. +02:00)");
    if (read_csv(o, tm, err) != KS_OK) {
        ks_telemetry_free(tm);
        return KS_ERR;
    }
    if (o->gpu)
        keep_gpu(tm, o->gpu);
    const ks_meta *m = &a->trace->meta;
    if (m->has_base_time)
        tm->trace_to_unix = m->base_time_ns;
    else if (a->has_events && a->win_start > 100000000000000000LL) /* after 1973: absolute epoch ts */
        tm->trace_to_unix = 0;
    else
        tm->reason = "not aligned: the trace has no baseTimeNanoseconds and relative timestamps";
    if (tm->reason)
        return KS_OK;
    ks_ns off = tm->trace_to_unix;
    stats(tm, ks_sat_add(a->win_start, off), ks_sat_add(a->win_end, off), &tm->window);
    if (!tm->window.n)
        tm->reason = "not observed: no nvidia-smi sample falls inside the trace window (check --smi-tz and "
                     "--smi-offset)";
    if (st && st->n) {
        tm->per_step = ks_xcalloc(st->n, sizeof *tm->per_step);
        tm->nsteps = st->n;
        for (size_t i = 0; i < st->n; i++)
            stats(tm, ks_sat_add(st->v[i].start, off), ks_sat_add(st->v[i].end, off), &tm->per_step[i]);
    }
    return KS_OK;
}

void ks_telemetry_free(ks_telemetry *tm)
{
    free(tm->s);
    for (size_t i = 0; i < tm->nuuids; i++)
        free(tm->uuids[i]);
    free(tm->uuids);
    free(tm->per_step);
    memset(tm, 0, sizeof *tm);
}
