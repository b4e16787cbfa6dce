/* common/optsyntax.c: the syntax the commands' options share (see optsyntax.h): durations with a
 * unit, fixed time-zone offsets and sizes, read exactly (no double). */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/optsyntax.h"
#include "kinesift/analysis.h"
#include "kinesift/parse.h"

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

int ks_parse_size(const char *s, int64_t *v)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    unsigned long long x = strtoull(s, &end, 10);
    if (end == s || errno)
        return -1;
    int64_t mul = 1;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': mul = ((int64_t)1 << 10); end++; break;
    case 'm': case 'M': mul = ((int64_t)1 << 20); end++; break;
    case 'g': case 'G': mul = ((int64_t)1 << 30); end++; break;
    default: return -1;
    }
    if (*end == 'i' || *end == 'B') /* accept KiB, MB, MiB spelled out */
        end += *end == 'i' ? (end[1] == 'B' ? 2 : 1) : 1;
    if (*end || x > (unsigned long long)(INT64_MAX / mul))
        return -1;
    *v = (int64_t)x * mul;
    return 0;
}
