/* stats/stats_json.h: the statistics written into the internal JSON writer (docs/statistics.md
 * section 4.2), for the writers of report/ and validate/. Not part of kinesift/stats.h, since
 * they take struct ks_jw (common/jsonw.h). */
#ifndef KS_STATS_JSON_H
#define KS_STATS_JSON_H

#include <stddef.h>

#include "kinesift/stats.h"

/* ---- JSON (docs/statistics.md section 4.2) -------------------------------------------- */

struct ks_jw; /* common/jsonw.h: these write into the internal JSON writer, so they are not
               * part of kinesift/stats.h (used by report/ and validate/) */

/* Inside an open object: the keys of one side: n, min, max, range, mean, median, stdev, cv,
 * q1, q3, iqr, iqr_rel, mad, outliers{...}, noise, and "samples" (x in the order given, when
 * x is not NULL). Durations are written as integer ns (rounded), ratios as numbers. */
void ks_summary_json(struct ks_jw *w, const ks_summary *s, const double *x, size_t n);
/* The same keys with ns = 0: values written as plain numbers (points, counts), not ns. */
void ks_summary_json_as(struct ks_jw *w, const ks_summary *s, const double *x, size_t n, int ns);
/* Inside an open object: ratio, change, ci, p, p_raw, holm_m, min_p, test, threshold, alpha,
 * verdict, reason, suggestion. */
void ks_compare_json(struct ks_jw *w, const ks_compare *c, const ks_compare_params *p);
/* The parts of ks_compare_json that do not depend on the effect: ci_level, bootstrap_resamples,
 * p, p_raw, holm_m, min_p, u, z, test, threshold, alpha, min_samples; and verdict, reason,
 * suggestion. For checks whose effect is not a ratio (gate's points). */
void ks_compare_json_test(struct ks_jw *w, const ks_compare *c, const ks_compare_params *p, double threshold);
void ks_compare_json_verdict(struct ks_jw *w, const ks_compare *c);
/* One whole metric object: {"name","unit":"ns","baseline":{..},"candidate":{..}, ratio...}. */
void ks_compare_json_metric(struct ks_jw *w, const char *name, const ks_compare *c,
                            const ks_compare_params *p, const double *a, size_t na,
                            const double *b, size_t nb);

#endif
