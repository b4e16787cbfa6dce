/* report/window_desc.c: how every report format names the analysis window, which is the
 * denominator of the shares it prints (docs/insights.md, "The window"): its kind for JSON, its
 * basis (the denominator's name, "active steps"), and the line saying how it was chosen; and
 * whether the diagnoses' denominator, named alike, is another size (the active steps' union).
 * Why it is correct: it only reads what the analysis and the insights pipeline recorded
 * (ks_analysis.window_basis and window_why), so text, JSON, CSV and HTML say the same.
 * Who may use it: the report writers. */
#include <string.h>

#include "kinesift/insights.h"
#include "report/report_util.h"

const char *ks_report_window_basis(const ks_analysis *a)
{
    return a->window_basis ? a->window_basis : a->has_window ? "window" : "trace";
}

const char *ks_report_window_kind(const ks_analysis *a)
{
    static const struct {
        const char *basis, *kind;
    } kinds[] = {{"trace", "trace"}, {"window", "time"}, {"--window", "time"}, {"active steps", "active_steps"},
                 {"GPU span", "gpu_span"}, {"device span", "device_span"}, {"CPU span", "cpu_span"}};
    const char *b = ks_report_window_basis(a);
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (!strcmp(kinds[i].basis, b))
            return kinds[i].kind;
    return "time";
}

const char *ks_report_window_why(const ks_analysis *a)
{
    if (a->window_why[0])
        return a->window_why;
    return a->has_window ? "restricted by the caller" : "whole trace";
}

int ks_report_diagnoses_union(const ks_analysis *a, const ks_diagnoses *d)
{
    return d && d->denominator && !strcmp(d->denominator, "active steps") &&
           !strcmp(ks_report_window_basis(a), d->denominator) && d->denominator_ns != a->window_ns;
}
