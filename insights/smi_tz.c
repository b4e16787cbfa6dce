/* insights/smi_tz.c: ks_smi_set_tz (kinesift/insights.h), the one reading of a time zone given
 * as text for the nvidia-smi CSV: a fixed offset (analysis/window.c's ks_tz_parse) or else a
 * zone of the tz database (tzone.c's check). Why here: the rule belongs with the telemetry that
 * uses it, so the command only hands the text over. Who may use it: the CLI and library users. */
#include "common/optsyntax.h"
#include "insights/insights_int.h"
#include "kinesift/insights.h"

int ks_smi_set_tz(ks_smi_opts *o, const char *spec)
{
    ks_ns offset = 0;
    if (ks_tz_parse(spec, &offset) == 0) {
        o->tz_offset_ns = offset;
        o->tz_zone = NULL;
    } else if (ks_tz_zone_check(spec) == 0) {
        o->tz_zone = spec;
    } else {
        return -1;
    }
    o->tz_set = 1;
    return 0;
}
