/* analysis/calls.c: the runtime and driver calls of a trace counted by what they do (launches
 * and the rest, for the links line), from the name tables of vocab/calls.h. */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_int.h"
#include "common/util.h"
#include "vocab/calls.h"

void ks_calls_count(ks_analysis *a)
{
    const ks_trace *t = a->trace;
    size_t names = ks_strtab_count(t->strings);
    int8_t *kind = ks_xcalloc(names ? names : 1, 1); /* 0 unknown, else 1 + ks_launch_call_kind */
    a->links.launch_calls = a->links.other_runtime_calls = 0;
    const ks_track *tr;
    for (size_t k = 0; (tr = ks_track_next(t, KS_TRACK_CPU, &k)); k++) {
        for (size_t i = 0; i < tr->n; i++) {
            const ks_event *e = &tr->ev[i];
            if (!ks_kind_is_launch_api(e->kind) || (e->ph != 'X' && e->ph != 'B') || e->name >= names)
                continue;
            if (!kind[e->name])
                kind[e->name] = (int8_t)(1 + ks_launch_call_kind(ks_trace_str(t, e->name)));
            if (kind[e->name] > 1)
                a->links.launch_calls++;
            else
                a->links.other_runtime_calls++;
        }
    }
    free(kind);
}
