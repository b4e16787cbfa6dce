/* analysis/window.c: --window specifications (a step range or a time range) and the duration and
 * time-zone syntax the options share. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"
#include "analysis/analysis_int.h"

/* Exact decimal with a unit to ns: "1.5ms", "-250us", "3s", "42ns"; a bare "42" is in bare_unit
 * (KS_DUR_BARE_US or KS_DUR_BARE_NS), which each option states in its --help. */
int ks_duration_parse_unit(const char *s, int bare_unit, ks_ns *ns)
{
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    const char *num = p;
    while (isdigit((unsigned char)*p) || *p == '.')
        p++;
    if (p == num)
        return -1;
    size_t nlen = (size_t)(p - num);
    char buf[64];
    if (nlen >= sizeof buf - 8)
        return -1;
    memcpy(buf, num, nlen);
    buf[nlen] = 0;
    /* scale to microseconds text for the exact parser, which takes us */
    int shift; /* power of ten from the unit to us */
    if (!*p)
        shift = bare_unit == KS_DUR_BARE_NS ? -3 : 0;
    else if (!strcmp(p, "ns"))
        shift = -3;
    else if (!strcmp(p, "us") || !strcmp(p, "\xc2\xb5s") /* µs */)
        shift = 0;
    else if (!strcmp(p, "ms"))
        shift = 3;
    else if (!strcmp(p, "s"))
        shift = 6;
    else
        return -1;
    char txt[80];
    snprintf(txt, sizeof txt, "%se%d", buf, shift);
    int64_t v;
    int r = ks_parse_us_to_ns(txt, strlen(txt), &v);
    if (r < 0 || r == 1 /* rounded below a nanosecond */)
        return -1;
    *ns = neg ? -v : v;
    return 0;
}

int ks_duration_parse(const char *s, ks_ns *ns)
{
    return ks_duration_parse_unit(s, KS_DUR_BARE_US, ns);
}

int ks_tz_parse(const char *s, ks_ns *off)
{
    if (!strcmp(s, "UTC") || !strcmp(s, "utc") || !strcmp(s, "Z")) {
        *off = 0;
        return 0;
    }
    int sign;
    if (s[0] == '+')
        sign = 1;
    else if (s[0] == '-')
        sign = -1;
    else
        return -1;
    int h, m;
    char tail;
    if (sscanf(s + 1, "%2d:%2d%c", &h, &m, &tail) != 2 && sscanf(s + 1, "%2d%2d%c", &h, &m, &tail) != 2)
        return -1;
    if (h > 14 || m > 59 || strlen(s) > 6)
        return -1;
    *off = (ks_ns)sign * ((ks_ns)h * 3600 + m * 60) * 1000000000LL;
    return 0;
}

static int parse_step_range(const char *s, int64_t *a, int64_t *b)
{
    char *end;
    *a = strtoll(s, &end, 10);
    if (end == s || *a < 0)
        return -1;
    if (!*end) {
        *b = *a;
        return 0;
    }
    if (*end != '-')
        return -1;
    const char *q = end + 1;
    *b = strtoll(q, &end, 10);
    if (end == q || *end || *b < *a)
        return -1;
    return 0;
}

int ks_window_parse(const char *spec, const ks_analysis *a, const ks_steps *st, ks_ns *w0, ks_ns *w1, ks_error *err)
{
    if (!strncmp(spec, "steps:", 6)) {
        int64_t lo, hi;
        if (parse_step_range(spec + 6, &lo, &hi) != 0)
            return ks_error_set(err, "bad --window '%s' (steps:A-B or steps:N)", spec);
        int found = 0;
        for (size_t i = 0; i < st->n; i++) {
            if (st->v[i].number < lo || st->v[i].number > hi)
                continue;
            if (!found || st->v[i].start < *w0)
                *w0 = st->v[i].start;
            if (!found || st->v[i].end > *w1)
                *w1 = st->v[i].end;
            found = 1;
        }
        if (!found)
            return ks_error_set(err, "--window %s: no such step in the trace (%zu steps%s)", spec, st->n,
                                st->n ? "" : ": none found");
        if (*w1 == *w0)
            (*w1)++;
        return KS_OK;
    }
    const char *colon = strchr(spec, ':');
    if (!colon)
        return ks_error_set(err, "bad --window '%s' (steps:A-B, or START:END as times like 1.5ms:20ms)", spec);
    char lhs[64];
    size_t n = (size_t)(colon - spec);
    if (n >= sizeof lhs)
        return ks_error_set(err, "bad --window '%s'", spec);
    memcpy(lhs, spec, n);
    lhs[n] = 0;
    ks_ns a0 = 0, a1;
    if (n && ks_duration_parse(lhs, &a0) != 0)
        return ks_error_set(err, "bad --window start '%s' (a time with a unit: ns, us, ms, s)", lhs);
    /* relative to the first event (the analysis must not be windowed yet) */
    ks_ns first = a->win_start, last = ks_sat_add(a->win_start, a->window_ns);
    if (colon[1]) {
        if (ks_duration_parse(colon + 1, &a1) != 0)
            return ks_error_set(err, "bad --window end '%s' (a time with a unit: ns, us, ms, s)", colon + 1);
        *w1 = ks_sat_add(first, a1);
    } else {
        *w1 = ks_sat_add(last, 1);
    }
    *w0 = ks_sat_add(first, a0);
    if (*w1 <= *w0)
        return ks_error_set(err, "--window %s is empty", spec);
    return KS_OK;
}
