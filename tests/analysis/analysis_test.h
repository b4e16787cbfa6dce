/* tests/analysis/analysis_test.h: helpers for the analysis tests: analyse a fixture, find a row or
 * a slice by name. */
#ifndef KS_ANALYSIS_TEST_H
#define KS_ANALYSIS_TEST_H

#include "ks_test.h"
#include "kinesift/analysis.h"

#define US 1000LL /* fixtures are written in microseconds */

static inline ks_analysis *analyse(const ks_trace *t, const ks_analysis_opts *o)
{
    ks_analysis *a;
    ks_error err;
    if (ks_analyze(t, o, &a, &err) != KS_OK)
        fail_msg("analyze: %s", err.msg);
    return a;
}

static inline const ks_op_row *find_row(const ks_analysis *a, const ks_op_row *rows, size_t n,
                                        const char *name, const char *cat)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(ks_trace_str(a->trace, rows[i].name), name) &&
            (!cat || !strcmp(ks_trace_cat_name(a->trace, rows[i].cat), cat)))
            return &rows[i];
    fail_msg("no row %s [%s]", name, cat ? cat : "*");
    return NULL;
}

#define OP(a, name) find_row((a), (a)->ops, (a)->nops, (name), NULL)
#define LABEL(a, name, cat) find_row((a), (a)->labels, (a)->nlabels, (name), (cat))

/* The n-th slice (in timeline order) of track (pid, tid) with this name. */
static inline const ks_slice *find_slice(const ks_analysis *a, int64_t pid, int64_t tid, const char *name, int nth)
{
    const ks_track *k = ks_test_track(a->trace, pid, tid);
    const ks_timeline *tl = &a->tl[k - a->trace->tracks];
    for (size_t i = 0; i < tl->n; i++)
        if (!strcmp(ks_trace_str(a->trace, k->ev[tl->s[i].ev].name), name) && nth-- == 0)
            return &tl->s[i];
    fail_msg("no slice %s", name);
    return NULL;
}

/* The end of slice s of the track (pid, tid) (ks_slice_end). */
static inline ks_ns slice_end(const ks_analysis *a, int64_t pid, int64_t tid, const ks_slice *s)
{
    const ks_track *k = ks_test_track(a->trace, pid, tid);
    return ks_slice_end(&a->tl[k - a->trace->tracks], s);
}

/* the lane of slice s of the track (pid, tid): ks_slice_lane */
static inline uint32_t slice_lane(const ks_analysis *a, int64_t pid, int64_t tid, const ks_slice *s)
{
    const ks_track *k = ks_test_track(a->trace, pid, tid);
    return ks_slice_lane(&a->tl[k - a->trace->tracks], s);
}

static inline const char *parent_name(const ks_analysis *a, int64_t pid, int64_t tid, const ks_slice *s)
{
    const ks_track *k = ks_test_track(a->trace, pid, tid);
    const ks_timeline *tl = &a->tl[k - a->trace->tracks];
    return s->parent < 0 ? "-" : ks_trace_str(a->trace, k->ev[tl->s[s->parent].ev].name);
}

#endif
