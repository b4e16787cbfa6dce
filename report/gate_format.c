/* report/gate_format.c: how gate's numbers read in text, Markdown and JUnit: values in their
 * unit, limits, changes, confidence intervals and the one-line summary. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/compare.h"
#include "compare/gate_text.h"

void ks_gate_fmt_value(char *buf, size_t n, const char *unit, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (!strcmp(unit, "ns"))
        ks_fmt_ns(buf, n, llround(v));
    else if (!strcmp(unit, "points"))
        snprintf(buf, n, "%.2f %%", v);
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, n, "%.0f", v); /* counts (the median of an even number of them may be x.5) */
    else
        snprintf(buf, n, "%.1f", v);
}

/* Values are printed on their side of every decision boundary (ks_compare_fmt), so that a
 * printed change or interval never seems to contradict the verdict. */
void ks_gate_fmt_change(char *buf, size_t n, const ks_gate_result *r)
{
    char v[40];
    int points = ks_metric_points(r->metric);
    double x = points ? r->diff : r->cmp.ratio;
    if (isnan(x)) {
        snprintf(buf, n, "-");
        return;
    }
    ks_compare_fmt(v, sizeof v, &r->cmp, x, !points, 2);
    snprintf(buf, n, "%s %s", v, points ? "pt" : "%");
}

void ks_gate_fmt_ci(char *buf, size_t n, const ks_gate_result *r)
{
    char lo[40], hi[40];
    int points = ks_metric_points(r->metric);
    double l = points ? r->diff_lo : r->cmp.ci_lo, h = points ? r->diff_hi : r->cmp.ci_hi;
    if (isnan(l)) {
        snprintf(buf, n, "-");
        return;
    }
    ks_compare_fmt(lo, sizeof lo, &r->cmp, l, 0, points ? 2 : 4);
    ks_compare_fmt(hi, sizeof hi, &r->cmp, h, 0, points ? 2 : 4);
    snprintf(buf, n, "[%s, %s]%s", lo, hi, points ? " pt" : "");
}

/* The result as found, whatever --on-inconclusive does to the exit status. */
const char *ks_gate_overall(const ks_gate *g)
{
    switch (ks_gate_exit(g, 1)) {
    case 2: return "error";
    case 1: return "regression";
    case 3: return "inconclusive";
    default: break;
    }
    return "pass";
}

void ks_gate_fmt_summary(char *buf, size_t n, const ks_gate *g, int inconclusive_fails)
{
    size_t count[KS_GATE_ERROR + 1] = {0};
    for (size_t i = 0; i < g->n; i++)
        count[g->r[i].status]++;
    int len = snprintf(buf, n, "%s (exit %d)", ks_gate_overall(g),
                       ks_gate_exit(g, inconclusive_fails));
    if (g->input_error && len > 0 && (size_t)len < n) {
        snprintf(buf + len, n - (size_t)len, ": %s", g->error);
        return;
    }
    static const ks_gate_status order[] = {KS_GATE_ERROR, KS_GATE_REGRESSION, KS_GATE_INCONCLUSIVE,
                                           KS_GATE_IMPROVEMENT, KS_GATE_PASS};
    int first = 1;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        if (!count[order[k]] || len < 0 || (size_t)len >= n)
            continue;
        len += snprintf(buf + len, n - (size_t)len, "%s %zu %s", first ? ":" : ",", count[order[k]],
                        ks_gate_status_name(order[k]));
        first = 0;
    }
    if (first && len >= 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, ": no checks");
}
