/* cli/timings.h: `--timings` of analyze and stats: the per-phase wall times the library recorded
 * (kinesift/timings.h) printed as a table on stderr, after the command's output. Who may use it:
 * the commands of cli/. */
#ifndef KS_CLI_TIMINGS_H
#define KS_CLI_TIMINGS_H

#include <stdio.h>

#include "kinesift/timings.h"

/* The table: one row per phase (name, ms, % of total, MB/s where the phase records bytes, and
 * "beside" or "within" for phases that are not part of the sequential sum), then "other" (the
 * total less the sequential phases: options, opening inputs, what no phase covers) and "total"
 * (total_ns, with the rate of the bytes parsed). */
void ks_cli_timings_print(FILE *out, const char *cmd, const ks_timings *t, int64_t total_ns);

#endif
