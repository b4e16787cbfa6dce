/* report/report_util.h: pieces the report writers share (typed ids, diagnostics lists, CSV
 * quoting). Internal. */
#ifndef KS_REPORT_UTIL_H
#define KS_REPORT_UTIL_H

#include <stdio.h>

#include "common/jsonw.h"
#include "kinesift/store.h"

/* "key": pid/tid with its JSON type (number, string or null). */
void ks_report_json_id(ks_jw *w, const char *key, const ks_trace *t, ks_id id);
/* The diagnostics of the trace and of its analysis (b may be NULL) as one JSON array. */
void ks_report_json_diagnostics(ks_jw *w, const ks_diag *a, const ks_diag *b);
/* Text: one block listing every diagnostic with its examples. */
void ks_report_text_diagnostics(FILE *out, const ks_diag *a, const ks_diag *b, const char *indent);
/* Write s as one CSV field (quoted when needed). */
void ks_csv_field(FILE *out, const char *s);

#endif
