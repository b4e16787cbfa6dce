/* vocab/steps.c: the profiler's step annotations by name: "ProfilerStep#N" (blanks allowed
 * around '#'), N read exactly into int64 (saturating). kinesift/store.h declares the matchers;
 * every room that looks for steps by name asks here. */
#include <stdint.h>
#include <string.h>

#include "kinesift/store.h"

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

int ks_match_profiler_step_n(const char *s, size_t len, int64_t *n)
{
    static const char pfx[] = "ProfilerStep";
    const char *end = s + len;
    if (len < sizeof pfx - 1 || memcmp(s, pfx, sizeof pfx - 1))
        return 0;
    const char *p = skip_blanks(s + sizeof pfx - 1, end);
    if (p == end || *p != '#')
        return 0;
    p = skip_blanks(p + 1, end);
    if (p == end)
        return 0;
    int64_t v = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        int d = *p - '0';
        v = v > (INT64_MAX - d) / 10 ? INT64_MAX : v * 10 + d;
    }
    if (n)
        *n = v;
    return 1;
}

int ks_match_profiler_step(const char *name, int64_t *n)
{
    return ks_match_profiler_step_n(name, strlen(name), n);
}
