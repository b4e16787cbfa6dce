/* report/gate_junit.c: `kinesift gate --junit FILE`: JUnit XML as GitLab (artifacts:reports:
 * junit), Jenkins and the GitHub test-report actions read it: one <testcase> per check (and
 * rank); a regression is a <failure>, an inconclusive check is <skipped>, a check that could not
 * be evaluated is an <error>; pass and improvement are plain test cases. The statistics go to
 * <system-out>. A gate that could not run at all (unreadable input, settings mismatch) is one
 * test case "gate inputs" with an <error>. Every text is escaped (kernel names hold < and &). */
#include <math.h>
#include <stdio.h>

#include "kinesift/compare.h"
#include "report/report_int.h"
#include "compare/gate_text.h"

static void stats_out(FILE *out, const ks_gate_result *r)
{
    char ma[32], mb[32], ch[32], ci[48], lim[24];
    ks_gate_fmt_value(ma, sizeof ma, r->unit, r->cmp.a.median);
    ks_gate_fmt_value(mb, sizeof mb, r->unit, r->cmp.b.median);
    ks_gate_fmt_change(ch, sizeof ch, r);
    ks_gate_fmt_ci(ci, sizeof ci, r);
    ks_gate_fmt_limit(lim, sizeof lim, r);
    char text[2048];
    snprintf(text, sizeof text,
             "verdict: %s (%s)%s%s\nlimit: %s\nbaseline: n %zu, median %s\ncandidate: n %zu, median %s\n"
             "runs: %zu baseline, %zu candidate\nchange: %s, %.4g%% interval %s\np: %.3g (%s%s)\nreason: %s\n%s%s%s",
             ks_gate_status_name(r->status), ks_verdict_name(r->cmp.verdict), r->cmp.caveat[0] ? "; " : "",
             r->cmp.caveat, lim, r->cmp.a.n, ma, r->cmp.b.n, mb,
             r->cmp.runs_a, r->cmp.runs_b, ch, 100 * r->cmp.ci_level, ci, r->cmp.p,
             ks_compare_test_name(&r->cmp) ? ks_compare_test_name(&r->cmp) : "no test",
             r->cmp.holm_m > 1 ? ", Holm-adjusted" : "", r->cmp.reason,
             r->cmp.suggestion[0] ? "suggestion: " : "", r->cmp.suggestion, r->cmp.suggestion[0] ? "\n" : "");
    fputs("      <system-out>", out);
    ks_xml_escape(out, text);
    fputs("</system-out>\n", out);
}

static void testcase(FILE *out, const ks_gate_result *r)
{
    fputs("    <testcase classname=\"kinesift.gate\" name=\"", out);
    ks_xml_escape(out, r->title);
    fputs("\">\n", out);
    const char *tag = NULL, *msg = r->cmp.reason;
    if (r->status == KS_GATE_REGRESSION)
        tag = "failure";
    else if (r->status == KS_GATE_INCONCLUSIVE)
        tag = "skipped";
    else if (r->status == KS_GATE_ERROR) {
        tag = "error";
        msg = r->error;
    }
    if (tag) {
        fprintf(out, "      <%s type=\"%s\" message=\"", tag, ks_gate_status_name(r->status));
        if (r->status != KS_GATE_ERROR && r->cmp.caveat[0]) {
            ks_xml_escape(out, r->cmp.caveat);
            ks_xml_escape(out, "; ");
        }
        ks_xml_escape(out, msg);
        fputs("\"/>\n", out);
    }
    if (r->status != KS_GATE_ERROR)
        stats_out(out, r);
    fputs("    </testcase>\n", out);
}

int ks_gate_junit(FILE *out, const ks_gate *g)
{
    size_t failures = 0, errors = 0, skipped = 0, tests = g->n;
    for (size_t i = 0; i < g->n; i++) {
        failures += g->r[i].status == KS_GATE_REGRESSION;
        errors += g->r[i].status == KS_GATE_ERROR;
        skipped += g->r[i].status == KS_GATE_INCONCLUSIVE;
    }
    if (g->input_error) {
        tests++;
        errors++;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out, "<testsuites name=\"kinesift gate\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n",
            tests, failures, errors, skipped);
    fprintf(out, "  <testsuite name=\"kinesift gate\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\">\n",
            tests, failures, errors, skipped);
    if (g->input_error) {
        fputs("    <testcase classname=\"kinesift.gate\" name=\"gate inputs\">\n      <error type=\"input\" message=\"",
              out);
        ks_xml_escape(out, g->error);
        fputs("\"/>\n    </testcase>\n", out);
    }
    for (size_t i = 0; i < g->n; i++)
        testcase(out, &g->r[i]);
    fputs("  </testsuite>\n</testsuites>\n", out);
    return ferror(out) ? -1 : 0;
}
