/* validate/stop.c: when a measurement stops (validate_int.h, ks_vstop_decide): the one set of stop
 * rules for the protocol's arms (protocol.c) and the external commands (extcmd.c), in one order:
 * every arm at its target, every arm quiet (stdrel), one arm at the sample cap, the run cap, then
 * the time budget. Each sets ks_vrun's stop word and a sentence saying what was reached. */
#include <stdio.h>

#include "validate/validate_int.h"

int ks_vstop_decide(const ks_vopts *o, const ks_vstop_tally *t, ks_vrun *out)
{
    const char *who = t->who;
    if (t->done == t->narms) {
        snprintf(out->stop, sizeof out->stop, "target");
        if (t->min_runs)
            snprintf(out->stop_detail, sizeof out->stop_detail,
                     "every %s reached the target of %u kept samples in at least %u runs", who,
                     o->samples, o->min_runs);
        else
            snprintf(out->stop_detail, sizeof out->stop_detail,
                     "every %s reached the target of %u kept samples", who, o->samples);
        return 1;
    }
    if (t->quiet == t->narms) {
        snprintf(out->stop, sizeof out->stop, "stdrel");
        snprintf(out->stop_detail, sizeof out->stop_detail,
                 "every %s's relative stdev fell below %.2g %% after %.2g s of measured time "
                 "(%u kept samples at least)",
                 who, 100 * o->stdrel, (double)o->stdrel_min_ns / 1e9, t->least);
        return 1;
    }
    if (t->capped) {
        snprintf(out->stop, sizeof out->stop, "max-samples");
        snprintf(out->stop_detail, sizeof out->stop_detail, "a%s %s reached the cap of %u kept%s samples",
                 who[0] == 'a' ? "n" : "", who, o->max_samples,
                 t->cap_taken ? " (or twice as many taken)" : "");
        return 1;
    }
    if (t->maxruns) {
        snprintf(out->stop, sizeof out->stop, "max-runs");
        snprintf(out->stop_detail, sizeof out->stop_detail,
                 "%u runs per %s gave only %u kept samples in the smallest arm (target "
                 "%u): print more iterations per run, or lower --warmup-runs/--warmup-ms",
                 o->max_runs, who, t->least, o->samples);
        return 1;
    }
    if (t->timeout) {
        snprintf(out->stop, sizeof out->stop, "timeout");
        snprintf(out->stop_detail, sizeof out->stop_detail,
                 "the per-%s time budget of %.3g s ran out with %u kept samples in the "
                 "smallest arm: the target of %u was not met",
                 who, (double)o->timeout_ns / 1e9, t->least, o->samples);
        return 1;
    }
    return 0;
}
