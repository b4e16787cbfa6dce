/* kinesift/report.h: report writers. Writers only format what the store and the analyses
 * computed; they never compute. Each has a text and a JSON form; the JSON is the reference. */
#ifndef KINESIFT_REPORT_H
#define KINESIFT_REPORT_H

#include <stdio.h>

#include "kinesift/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `kinesift stats`: schema "kinesift.stats/1" (docs/schema-stats.md). The JSON writer emits one
 * document for all traces: call begin, one trace at a time, then end. */
typedef struct ks_stats_json ks_stats_json;
ks_stats_json *ks_stats_json_begin(FILE *out);
void ks_stats_json_trace(ks_stats_json *w, const ks_trace *t);
int ks_stats_json_end(ks_stats_json *w); /* 0, or -1 on a write error */

void ks_stats_text(FILE *out, const ks_trace *t);

#ifdef __cplusplus
}
#endif
#endif
