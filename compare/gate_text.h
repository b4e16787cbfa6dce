/* compare/gate_text.h: what compare/ shares with the gate writers (report/gate_*.c), the
 * kinesift command, the fuzz targets and the tests beyond kinesift/compare.h: the metric syntax
 * and the gate's text helpers. Not exported by libkinesift.so (tests/layout/check_exports.py).
 *
 * The gate's text helpers are defined by the writers (report/gate_format.c), except
 * ks_gate_fmt_limit, which compare/gate.c defines because its own warnings word a limit with it
 * (report/ comes after compare/: tests/layout/check_symbol_cycles.py), and are declared here,
 * beside the results they word. */
#ifndef KS_COMPARE_GATE_TEXT_H
#define KS_COMPARE_GATE_TEXT_H

#include <stddef.h>

#include "kinesift/compare.h"

/* ---- metric names (compare/gate_budget.c) ------------------------------------------------- */

/* The metric of a budget name or of --check's syntax (ks_metric_name's names). */
int ks_metric_parse(const char *s, ks_metric *m); /* 0 on success */

/* ---- text helpers of the gate writers (report/gate_format.c) ------------------------------ */

/* A value in its unit: ns "1.234 ms", points "3.21 %", kernels "1219.5"; "-" for NaN. */
void ks_gate_fmt_value(char *buf, size_t n, const char *unit, double v);
/* The limit: "+5 %", "+2 pt" (compare/gate.c). */
void ks_gate_fmt_limit(char *buf, size_t n, const ks_gate_result *r);
/* The change: "+3.21 %" (ratio - 1) or "+0.50 pt" (points); "-" when not defined. */
void ks_gate_fmt_change(char *buf, size_t n, const ks_gate_result *r);
/* The CI: "[0.9876, 1.0123]" (ratio) or "[-0.10, +0.80] pt"; "-" when not defined. */
void ks_gate_fmt_ci(char *buf, size_t n, const ks_gate_result *r);
/* A one-line summary "regression (exit 1): 1 regression, 5 pass" (ks_gate_overall's word). */
void ks_gate_fmt_summary(char *buf, size_t n, const ks_gate *g, int inconclusive_fails);

#endif
