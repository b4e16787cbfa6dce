/* validate/builtin.c: the registry of the built-in workload pairs, one per diagnosis of
 * `analyze`, with their size parameters and defaults. The CUDA implementations live in
 * validate/cuda/<pair>.cu, in libkinesift-cuda (ks_builtin_table, validate/nocuda.c, finds them
 * through the installed CUDA backend); without CUDA the registry still parses the command line (so that usage
 * errors are reported as such) and the tables are NULL. */
#include "kinesift/validate.h"
#include "common/optsyntax.h"
#include "validate/validate_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KIB INT64_C(1024)
#define MIB (KIB * 1024)
#define GIB (MIB * 1024)

static const ks_builtin_param constant_params[] = {
    {"bytes", 256 * KIB, 4, GIB, "size of the constant uploaded (bytes; k/M/G suffixes)"},
    {"uploads", 8, 1, 100000, "constants uploaded (and kernels using them) per step"},
};
static const ks_builtin_param small_params[] = {
    {"kernels", 64, 1, 100000, "small kernel launches per step"},
    {"elements", 65536, 1, GIB, "float elements each kernel touches"},
};
static const ks_builtin_param copy_params[] = {
    {"bytes", 64 * MIB, 1, 16 * GIB, "bytes per host-to-device copy (k/M/G suffixes)"},
    {"copies", 1, 1, 10000, "copies per step"},
};
static const ks_builtin_param sync_params[] = {
    {"ops", 32, 1, 100000, "kernel launches per step"},
    {"elements", 65536, 1, GIB, "float elements each kernel touches"},
};

static const char *const constant_variants[] = {"per-step", "hoisted"};
static const char *const small_variants[] = {"launches", "fused", "graph"};
static const char *const copy_variants[] = {"pageable", "pinned"};
static const char *const sync_variants[] = {"sync-each", "sync-once"};

static const ks_builtin builtins[] = {
    {"constant-upload", "a constant uploaded every step (per-step) vs once (hoisted)",
     "a small host-to-device copy of the same size repeated every step",
     constant_params, 2, constant_variants, 2},
    {"small-kernels",
     "many small kernel launches (launches) vs one fused kernel (fused) vs a CUDA graph "
     "replay (graph)",
     "many short kernels per step, launch-bound", small_params, 2, small_variants, 3},
    {"pageable-copy", "host-to-device copies from pageable (pageable) vs pinned (pinned) memory",
     "memcpy from pageable host memory", copy_params, 2, copy_variants, 2},
    {"sync-per-op", "a stream synchronise after every op (sync-each) vs one at the end (sync-once)",
     "a device or stream synchronise after many ops", sync_params, 2, sync_variants, 2},
};

const ks_builtin *ks_builtins(uint32_t *n)
{
    *n = sizeof builtins / sizeof builtins[0];
    return builtins;
}

const ks_builtin *ks_builtin_find(const char *name)
{
    uint32_t n;
    const ks_builtin *b = ks_builtins(&n);
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(b[i].name, name))
            return &b[i];
    return NULL;
}

int ks_builtin_params(const char *name, int n, const char *const *params, int64_t *out,
                      char *err, size_t errlen)
{
    const ks_builtin *b = ks_builtin_find(name);
    if (!b) {
        snprintf(err, errlen, "no built-in workload named %s", name);
        return -1;
    }
    for (uint32_t j = 0; j < b->nparams; j++)
        out[j] = b->params[j].def;
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(params[i], '=');
        size_t klen = eq ? (size_t)(eq - params[i]) : strlen(params[i]);
        uint32_t j = 0;
        while (j < b->nparams &&
               (strlen(b->params[j].name) != klen || strncmp(b->params[j].name, params[i], klen)))
            j++;
        if (j == b->nparams) {
            snprintf(err, errlen, "%s has no parameter '%.*s'", name, (int)klen, params[i]);
            return -1;
        }
        int64_t v;
        const ks_builtin_param *p = &b->params[j];
        if (!eq || ks_parse_size(eq + 1, &v) != 0 || v < p->min || v > p->max) {
            snprintf(err, errlen, "%s: --%s wants an integer from %lld to %lld, not '%s'", name,
                     p->name, (long long)p->min, (long long)p->max, eq ? eq + 1 : "");
            return -1;
        }
        out[j] = v;
    }
    return 0;
}
