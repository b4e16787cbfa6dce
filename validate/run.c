/* validate/run.c: one validation from start to verdict, for the CLI: a GPU workload (built-in
 * or plugin) measured with CUDA events between two read-only NVML snapshots, or a pair of
 * external commands; the result is added to the report with its comparisons. */
#include "kinesift/validate.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "validate/validate_int.h"

int ks_validate_workload(ks_vreport *r, const ks_workload *w, const char *source, int nparams,
                         const char *const *params, const uint32_t *arms, uint32_t narms,
                         ks_error *err)
{
    const char **names = ks_xmalloc(ks_mul(narms, sizeof *names));
    for (uint32_t a = 0; a < narms; a++)
        names[a] = w->variants[arms[a]];
    ks_vworkload *wl = ks_vreport_add(r, w->name, source, narms, names, nparams, params);
    free(names);
    ks_nvml_read(r->device.pci_bus_id, &wl->nvml_before);
    int rc = ks_cuda_measure(&r->opts, &r->device, w, nparams, params, arms, narms, &wl->run,
                             wl->check, &wl->flush_bytes, err);
    if (rc != KS_OK)
        return rc;
    ks_nvml_read(r->device.pci_bus_id, &wl->nvml_after);
    ks_vworkload_compare(wl, &r->params);
    return KS_OK;
}

int ks_validate_commands(ks_vreport *r, const char *const *cmds, uint32_t ncmds,
                         ks_error *err)
{
    /* the arms are named by role; the commands themselves are the parameters */
    static const char *const roles[] = {"baseline-cmd", "candidate-cmd"};
    if (ncmds != 2)
        return ks_error_set(err, "commands: exactly a baseline and a candidate");
    char *params[2];
    for (uint32_t i = 0; i < 2; i++)
        params[i] = ks_xasprintf("%s=%s", roles[i], cmds[i]);
    ks_vworkload *wl = ks_vreport_add(r, "commands", "commands", ncmds, roles, 2,
                                      (const char *const *)params);
    free(params[0]);
    free(params[1]);
    /* NVML, when present, describes the device the commands most likely used (index 0) */
    ks_nvml_read(NULL, &wl->nvml_before);
    if (ks_extcmd_run(&r->opts, cmds, ncmds, &wl->run, wl->check, err) != KS_OK)
        return KS_ERR;
    ks_nvml_read(NULL, &wl->nvml_after);
    ks_vworkload_compare(wl, &r->params);
    return KS_OK;
}
