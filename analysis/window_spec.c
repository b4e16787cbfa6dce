/* analysis/window_spec.c: a --window specification (a step range, or a time range relative to the
 * trace's first event) resolved against an analysis and its steps (analysis_int.h). The duration
 * syntax it reads is common/optsyntax.c's. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/insights.h"
#include "kinesift/parse.h"
#include "analysis/analysis_int.h"
#include "common/optsyntax.h"

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
