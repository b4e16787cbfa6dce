/* validate/plugin.c: user workloads as shared libraries (kinesift/workload.h): dlopen, the
 * entry point, and the checks of the table (ABI version and size, names, callbacks) before
 * anything of it is called. */
#include "kinesift/validate.h"

#include <dlfcn.h>
#include <string.h>

int ks_workload_check_table(const ks_workload *w, ks_error *err)
{
    if (!w)
        return ks_error_set(err, "the workload table is NULL");
    if (w->abi_version != KS_WORKLOAD_ABI_VERSION)
        return ks_error_set(err, "workload ABI version %u, this kinesift speaks version %u "
                                 "(rebuild the plugin against this kinesift/workload.h)",
                            w->abi_version, KS_WORKLOAD_ABI_VERSION);
    if (w->size < sizeof(ks_workload))
        return ks_error_set(err, "workload table of %u bytes, expected at least %zu (rebuild "
                                 "the plugin against this kinesift/workload.h)",
                            w->size, sizeof(ks_workload));
    if (!w->name || !*w->name)
        return ks_error_set(err, "the workload has no name");
    if (w->nvariants < 2 || !w->variants)
        return ks_error_set(err, "workload %s: at least two variants are needed (baseline and "
                                 "candidate), it declares %u",
                            w->name, w->nvariants);
    for (uint32_t i = 0; i < w->nvariants; i++)
        if (!w->variants[i] || !*w->variants[i])
            return ks_error_set(err, "workload %s: variant %u has no name", w->name, i);
    if (!w->run)
        return ks_error_set(err, "workload %s: no run() callback", w->name);
    if (!w->setup)
        return ks_error_set(err, "workload %s: no setup() callback", w->name);
    return KS_OK;
}

int ks_plugin_open(const char *path, ks_plugin *p, ks_error *err)
{
    memset(p, 0, sizeof *p);
    dlerror();
    p->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!p->handle) {
        const char *e = dlerror();
        return ks_error_set(err, "%s", e ? e : "cannot load the plugin");
    }
    void *sym = dlsym(p->handle, KS_WORKLOAD_ENTRY_NAME);
    if (!sym) {
        ks_plugin_close(p);
        return ks_error_set(err, "not a kinesift workload: no %s() exported (see "
                                 "kinesift/workload.h)",
                            KS_WORKLOAD_ENTRY_NAME);
    }
    ks_workload_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry); /* object pointer to function pointer, as POSIX allows */
    p->w = entry();
    if (ks_workload_check_table(p->w, err) != KS_OK) {
        ks_plugin_close(p);
        return KS_ERR;
    }
    return KS_OK;
}

void ks_plugin_close(ks_plugin *p)
{
    if (p->handle)
        dlclose(p->handle);
    memset(p, 0, sizeof *p);
}
