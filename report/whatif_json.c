/* report/whatif_json.c: the document of `kinesift whatif --format json` (kinesift/report.h):
 * the envelope {"schema": "kinesift.whatif/1", "version", "traces": [...]} around one trace
 * object per call, each written by report/whatif.c. The envelope is the writer's, so that the
 * command only picks this writer (cli/cmd_whatif.c). Who may use it: the CLI and library users. */
#include <stdlib.h>

#include "common/jsonw.h"
#include "common/util.h"
#include "kinesift/report.h"
#include "report/report_int.h"

struct ks_whatif_json {
    ks_jw w;
};

ks_whatif_json *ks_whatif_json_begin(FILE *out)
{
    ks_whatif_json *j = ks_xcalloc(1, sizeof *j);
    ks_jw_open(&j->w, out, 1);
    ks_jw_obj(&j->w);
    ks_jw_kstr(&j->w, "schema", "kinesift.whatif/1");
    ks_jw_kstr(&j->w, "version", ks_version());
    ks_jw_key(&j->w, "traces");
    ks_jw_arr(&j->w);
    return j;
}

void ks_whatif_json_add(ks_whatif_json *j, const ks_analysis *a, const ks_whatif *w, const ks_shrink *sh,
                        size_t nsh)
{
    ks_whatif_json_trace(&j->w, a, w, sh, nsh);
}

int ks_whatif_json_end(ks_whatif_json *j)
{
    ks_jw_end_arr(&j->w);
    ks_jw_end_obj(&j->w);
    int r = ks_jw_close(&j->w);
    fputc('\n', j->w.out);
    free(j);
    return r;
}
